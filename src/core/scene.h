/*
 * scene.h: a sphere or a flat box on a plane, reduced to MuJoCo's exact 1-D
 * contact equations (spec §9), and one integrator step of it.
 *
 * core_scene_prepare() does all per-scene work once (parameter combination, refsafe,
 * gains, inverse weight); core_scene_accel() and core_scene_step() are the hot path and
 * neither allocate nor fail.
 * The public part (the scene, its option and their defaults) is declared in contactd.h.
 */
#ifndef CONTACTD_CORE_SCENE_H
#define CONTACTD_CORE_SCENE_H

#include "core/law.h"
#include "core/pair.h"

enum core_scene_shape { CORE_SCENE_SPHERE, CORE_SCENE_BOX };

/* MuJoCo's integrators. For these scenes implicit and implicitfast step exactly like
 * Euler (MuJoCo differentiates only smooth forces, never constraint forces). DISCRETE
 * (MuJoCo 3.13.0+, option integrator="discrete") evaluates each contact row's reference
 * spring at the end of the step and, with refsafe, replaces a row with
 * timestep^2 K imp > 1 instead of clamping timeconst (docs/releases.md). */
enum core_scene_integrator {
	CORE_SCENE_EULER,
	CORE_SCENE_IMPLICIT,
	CORE_SCENE_IMPLICITFAST,
	CORE_SCENE_RK4,
	CORE_SCENE_DISCRETE
};

/* MuJoCo's friction cones (option cone). */
enum core_cone { CORE_CONE_PYRAMIDAL, CORE_CONE_ELLIPTIC };

/* MuJoCo's <option> attributes that matter here. */
struct core_scene_option {
	double timestep; /* s, > 0 */
	int refsafe;     /* 1: solref's timeconst is raised to at least 2 * timestep */
	double gravity;  /* m/s^2, the magnitude along -z */
	double impratio; /* > 0 */
	enum core_scene_integrator integrator;
	int mujoco;         /* the release whose rules apply: a valid core_mjver index */
	enum core_cone cone; /* zero: pyramidal, MuJoCo's default */
};

/* Fill o with MuJoCo's option defaults: timestep 0.002 s, refsafe on, gravity 9.81,
 * impratio 1, Euler, pyramidal, and the default release (core_mjver_default). */
void core_scene_option_default(struct core_scene_option *o);

/*
 * A body on a plane: a sphere (radius size[0]) or a box (half-sizes size[0..2], flat
 * on the plane, size[2] along z) of the given mass, whose lowest point starts at rest
 * at `height` above the plane.
 * Requires: size > 0, mass > 0, height >= 0, duration >= 0, both geoms' condim 1, 3,
 * 4 or 6, option as documented there. The time a call takes grows with
 * duration / option.timestep (its steps).
 */
struct core_scene {
	enum core_scene_shape shape;
	double size[3];             /* m: sphere radius in size[0]; box half-sizes */
	double mass;                /* kg */
	struct core_pair_geom geom;  /* the body's geom */
	struct core_pair_geom floor; /* the plane's geom */
	struct core_scene_option option;
	double height;   /* m, the lowest point's initial height above the plane */
	double duration; /* s simulated */
};


/* Everything core_scene_accel needs, derived once from a scene. Plain data: copy freely. */
struct core_scene_model {
	struct core_pair_contact contact;
	struct core_law_solimp solimp;
	struct core_law_gains gains;
	double mass;
	double tran;     /* body_invweight0 translational part, (a+a+a)/3 with a = 1/m */
	double a0;       /* qacc_smooth along z: -(m*g)*(1/m) */
	double qfrc;     /* qfrc_smooth along z: -m*g */
	double diag_raw; /* raw efc_diagApprox of the first row of a contact */
	double impratio;
	double friction0;     /* friction[0], for the pyramid's R */
	double pyramid_scale; /* 2*mu*mu when impratio == 1 (mu == friction0 exactly), else 0 */
	double half_height;   /* centre to lowest point */
	double timestep;
	enum core_scene_integrator integrator;
	struct core_mjver_rules rules;
	double certificate_scale; /* the solver's 1 / trace(M): the free body's 3m + I1 + I2 + I3 */
	int contacts;             /* 1 (sphere) or 4 (box corners) */
	int rows_per_contact;     /* 1 (condim 1), 2*(condim-1) (pyramidal) or condim (elliptic) */
	int rows;                 /* contacts * rows_per_contact: MuJoCo's nefc */
	/* the rows that push the body up: every row of a pyramid, the normal row of an
	 * elliptic contact (its friction rows carry no force in these scenes) */
	int normal_rows;
	enum core_cone cone;
	/* the discrete integrator (3.13.0+): gains are unclamped (discrete_refsafe replaces
	 * too-stiff rows per step instead), and R0 never falls below R_floor, the R of
	 * MuJoCo's largest impedance: max(mjMINVAL, (1 - mjMAXIMP) diag_raw / mjMAXIMP) */
	int discrete;
	int discrete_refsafe;
	double R_floor;
};

