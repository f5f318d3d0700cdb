/*
 * sim.h: the lesson's experiments on a scene: rest and drop, and the calibration's press.
 * The public part (the answers' structs and core_sim_rest_scene, core_sim_drop_scene) is declared in
 * contactd.h.
 */
#ifndef CONTACTD_CORE_SIM_H
#define CONTACTD_CORE_SIM_H

#include <stddef.h>

#include "core/scene.h"

/* The rest of a body on the plane. Penetrations are m, positive into the plane. */
struct core_sim_rest {
	int has_equilibrium;        /* 0 when no force can hold the body (e.g. zero stiffness) */
	double penetration;         /* the exact equilibrium penetration (0 when none) */
	double settled_penetration; /* the penetration after `duration` of stepping */
	double impedance;           /* MuJoCo's impedance d at the equilibrium, in (0, 1) */
	double K;                   /* the reference spring's stiffness, 1/s^2 */
	double B;                   /* its damping, 1/s */
	double timeconst_used;      /* s, solref[0] after refsafe; 0 for a direct solref */
	int contacts;               /* contact points: 1 (sphere) or 4 (box corners) */
	int rows;                   /* constraint rows: MuJoCo's nefc */
	/* discrete only: 1 when refsafe replaced the rows at the equilibrium
	 * (timestep^2 K imp > 1); K and B are then the replacement K' = 1/(h^2 imp) and
	 * B' = B/sqrt(h^2 K imp). Always 0 under the other integrators. */
	int refsafe_replaced;
};

/* The drop of a body onto the plane. Heights are of the lowest point, m. */
struct core_sim_drop {
	double peak_penetration;  /* the deepest penetration over all steps */
	double rebound;           /* the highest point after the first penetrating step, >= 0 */
	double max_height;        /* the highest point over all steps */
	double jitter;            /* population std of the height over the last 0.5 s */
	double final_penetration; /* the penetration after the last step */
	int energy_gain;          /* 1: the rebound is higher than the drop height */
	long steps;               /* steps simulated: round(duration / timestep) */
	/* The first bounce's apex (the calibration's rebound, issue #29): the highest point
	 * after the first penetrating step up to the step after the apex, once the body has
	 * left the pad (risen above max(0, includemargin)); >= 0, 0 if it never leaves. A
	 * later bounce may be higher (rebound then is). */
	double first_rebound;
};

/*
 * A drop's height over time, decimated to at most cap points: the start (t = 0), then
 * for each bucket of consecutive steps its lowest and highest sample in time order,
 * then the last step; every extreme is kept (the lowest z is -peak_penetration). The
 * caller owns the arrays t (s) and z (m), cap >= 4 entries each; count is set to the
 * points written.
 */
struct core_sim_trace {
	double *t, *z;
	size_t cap;
	size_t count;
};

/* The equilibrium and the settling of scene->body placed at scene->height, stepped
 * for scene->duration. Fills *out; never fails (no equilibrium: has_equilibrium 0).
 * Requires a scene as documented at struct core_scene. */
void core_sim_rest_scene(const struct core_scene *scene, struct core_sim_rest *out);

/* The drop of scene's body from rest at scene->height for scene->duration, as MuJoCo's
 * mj_step steps it. Fills *out and, unless trace is NULL, *trace. Never fails.
 * Requires a scene as documented at struct core_scene. */
void core_sim_drop_scene(
    const struct core_scene *scene, struct core_sim_drop *out, struct core_sim_trace *trace);

/* Number of steps in `duration` at `timestep`: round(duration / timestep). */
long core_sim_step_count(double duration, double timestep);

/* Simulate from rest at `height` for `duration`; fill out. No allocation. */
void core_sim_drop(
    const struct core_scene_model *m, double height, double duration, struct core_sim_drop *out);

/* core_sim_drop(), also recording the trajectory into trace (NULL: none) in the same loop. */
void core_sim_drop_trace(const struct core_scene_model *m, double height, double duration,
    struct core_sim_drop *out, struct core_sim_trace *trace);

/* Solve the equilibrium and simulate settling from `height` (0 = touching). */
void core_sim_rest(
    const struct core_scene_model *m, double height, double duration, struct core_sim_rest *out);

