/*
 * growth.c: growth per step of the linearized contact spring (the lesson's step_growth).
 *
 * Near rest the contact law is x'' = -c x' - k x with c = d*B and k = d^2*K.
 * One step of an integrator is linear in (x, v); its spectral radius is the
 * growth. MuJoCo's implicit and implicitfast integrators do not differentiate
 * constraint forces, so for a contact they amplify exactly like Euler.
 */
#include "core/growth.h"

#include <complex.h>
#include <math.h>

#include "core/law.h"
#include "tunables.h"

/* spectral radius of a real 2x2 matrix [[a, b], [c, d]] */
static double radius2(double a, double b, double c, double d)
{
	double complex half_trace = 0.5 * (a + d);
	double complex disc = csqrt(half_trace * half_trace - (a * d - b * c));

	return fmax(cabs(half_trace + disc), cabs(half_trace - disc));
}

/* |1 + z + z^2/2 + z^3/6 + z^4/24|: RK4's amplification of the mode e^{lambda t}, z = h*lambda */
static double rk4_gain(double complex z)
{
	return cabs(1 + z * (1 + z * (0.5 + z * (1.0 / 6.0 + z / 24.0))));
}

double ctd_growth_step(double k, double c, double h, enum ctd_scene_integrator integrator)
{
	if (integrator == CTD_SCENE_RK4) {
		/* eigenvalues of [[0, 1], [-k, -c]] */
		double complex root = csqrt((double complex)(c * c - 4 * k));
		double complex l1 = 0.5 * (-c + root), l2 = 0.5 * (-c - root);
		return fmax(rk4_gain(h * l1), rk4_gain(h * l2));
	}
	/* semi-implicit Euler on (x, v): v' = -hk x + (1 - hc) v; x' = x + h v' */
	return radius2(1 - h * h * k, h * (1 - h * c), -h * k, 1 - h * c);
}

void ctd_growth_stability(const double solref[2], const double solimp[5], double impedance,
    double timestep, int refsafe, enum ctd_scene_integrator integrator,
    struct ctd_growth_report *out)
{
	struct ctd_law_solimp s;
	struct ctd_law_gains g;
	double d, k, c, spring, damper;

	ctd_law_solimp_clamp(solimp, &s);
	ctd_law_solref_kb(solref, s.dwidth, timestep, refsafe, &g);
	d = impedance > 0 ? impedance : s.dwidth;
	k = d * d * g.K;
	c = d * g.B;
	out->growth = ctd_growth_step(k, c, timestep, integrator);
	out->stable = out->growth <= 1;
	out->timeconst_used = g.timeconst_used;
	out->guard_gap = refsafe && !out->stable;
	out->impedance = d;
	out->K = g.K;
	out->B = g.B;
	/* the reference spring without the impedance factor: dmax^2 K and dmax B, i.e.
	 * 1/(tc dr)^2 and 2/tc in the standard form, stiffness and damping in the direct */
	spring = s.dwidth * s.dwidth * g.K;
	damper = s.dwidth * g.B;
	if (g.direct) {
		out->h_omega = timestep * sqrt(spring);
		out->error_reduction = timestep * spring / (damper + timestep * spring);
	} else {
		out->h_omega = timestep * (1 / (g.timeconst_used * g.dampratio_used));
		out->error_reduction =
		    ctd_law_error_reduction(g.timeconst_used, g.dampratio_used, timestep);
	}
}
