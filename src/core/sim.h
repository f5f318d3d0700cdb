/*
 * sim.h: the lesson's experiments on a scene: rest and drop, and the calibration's press.
 * The public part (the answers' structs and ctd_sim_rest_scene, ctd_sim_drop_scene) is declared in
 * contactd.h.
 */
#ifndef CONTACTD_CORE_SIM_H
#define CONTACTD_CORE_SIM_H

#include <stddef.h>

#include "core/contactd.h"
#include "core/scene.h"

/* Number of steps in `duration` at `timestep`: round(duration / timestep). */
long ctd_sim_step_count(double duration, double timestep);

/* Simulate from rest at `height` for `duration`; fill out. No allocation. */
void ctd_sim_drop(
    const struct ctd_scene_model *m, double height, double duration, struct ctd_sim_drop *out);

/* ctd_sim_drop(), also recording the trajectory into trace (NULL: none) in the same loop. */
void ctd_sim_drop_trace(const struct ctd_scene_model *m, double height, double duration,
    struct ctd_sim_drop *out, struct ctd_sim_trace *trace);

/* Solve the equilibrium and simulate settling from `height` (0 = touching). */
void ctd_sim_rest(
    const struct ctd_scene_model *m, double height, double duration, struct ctd_sim_rest *out);

/* Equilibrium penetration of the scene under a total downward force `load` (N)
 * at rest; returns 0 and fills *penetration, or -1 when none exists. */
int ctd_sim_equilibrium(const struct ctd_scene_model *m, double load, double *penetration);

/*
 * A drop's free fall, stepped once: the state after its first `steps` steps from rest at
 * `height`, every one of them contact-free (the object above the pad's includemargin before
 * the step) and ending above the pad (bottom >= 0), with the drop's running extremes. The
 * fall does not depend on the pad's solref, solimp or friction: one fall serves every pad of
 * a fit. ctd_lanes_drop_array() starts a point there, with the same bits as stepping it.
 */
struct ctd_sim_start {
	/* what the fall depends on, as it was computed (ctd_sim_start_fits()) */
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
void ctd_sim_fall(
    const struct ctd_scene_model *m, double height, long limit, struct ctd_sim_start *out);

/* Does s (ctd_sim_fall()'s) hold the fall of a drop from height on m? Its fields compared bit
 * for bit with m's. */
int ctd_sim_start_fits(
    const struct ctd_sim_start *s, const struct ctd_scene_model *m, double height);

/* The steps of a drop of duration on m's timestep from which sim.c's jitter window starts:
 * a start must stop before it (the window's statistics are not carried). */
long ctd_sim_first_jitter(const struct ctd_scene_model *m, double duration);

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
struct ctd_sim_press {
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
 * ctd_sim_press: the press above on the prepared scene m. The step is a function of the
 * state (centre, speed and the solver's warmstart), so once a state repeats bit for bit
 * the whole sequence repeats: the rest of the press is read off the steps already made,
 * with the same penetrations in the same order as stepping would give (a pad that settles
 * repeats with period 1; one that keeps hopping often locks into a cycle of a few to a
 * few hundred steps). The cost is then that of the steps until the repeat. Returns 0, or
 * -1 when force is not finite or below the body's weight (then *out is untouched). No
 * allocation; polls the thread's budget (budget.h) like a drop.
 */
int ctd_sim_press(const struct ctd_scene_model *m, double force, double duration, double window,
    struct ctd_sim_press *out);

/* The scene a press of total force `force` steps: m with the applied force in its smooth
 * force and free acceleration, into *out. Returns -1 (and leaves *out) when force is not
 * finite or below the body's weight. ctd_lanes_press_array() steps such scenes. */
int ctd_sim_press_model(const struct ctd_scene_model *m, double force, struct ctd_scene_model *out);

/* The steps of a press's window: window_steps (ctd_sim_step_count() of the window) within
 * 1 and the press's steps. */
long ctd_sim_press_window(long steps, long window_steps);

#endif
