/*
 * test_fit_accept.c: the calibration fit's acceptance test, written against its interface
 * alone (fit/fit.h: fit_solref() and struct fit_result), so that any fit behind it is held to
 * the same bar over fresh data sets made at test time by libmujoco 2.2.2. The truth is scored
 * in the fit's model by the audit (fit/audit.h), and the hold question asked of the core
 * (core/hold.h), as the service asks it.
 *
 * Data (tests/calgen.h): a pad and an object drawn from a seeded SplitMix64 sequence, one
 * seed per kind that nothing else in tests/ or bench/ uses (4901 to 4905), in issue 29's lab
 * ranges (timeconst 0.012 to 0.08 s, spheres of 1 to 3 cm and 20 to 300 g, 2 or 5 ms; drops
 * from 0.02 to 0.3 m with stated sigmas of 0.1 to 0.5 mm plus 3 to 8 % of the rebound;
 * presses of 1.5 to 20 times the weight with sigma 3 % of the depth), every measurement
 * MuJoCo's own (mj_step) plus Gaussian noise of its stated sigma. Five kinds, each counted
 * apart (a tcase each: CK_RUN_CASE=bounce runs one):
 *   bounce        5 drops, the pad drawn again until every drop's MuJoCo apex is above 3 of
 *                 its sigmas (dampratio 0.15 to 2 drawn, the bouncing ones kept);
 *   no_bounce     5 drops, drawn again until no drop bounces in MuJoCo (every apex 0);
 *   bouncy_press  3 drops and 2 presses, dampratio 0.15 to 0.5 (the pad hops under a press
 *                 in some sets: counted);
 *   damped_press  3 drops and 2 presses, dampratio 0.7 to 2;
 *   trajectory    one trajectory through an impact: the object at rest at a release height
 *                 until a release time (both unknown to the fit), then falling; its bottom
 *                 sampled every 2 to 4 ms off the steps' clock, placed between MuJoCo's steps
 *                 exactly as fit/model.h's model places the model's, plus 0.2 to 0.5 mm of
 *                 noise (stated). The generator is checked against the fit's own model
 *                 (fit/audit.h) in every set: at the true pad and release the noise-free
 *                 samples score chi2 <= TRAJ_CLEAN_CHI2 per sample (the model and the data
 *                 are the same numbers), and the noisy ones at most the sum of squared noise
 *                 (the audit refits the release from the truth, which only lowers chi2).
 * A pad is drawn again (counted, printed) where its set lies outside the model's domain: a drop
 * that MuJoCo rebounds above its release height (the pad gains energy; a calibration refuses a
 * rebound above the height, so calgen clamps it there and no pad reproduces it) or a press
 * whose MuJoCo mean depth is not positive (the object thrown clear, a press the model refuses
 * by definition: fit/model.h, docs/calibration.md). Both happen only at timeconst near two
 * timesteps with little damping. FIT_ACCEPT_SETS sets per kind (default ACCEPT_SETS; `make
 * bench-accept` runs 200); the sets of a smaller count are the first sets of a larger one.
 * FIT_ACCEPT_VERBOSE set also prints each set's truth and fit to every digit on stderr, one line
 * each (the intervals in the parameters' units: [1-sigma] [2-sigma] of timeconst, then of
 * dampratio), so that two builds' answers can be compared with diff.
 *
 * What each fit must do:
 * (i) Best over its range. The truth lies inside the searched range, so the reported chi2 is
 *     never above the truth's: the lower of the sum of squared weighted noise (the data less
 *     MuJoCo's values) and the fit's own model at the true pad (fit/audit.h, the true releases
 *     given). Tolerance CHI2_REL relative (at least CHI2_REL absolute): both sums are of at
 *     most a few hundred squares computed in doubles, and the core reproduces libmujoco's
 *     drops and presses to 1e-14 relative, so rounding moves them by 1e-13 at most; a search
 *     that missed a better pad misses it by far more. An insufficient_data fit reports no
 *     optimum and is not held to it (its statuses are printed). The worst reported - truth
 *     chi2 is printed.
 * (ii) Coverage. For timeconst and dampratio, the 1- and 2-sigma intervals
 *     (interval_log[q][k - 1], an open end -inf/+inf covering everything beyond it) hold the
 *     truth at a rate at least the nominal 0.6827 / 0.9545 less 3 binomial standard
 *     deviations sqrt(p (1 - p) / n), n the fits that gave an interval (a NAN interval, no
 *     claim, is counted apart as "gave none"), judged from RATE_MIN_N fits on (see there for
 *     how often an honest interval fails it). Rates above nominal are not failed: drops that
 *     do not bounce and few degrees of freedom are conservative by design
 *     (docs/calibration.md).
 * (iii) Statuses backed by intervals. ok requires both 2-sigma intervals bounded on both
 *     sides; identified[q] requires q's 2-sigma interval bounded. Any exception fails.
 * (iv) The hold verdict. A fit whose status offers a hold (ok, partial, few_dof: the service's
 *     "hold" block, calib/result.c) says whether the reference object (the hold question's
 *     default sphere between two of the setup's pads, 10 N each, 1 s) holds at the fitted pad,
 *     and creep_range gives its creep over the 1-sigma box of the two intervals (the fitted
 *     pad, the box's corners and edge midpoints). The same hold question is asked here of the
 *     core (core/hold.h, the scene calib/result.c builds: that block parses {} into the core's
 *     default pinch, sets the pad geom and the option, and answers with core_hold_solve();
 *     "holds" is null where the run is crushed or not reproducible, the creep where it has
 *     not settled either) at those nine pads and at the TRUE pad. Criteria:
 *     - a fit is confident when the verdicts at its nine box pads are the same: then the
 *       descent over the duration lies on one side of slip_limit all over the box (the verdict
 *       is whether it stays within slip_limit). Linearised,
 *       the box's range of any smooth function of the parameters contains that function's
 *       1-sigma interval (|a| s1 + |b| s2 >= sqrt(a^2 s1^2 + b^2 s2^2 + 2 a b r s1 s2)), so
 *       the truth's verdict can differ only where the truth's descent lies beyond the near end
 *       of its 1-sigma interval: at most (1 - 0.6827) / 2 = 0.1587 of honest fits. The rate of
 *       confident verdicts the truth contradicts must not exceed 0.1587 plus 3 binomial
 *       standard deviations (judged, like every rate, from RATE_MIN_N trials on);
 *     - by the same argument creep_range holds the truth's creep at least as often as a
 *       1-sigma interval: the rate must be at least 0.6827 less 3 standard deviations.
 *     Fits with a held parameter (their box holds the held value, not the truth's: the MJCF's
 *     creep) and those without a bounded box make no such claim and are counted apart; the
 *     plain agreement of the fitted and true verdicts is printed for every fit that offers one.
 *
 * Printed per kind: the sets, statuses, coverage (n), worst reported - truth chi2, the hold
 * counts and the fits' wall time (median and worst), last as one row of a Markdown table whose
 * header comes first.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calgen.h"
#include "core/hold.h"
#include "core/sim.h"
#include "fit/audit.h"
#include "fit/fit.h"

#define ACCEPT_SETS 40    /* per kind, unless FIT_ACCEPT_SETS says otherwise */
#define BOUNCE_SIGMAS 3.0 /* a bouncing drop's apex is above this many of its sigmas */
#define CHI2_REL 1e-9     /* (i)'s tolerance: see the header */
/* The generator's check (trajectories): noise-free samples at the true pad and release score at
 * most this chi2 per sample, an rms weighted residual of 1e-5 (5 nm at a 0.5 mm sigma). The core
 * steps MuJoCo's heights to rounding and the spline is the model's, so a right generator scores
 * about 1e-27; one that placed its samples a thousandth of a step off (5 us at 5 ms, microns at
 * the impact's speed) scores 1e-4 or more. */
