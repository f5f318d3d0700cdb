/*
 * growth.h: stability of the linearized contact spring a = -c*v - k*r under
 * MuJoCo's integrators (the lesson's step_growth, "gap in the guard").
 * The public part (core_growth_stability and its report) is declared in contactd.h.
 */
#ifndef CONTACTD_CORE_GROWTH_H
#define CONTACTD_CORE_GROWTH_H

#include "core/scene.h"

struct core_growth_report {
	double growth;          /* spectral radius of one step: > 1 grows */
	double h_omega;         /* timestep * the reference spring's natural frequency */
	int stable;             /* growth <= 1 */
	double timeconst_used;  /* s, after refsafe; 0 for a direct solref */
	int guard_gap;          /* refsafe was on and the step is still unstable */
	double error_reduction; /* the fraction of a violation one implicit step removes */
	double impedance;       /* the impedance the spring was linearised at */
	double K, B;            /* the reference spring's gains, 1/s^2 and 1/s */
	/* discrete only: refsafe replaced the row (timestep^2 K imp > 1); K, B are then the
	 * replacement's K' = 1/(h^2 imp), B' = B/sqrt(h^2 K imp) */
	int refsafe_replaced;
};

/* The stability of a contact with solref and solimp (as at struct core_pair_geom), its
 * spring a = -d*B*v - d*d*K*r linearised at impedance d (d <= 0: solimp's dwidth, the
 * deepest), stepped at timestep (s, > 0) with integrator. Under CORE_SCENE_DISCRETE the
 * row is the discrete integrator's (reference spring at the end of the step, MuJoCo's R
 * floor, refsafe's replacement) for one frictionless contact of unit inverse weight,
 * the scene the Euler answer's k = d*d*K, c = d*B describe. Fills *out; never fails. */
void core_growth_stability(const double solref[2], const double solimp[5], double impedance,
    double timestep, int refsafe, enum core_scene_integrator integrator,
    struct core_growth_report *out);

/* Spectral radius of one step of x'' = -c x' - k x with the given integrator. */
double core_growth_step(double k, double c, double timestep, enum core_scene_integrator integrator);

#endif
