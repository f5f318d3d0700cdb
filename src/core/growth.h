/*
 * growth.h: stability of the linearized contact spring a = -c*v - k*r under
 * MuJoCo's integrators (the lesson's step_growth, "gap in the guard").
 */
#ifndef CONTACTD_CORE_GROWTH_H
#define CONTACTD_CORE_GROWTH_H

#include "core/scene.h"

/* Spectral radius of one step of x'' = -c x' - k x with the given integrator. */
double ctd_growth_step(double k, double c, double timestep, enum ctd_scene_integrator integrator);

struct ctd_growth_report {
	double growth;
	double h_omega;        /* timestep * natural frequency of the reference spring */
	int stable;            /* growth <= 1 */
	double timeconst_used; /* 0 in direct form */
	int guard_gap;         /* refsafe on and still unstable */
	double error_reduction;
	double impedance, K, B;
};

/* Stability of a contact with solref/solimp at impedance d (d < 0: solimp dwidth). */
void ctd_growth_stability(const double solref[2], const double solimp[5], double impedance,
    double timestep, int refsafe, enum ctd_scene_integrator integrator,
    struct ctd_growth_report *out);

#endif
