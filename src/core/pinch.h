/*
 * pinch.h: the hold scene's model and its mirror-symmetric step (pinch.c), shared by
 * the run (hold.c) and the asymmetric step (noslip.c). Internal to the library.
 *
 * The scene is MuJoCo's: no floor, the object a free body at the origin, two box
 * pads on slide joints along x at -(R+HX) and +(R+HX), just touching, each pushed
 * toward the object by a motor with ctrl = F; gravity along -z, along the pads.
 * By the scene's mirror symmetry the constraint problem of one step reduces to two
 * unknowns (the object's vertical and the pads' joint acceleration); its exact
 * minimiser is found by enumerating the active sets (pyramidal cone) or the cone
 * zones (elliptic cone), which is what MuJoCo's Newton solver converges to. With
 * noslip_iterations > 0 MuJoCo's noslip sweeps break the mirror x -> -x, and the scene
 * is stepped in five coordinates instead (noslip.h).
 * docs/hold.md derives it. No allocation; core_pinch_prepare does the per-scene work.
 */
#ifndef CONTACTD_CORE_PINCH_H
#define CONTACTD_CORE_PINCH_H

#include <math.h>

#include "core/law.h"
#include "core/mjver.h"
#include "core/pair.h"
#include "core/scene.h"

/* The held object's shape (MJCF's geom types): a sphere (size[0] its radius), a capsule
 * lying along y (size[0] its radius, size[1] its segment's half-length; MJCF's
 * euler="90 0 0"), or an axis-aligned box (size[0..2] its half-sizes). */
enum core_hold_shape { CORE_HOLD_SPHERE, CORE_HOLD_CAPSULE, CORE_HOLD_BOX };

/* What pushes each pad: a motor of force grip_force (ctrl = grip_force, gear 1), or a
 * position servo: force kp (ctrl - q) - kv q', ctrl = squeeze, q the pad's joint
 * position from the touching pose, clamped to forcerange when forcelimited. */
enum core_hold_drive { CORE_HOLD_MOTOR, CORE_HOLD_POSITION };

/* Each pad's slide joint (MJCF's <joint> attributes; 0: MuJoCo's default, none). Its
 * frictionloss row takes MuJoCo's default solreffriction and solimpfriction. */
struct core_hold_joint {
	double damping;      /* N s/m, >= 0 */
	double armature;     /* kg, >= 0 */
	double frictionloss; /* N, >= 0 */
};

/* Each pad's actuator. */
struct core_hold_actuator {
	enum core_hold_drive type;
	double kp, kv;         /* position: N/m > 0 and N s/m >= 0 */
	double squeeze;        /* position: ctrl, m past the touching pose */
	int forcelimited;      /* position: 1 when forcerange clamps the force */
	double forcerange[2];  /* lo <= hi, N */
};

/*
 * An object (a free body, its centre at the origin) between two box pads on slide
 * joints along x, just touching it at the start, each pushed toward it by its actuator;
 * gravity pulls it along -z, along the pads' faces.
 * Requires: size (as shape reads it), mass, pad_size, pad_mass > 0; grip_force >= 0;
 * joint and actuator as documented at their structs; duration >= 0; slip_limit > 0;
 * noslip_iterations >= 0; the geoms and option as documented at their structs; and
 * core_hold_supported(h) == NULL. The time a call takes grows with noslip_iterations
 * and with the steps stepped (at most duration / option.timestep, usually far fewer: a
 * settled run's rest is summed in closed form).
 */
struct core_hold {
	enum core_hold_shape shape;
	double size[3];                  /* the object's, m: see enum core_hold_shape */
	double mass;                     /* the object's mass, kg */
	struct core_pair_geom object;    /* the object's geom */
	double pad_size[3];              /* the pads' box half-sizes HX, HY, HZ, m */
	double pad_mass;                 /* each pad's mass, kg */
	struct core_pair_geom pad;       /* the pads' geom */
	struct core_hold_joint joint;    /* each pad's slide joint */
	struct core_hold_actuator actuator; /* each pad's actuator */
	double grip_force;               /* the motor's force, N (actuator.type MOTOR) */
	struct core_scene_option option; /* its integrator: core_hold_supported's */
	int noslip_iterations;           /* MuJoCo's option: 0, or the noslip sweeps per step */
	double duration;                 /* s simulated */
	double slip_limit;               /* m of descent that counts as slipping */
};

/* The object's half-width along x, toward the pads: a sphere's or capsule's radius, a
 * box's size[0]. */
