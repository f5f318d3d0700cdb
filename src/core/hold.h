/*
 * hold.h: a sphere pinched between two box pads, as MuJoCo computes it: its creep
 * and slip under gravity while the pads' motors press it (the `hold` question).
 *
 * The scene is MuJoCo's: no floor, the object a free body at the origin, two box
 * pads on slide joints along x at -(R+HX) and +(R+HX), just touching, each pushed
 * toward the object by a motor with ctrl = F; gravity along -z, along the pads.
 * By the scene's mirror symmetry the constraint problem of one step reduces to two
 * unknowns (the object's vertical and the pads' joint acceleration); its exact
 * minimiser is found by enumerating the active sets (pyramidal cone) or the cone
 * zones (elliptic cone), which is what MuJoCo's Newton solver converges to. With
 * noslip_iterations > 0 MuJoCo's noslip sweeps break the mirror x -> -x, and the scene
 * is stepped in five coordinates instead (ctd_hold_noslip_step).
 * docs/hold.md derives it. No allocation; ctd_hold_prepare does the per-scene work.
 */
#ifndef CONTACTD_CORE_HOLD_H
#define CONTACTD_CORE_HOLD_H

#include "core/law.h"
#include "core/pair.h"
#include "core/scene.h"

/* The coordinates the asymmetric (noslip) step moves in: ctd_hold_noslip_step */
#define CTD_HOLD_NOSLIP_DOF 5

/* A validated hold request. */
struct ctd_hold {
	double radius;                  /* the sphere's radius, m */
	double mass;                    /* the object's mass, kg */
	struct ctd_pair_geom object;    /* the object's geom */
	double pad_size[3];             /* the pads' box half-sizes HX, HY, HZ, m */
	double pad_mass;                /* each pad's mass, kg */
	struct ctd_pair_geom pad;       /* the pads' geom */
	double grip_force;              /* each motor's force F, N */
	struct ctd_scene_option option; /* timestep, refsafe, gravity, impratio, cone, mujoco */
	int noslip_iterations; /* MuJoCo's option: 0, or the noslip sweeps after each solve */
	double duration;       /* simulated seconds */
	double slip_limit;     /* descent that counts as slipping, m */
};

/* Everything one step needs, derived once. Plain data: copy freely. */
struct ctd_hold_model {
	struct ctd_pair_contact contact;
	struct ctd_law_solimp solimp;
	struct ctd_law_gains gains;
	struct ctd_mjver_rules rules;
	enum ctd_cone cone;
	double mass, pad_mass;
	double a0_object; /* qacc_smooth of the object along z: gravity */
	double a0_pad;    /* qacc_smooth of each pad joint: F / MP */
	double tran;      /* summed body_invweight0 translation of object and pad */
	double impratio;
	double slide;     /* friction[0] = friction[1], the sliding coefficient */
	double rest_dist; /* the constant (R + HX) - HX - R arithmetic: see ctd_hold_dist */
	double radius, half_x, half_z;
	double pad_margin, pad_gap; /* the pads' own, for when they meet each other */
	double timestep;
	int rows_per_pad; /* pyramidal: 2*(condim-1); elliptic: condim; frictionless: 1 */
	/* the asymmetric (noslip) step: docs/hold.md */
	double inertia;     /* the sphere's body_inertia, 2/5 m R^2 */
	double meaninertia; /* MuJoCo's stat.meaninertia: the mean of qM's diagonal */
	int noslip_iterations;
	double noslip_tolerance;
	/* per coordinate of that step (object x, z, rotation about y, left pad, right
	 * pad), set once here rather than every step: qM's diagonal, its inverse and
	 * qacc_smooth */
	double dof_mass[CTD_HOLD_NOSLIP_DOF], dof_inv_mass[CTD_HOLD_NOSLIP_DOF];
	double dof_accel0[CTD_HOLD_NOSLIP_DOF];
};

/* The constraint state of one step (one pad; the other is its mirror image). */
struct ctd_hold_step_state {
	int active;            /* the contact has rows: dist < includemargin */
	double imp, K, B;      /* efc_KBIP of the contact */
	double R_normal;       /* efc_R of the first row (pyramid: every row) */
	double R_friction;     /* efc_R of the tangential rows */
	double accel_object;   /* qacc of the object along z */
	double accel_pad;      /* qacc of each pad joint (toward the object) */
	double normal_force;   /* the pad's normal force, N */
	double friction_force; /* the pad's vertical friction force on the object, N (up > 0) */
};

/* The state of the scene: the object's height and the pads' joint position. */
struct ctd_hold_state {
	double z, vz; /* the object's centre height (qpos[2]) and vertical speed */
	double q, vq; /* each pad's joint position (its penetration, from touching) and speed */
	double qacc_warm[2]; /* the previous step's qacc (object z, pad joint) */
	int piece;           /* the previous step's active set or cone zone; -1: none */
};

/* The state of the asymmetric scene that noslip makes: MuJoCo's noslip sweeps the
 * two contacts one after the other, so the pads' friction forces differ, the object
 * turns about y and its state leaves the mirror x -> -x (it keeps y -> -y). */
