/*
 * sim.h: the lesson's experiments on a scene: rest and drop.
 */
#ifndef CONTACTD_CORE_SIM_H
#define CONTACTD_CORE_SIM_H

#include <stddef.h>

#include "core/scene.h"

struct ctd_sim_rest {
	int has_equilibrium;        /* 0 when no force can hold the body (e.g. zero stiffness) */
	double penetration;         /* equilibrium penetration, solved exactly */
	double settled_penetration; /* -bottom after the simulated duration */
	double impedance;           /* imp at the equilibrium */
	double K, B, timeconst_used;
	int contacts, rows;
};

struct ctd_sim_drop {
	double peak_penetration;  /* max over steps of -bottom */
	double rebound;           /* max bottom after the first penetrating step, >= 0 */
	double max_height;        /* max bottom over all steps */
	double jitter;            /* population std of bottom over the last JITTER_WINDOW s */
	double final_penetration; /* -bottom at the end */
	int energy_gain;          /* rebound > drop height */
	long steps;
};

/*
 * A drop's bottom height over time, decimated to at most cap points: the start
 * (t = 0), then for each bucket of consecutive steps its lowest and its highest
 * sample in time order, then the last step. A bucket holds one step while they fit,
 * so a short drop is recorded step by step, and a long one keeps every extreme
 * (min z is exactly -peak_penetration). The caller owns t and z (cap >= 4 each).
 */
struct ctd_sim_trace {
	double *t, *z;
	size_t cap;
	size_t count; /* points written */
};

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

#endif