#define TRAJ_CLEAN_CHI2 1e-10
/* Rates over fewer trials are printed, not judged: the normal approximation behind "3 standard
 * deviations" fails there (one miss of a 2-sigma interval in 1 or 2 fits, 4.5 and 9 % of
 * honest runs, would fail it). From 10 to 200 trials the exact binomial tails say it fails an
 * honest rate 0.2 to 2.4 % of the time at 2 sigma, 0.1 to 0.4 % at 1 sigma and 0.2 to 0.8 % for
 * the hold's one side: the price of the rule's simplicity (the seeds are fixed, so a run is
 * either clean or not, every time). */
#define RATE_MIN_N 10
#define HOP_REL 0.05 /* a press whose mean depth is this far off the equilibrium's: it hops */
/* A bouncy kind's sets from which on some pad must hop (nearly three in four do: none in 10
 * sets would happen 2e-6 of the time, a generator that no longer makes what the kind is for). */
#define HOP_MIN_SETS 10
/* The tcase's timeout per set: a set (its data and its fit) takes under 1 s, 2 s under the
 * sanitizers; times CK_TIMEOUT_MULTIPLIER (tests/local.mk): a hang, not a slow machine. */
#define SECONDS_PER_SET 10

static const double nominal[2] = {0.682689492137086, 0.954499736103642};
/* one side of the 1-sigma interval: (1 - nominal[0]) / 2 */
static const double one_side = 0.158655253931457;

