/*
 * growth.c: growth per step of the linearized contact spring (the lesson's step_growth).
 *
 * Near rest the contact law is x'' = -c x' - k x with c = d*B and k = d^2*K.
 * One step of an integrator is linear in (x, v); its spectral radius is the
 * growth. MuJoCo's implicit and implicitfast integrators do not differentiate
 * constraint forces, so for a contact they amplify exactly like Euler.
 *
 * The discrete integrator (3.13.0+) solves with the row's spring at the end of the
 * step. For one row at constant imp (imp' neglected, as above), N rows on mass m, the
 * step is v' = v - h (alpha x + beta v), x' = x + h v' with
 *   alpha = w K imp / s,  beta = w (B + h K imp) / s,  w = N / (N + m R_d),
 * s = 1 + hB + h^2 K imp and R_d the row's discrete R (R_Euler / s, floored): Euler's
 * matrix with k -> alpha, c -> beta. Without the floor it is the backward-Euler map
 * of x'' = -c x' - k x, whose radius is below 1 for every k, c > 0 and h. Checked
 * against the numerical Jacobian of MuJoCo 3.14.0's mj_step about 131 resting scenes
 * (docs/releases.md).
 */
#include "core/growth.h"

#include <complex.h>
#include <math.h>

#include "core/law.h"
#include "core/knobs.h"

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

/* semi-implicit Euler on (x, v): v' = -hk x + (1 - hc) v; x' = x + h v' */
static double euler_radius(double k, double c, double h)
{
	return radius2(1 - h * h * k, h * (1 - h * c), -h * k, 1 - h * c);
}

double core_growth_step(double k, double c, double h, enum core_scene_integrator integrator)
{
	if (integrator == CORE_SCENE_DISCRETE) {
		/* backward Euler: (1/den) [[1 + hc, h], [-hk, 1]], den = 1 + hc + h^2 k */
		double den = 1 + h * c + h * h * k;
		return radius2((1 + h * c) / den, h / den, -h * k / den, 1 / den);
	}
	if (integrator == CORE_SCENE_RK4) {
		/* eigenvalues of [[0, 1], [-k, -c]] */
		double complex root = csqrt((double complex)(c * c - 4 * k));
		double complex l1 = 0.5 * (-c + root), l2 = 0.5 * (-c - root);
		return fmax(rk4_gain(h * l1), rk4_gain(h * l2));
	}
	return euler_radius(k, c, h);
}

/* The discrete integrator's growth of one frictionless row of unit inverse weight
 * (m = 1, diag = 1, N = 1: Euler's k = d^2 K, c = d B) at impedance d; fills the
 * gains it used into *dg. */
static double discrete_growth(
    const struct core_law_gains *g, double d, double h, int refsafe, struct core_law_discrete *dg)
{
	double R, w, alpha, beta;

	core_law_discrete_gains(g, d, h, refsafe, dg);
	R = fmax(MJ_MINVAL, (1 - d) / d) / dg->s;
	R = fmax(R, fmax(MJ_MINVAL, (1 - MJ_MAXIMP) / MJ_MAXIMP));
	w = 1 / (1 + R);
	alpha = w * dg->K * d / dg->s;
	beta = w * (dg->B + h * dg->K * d) / dg->s;
	return euler_radius(alpha, beta, h);
}

void core_growth_stability(const double solref[2], const double solimp[5], double impedance,
    double timestep, int refsafe, enum core_scene_integrator integrator,
    struct core_growth_report *out)
{
	struct core_law_solimp s;
	struct core_law_gains g;
	double d, k, c, spring, damper;

	core_law_solimp_clamp(solimp, &s);
	/* discrete never clamps timeconst; its refsafe replaces the row instead */
	core_law_solref_kb(
	    solref, s.dwidth, timestep, integrator == CORE_SCENE_DISCRETE ? 0 : refsafe, &g);
	d = impedance > 0 ? impedance : s.dwidth;
	out->refsafe_replaced = 0;
	if (integrator == CORE_SCENE_DISCRETE) {
		struct core_law_discrete dg;
		out->growth = discrete_growth(&g, d, timestep, refsafe, &dg);
		out->refsafe_replaced = dg.replaced;
	} else {
		k = d * d * g.K;
		c = d * g.B;
		out->growth = core_growth_step(k, c, timestep, integrator);
	}
	out->stable = out->growth <= 1;
	out->timeconst_used = g.timeconst_used;
	out->guard_gap = refsafe && !out->stable;
	out->impedance = d;
	out->K = g.K;
	out->B = g.B;
	if (out->refsafe_replaced) {
		struct core_law_discrete dg;
		core_law_discrete_gains(&g, d, timestep, refsafe, &dg);
		out->K = dg.K;
		out->B = dg.B;
	}
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
		    core_law_error_reduction(g.timeconst_used, g.dampratio_used, timestep);
	}
}
