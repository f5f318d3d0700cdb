/*
 * law.c: MuJoCo's contact law for one constraint (spec §5.1-§5.3, §6).
 *
 * Arithmetic follows MuJoCo's own order of operations where that order can
 * change the last bit, so answers agree with efc_KBIP/efc_aref to the ulp.
 */
#include "core/law.h"

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "core/knobs.h"

double core_law_impedance_clamp(double x)
{
	return x < MJ_MINIMP ? MJ_MINIMP : (x > MJ_MAXIMP ? MJ_MAXIMP : x);
}

void core_law_solimp_clamp(const double solimp[5], struct core_law_solimp *out)
{
	out->d0 = core_law_impedance_clamp(solimp[0]);
	out->dwidth = core_law_impedance_clamp(solimp[1]);
	out->width = solimp[2] > 0 ? solimp[2] : 0;
	out->midpoint = core_law_impedance_clamp(solimp[3]);
	out->power = solimp[4] > 1 ? solimp[4] : 1;
	out->scale_below = 1 / pow(out->midpoint, out->power - 1);
	out->scale_above = 1 / pow(1 - out->midpoint, out->power - 1);
	out->power_shortcut = 0;
}

void core_law_solimp_release(const double solimp[5], int power_shortcut, struct core_law_solimp *out)
{
	core_law_solimp_clamp(solimp, out);
	out->power_shortcut = power_shortcut;
	if (power_shortcut && out->power == 3) {
		double below = out->midpoint, above = 1 - out->midpoint;
		out->scale_below = 1 / (below * below);
		out->scale_above = 1 / (above * above);
	}
}

/* u^q in the sigmoid's slope, as the release computes it */
static double slope_power(double u, double q, const struct core_law_solimp *s)
{
	return s->power_shortcut && q == 2 ? u * u : pow(u, q);
}

double core_law_impedance(double r, const struct core_law_solimp *s, double *derivative)
{
	double d0 = s->d0, d1 = s->dwidth, width = s->width, mid = s->midpoint, p = s->power;
	double x, y, dy, sgn;

	/* the hot path of every contact step: one pow, and a second only for the slope */
	if (derivative)
		*derivative = 0;
	/* flat impedance: both ends equal or no transition zone */
	if (d0 == d1 || width <= MJ_MINVAL)
		return 0.5 * (d0 + d1);

	x = fabs(r) / width;
	sgn = r >= 0 ? 1 : -1;
	if (x >= 1)
		return d1;
	if (x <= 0)
		return d0;

	if (p == 1) {
		y = x;
		dy = 1;
	} else if (p == 2) {
		/* the default power: x*x, as MuJoCo 3.x computes it (2.2.2 calls pow, which
		 * agrees to within 0.52 ulp), at a fraction of pow's cost */
		double a = x <= mid ? s->scale_below : s->scale_above;
		double u = x <= mid ? x : 1 - x;
		y = x <= mid ? a * (u * u) : 1 - a * (u * u);
		dy = 2 * a * u;
	} else if (x <= mid) {
		y = s->scale_below * pow(x, p);
		dy = derivative ? p * s->scale_below * slope_power(x, p - 1, s) : 0;
	} else {
		y = 1 - s->scale_above * pow(1 - x, p);
		dy = derivative ? p * s->scale_above * slope_power(1 - x, p - 1, s) : 0;
	}
	if (derivative)
		*derivative = dy * sgn * (d1 - d0) / width;
	return d0 + y * (d1 - d0);
}

