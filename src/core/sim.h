/*
 * sim.h: the lesson's experiments on a scene: rest and drop.
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

#endif