static inline double core_hold_half_width(const struct core_hold *h)
{
	return h->size[0];
}

/* The contacts MuJoCo makes between the object and one pad: a sphere 1, a capsule 2
 * (its segment's ends, or the pad's edges where it is longer), a box 4 (the corners of
 * the faces' overlap). */
static inline int core_hold_contacts_per_pad(const struct core_hold *h)
{
	return h->shape == CORE_HOLD_SPHERE ? 1 : h->shape == CORE_HOLD_CAPSULE ? 2 : 4;
}

/* The coordinates the asymmetric (noslip) step moves in: noslip.h */
#define CORE_PINCH_DOF 5

/* Everything one step needs, derived once. Plain data: copy freely. */
struct core_pinch_model {
	struct core_pair_contact contact;
	struct core_law_solimp solimp;
	struct core_law_gains gains;
	struct core_mjver_rules rules;
	enum core_cone cone;
	double mass;
	double pad_mass;  /* each pad joint's qM: the pad's mass plus the joint's armature */
	double a0_object; /* qacc_smooth of the object along z: gravity */
	double a0_pad;    /* qacc_smooth of each pad joint at rest at q = 0 (see core_pinch_drive) */
	int contacts;     /* contacts per pad (core_hold_contacts_per_pad): identical rows */
	/* the pads' drive: the motor's force, or the servo's (core_pinch_drive) */
	int position, forcelimited;
	double grip_force, kp, kv, squeeze, force_lo, force_hi;
	double damping; /* each pad joint's damping, N s/m */
	/* the pad's velocity derivative the integrator takes implicitly (MuJoCo's qDeriv):
	 * implicit_kv 1 when the servo's kv is among it (implicit, implicitfast, discrete) */
	int implicit_damping, implicit_kv;
	/* from 3.5.0 implicit and implicitfast drop a servo's velocity derivative while its
	 * force sits at a forcerange bound */
	int kv_dropped_at_bound;
	/* discrete: the constraint solve's metric is qM + h qDeriv (else qM, and the
	 * implicit part is applied after the solve) */
	int implicit_in_solve;
	int implicit_update; /* implicit(fast): the velocity always from the forces */
	/* the pads' frictionloss rows: one per pad joint, before the contacts */
	double floss, floss_R, floss_B; /* N; efc_R; the row's B (aref = -B v) */
	double tran;      /* summed body_invweight0 translation of object and pad */
	double impratio;
	double slide;     /* friction[0] = friction[1], the sliding coefficient */
	double rest_dist; /* the constant (R + HX) - HX - R arithmetic: see core_pinch_dist */
	double radius, half_x;
	int box;       /* the object is a box: box-box contacts (core_pinch_dist) */
	double box_hz; /* its half-height */
	/* the height past which the object's centre has left the pads' faces: HZ */
	double fall_z;
	double pad_margin, pad_gap; /* the pads' own, for when they meet each other */
	double obj_aamm, pad_aamm;  /* each geom's broadphase AAMM growth (sap_float_tie) */
	double timestep;
	/* MuJoCo 3.13.0+'s discrete integrator: each row's reference at the end of the step
	 * (core_law_discrete_gains; gains are then unclamped), its R0 divided by s and
	 * floored at R_floor; discrete_refsafe: refsafe replaces too-stiff rows */
	int discrete, discrete_refsafe;
	double R_floor;
	/* and, where the pads' forces enter its metric, scales each row's R by J M~^-1 J' /
	 * J qM^-1 J' (pinch.c, discrete_weight): the object's part of a contact's first row,
	 * row0_object + row0_px2 px^2 + row0_pz2 pz^2, px and pz the contact's distance from
	 * its centre across and along the pads' height */
	double row0_object, row0_px2, row0_pz2;
	int rows_per_pad; /* pyramidal: 2*(condim-1); elliptic: condim; frictionless: 1 */
	/* MuJoCo's Newton solver, replayed (newton.h) */
	int newton_era;       /* enum core_newton_era */
	int islands;          /* 3.5.0+ without noslip: the solver runs per constraint island */
	double inertia_trace; /* the trace of the object's body_inertia: the solver's scale */
	/* the asymmetric (noslip) step: docs/hold.md */
	double inertia;     /* the sphere's body_inertia, 2/5 m R^2 */
	double meaninertia; /* MuJoCo's stat.meaninertia: the mean of qM's diagonal */
	int noslip_iterations;
	double noslip_tolerance;
	/* per coordinate of that step (object x, z, rotation about y, left pad, right
	 * pad), set once here rather than every step: qM's diagonal, its inverse and
	 * qacc_smooth */
	double dof_mass[CORE_PINCH_DOF], dof_inv_mass[CORE_PINCH_DOF];
	double dof_accel0[CORE_PINCH_DOF];
};