void core_law_solref_kb(
    const double solref[2], double dmax, double timestep, int refsafe, struct core_law_gains *out)
{
	double ref[2] = {solref[0], solref[1]};

	out->fell_back = 0;
	/* mixed sign (including a zero dampratio) is invalid: MuJoCo warns and uses the default */
	if ((ref[0] > 0) ^ (ref[1] > 0)) {
		ref[0] = DEFAULT_TIMECONST;
		ref[1] = DEFAULT_DAMPRATIO;
		out->fell_back = 1;
	}
	/* refsafe clamps only the time constant of the standard form */
	if (refsafe && ref[0] > 0)
		ref[0] = fmax(ref[0], 2 * timestep);

	if (ref[0] > 0) {
		out->direct = 0;
		out->K = 1 / fmax(MJ_MINVAL, dmax * dmax * ref[0] * ref[0] * ref[1] * ref[1]);
		out->B = 2 / fmax(MJ_MINVAL, dmax * ref[0]);
		out->timeconst_used = ref[0];
		out->dampratio_used = ref[1];
	} else {
		out->direct = 1;
		out->K = -ref[0] / fmax(MJ_MINVAL, dmax * dmax);
		out->B = -ref[1] / fmax(MJ_MINVAL, dmax);
		out->timeconst_used = 0;
		out->dampratio_used = 0;
	}
}

double core_law_contact_accel(double dist, double vel, double a0, const double solref[2],
    const struct core_law_solimp *solimp, double timestep, int refsafe)
{
	struct core_law_gains g;
	double imp, aref;

	if (dist >= 0)
		return a0;
	imp = core_law_impedance(dist, solimp, NULL);
	core_law_solref_kb(solref, solimp->dwidth, timestep, refsafe, &g);
	aref = core_law_aref(&g, imp, dist, vel);
	/* the contact can push, never pull: the row is inactive when a0 already satisfies it */
	if (a0 >= aref)
		return a0;
	return imp * aref + (1 - imp) * a0;
}

struct excess_args {
	double a_u, K;
	const struct core_law_solimp *solimp;
};

/* d^2 K r - (1 - d) a_u: negative below the resting penetration, positive above */
static double resting_excess(double r, void *p)
{
	const struct excess_args *a = p;
	double d = core_law_impedance(r, a->solimp, NULL);

	return d * d * a->K * r - (1 - d) * a->a_u;
}

/* Bracket and polish the unique root of an increasing function with f(0) <= 0.
 * Used for every equilibrium in the core; GSL's Brent solver does the work. */
int core_law_root_increasing(double (*f)(double, void *), void *params, double *root)
{
	gsl_function fn = {f, params};
	gsl_root_fsolver *solver;
	double lo = 0, hi = 1e-6, flo, fhi;
	int status, iter, rc = -1;

	flo = f(lo, params);
	if (flo == 0) {
		*root = 0;
		return 0;
	}
	if (!(flo < 0))
		return -1;
	for (fhi = f(hi, params); !(fhi > 0); fhi = f(hi, params)) {
		if (fhi == 0) {
			*root = hi;
			return 0;
		}
		lo = hi;
		hi *= 2;
		if (hi > 1e12 || isnan(fhi))
			return -1;
	}

	solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (!solver)
		return -1;
	gsl_root_fsolver_set(solver, &fn, lo, hi);
	for (iter = 0; iter < 500; iter++) {
		status = gsl_root_fsolver_iterate(solver);
		if (status != GSL_SUCCESS)
			break;
		lo = gsl_root_fsolver_x_lower(solver);
		hi = gsl_root_fsolver_x_upper(solver);
		if (gsl_root_test_interval(lo, hi, 0, 2 * 2.220446049250313e-16) == GSL_SUCCESS) {
			rc = 0;
			break;
		}
	}
	if (rc == 0 || status == GSL_SUCCESS) {
		*root = gsl_root_fsolver_root(solver);
		rc = 0;
	}
	gsl_root_fsolver_free(solver);
	return rc;
}

int core_law_resting_penetration(double a_u, const double solref[2],
    const struct core_law_solimp *solimp, double timestep, int refsafe, double *penetration)
{
	struct core_law_gains g;
	struct excess_args args;

	core_law_solref_kb(solref, solimp->dwidth, timestep, refsafe, &g);
	args.a_u = a_u;
	args.K = g.K;
	args.solimp = solimp;
	return core_law_root_increasing(resting_excess, &args, penetration);
}

double core_law_error_reduction(double timeconst, double dampratio, double timestep)
{
	return timestep / (2 * timeconst * dampratio * dampratio + timestep);
}
