/*
 * law.h: MuJoCo's soft-contact law for one constraint, as pure functions.
 *
 * These are the seed lesson's functions (impedance, solref_kb, contact_accel,
 * resting_penetration) and the phyz crate's error_reduction, with MuJoCo 2.2.2
 * semantics (shared/mujoco-contact-spec.md §5-§6). No I/O, no allocation.
 */
#ifndef CONTACTD_CORE_LAW_H
#define CONTACTD_CORE_LAW_H

#include <math.h>

/* solimp after MuJoCo's getsolparam clamps (spec §5.1, step 3), with the two
 * sigmoid scales MuJoCo recomputes per row cached: the same values, computed once. */
struct core_law_solimp {
	double d0, dwidth, width, midpoint, power;
	double scale_below; /* 1 / midpoint^(power-1): the curve's factor for x <= midpoint */
	double scale_above; /* 1 / (1-midpoint)^(power-1): for x > midpoint */
	int power_shortcut; /* 3.2.0+: power(u, 2) is u*u, not pow(u, 2) (core_law_solimp_release) */
};

/* Reference-spring gains of one constraint (efc_KBIP[0..1]) and the solref actually used. */
struct core_law_gains {
	double K;              /* stiffness, 1/s^2, before the impedance factor */
	double B;              /* damping, 1/s */
	double timeconst_used; /* solref[0] after refsafe (standard form); 0 in direct form */
	double dampratio_used; /* solref[1] as used (standard form); 0 in direct form */
	int direct;            /* 1 when solref is [-stiffness, -damping] */
	int fell_back; /* 1 when a mixed-sign solref was replaced by the default (0.02, 1) */
};

/* MuJoCo's clamp of an impedance parameter (d0, dwidth, midpoint) to
 * [mjMINIMP, mjMAXIMP]: the dmax MuJoCo's K and B see is solimp[1] so clamped. */
double core_law_impedance_clamp(double d);

/* Clamp a raw solimp[5] the way MuJoCo does before using it (2.2.2's arithmetic). */
void core_law_solimp_clamp(const double solimp[5], struct core_law_solimp *out);

/* solimp as a release computes it: clamped, and with power_shortcut (core_mjver_rules,
 * MuJoCo 3.2.0+) power(u, 2) computed as u*u instead of pow(u, 2), in the cached
 * sigmoid scales and in the slope of power 3 (the last bit at most). Power 2's curve
 * is u*u in every release: 2.2.2's pow(u, 2) is within 0.52 ulp of it. */
void core_law_solimp_release(const double solimp[5], int power_shortcut, struct core_law_solimp *out);

/*
 * core_law_impedance: MuJoCo's impedance d(r) and its derivative dd/dr.
 * r is the signed constraint violation (efc_pos - efc_margin; negative while
 * penetrating); only |r| matters for the value, the derivative carries r's sign,
 * exactly as efc_KBIP[2..3]. A penetration given as r >= 0 (the lesson's
 * convention) gives the same value. derivative may be NULL.
 */
double core_law_impedance(double r, const struct core_law_solimp *solimp, double *derivative);

/*
 * core_law_solref_kb: K and B of the reference spring, as MuJoCo stores them.
 * Applies the mixed-sign fallback to (0.02, 1), then refsafe (timeconst >=
 * 2*timestep, standard form only), then the standard or direct formula with
 * dmax = the clamped solimp dwidth.
 */
void core_law_solref_kb(
    const double solref[2], double dmax, double timestep, int refsafe, struct core_law_gains *out);

/*
 * core_law_aref: the reference acceleration of one row (efc_aref, the lesson's Step 2
 * a_ref): -B*vel - K*imp*violation, with violation the signed distance past the
 * row's margin (negative while penetrating). Inline: it is on every step's path.
 */
static inline double core_law_aref(
    const struct core_law_gains *g, double imp, double violation, double vel)
{
	return -g->B * vel - g->K * imp * violation;
}