/* The pads' drive at joint position q, speed vq: its force (motor or servo, clamped to
 * forcerange) and whether a servo's force sits at a bound (*clamped). */
static inline double core_pinch_drive(
    const struct core_pinch_model *m, double q, double vq, int *clamped)
{
	double f;

	*clamped = 0;
	if (!m->position)
		return m->grip_force;
	f = m->kp * m->squeeze + (-m->kp * q + -m->kv * vq);
	if (m->forcelimited && !(f > m->force_lo && f < m->force_hi)) {
		*clamped = 1;
		f = f < m->force_lo ? m->force_lo : f > m->force_hi ? m->force_hi : f;
	}
	return f;
}

/* The constraint state of one step (one pad; the other is its mirror image). */
struct core_pinch_step_state {
	int active;        /* the contact has rows: dist < includemargin */
	double imp, K, B;  /* efc_KBIP of the contact */
	int replaced;      /* discrete: K, B are refsafe's replacement (core_law_discrete_gains) */
	double R_normal;   /* efc_R of the first row (pyramid: every row) */
	double R_friction; /* efc_R of the tangential rows */
	double accel_object;   /* qacc of the object along z */
	double accel_pad;      /* qacc of each pad joint (toward the object) */
	double normal_force;   /* the pad's normal force, N */
	double friction_force; /* the pad's vertical friction force on the object, N (up > 0) */
};

/* The state of the scene: the object's height and the pads' joint position. */
struct core_pinch_state {
	double z, vz; /* the object's centre height (qpos[2]) and vertical speed */
	double q, vq; /* each pad's joint position (its penetration, from touching) and speed */
	double qacc_warm[2]; /* the previous step's qacc (object z, pad joint): Newton's warmstart */
	int replaced;        /* discrete: refsafe replaced the previous step's rows */
};


/* The rows of one pad at one state, in the reduced coordinates. */
struct core_pinch_rows {
	int elliptic, plain; /* plain: pyramid rows with J = (0, -1) */
	double f, D, Dt;     /* sliding friction; D of the (normal) rows; D of the z tangent row */
	/* discrete: a box's lower contacts, clipped by the pads' edge, weigh apart: half of
	 * the n contacts take D2 and Dt2 instead (pinch.c, discrete_weigh_rows) */
	int halves;
	double D2, Dt2;
	double mu;           /* the regularised cone's mu (elliptic) */
	double aref_n;       /* aref of the rows with J = (0, -1) */
	double aref_p, aref_m; /* pyramid: the z pair's rows J = (-f,-1), (f,-1) */
	double aref_t;         /* elliptic: the z tangent row, J = (-1, 0) */
	int active;            /* the contacts have rows (dist < includemargin) */
	double n;              /* contacts per pad: each of the rows above n times */
	/* the step's pad metric (qM, or discrete's qM + h qDeriv) and qacc_smooth */
	double Mp, a0p;
	/* the pad joint's frictionloss row, J = (0, 1): its bound (0: no row), D = 1/R
	 * and aref */
	double floss, floss_D, floss_R, aref_f;
};

/* The part of a state's rows that depends only on the contact distance (impedance,
 * R, D, mu): the pads settle to a repeating distance, where it is reused (the same
 * inputs give the same numbers). */
struct core_pinch_cache {
	int valid;
	double dist;
	struct core_pinch_rows r; /* every field but the arefs */
	double spring, imp, R0;
	/* the row's gains (discrete: per distance), K*imp, s and the elliptic tangent's
	 * 1 + h*B */
	double K, B, Kimp, s, sB;
	int replaced;                         /* discrete: K, B are refsafe's replacement */
};

/* Derive the model of a validated, supported scene. */
void core_pinch_prepare(const struct core_hold *h, struct core_pinch_model *m);