enum drops_rule { ANY_DROPS, BOUNCING, NOT_BOUNCING };

struct kind {
	const char *name; /* the tcase's */
	const char *what;
	uint64_t seed;
	const struct calgen_ranges *ranges;
	size_t ndrops, npresses;
	enum drops_rule rule;
	int hopping;    /* some pads hop under a press: checked from HOP_MIN_SETS sets on */
	int trajectory; /* one trajectory */
};

enum { K_BOUNCE, K_NO_BOUNCE, K_BOUNCY_PRESS, K_DAMPED_PRESS, K_TRAJECTORY, NKINDS };

/* The press kinds' pads: issue 29's timeconst, dampratio low and high. */
static const struct calgen_ranges bouncy = {{0.012, 0.08}, {0.15, 0.5}};
static const struct calgen_ranges damped = {{0.012, 0.08}, {0.7, 2.0}};

static const struct kind kinds[NKINDS] = {
    {.name = "bounce",
        .what = "5 drops, each apex above 3 sigma",
        .seed = 4901,
        .ranges = &calgen_ranges_issue29,
        .ndrops = 5,
        .rule = BOUNCING},
    {.name = "no_bounce",
        .what = "5 drops, no apex",
        .seed = 4902,
        .ranges = &calgen_ranges_issue29,
        .ndrops = 5,
        .rule = NOT_BOUNCING},
    {.name = "bouncy_press",
        .what = "3 drops + 2 presses, dampratio 0.15-0.5",
        .seed = 4903,
        .ranges = &bouncy,
        .ndrops = 3,
        .npresses = 2,
        .hopping = 1},
    {.name = "damped_press",
        .what = "3 drops + 2 presses, dampratio 0.7-2",
        .seed = 4904,
        .ranges = &damped,
        .ndrops = 3,
        .npresses = 2},
    {.name = "trajectory",
        .what = "1 trajectory through an impact",
        .seed = 4905,
        .ranges = &calgen_ranges_issue29,
        .trajectory = 1},
};

static const char *const param_names[2] = {"timeconst", "dampratio"};

static int sets(void)
{
	const char *env = getenv("FIT_ACCEPT_SETS");
	int n = env ? atoi(env) : ACCEPT_SETS;

	return n > 0 ? n : ACCEPT_SETS;
}