struct ctd_hold_noslip_state {
	double x, vx;      /* the object's centre along x (qpos[0]) and speed */
	double z, vz;      /* ... along z (qpos[2]) */
	double wy;         /* its angular velocity about y (qvel[4]) */
	double qL, vqL;    /* the left pad's joint (axis +x) */
	double qR, vqR;    /* the right pad's joint (axis -x) */
	double qacc[5];    /* the last step's (ax, az, alpha_y, aL, aR): the solver's start */
	int noslip_sweeps; /* the sweeps the last step's noslip ran */
};

/* The answers. */
struct ctd_hold_answer {
	double creep_velocity;    /* steady downward speed, m/s (>= 0 when descending) */
	int creep_closed_form;    /* 1: from the steady-state equations; 0: end of the step loop */
	double slip;              /* descent after duration, m (step for step) */
	double normal_force;      /* per pad, steady (the pad's force balance), N */
	double penetration;       /* steady pad penetration, m */
	double load;              /* m*g, N */
	double friction_capacity; /* 2*mu*N with mu the contact's sliding friction, N */
	int holds;                /* Coulomb: load < friction_capacity */
	double time_to_slip;      /* s, first step whose descent >= slip_limit; <0: never */
	int time_to_slip_extrapolated; /* 1: beyond duration, from the steady creep */
	int falls;                     /* the object's centre left the pads' faces (|z| > HZ) */
	double fall_time;              /* s, when it did; < 0 when it did not */
	/* the pads' faces reached the object's centre, or each other's margin
	 * (ctd_hold_crushed): past there MuJoCo's pinch is no longer two face contacts,
	 * and no other answer is meaningful */
	int crushed;
	long steps;        /* steps simulated */
	long stepped;      /* of them, steps computed one by one (the rest summed in closed form) */
	int creep_settled; /* the step loop settled to a constant speed (else: its mean speed) */
	/* 0: the run's outcome (slip, its times, falls, creep) moves by more than
	 * CTD_HOLD_REPRODUCE_REL when the pads start CTD_HOLD_SHADOW_NUDGE of the radius
	 * away: MuJoCo's own does too, and none of them is an answer */
	int reproducible;
	long creep_steps;     /* steps from the start after which creep_velocity was read */
	int refsafe_clamped;  /* solref's time constant was raised to 2*timestep */
	int solref_fell_back; /* a mixed-sign solref was replaced by (0.02, 1) */
	int friction_clamped; /* a friction coefficient was raised to mjMINMU */
};

/* Fill h with the hold request's defaults (src/tunables.h): issue 21's measured scene, a
 * 2 cm, 100 g sphere (MuJoCo's geom defaults) between 5 x 20 x 200 mm, 50 g pads of
 * Menagerie's SO-101 gripper class at 10 N, pyramidal, the default release. */
void ctd_hold_default(struct ctd_hold *h);

/* Why a scene is not answered: NULL when it is, else a static sentence. The core
 * reproduces MuJoCo only where its reduction is exact (docs/hold.md). */
const char *ctd_hold_supported(const struct ctd_hold *h);

/* Derive the model of a validated, supported scene. */
void ctd_hold_prepare(const struct ctd_hold *h, struct ctd_hold_model *m);

/* The contact's signed distance at pad joint position q, with MuJoCo's arithmetic. */
double ctd_hold_dist(const struct ctd_hold_model *m, double q);

/* One mj_step of the scene from *s (Euler). st may be NULL. */
void ctd_hold_step(
    const struct ctd_hold_model *m, struct ctd_hold_state *s, struct ctd_hold_step_state *st);

/* 1 when the pads at joint position q have left the two-face-contact scene: their
 * inner faces, 2*(R - q) apart, are within twice their margin + gap of each other
 * (or past the object's centre), where MuJoCo's pads collide with each other. */
int ctd_hold_crushed(const struct ctd_hold_model *m, double q);

/* The start: object at rest at the origin, pads just touching and at rest. */
void ctd_hold_start(struct ctd_hold_state *s);

/*
 * ctd_hold_steady: the steady creep in closed form: the pads at rest at the
 * penetration where their rows balance F, the object descending at the speed where
 * the friction rows balance m*g. Returns 0 and fills *creep (m/s, downward > 0),
 * *penetration and *normal_force, or -1 when no steady state of that form exists
 * (the object does not settle to a creep: it slips away or the rows change zone).
 */
int ctd_hold_steady(
    const struct ctd_hold_model *m, double *creep, double *penetration, double *normal_force);

/* The start of the asymmetric scene: as ctd_hold_start. */
void ctd_hold_noslip_start(struct ctd_hold_noslip_state *s);

/*
 * ctd_hold_noslip_step: one mj_step of the scene in the five coordinates it moves in
 * (object x, z, rotation about y, both pads), for any noslip_iterations: MuJoCo's
 * constraint rows of both contacts from the asymmetric sphere-box geometry, the
 * exact minimiser of the main solver's convex cost (Newton with exact line search),
 * then m->noslip_iterations of MuJoCo's noslip sweeps (contact by contact, pyramid
 * edge pairs with their sum fixed, the elliptic friction block's QCQP), then Euler.
 */
void ctd_hold_noslip_step(const struct ctd_hold_model *m, struct ctd_hold_noslip_state *s);

/* All answers of a validated, supported scene. Never fails. */
void ctd_hold_solve(const struct ctd_hold *h, struct ctd_hold_answer *out);

#endif