/* The contact's signed distance at pad joint position q, with MuJoCo's arithmetic. */
static inline double core_pinch_dist(const struct core_pinch_model *m, double q)
{
	/* the right pad's centre is at (R+HX) - q; sphere-box (and capsule-box, from the
	 * segment's end) measures from the clamped face point, -HX + x, and subtracts the
	 * radius. Box-box (3.12.0's mjc_BoxBox, faces aligned) takes the face whose
	 * separation is larger and reports the other's: the smaller of the two orders of
	 * subtraction, which at the touching start can be an ulp below 0 */
	double x = m->rest_dist - q;

	if (m->box) {
		double object_face = (x - m->radius) - m->half_x, pad_face = (x - m->half_x) - m->radius;

		return object_face < pad_face ? object_face : pad_face;
	}
	return fabs(-m->half_x + x) - m->radius;
}

/* 1 when the pads at joint position q have left the two-face-contact scene: their
 * inner faces, 2*(R - q) apart, are within twice their margin + gap of each other
 * (or past the object's centre), where MuJoCo's pads collide with each other. */
static inline int core_pinch_crushed(const struct core_pinch_model *m, double q)
{
	/* the pads' inner faces are 2*(R - q) apart; within their own margin and gap they
	 * meet each other (the pair's margin is the max or, from 3.5.0, the sum) */
	return !(2 * (m->radius - q) > 2 * (m->pad_margin + m->pad_gap));
}

/*
 * 1 when MuJoCo's broadphase pairs the object (centre x on the x axis) with the pad of
 * side (0 left, 1 right) whose centre is at pad: always, but in 3.8.0-3.13.0
 * (sap_float_tie), where mj_SAP sorts the bodies' AAMM ends along x as float32 and
 * pairs two touching bodies only when the later body's min is stored before the
 * earlier body's max. Body order object, left, right: the left pad's equal ends pair,
 * the right pad's do not. Exact while the broadphase frame is the identity (the
 * bodies' centres on the x axis, as at the start); docs/hold.md, "Releases".
 */
static inline int core_pinch_paired(
    const struct core_pinch_model *m, int side, double x, double pad)
{
	double R = m->radius, hx = m->half_x;

	if (!m->rules.sap_float_tie)
		return 1;
	if (side == 0)
		return (float)((x - R) - m->obj_aamm) <= (float)((pad + hx) + m->pad_aamm);
	return (float)((pad - hx) - m->pad_aamm) < (float)((x + R) + m->obj_aamm);
}

/* 1 when the start's contacts are not the mirror-symmetric pair: the pads' contact has
 * rows (dist < includemargin) but the broadphase pairs only one pad (or none) with the
 * object (core_pinch_paired). The run then steps the asymmetric scene (noslip.h), which
 * follows the one-pad first step. */
int core_pinch_start_asymmetric(const struct core_pinch_model *m);

/* The start: object at rest at the origin, pads just touching and at rest. */
void core_pinch_start(struct core_pinch_state *s);

/* One mj_step of the scene from *s (Euler; or the discrete integrator's rows, whose
 * step is Euler's: the pads have no joint damping or stiffness, so its metric is M).
 * st may be NULL. */
void core_pinch_step(
    const struct core_pinch_model *m, struct core_pinch_state *s, struct core_pinch_step_state *st);

/* core_pinch_step with the rows of the last distance kept in *cache (zero it, or set
 * its valid to 0, before the first step): the run's loop, where the pads settle to a
 * repeating distance. The same numbers as core_pinch_step. */
void core_pinch_step_cached(const struct core_pinch_model *m, struct core_pinch_state *s,
    struct core_pinch_step_state *st, struct core_pinch_cache *cache);

/* The pads' steady grip: the actuator's force on pads at rest where the contacts' rows
 * balance it (a motor's: grip_force). Returns 0 and fills *force, or -1 when no such rest
 * exists (condim or solref give no spring). */
int core_pinch_rest_force(const struct core_pinch_model *m, double *force);

/*
 * core_pinch_steady: the steady creep in closed form: the pads at rest at the
 * penetration where their rows balance F, the object descending at the speed where
 * the friction rows balance m*g. Returns 0 and fills *creep (m/s, downward > 0),
 * *penetration and *normal_force, or -1 when no steady state of that form exists
 * (the object does not settle to a creep: it slips away or the rows change zone).
 * Under the discrete integrator the rows' aref is the end-of-step one: a spring row's
 * velocity enters as (B + h K imp) / s, its violation as K imp / s, an elliptic
 * friction row's as B / (1 + h B); R is the discrete one.
 */
int core_pinch_steady(
    const struct core_pinch_model *m, double *creep, double *penetration, double *normal_force);

#endif