/* FIT_ACCEPT_SEED_OFFSET (default 0) moves every kind's seed: sets no fix was ever tried on. */
static uint64_t seed_of(const struct kind *k)
{
	const char *env = getenv("FIT_ACCEPT_SEED_OFFSET");

	return k->seed + (env ? strtoull(env, NULL, 10) : 0);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The hold question's answer that the fit's block carries: the verdict (-1: null) and the
 * creep (NAN: null). */
struct verdict {
	int holds;
	double creep;
};

/* The hold question calib/result.c asks for a pad of scene s with solref (s0, s1): the core's
 * default pinch (the parse of {}), the pads the scene's pad geom with that solref, the option
 * the scene's. */
static struct verdict hold_at(const struct core_scene *s, double s0, double s1)
{
	struct verdict v = {-1, NAN};
	struct core_hold h;
	struct core_hold_answer a;

	core_hold_default(&h);
	h.pad = s->floor;
	h.pad.solref[0] = s0;
	h.pad.solref[1] = s1;
	h.option = s->option;
	if (core_hold_supported(&h) != NULL)
		return v;
	core_hold_solve(&h, &a);
	if (a.crushed || !a.reproducible)
		return v;
	v.holds = a.holds;
	if (a.creep_settled)
		v.creep = a.creep_velocity;
	return v;
}

struct hold_tally {
	int offered;         /* fits whose status offers a hold */
	int fit_null;        /* of them, the fitted pad's verdict null */
	int truth_null;      /* of them, the true pad's verdict null */
	int compared, agree; /* both verdicts given; the same */
	int held;            /* offered with a held parameter: no box claim */
	int unboxed;         /* offered, nothing held, no bounded 1-sigma box */
	int confident;       /* the box's nine verdicts the same, the truth's given */
	int contradicted;    /* of them, the truth's verdict the other */
	int ranged;          /* a creep_range and the truth's creep */
	int creep_cover;     /* of them, creep_range holds the truth's creep */
};

/* (iv) for one fit on set s: the verdicts at the box's pads and at the truth. */
static void hold_count(
    struct hold_tally *c, const struct fit_result *fit, const struct calgen_set *s, const char *at)
{
	struct verdict f, t, box[3][3];
	double ends[2][2], lo = INFINITY, hi = -INFINITY;
	int q, a, b, same = 1, creeps = 1;

	if (fit->status != FIT_OK && fit->status != FIT_PARTIAL && fit->status != FIT_FEW_DOF)
		return;
	c->offered++;
	/* calib/result.c's hold_json(): the solref the MJCF carries */
	f = hold_at(&fit->scene, fit->below_refsafe ? -fit->stiffness : fit->timeconst,
	    fit->below_refsafe ? -fit->damping : fit->dampratio);
	t = hold_at(&s->truth, s->timeconst, s->dampratio);
	c->fit_null += f.holds < 0;
	c->truth_null += t.holds < 0;
	if (f.holds >= 0 && t.holds >= 0) {
		c->compared++;
		c->agree += f.holds == t.holds;
	}
	if (fit->held[FIT_TC] || fit->held[FIT_DR]) {
		c->held++;
		return;
	}
	for (q = 0; q < 2; q++) {
		const double *one = fit->interval_log[q][0];

		if (!(fit->identified[q] && isfinite(one[0]) && isfinite(one[1]))) {
			c->unboxed++;
			return;
		}
		ends[q][0] = exp(one[0]);
		ends[q][1] = exp(one[1]);
	}
	/* calib/result.c's creep_range(): the fitted pad, the corners and edge midpoints */
	for (a = 0; a < 3; a++)
		for (b = 0; b < 3; b++) {
			double tc = a == 1 ? fit->timeconst : ends[FIT_TC][a / 2];
			double dr = b == 1 ? fit->dampratio : ends[FIT_DR][b / 2];
			double kd = tc * dr;

			box[a][b] = fit->below_refsafe
			    ? hold_at(&fit->scene, -1 / (kd * kd), -2 / tc)
			    : hold_at(&fit->scene, tc, dr);
			same &= box[a][b].holds >= 0 && box[a][b].holds == box[0][0].holds;
			creeps &= isfinite(box[a][b].creep);
			lo = fmin(lo, box[a][b].creep);
			hi = fmax(hi, box[a][b].creep);
		}
	if (same && t.holds >= 0) {
		c->confident++;
		if (t.holds != box[0][0].holds) {
			c->contradicted++;
			printf("%s: every pad of the 1-sigma box (timeconst %g..%g, dampratio "
			       "%g..%g) says holds %d, the truth (%g, %g) %d\n",
			    at, ends[0][0], ends[0][1], ends[1][0], ends[1][1], box[0][0].holds,
			    s->timeconst, s->dampratio, t.holds);
		}
	}
	if (creeps && isfinite(t.creep)) {
		c->ranged++;
		c->creep_cover += lo <= t.creep && t.creep <= hi;
	}
}

struct tally {
	int sets;
	int status[FIT_MISFIT + 1]; /* by enum fit_status */
	int given[2], cover[2][2];
	int unbacked;           /* (iii) exceptions */
	int held_to, beaten;    /* fits held to the truth's chi2; those above it */
	double worst;           /* the largest reported - truth chi2 */
	double model_gap;       /* largest |audit - noise| / noise chi2 at the truth */
	int hops;               /* press sets in which the pad hops under a press */
	int outside;            /* pads drawn again: outside the model's domain */
	double *seconds;        /* each fit's wall time */
	struct hold_tally hold; /* (iv) */
	/* the trajectory generator's check */
	double clean_chi2;   /* largest noise-free chi2 per sample at the truth */
	double release_gain; /* sum over sets of (noise's - audit's chi2 at the truth) */
	int above_noise;     /* sets whose audit at the truth scored above the noise's */
};

/* Draw the next set of kind k: the drops, presses and trajectory, the pad drawn again until
 * the drops keep the kind's rule and the set lies in the model's domain (see the header); the
 * pads drawn again for the domain are counted in *outside. */
static void draw(const struct kind *k, uint64_t *state, struct calgen_set *set, int *outside)
{
	size_t i;
	int again;

	do {
		int out = 0;

		calgen_draw_in(state, k->ndrops, k->ranges, set);
		again = 0;
		for (i = 0; i < k->ndrops; i++) {
			ck_assert_msg(!isnan(set->apex[i]), "MuJoCo refused a drop's scene");
			out |= !(set->apex[i] < set->drops[i].height);
			if (k->rule == BOUNCING)
				again |= !(set->apex[i] > BOUNCE_SIGMAS * set->drops[i].sigma);
			else if (k->rule == NOT_BOUNCING)
				again |= set->apex[i] > 0;
		}
		if (!again && !out && k->npresses > 0) {
			calgen_add_presses(state, k->npresses, set);
			for (i = 0; i < k->npresses; i++)
				out |= !(set->depth[i] > 0);
		}
		*outside += !again && out;
		again |= out;
	} while (again);
	if (k->trajectory) {
		calgen_add_trajectory(state, set);
		ck_assert_msg(isfinite(set->traj.clean[0]), "MuJoCo refused a trajectory's scene");
	}
}

static double square(double x)
{
	return x * x;
}

/* The sum of squared weighted noise: the data less MuJoCo's values, the trajectory's first
 * `fitted` samples (those the fit weighs). */
static double noise_chi2(const struct calgen_set *s, size_t fitted)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < s->data.ndrops; i++)
		sum += square((s->drops[i].rebound - s->apex[i]) / s->drops[i].sigma);
	for (i = 0; i < s->data.npresses; i++)
		sum += square((s->presses[i].deflection - s->depth[i]) / s->presses[i].sigma);
	for (i = 0; s->data.ntrajectories > 0 && i < fitted; i++)
		sum += square((s->traj.z[i] - s->traj.clean[i]) / s->traj.traj.sigma);
	return sum;
}