/* One step's constraint state, for reporting. */
struct core_scene_contact_state {
	int active;          /* rows exist (dist < includemargin) */
	int replaced;        /* discrete: refsafe replaced the rows (K, B are K', B') */
	double K, B;         /* efc_KBIP[0..1] of the normal rows */
	double impedance;    /* imp of every row */
	double row_R;        /* efc_R of the normal rows (every row of a pyramid) */
	double aref;         /* efc_aref of every row */
	double accel;        /* resulting qacc along z */
	double normal_force; /* total normal force, N: m*(a - a0) */
};

/* Derive the model of a validated scene. Never fails on a validated scene. */
void core_scene_prepare(const struct core_scene *s, struct core_scene_model *m);

/* The R of a normal row at impedance imp (efc_R, after the pyramid adjustment; under
 * the discrete integrator its R, divided by the row's s and floored). */
double core_scene_row_R(const struct core_scene_model *m, double imp);

/* efc_R of row j (0 <= j < rows_per_contact) of a contact at impedance imp: the
 * normal row's R, or for an elliptic contact's friction rows (j > 0) R0/impratio
 * scaled by (friction[0]/friction[j-1])^2, as mj_makeImpedance sets them. */
double core_scene_cone_R(const struct core_scene_model *m, double imp, int j);

/* Vertical acceleration (qacc along z) of the body whose centre is at height z
 * (MuJoCo's qpos[2]) moving at vertical speed vel. state may be NULL. */
double core_scene_accel(
    const struct core_scene_model *m, double z, double vel, struct core_scene_contact_state *state);

/* One semi-implicit Euler step (the lesson's semi_implicit_euler): the speed
 * first, v += accel*h, then the position with the new speed, x += h*v. Inline:
 * it is every step of every simulation. */
static inline void core_scene_euler(double *x, double *v, double accel, double h)
{
	*v += accel * h;
	*x += h * *v;
}

/* Advance the centre height z and vertical speed vel by one step of the model's
 * integrator, as mj_step does for this scene with the exact solver minimum. */
void core_scene_step(const struct core_scene_model *m, double *z, double *vel);

/*
 * core_scene_step_warm: core_scene_step with MuJoCo's warmstart: *qacc_warmstart is the
 * previous step's qacc (0 at the start, as mj_resetData leaves it) and is
 * replaced by this step's. Under 3.11.0+ rules an Euler-family step keeps the
 * solver's starting point when the Newton certificate accepts it, as MuJoCo does;
 * otherwise (earlier rules, RK4) it is core_scene_step.
 */
void core_scene_step_warm(
    const struct core_scene_model *m, double *z, double *vel, double *qacc_warmstart);

/* 1 when MuJoCo detects a contact (rows or not) with the body's lowest point at
 * signed distance dist from the plane: dist <= margin (+ gap from 3.9.0). */
int core_scene_detected(const struct core_scene_model *m, double dist);

/* Total normal force (N) of all rows at rest (vel = 0) when the contact is
 * violated by `violation` = includemargin - dist >= 0: sum over rows of
 * D*K*imp*violation. Increasing in violation; zero at 0. */
double core_scene_rest_force(const struct core_scene_model *m, double violation);

#endif