/* Equilibrium penetration of the scene under a total downward force `load` (N)
 * at rest; returns 0 and fills *penetration, or -1 when none exists. */
int core_sim_equilibrium(const struct core_scene_model *m, double load, double *penetration);

/*
 * A drop's free fall, stepped once: the state after its first `steps` steps from rest at
 * `height`, every one of them contact-free (the object above the pad's includemargin before
 * the step) and ending above the pad (bottom >= 0), with the drop's running extremes. The
 * fall does not depend on the pad's solref, solimp or friction: one fall serves every pad of
 * a fit. core_lanes_drop_array() starts a point there, with the same bits as stepping it.
 */
struct core_sim_start {
	/* what the fall depends on, as it was computed (core_sim_start_fits()) */
	double height, half_height, includemargin, timestep, a0;
	int integrator, certificate;
	long steps;          /* steps done; 0: the drop starts at rest */
	double z, vel, warm; /* the state after them (centre height, speed, warmstart) */
	double peak, max_height, bottom; /* sim.c's running -bottom maximum, bottom maximum, last */
};

/*
 * The free fall of a drop from height on m into *out, at most `limit` steps (0 for the RK4
 * integrator, whose stages the check does not follow, and for no limit left). No allocation.
 */
void core_sim_fall(
    const struct core_scene_model *m, double height, long limit, struct core_sim_start *out);

/* Does s (core_sim_fall()'s) hold the fall of a drop from height on m? Its fields compared bit
 * for bit with m's. */
int core_sim_start_fits(
    const struct core_sim_start *s, const struct core_scene_model *m, double height);

/* The steps of a drop of duration on m's timestep from which sim.c's jitter window starts:
 * a start must stop before it (the window's statistics are not carried). */
long core_sim_first_jitter(const struct core_scene_model *m, double duration);

/*
 * A press (issue #29), as a lab runs it in MuJoCo: the body at rest with its lowest point on
 * the plane (bottom 0, speed 0: mj_resetData of a body placed touching), a constant
 * downward force applied from the first step so that the total downward force on it is
 * `force` (N, its weight included: xfrc_applied = -(force - m*g)), stepped as mj_step
 * steps it. The depth is the mean penetration (-bottom) over the last `window` seconds
 * (round(window / timestep) steps, at least one) of `duration` seconds (round(duration /
 * timestep) steps). A pad that dissipates little never settles under such a press: the
 * body keeps hopping, and its mean depth lies far beyond the equilibrium's.
 */
struct core_sim_press {
	double depth;  /* m, mean penetration over the window */
	double spread; /* m, population standard deviation of the penetration over the window */
	double peak;   /* m, the deepest penetration over all steps */
	double lift;   /* m, the highest the lowest point rose above the plane, >= 0 */
	long period;   /* steps after which the state repeats bit for bit (1: settled at
	                  rest), 0 when none was seen */
	long steps;    /* steps of the press: round(duration / timestep) unless stopped */
	long stepped;  /* of them, those stepped (the rest repeat the period's) */
};

/*
 * core_sim_press: the press above on the prepared scene m. The step is a function of the
 * state (centre, speed and the solver's warmstart), so once a state repeats bit for bit
 * the whole sequence repeats: the rest of the press is read off the steps already made,
 * with the same penetrations in the same order as stepping would give (a pad that settles
 * repeats with period 1; one that keeps hopping often locks into a cycle of a few to a
 * few hundred steps). The cost is then that of the steps until the repeat. Returns 0, or
 * -1 when force is not finite or below the body's weight (then *out is untouched). No
 * allocation; polls the thread's budget (budget.h) like a drop.
 */
int core_sim_press(const struct core_scene_model *m, double force, double duration, double window,
    struct core_sim_press *out);

/* The scene a press of total force `force` steps: m with the applied force in its smooth
 * force and free acceleration, into *out. Returns -1 (and leaves *out) when force is not
 * finite or below the body's weight. core_lanes_press_array() steps such scenes. */
int core_sim_press_model(const struct core_scene_model *m, double force, struct core_scene_model *out);

/* The steps of a press's window: window_steps (core_sim_step_count() of the window) within
 * 1 and the press's steps. */
long core_sim_press_window(long steps, long window_steps);

#endif