/* The truth's chi2 (see (i)), and for trajectories the generator's check. */
static double truth_chi2(struct tally *c, const struct calgen_set *s, const char *at)
{
	const double releases[2] = {s->traj.release_time, s->traj.release_height};
	struct audit_result *a = NULL;
	struct err err;
	double noise, truth;

	ck_assert_msg(
	    audit_solref(&s->setup, &s->data, s->timeconst, s->dampratio, releases, &a, &err) == 0,
	    "%s", err.message);
	noise = noise_chi2(s, a->ntrajectories > 0 ? a->traj[0].fitted : 0);
	truth = fmin(noise, a->chi2);
	if (s->data.ntrajectories == 0) {
		c->model_gap = fmax(c->model_gap, fabs(a->chi2 - noise) / fmax(noise, 1));
	} else {
		struct calib_trajectory clean = s->traj.traj;
		struct calib_data only = {0};
		struct audit_result *ac = NULL;
		double per;

		/* the audit refits the release starting from the truth: never above the noise's */
		if (a->chi2 > noise * (1 + CHI2_REL) + CHI2_REL) {
			c->above_noise++;
			printf("%s: the truth scores %.9g in the fit's model, above "
			       "the "
			       "noise's %.9g: the generator is not the model\n",
			    at, a->chi2, noise);
		}
		c->release_gain += noise - a->chi2;
		clean.z = s->traj.clean;
		only.trajectories = &clean;
		only.ntrajectories = 1;
		ck_assert_msg(audit_solref(&s->setup, &only, s->timeconst, s->dampratio, releases,
		                  &ac, &err) == 0,
		    "%s", err.message);
		per = ac->chi2 / (double)(ac->traj[0].fitted > 0 ? ac->traj[0].fitted : 1);
		c->clean_chi2 = fmax(c->clean_chi2, per);
		if (!(per <= TRAJ_CLEAN_CHI2))
			printf("%s: noise-free samples score %.3g per sample at the "
			       "truth (%zu fitted): the generator is not the model\n",
			    at, per, ac->traj[0].fitted);
		audit_free(ac);
	}
	audit_free(a);
	return truth;
}