/* One row's gains under MuJoCo's discrete integrator (3.13.0+), at impedance imp. */
struct core_law_discrete {
	double K, B;  /* efc_KBIP[0..1]: the gains, or refsafe's replacement */
	double s;     /* 1 + h*B + h^2*K*imp: the end-of-step factor of aref and R */
	int replaced; /* refsafe replaced the row: h^2*K*imp > 1 */
};

/*
 * core_law_discrete_gains: the discrete integrator's K, B and s of a row with gains g
 * (core_law_solref_kb with refsafe 0: discrete never clamps timeconst) at impedance imp,
 * timestep h. With refsafe, a standard-form row with q = h^2*K*imp > 1 gets
 * K' = 1/(h^2 imp), B' = B/sqrt(q): its frequency sqrt(K imp) capped at 1/h, its damping
 * ratio kept (measured bit for bit against MuJoCo 3.13.0 and 3.14.0; q == 1 is kept).
 * Direct-form rows are never replaced. MuJoCo's operation order throughout. Inline: it
 * is on every discrete step's path.
 */
static inline void core_law_discrete_gains(
    const struct core_law_gains *g, double imp, double h, int refsafe, struct core_law_discrete *out)
{
	double K = g->K, B = g->B;

	out->replaced = 0;
	if (refsafe && !g->direct) {
		double q = h * h * K * imp;
		if (q > 1) {
			B = B / sqrt(q);
			K = 1 / (h * h * imp);
			out->replaced = 1;
		}
	}
	out->K = K;
	out->B = B;
	out->s = 1 + h * B + h * h * K * imp;
}

/* The discrete integrator's efc_aref: the reference acceleration at the end of the
 * step, (-B*vel - K*imp*(violation + h*vel)) / s, from core_law_discrete_gains. */
static inline double core_law_aref_discrete(
    const struct core_law_discrete *d, double imp, double violation, double vel, double h)
{
	return (-d->B * vel - d->K * imp * (violation + h * vel)) / d->s;
}

/*
 * core_law_contact_accel: normal acceleration of one frictionless contact at unit
 * inverse weight (the lesson's contact_accel): a0 while dist >= 0, otherwise
 * max(a0, imp*aref + (1-imp)*a0) with aref = -B*vel - K*imp*dist.
 */
double core_law_contact_accel(double dist, double vel, double a0, const double solref[2],
    const struct core_law_solimp *solimp, double timestep, int refsafe);

/*
 * core_law_resting_penetration: the penetration r >= 0 where d(r)^2*K*r = (1-d(r))*a_u
 * (the lesson's resting_penetration, solved to machine precision rather than by
 * 200 bisections). Returns 0 and fills *penetration, or -1 when no equilibrium
 * exists (K == 0 with a_u > 0, or a_u < 0).
 */
int core_law_resting_penetration(double a_u, const double solref[2],
    const struct core_law_solimp *solimp, double timestep, int refsafe, double *penetration);

/*
 * core_law_root_increasing: the root of f on [0, inf) for f increasing with
 * f(0) <= 0, bracketed by doubling and polished by GSL's Brent solver to a
 * relative width of a few ulps. Returns 0 and fills *root, or -1 when f never
 * changes sign below 1e12 or is NaN. Allocates one GSL solver per call.
 * GSL reports failures through a process-wide handler that aborts by default:
 * a process calling this must have turned it off once at start-up
 * (gsl_set_error_handler_off(); the service layer does), so that failures
 * come back as return codes.
 */
int core_law_root_increasing(double (*f)(double, void *), void *params, double *root);

/*
 * core_law_error_reduction: the phyz crate's SolRef::error_reduction, the fraction of
 * a violation one implicit step of the reference spring removes:
 * timestep / (2*timeconst*dampratio^2 + timestep).
 */
double core_law_error_reduction(double timeconst, double dampratio, double timestep);

#endif
