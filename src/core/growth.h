/*
 * growth.h: stability of the linearized contact spring a = -c*v - k*r under
 * MuJoCo's integrators (the lesson's step_growth, "gap in the guard").
 * The public part (ctd_growth_stability and its report) is declared in contactd.h.
 */
#ifndef CONTACTD_CORE_GROWTH_H
#define CONTACTD_CORE_GROWTH_H

#include "core/contactd.h"
#include "core/scene.h"

/* Spectral radius of one step of x'' = -c x' - k x with the given integrator. */
double ctd_growth_step(double k, double c, double timestep, enum ctd_scene_integrator integrator);

#endif