/* (i) to (iii) for one fit. */
static void fit_count(struct tally *c, const struct fit_result *fit, const struct calgen_set *s,
    double truth, const char *at)
{
	int q, k;

	c->status[fit->status]++;
	if (fit->status != FIT_INSUFFICIENT) {
		c->held_to++;
		c->worst = fmax(c->worst, fit->chi2 - truth);
		if (!(fit->chi2 - truth <= CHI2_REL * fmax(truth, 1))) {
			c->beaten++;
			printf("%s: the truth (%g, %g) scores chi2 %.9g, the reported fit (%g, "
			       "%g) %.9g\n",
			    at, s->timeconst, s->dampratio, truth, fit->timeconst, fit->dampratio,
			    fit->chi2);
		}
	}
	for (q = 0; q < 2; q++) {
		const double v = log(q == FIT_TC ? s->timeconst : s->dampratio);
		const double *two = fit->interval_log[q][1];
		int bounded = isfinite(two[0]) && isfinite(two[1]);

		if ((fit->identified[q] || fit->status == FIT_OK) && !bounded) {
			c->unbacked++;
			printf("%s: status %d, %s identified %d, with the 2-sigma interval [%g, "
			       "%g]\n",
			    at, (int)fit->status, param_names[q], fit->identified[q], exp(two[0]),
			    exp(two[1]));
		}
		if (isnan(fit->interval_log[q][0][0]) || isnan(fit->interval_log[q][0][1]) ||
		    isnan(two[0]) || isnan(two[1]))
			continue;
		c->given[q]++;
		for (k = 0; k < 2; k++)
			c->cover[q][k] +=
			    fit->interval_log[q][k][0] <= v && v <= fit->interval_log[q][k][1];
	}
}

/* Does a press of set s hop (its mean depth off the static equilibrium)? */
static int hops(const struct calgen_set *s)
{
	struct core_scene_model m;
	size_t i;
	int any = 0;

	core_scene_prepare(&s->truth, &m);
	for (i = 0; i < s->data.npresses; i++) {
		double eq;

		if (core_sim_equilibrium(&m, s->presses[i].force, &eq) == 0)
			any |= fabs(s->depth[i] / eq - 1) > HOP_REL;
	}
	return any;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A rate of hits in n trials against its bound, nominal p less (lower) or plus 3 binomial
 * standard deviations sqrt(p (1 - p) / n), into *bound: 1 outside it, 0 inside, -1 when n is
 * below RATE_MIN_N (not judged). */
static int outside(int hits, int n, double p, int lower, double *bound)
{
	double tol = 3 * sqrt(p * (1 - p) / n), rate = (double)hits / n;

	*bound = lower ? p - tol : p + tol;
	if (n < RATE_MIN_N)
		return -1;
	return lower ? rate < *bound : rate > *bound;
}

/* What outside() found, for the report. */
static const char *mark(int bad)
{
	return bad > 0 ? " FAILED" : bad < 0 ? " (too few to judge)" : "";
}

/* Print the kind's figures, each failed criterion marked FAILED; how many it fails. */
static int report(const struct kind *k, struct tally *c)
{
	const struct hold_tally *h = &c->hold;
	double median, rate[2][2] = {{NAN, NAN}, {NAN, NAN}};
	int q, j, failed = 0;

	qsort(c->seconds, (size_t)c->sets, sizeof *c->seconds, by_value);
	median = c->sets % 2 ? c->seconds[c->sets / 2]
	                     : 0.5 * (c->seconds[c->sets / 2 - 1] + c->seconds[c->sets / 2]);
	printf("fit acceptance, %s (%s), %d sets, seed %llu:\n", k->name, k->what, c->sets,
	    (unsigned long long)seed_of(k));
	printf("  statuses: %d ok, %d partial, %d few_dof, %d misfit, %d insufficient",
	    c->status[FIT_OK], c->status[FIT_PARTIAL], c->status[FIT_FEW_DOF],
	    c->status[FIT_MISFIT], c->status[FIT_INSUFFICIENT]);
	if (k->npresses > 0)
		printf("; the pad hops under a press in %d sets", c->hops);
	printf("; %d pads drawn again outside the model's domain\n", c->outside);
	if (k->hopping && c->sets >= HOP_MIN_SETS && c->hops == 0) {
		failed++;
		printf("  FAILED: no pad hops under a press: the kind is not what it is for\n");
	}
	failed += c->beaten > 0;
	printf("  (i) reported - truth chi2: worst %.4g over %d fits, %d above the truth%s\n",
	    c->worst, c->held_to, c->beaten, c->beaten > 0 ? " FAILED" : "");
	for (q = 0; q < 2; q++)
		for (j = 0; j < 2 && c->given[q] > 0; j++) {
			double bound;
			int bad = outside(c->cover[q][j], c->given[q], nominal[j], 1, &bound);

			rate[q][j] = (double)c->cover[q][j] / c->given[q];
			failed += bad > 0;
			printf(
			    "  (ii) %-9s %d-sigma interval covers %.3f of %d (at least %.3f)%s; %d "
			    "gave none\n",
			    param_names[q], j + 1, rate[q][j], c->given[q], bound, mark(bad),
			    c->sets - c->given[q]);
		}
	failed += c->unbacked > 0;
	printf("  (iii) statuses and identifications without a bounded 2-sigma interval: %d%s\n",
	    c->unbacked, c->unbacked > 0 ? " FAILED" : "");
	printf("  (iv) hold offered by %d fits (verdict null at the fit %d, at the truth %d); "
	       "verdicts agree in %d of %d; %d held and %d without a bounded 1-sigma box make no "
	       "claim\n",
	    h->offered, h->fit_null, h->truth_null, h->agree, h->compared, h->held, h->unboxed);
	if (h->confident > 0) {
		double bound;
		int bad = outside(h->contradicted, h->confident, one_side, 0, &bound);

		failed += bad > 0;
		printf("  (iv) confident verdicts (the whole 1-sigma box agrees): the truth "
		       "contradicts %d of %d, %.3f (at most %.3f)%s\n",
		    h->contradicted, h->confident, (double)h->contradicted / h->confident, bound,
		    mark(bad));
	}
	if (h->ranged > 0) {
		double bound;
		int bad = outside(h->creep_cover, h->ranged, nominal[0], 1, &bound);

		failed += bad > 0;
		printf("  (iv) creep_range holds the truth's creep in %d of %d, %.3f (at least "
		       "%.3f)%s\n",
		    h->creep_cover, h->ranged, (double)h->creep_cover / h->ranged, bound,
		    mark(bad));
	}
	if (k->trajectory) {
		int bad = !(c->clean_chi2 <= TRAJ_CLEAN_CHI2) || c->above_noise > 0;

		failed += bad;
		printf("  generator: noise-free chi2 per sample at the truth at most %.3g (at most "
		       "%.0e); the truth's refitted release lowers the noise's chi2 by %.3f on "
		       "average "
		       "(2 nuisance parameters); %d sets above the noise's%s\n",
		    c->clean_chi2, TRAJ_CLEAN_CHI2, c->release_gain / c->sets, c->above_noise,
		    bad ? " FAILED: the generator is not the fit's model" : "");
	} else {
		printf("  generator: the fit's model at the truth differs from MuJoCo's chi2 by at "
		       "most %.3g relative\n",
		    c->model_gap);
	}
	printf("  fit wall time: median %.3f s, worst %.3f s\n", median, c->seconds[c->sets - 1]);
	printf("| %s | %d | %d/%d/%d/%d/%d | %.2f / %.2f (%d) | %.2f / %.2f (%d) | %.3g | %d/%d; "
	       "%d/%d; %d/%d | %.2f / %.2f |\n",
	    k->name, c->sets, c->status[FIT_OK], c->status[FIT_PARTIAL], c->status[FIT_FEW_DOF],
	    c->status[FIT_MISFIT], c->status[FIT_INSUFFICIENT], rate[0][0], rate[0][1], c->given[0],
	    rate[1][0], rate[1][1], c->given[1], c->worst, h->agree, h->compared, h->contradicted,
	    h->confident, h->creep_cover, h->ranged, median, c->seconds[c->sets - 1]);
	fflush(stdout);
	return failed;
}

/* One fit's set and conclusions, every digit, one line (FIT_ACCEPT_VERBOSE): for finding what
 * the misses have in common, and for comparing two builds' answers with diff. */
static void print_fit(const struct kind *k, int n, const struct calgen_set *s, int hop,
    const struct fit_result *fit, double truth, double seconds)
{
	int q, j;

	fprintf(stderr,
	    "%s %d: truth %.17g %.17g timestep %g radius %.6g mass %.6g hops %d; status %d "
	    "solref %.17g %.17g chi2 %.17g truth %.17g held %d%d identified %d%d",
	    k->name, n, s->timeconst, s->dampratio, s->truth.option.timestep, s->truth.size[0],
	    s->truth.mass, hop, (int)fit->status, fit->timeconst, fit->dampratio, fit->chi2, truth,
	    fit->held[0], fit->held[1], fit->identified[0], fit->identified[1]);
	for (q = 0; q < 2; q++)
		for (j = 0; j < 2; j++)
			fprintf(stderr, " [%.17g %.17g]", exp(fit->interval_log[q][j][0]),
			    exp(fit->interval_log[q][j][1]));
	fprintf(stderr, " wall %.3f\n", seconds);
}

/* Fit sets() sets of kind k and hold them to (i) to (iv). */
static void accept(const struct kind *k)
{
	int verbose = getenv("FIT_ACCEPT_VERBOSE") != NULL;
	uint64_t state = seed_of(k);
	struct tally c;
	int n, failed;

	memset(&c, 0, sizeof c);
	c.worst = -INFINITY;
	c.sets = sets();
	c.seconds = calloc((size_t)c.sets, sizeof *c.seconds);
	ck_assert_ptr_nonnull(c.seconds);
	for (n = 0; n < c.sets; n++) {
		static struct calgen_set set; /* large: off the stack */
		struct fit_result *fit = NULL;
		struct err err;
		double truth, t0;
		int hop = 0;
		char at[64];

		snprintf(at, sizeof at, "%s set %d", k->name, n);
		draw(k, &state, &set, &c.outside);
		truth = truth_chi2(&c, &set, at);
		if (k->npresses > 0)
			c.hops += hop = hops(&set);
		t0 = now();
		ck_assert_msg(
		    fit_solref(&set.setup, &set.data, NULL, &fit, &err) == 0, "%s", err.message);
		c.seconds[n] = now() - t0;
		if (verbose)
			print_fit(k, n, &set, hop, fit, truth, c.seconds[n]);
		fit_count(&c, fit, &set, truth, at);
		hold_count(&c.hold, fit, &set, at);
		fit_free(fit);
		fflush(stdout);
	}
	failed = report(k, &c);
	free(c.seconds);
	ck_assert_msg(failed == 0, "%s: %d criteria failed (FAILED above)", k->name, failed);
}

/* One kind per tcase: _i is its index in kinds[]. */
START_TEST(kind)
{
	accept(&kinds[_i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fit_accept");
	SRunner *sr;
	int i, failed;

	/* CK_RUN_CASE=bounce, no_bounce, bouncy_press, damped_press or trajectory runs one; each
	 * prints its row of this table last */
	printf(
	    "| kind | sets | ok/partial/few_dof/misfit/insufficient | timeconst 1 / 2 sigma (n) | "
	    "dampratio 1 / 2 sigma (n) | worst reported - truth chi2 | hold: verdicts agree / "
	    "compared; confident contradicted / confident; creep covered / ranged | fit s median "
	    "/ worst |\n");
	fflush(stdout);
	for (i = 0; i < NKINDS; i++) {
		TCase *tc = tcase_create(kinds[i].name);

		tcase_set_timeout(tc, SECONDS_PER_SET * sets());
		tcase_add_loop_test(tc, kind, i, i + 1);
		suite_add_tcase(s, tc);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
