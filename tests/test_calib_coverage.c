/*
 * test_calib_coverage.c: the fit is the best over its range and its confidence intervals
 * are honest (issues #8 and #16), over many noisy data sets made with real MuJoCo 2.2.2
 * (libmujoco) at test time.
 *
 * Data: a 2 cm sphere of 100 to 150 g dropped on the SO-101 pad at 5 ms with refsafe on,
 * from 3 heights (one residual degree of freedom: status few_dof) or 8; each drop's first
 * apex is MuJoCo's own (mj_step from rest), plus Gaussian noise of the default rebound sigma
 * (0.5 mm), or, in every third upload, of a stated sigma of 2 % of the rebound for the
 * first two drops (small stated sigmas beside default ones, as in issue #16's report).
 * Seeds are fixed, so the test is deterministic. CALIB_COVERAGE_SETS data sets per truth
 * and size (default COVERAGE_SETS; `make bench-coverage` runs 20 and prints the rates).
 *
 * Best fit: the truth lies inside the searched range, so the reported chi^2 (the lowest
 * over it) is never above the truth's, computed here from MuJoCo's apexes; the worst
 * difference is printed. Notes: none may contradict the data (see notes_contradict()).
 *
 * Coverage tolerance: each rate pools n = truths x sets trials, a binomial proportion; an
 * honest interval is within 3 standard deviations sqrt(p (1 - p) / n) of the nominal p
 * but 0.3 % of the time. Below that is dishonest (errors too small) and fails for every
 * size. Above it fails for 8 drops (inflated errors); for 3 drops, whose one degree of
 * freedom cannot tell a smooth chi^2 from a rough one, the intervals also satisfy the chi^2
 * test of the whole parameter set and are conservative by design where chi^2 is smooth:
 * only the lower bound is asserted there (the rates are printed).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "calgen.h"
#include "fit/fit.h"
#include "mjscene.h"
#include "testlib.h"
#include "core/knobs.h"
#include "fit/knobs.h"
#include "calib/knobs.h"

#define COVERAGE_SETS 5
#define RUN_STEPS 400
#define MAX_DROPS 8
#define MAX_TRUTHS 8

/* A pad the data are made from: solref and the sphere's mass (2 cm radius). */
struct truth {
	double timeconst, dampratio, mass;
	int coverage; /* counted in the coverage rates: its drops bounce */
};

/*
 * Two sets of truths. The fit's search and intervals were tuned on the first (the pads of
 * issue #8 and the 50 g pad of issue #16's report, seeds 1000 + ...); the tests use the
 * second, which the tuning never saw, with other seeds (5000 + ...): tc 0.01 to 0.05 s,
 * dampratio 0.25 to 1.5, spheres of 100 to 150 g. The pads of dampratio 0.7 and 1.5 do
 * not bounce measurably at the default sigma (0.5 mm; at 0.7 a few hundredths of a mm):
 * the best-fit test uses them, the coverage rates do not (drops that do not bounce bound
 * dampratio from one side only, which the fit says; there is no interval to cover).
 * CALIB_COVERAGE_TRUTHS=tuning selects the first set.
 */
static const struct truth tuning_truths[] = {{0.012, 0.5, 0.1, 1}, {0.03, 0.3, 0.1, 1},
    {0.02, 0.2, 0.1, 1}, {0.05, 0.5, 0.1, 1}, {0.016, 0.59, 0.05, 0}};
static const struct truth test_truths[] = {{0.010, 0.30, 0.10, 1}, {0.014, 0.45, 0.15, 1},
    {0.020, 0.25, 0.12, 1}, {0.028, 0.35, 0.10, 1}, {0.040, 0.45, 0.13, 1}, {0.050, 0.28, 0.11, 1},
    {0.018, 0.70, 0.14, 0}, {0.024, 1.50, 0.12, 0}};
static const double heights3[3] = {0.05, 0.1, 0.15};
static const double heights8[MAX_DROPS] = {0.02, 0.05, 0.08, 0.11, 0.14, 0.17, 0.2, 0.23};
static const double nominal[2] = {0.682689492137086, 0.954499736103642};

/* A "mixed" upload (every third set): its first two drops state a sigma of 2 % of their
 * rebound (a robot that films small bounces closely), the rest the default, as in issue
 * #16's report; the noise follows the stated sigmas. */
#define MIXED_EVERY 3
#define MIXED_DROPS 2
#define MIXED_REL_SIGMA 0.02

static int tuning(void)
{
	const char *env = getenv("CALIB_COVERAGE_TRUTHS");

	return env && strcmp(env, "tuning") == 0;
}

static const struct truth *truths(size_t *n)
{
	if (tuning()) {
		*n = sizeof tuning_truths / sizeof tuning_truths[0];
		return tuning_truths;
	}
	*n = sizeof test_truths / sizeof test_truths[0];
	return test_truths;
}

static struct core_scene pad_scene(const struct truth *t, double timeconst, double dampratio)
{
	struct core_scene s =
	    mjscene_pad(0, timeconst, dampratio, RUN_STEPS * CALIB_DEFAULT_TIMESTEP);

	s.mass = t->mass;
	return s;
}

/* MuJoCo's first apex of a drop from height: the highest bottom after the first step in
 * contact, until it falls again after leaving the pad. */
static double mj_apex(const struct core_scene *pad, double height)
{
	struct core_scene s = *pad;
	struct mjscene ms;
	char msg[512];
	double bottom, prev = 0, apex = 0;
	int i, touched = 0, left = 0;

	s.height = height;
	ck_assert_msg(mjscene_open(&ms, &s, msg, sizeof msg) == 0, "%s", msg);
	for (i = 0; i < RUN_STEPS; i++) {
		mj_step(ms.model, ms.data);
		bottom = ms.data->qpos[2] - ms.half_height;
		if (touched) {
			if (left && bottom < prev)
				break;
			apex = fmax(apex, bottom);
			left |= bottom > 0;
		}
		touched |= bottom < 0;
		prev = bottom;
	}
	mjscene_close(&ms);
	return apex;
}

static int sets(void)
{
	const char *env = getenv("CALIB_COVERAGE_SETS");
	int n = env ? atoi(env) : COVERAGE_SETS;

	return n > 0 ? n : COVERAGE_SETS;
}

struct coverage {
	int trials;         /* fits counted in the rates */
	int interval[2][2]; /* [parameter][k - 1]: the k-sigma interval covers the truth */
	int stderr_k[2][2]; /* |log(estimate / truth)| <= k standard errors */
	int ok, few_dof, partial, misfit, insufficient; /* statuses, every fit */
	int fits, beaten; /* every fit; those the truth's chi^2 beat */
	double worst;     /* the largest reported chi^2 - the truth's */
	double worst_tc, worst_dr;
	int contradictions; /* fits whose notes contradict the data */
	double excess;      /* sum of truth's - reported chi^2 over fits with both free */
	int nexcess;
	/* Issue #29: the pads that do not bounce. Their fits' intervals, an open end null
	 * (-inf/+inf), cover the truth; a fit that gives none (insufficient_data, a held
	 * parameter: NAN) claims nothing and is counted apart (silent). */
	int nb_trials, nb_interval[2][2], nb_silent[2];
	int unbacked; /* fits that call a parameter identified with an open 2-sigma interval,
	                 or ok without both bounded */
};

/* Does a note contradict the data or the fit? "Do not bounce" when every drop bounced
 * (above CALIB_BOUNCE_SIGMAS sigma); a parameter at an edge of the search without a note
 * naming that edge and its value, or such a note without the parameter there. */
static int notes_contradict(
    const struct fit_result *fit, const struct calib_drop *drops, size_t ndrops)
{
	static const char *const names[2] = {"timeconst", "dampratio"};
	size_t i, bounced = 0, k;
	int q, bad = 0;

	for (i = 0; i < ndrops; i++)
		bounced += drops[i].rebound > CALIB_BOUNCE_SIGMAS *
		        (drops[i].sigma > 0 ? drops[i].sigma : CALIB_SIGMA_REBOUND);
	for (k = 0; k < fit->nnotes; k++) {
		const char *n = fit->notes[k];

		if (bounced == ndrops &&
		    (strstr(n, "not bounce") || strstr(n, "no drop bounced"))) {
			printf("note contradicts the data (every drop bounced): %s\n", n);
			bad = 1;
		}
		for (q = 0; q < 2; q++) {
			char head[64];
			int said;

			snprintf(head, sizeof head, "%s is at the %s edge", names[q],
			    fit->pinned[q] > 0 ? "upper" : "lower");
			said = strncmp(n, names[q], strlen(names[q])) == 0 &&
			    strstr(n, " edge of the");
			if (said && (!fit->pinned[q] || strncmp(n, head, strlen(head)) != 0)) {
				printf("note names an edge the fit is not at: %s\n", n);
				bad = 1;
			}
		}
	}
	for (q = 0; q < 2; q++) {
		int named = 0;

		for (k = 0; k < fit->nnotes; k++)
			named |= strncmp(fit->notes[k], names[q], strlen(names[q])) == 0 &&
			    strstr(fit->notes[k], " edge of the") != NULL;
		if (fit->pinned[q] && !named) {
			printf("%s pinned at an edge without a note saying so\n", names[q]);
			bad = 1;
		}
	}
	fflush(stdout);
	return bad;
}

/* Fit sets() data sets of ndrops drops for every truth; the truth's chi^2 against the
 * reported one, and the coverage over the truths that count. */
static void measure(const double *heights, size_t ndrops, struct coverage *c)
{
	size_t ntruths, t, i;
	const struct truth *tt = truths(&ntruths);
	unsigned seed0 = tuning() ? 1000u : 5000u;
	int n, q, k;

	memset(c, 0, sizeof *c);
	c->worst = -INFINITY;
	for (t = 0; t < ntruths; t++) {
		struct core_scene truth = pad_scene(&tt[t], tt[t].timeconst, tt[t].dampratio);
		struct core_scene start =
		    pad_scene(&tt[t], CALIB_PAD_TIMECONST, CALIB_PAD_DAMPRATIO);
		double apex[MAX_DROPS];
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		int per[2] = {0, 0};

		ck_assert_ptr_nonnull(rng);
		gsl_rng_set(rng, seed0 + (unsigned)t * 7919u + (unsigned)ndrops);
		for (i = 0; i < ndrops; i++)
			apex[i] = mj_apex(&truth, heights[i]);
		for (n = 0; n < sets(); n++) {
			struct calib_drop drops[MAX_DROPS];
			struct calib_data data = {0};
			struct fit_result *fit = NULL;
			struct err err;
			double truth_chi2 = 0;

			for (i = 0; i < ndrops; i++) {
				double sigma = CALIB_SIGMA_REBOUND;

				drops[i].sigma = 0;
				if (n % MIXED_EVERY == MIXED_EVERY - 1 && i < MIXED_DROPS &&
				    apex[i] > 0)
					sigma = drops[i].sigma = MIXED_REL_SIGMA * apex[i];
				drops[i].height = heights[i];
				drops[i].rebound =
				    fmax(0, apex[i] + sigma * gsl_ran_gaussian(rng, 1));
				truth_chi2 += (apex[i] - drops[i].rebound) *
				    (apex[i] - drops[i].rebound) / (sigma * sigma);
			}
			data.drops = drops;
			data.ndrops = ndrops;
			ck_assert_msg(
			    fit_solref(&start, &data, NULL, &fit, &err) == 0, "%s", err.message);
			c->fits++;
			c->ok += fit->status == FIT_OK;
			c->few_dof += fit->status == FIT_FEW_DOF;
			c->partial += fit->status == FIT_PARTIAL;
			c->misfit += fit->status == FIT_MISFIT;
			c->insufficient += fit->status == FIT_INSUFFICIENT;
			/* the reported fit is the best over the searched range: the truth (inside
			 * it) never scores lower. An insufficient fit reports no optimum. */
			if (fit->status != FIT_INSUFFICIENT) {
				if (fit->chi2 - truth_chi2 > c->worst) {
					c->worst = fit->chi2 - truth_chi2;
					c->worst_tc = tt[t].timeconst;
					c->worst_dr = tt[t].dampratio;
				}
				if (fit->status == FIT_OK || fit->status == FIT_FEW_DOF) {
					c->excess += truth_chi2 - fit->chi2;
					c->nexcess++;
				}
				if (truth_chi2 < fit->chi2 * (1 - 1e-9) - 1e-9) {
					c->beaten++;
					printf("truth (%g, %g) set %d: truth chi2 %.6g < reported "
					       "%.6g "
					       "at (%.6g, %.6g)\n",
					    tt[t].timeconst, tt[t].dampratio, n, truth_chi2,
					    fit->chi2, fit->timeconst, fit->dampratio);
					fflush(stdout);
				}
			}
			c->contradictions += notes_contradict(fit, drops, ndrops);
			for (q = 0; q < 2; q++) {
				const double *two = fit->interval_log[q][1];
				int bounded = isfinite(two[0]) && isfinite(two[1]);

				if ((fit->identified[q] || fit->status == FIT_OK) && !bounded) {
					c->unbacked++;
					printf("truth (%g, %g) set %d: status %d, parameter %d "
					       "identified %d with 2-sigma [%g, %g]\n",
					    tt[t].timeconst, tt[t].dampratio, n, fit->status, q,
					    fit->identified[q], exp(two[0]), exp(two[1]));
				}
			}
			if (!tt[t].coverage) {
				c->nb_trials++;
				for (q = 0; q < 2; q++) {
					double v = log(q == 0 ? tt[t].timeconst : tt[t].dampratio);

					if (isnan(fit->interval_log[q][1][0])) {
						c->nb_silent[q]++;
						continue;
					}
					for (k = 0; k < 2; k++)
						c->nb_interval[q][k] +=
						    fit->interval_log[q][k][0] <= v &&
						    v <= fit->interval_log[q][k][1];
				}
				fit_free(fit);
				continue;
			}
			for (q = 0; q < 2; q++) {
				double est = log(q == 0 ? fit->timeconst : fit->dampratio);
				double v = log(q == 0 ? tt[t].timeconst : tt[t].dampratio);

				for (k = 0; k < 2; k++) {
					/* an interval the fit did not give covers nothing */
					c->interval[q][k] += fit->interval_log[q][k][0] <= v &&
					    v <= fit->interval_log[q][k][1];
					c->stderr_k[q][k] +=
					    fabs(est - v) <= (k + 1) * fit->se_log[q];
				}
			}
			c->trials++;
			per[0] += fit->interval_log[0][0][0] <= log(tt[t].timeconst) &&
			    log(tt[t].timeconst) <= fit->interval_log[0][0][1];
			per[1] += fit->interval_log[1][0][0] <= log(tt[t].dampratio) &&
			    log(tt[t].dampratio) <= fit->interval_log[1][0][1];
			fit_free(fit);
		}
		if (tt[t].coverage)
			printf(
			    "%zu drops, truth (%g, %g): 1-sigma intervals cover %d and %d of %d\n",
			    ndrops, tt[t].timeconst, tt[t].dampratio, per[0], per[1], sets());
		gsl_rng_free(rng);
	}
	printf("%zu drops: %d fits (%d ok, %d few_dof, %d partial, %d misfit, %d insufficient); "
	       "the truth beat the reported fit in %d; worst reported - truth chi2 %.4g "
	       "(truth %g, %g)\n",
	    ndrops, c->fits, c->ok, c->few_dof, c->partial, c->misfit, c->insufficient, c->beaten,
	    c->worst, c->worst_tc, c->worst_dr);
	printf("%zu drops: %d fits with a note that contradicts the data; truth's - reported "
	       "chi2 averages %.3f over %d fits with both parameters free (2 for a smooth model)\n",
	    ndrops, c->contradictions, c->nexcess ? c->excess / c->nexcess : NAN, c->nexcess);
	fflush(stdout);
}

/* The pads that do not bounce (issue #29): print their rates over the fits that gave an
 * interval; how many are below the tolerance. Their intervals hold what the chi^2 test of
 * all measurements allows (conservative by design): only the lower bound is asserted. */
static int check_no_bounce(const char *what, const struct coverage *c)
{
	static const char *const names[2] = {"timeconst", "dampratio"};
	int q, k, outside = 0;

	for (q = 0; q < 2; q++) {
		int given = c->nb_trials - c->nb_silent[q];

		for (k = 0; k < 2 && given > 0; k++) {
			double rate = (double)c->nb_interval[q][k] / given, p = nominal[k];
			double tol = 3 * sqrt(p * (1 - p) / given);
			int bad = rate < p - tol;

			outside += bad;
			printf(
			    "%s no bounce: %-9s %d-sigma interval covers %.3f of %d (nominal %.3f "
			    "- %.3f)%s; %d fits gave none\n",
			    what, names[q], k + 1, rate, given, p, tol, bad ? " OUTSIDE" : "",
			    c->nb_silent[q]);
		}
	}
	fflush(stdout);
	return outside;
}

/* Print the rates; how many are below the tolerance (and, with upper, above it). */
static int check_rates(const char *what, const struct coverage *c, int upper)
{
	static const char *const names[2] = {"timeconst", "dampratio"};
	int q, k, outside = 0;

	for (q = 0; q < 2; q++) {
		for (k = 0; k < 2; k++) {
			double rate = (double)c->interval[q][k] / c->trials, p = nominal[k];
			double tol = 3 * sqrt(p * (1 - p) / c->trials);
			int bad = rate < p - tol || (upper && rate > p + tol);

			outside += bad;
			printf("%s %-9s %d-sigma interval covers %.3f (nominal %.3f +- %.3f)%s;"
			       " estimate +- %d stderr covers %.3f\n",
			    what, names[q], k + 1, rate, p, tol, bad ? " OUTSIDE" : "", k + 1,
			    (double)c->stderr_k[q][k] / c->trials);
		}
	}
	fflush(stdout);
	return outside;
}

START_TEST(three_drops)
{
	struct coverage c;

	measure(heights3, 3, &c);
	ck_assert_int_eq(c.beaten, 0);
	ck_assert_int_eq(c.contradictions, 0);
	ck_assert_int_eq(c.ok, 0); /* one degree of freedom is never "ok" */
	ck_assert_int_eq(c.unbacked, 0);
	ck_assert_int_eq(check_rates("3 drops", &c, 0), 0);
	ck_assert_int_eq(check_no_bounce("3 drops", &c), 0);
}
END_TEST

START_TEST(eight_drops)
{
	struct coverage c;

	measure(heights8, MAX_DROPS, &c);
	ck_assert_int_eq(c.beaten, 0);
	ck_assert_int_eq(c.contradictions, 0);
	ck_assert_int_eq(c.unbacked, 0);
	ck_assert_int_eq(check_rates("8 drops", &c, 1), 0);
	ck_assert_int_eq(check_no_bounce("8 drops", &c), 0);
}
END_TEST

/*
 * Fresh sets (issue #29): pads, objects and timesteps drawn at run time from a SplitMix64
 * sequence (tests/testlib.h, seed 2929) that no tuning saw, in the lab's ranges:
 * timeconst 0.012 to 0.08 s, dampratio 0.15 to 2, spheres of radius 1 to 3 cm and 20 to
 * 300 g, timestep 2 or 5 ms; drops from 0.02 to 0.3 m with sigma 0.1 to 0.5 mm plus 3 to
 * 8 % of the rebound (stated); MuJoCo 2.2.2's own values plus that noise.
 *   no bounce   5 drops, the pad drawn again until no drop bounces in MuJoCo (every
 *               first apex 0): the rebounds are noise about 0.
 *   presses     3 drops and 2 presses of 1.5 to 20 times the weight, each press
 *               libmujoco's (4 s from rest touching the pad, the mean depth over the last
 *               1 s: the fit's definition, fit/model.h), sigma 3 % of the depth; a quarter
 *               of the pads hop under them.
 * Each fit's intervals must hold the truth at the nominal rates (an open end holds
 * everything beyond it; a fit that gives no interval, a held parameter, is counted apart),
 * no parameter may be called identified with an open 2-sigma interval, and the truth
 * (inside the searched range) never scores a lower chi^2 than the reported fit: the
 * worst reported - truth chi^2 is printed. Sets: 2 x CALIB_COVERAGE_SETS of each.
 */
struct fresh {
	struct core_scene truth, start;
	double tc, dr;
};

static double gauss(uint64_t *rng)
{
	double u = tl_uniform(rng), v = tl_uniform(rng);

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

static void fresh_pad(uint64_t *rng, struct fresh *f)
{
	double r = tl_between(rng, 0.01, 0.03), mass = tl_between(rng, 0.02, 0.3);
	double h = tl_uniform(rng) < 0.5 ? 0.002 : 0.005;

	f->tc = exp(tl_between(rng, log(0.012), log(0.08)));
	f->dr = exp(tl_between(rng, log(0.15), log(2.0)));
	f->truth = mjscene_pad(0, f->tc, f->dr, RUN_STEPS * h);
	f->start = mjscene_pad(0, CALIB_PAD_TIMECONST, CALIB_PAD_DAMPRATIO, RUN_STEPS * h);
	f->truth.size[0] = f->start.size[0] = r;
	f->truth.mass = f->start.mass = mass;
	f->truth.option.timestep = f->start.option.timestep = h;
}

struct fresh_rates {
	int fits, given[2], cover[2][2], unbacked, beaten, ok, partial, few_dof, misfit,
	    insufficient, hopping;
	double worst;
};

static void fresh_count(
    struct fresh_rates *c, const struct fresh *f, const struct fit_result *fit, double truth_chi2)
{
	int q, k;

	c->fits++;
	c->ok += fit->status == FIT_OK;
	c->partial += fit->status == FIT_PARTIAL;
	c->few_dof += fit->status == FIT_FEW_DOF;
	c->misfit += fit->status == FIT_MISFIT;
	c->insufficient += fit->status == FIT_INSUFFICIENT;
	if (fit->status != FIT_INSUFFICIENT) {
		c->worst = fmax(c->worst, fit->chi2 - truth_chi2);
		if (truth_chi2 < fit->chi2 * (1 - 1e-9) - 1e-9) {
			c->beaten++;
			printf("fresh truth (%g, %g): truth chi2 %.6g < reported %.6g at (%.6g, "
			       "%.6g)\n",
			    f->tc, f->dr, truth_chi2, fit->chi2, fit->timeconst, fit->dampratio);
		}
	}
	for (q = 0; q < 2; q++) {
		double v = log(q == 0 ? f->tc : f->dr);
		const double *two = fit->interval_log[q][1];

		if ((fit->identified[q] || fit->status == FIT_OK) &&
		    !(isfinite(two[0]) && isfinite(two[1]))) {
			c->unbacked++;
			printf("fresh truth (%g, %g): parameter %d identified with 2-sigma [%g, "
			       "%g]\n",
			    f->tc, f->dr, q, exp(two[0]), exp(two[1]));
		}
		if (isnan(two[0]))
			continue;
		c->given[q]++;
		for (k = 0; k < 2; k++)
			c->cover[q][k] +=
			    fit->interval_log[q][k][0] <= v && v <= fit->interval_log[q][k][1];
	}
	fflush(stdout);
}

/* Print the fresh rates and the statuses; how many rates are below nominal by more than
 * three binomial standard deviations. */
static int fresh_report(const char *what, const struct fresh_rates *c)
{
	static const char *const names[2] = {"timeconst", "dampratio"};
	int q, k, outside = 0;

	printf("%s: %d fits (%d ok, %d few_dof, %d partial, %d misfit, %d insufficient; %d "
	       "hop under a press); the truth beat the reported fit in %d; worst reported - "
	       "truth chi2 %.4g\n",
	    what, c->fits, c->ok, c->few_dof, c->partial, c->misfit, c->insufficient, c->hopping,
	    c->beaten, c->worst);
	for (q = 0; q < 2; q++)
		for (k = 0; k < 2 && c->given[q] > 0; k++) {
			double rate = (double)c->cover[q][k] / c->given[q], p = nominal[k];
			double tol = 3 * sqrt(p * (1 - p) / c->given[q]);
			int bad = rate < p - tol;

			outside += bad;
			printf(
			    "%s: %-9s %d-sigma interval covers %.3f of %d (nominal %.3f - %.3f)%s; "
			    "%d fits gave none\n",
			    what, names[q], k + 1, rate, c->given[q], p, tol, bad ? " OUTSIDE" : "",
			    c->fits - c->given[q]);
		}
	fflush(stdout);
	return outside;
}

/* A drop's sigma in the lab: 0.1 to 0.5 mm plus 3 to 8 % of the rebound. */
static double lab_sigma(uint64_t *rng, double apex)
{
	return tl_between(rng, 1e-4, 5e-4) + tl_between(rng, 0.03, 0.08) * apex;
}

START_TEST(fresh_no_bounce)
{
	uint64_t rng = 2929;
	struct fresh_rates c = {0};
	int n, i;

	c.worst = -INFINITY;
	for (n = 0; n < 2 * sets(); n++) {
		struct fresh f;
		struct calib_drop drops[5];
		struct calib_data data = {0};
		struct fit_result *fit = NULL;
		struct err err;
		double apex[5], truth_chi2 = 0;
		int bounced;

		do {
			fresh_pad(&rng, &f);
			bounced = 0;
			for (i = 0; i < 5; i++) {
				drops[i].height = tl_between(&rng, 0.02, 0.3);
				apex[i] = mj_apex(&f.truth, drops[i].height);
				bounced |= apex[i] > 0;
			}
		} while (bounced);
		for (i = 0; i < 5; i++) {
			drops[i].sigma = lab_sigma(&rng, 0);
			drops[i].rebound = fmax(0, drops[i].sigma * gauss(&rng));
			truth_chi2 += (drops[i].rebound / drops[i].sigma) *
			    (drops[i].rebound / drops[i].sigma);
		}
		data.drops = drops;
		data.ndrops = 5;
		ck_assert_msg(
		    fit_solref(&f.start, &data, NULL, &fit, &err) == 0, "%s", err.message);
		fresh_count(&c, &f, fit, truth_chi2);
		fit_free(fit);
	}
	ck_assert_int_eq(fresh_report("fresh no-bounce drops", &c), 0);
	ck_assert_int_eq(c.unbacked, 0);
	ck_assert_int_eq(c.beaten, 0);
	ck_assert_int_eq(c.ok, 0); /* noise about 0 cannot fix both */
}
END_TEST

START_TEST(fresh_presses)
{
	uint64_t rng = 2930;
	struct fresh_rates c = {0};
	int n, i;

	c.worst = -INFINITY;
	for (n = 0; n < 2 * sets(); n++) {
		struct fresh f;
		struct calib_drop drops[3];
		struct calib_press presses[2];
		struct calib_data data = {0};
		struct fit_result *fit = NULL;
		struct err err;
		struct core_scene_model m;
		double truth_chi2 = 0, z;
		int hops = 0;

		fresh_pad(&rng, &f);
		core_scene_prepare(&f.truth, &m);
		for (i = 0; i < 3; i++) {
			double apex;

			drops[i].height = tl_between(&rng, 0.02, 0.3);
			apex = mj_apex(&f.truth, drops[i].height);
			drops[i].sigma = lab_sigma(&rng, apex);
			drops[i].rebound = fmax(0, apex + drops[i].sigma * gauss(&rng));
			z = (drops[i].rebound - apex) / drops[i].sigma;
			truth_chi2 += z * z;
		}
		for (i = 0; i < 2; i++) {
			double depth, eq;

			presses[i].force =
			    tl_between(&rng, 1.5, 20) * f.truth.mass * DEFAULT_GRAVITY;
			/* libmujoco's press, as fit/model.h defines it (NAN: no scene) */
			depth = calgen_mj_press_depth(&f.truth, presses[i].force);
			ck_assert(!isnan(depth));
			presses[i].sigma = 0.03 * fabs(depth);
			presses[i].deflection = depth + presses[i].sigma * gauss(&rng);
			z = (presses[i].deflection - depth) / presses[i].sigma;
			truth_chi2 += z * z;
			ck_assert_int_eq(core_sim_equilibrium(&m, presses[i].force, &eq), 0);
			hops |= fabs(depth / eq - 1) > 0.05;
		}
		c.hopping += hops;
		data.drops = drops;
		data.ndrops = 3;
		data.presses = presses;
		data.npresses = 2;
		ck_assert_msg(
		    fit_solref(&f.start, &data, NULL, &fit, &err) == 0, "%s", err.message);
		fresh_count(&c, &f, fit, truth_chi2);
		fit_free(fit);
	}
	ck_assert_int_eq(fresh_report("fresh presses", &c), 0);
	ck_assert_int_eq(c.unbacked, 0);
	ck_assert_int_eq(c.beaten, 0);
	ck_assert_int_gt(c.hopping, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calib_coverage");
	TCase *three = tcase_create("three"), *eight = tcase_create("eight");
	TCase *fresh = tcase_create("fresh");
	SRunner *sr;
	int failed;

	/* CK_RUN_CASE=three, eight or fresh runs one */
	tcase_set_timeout(three, 3600);
	tcase_set_timeout(eight, 3600);
	tcase_add_test(three, three_drops);
	tcase_add_test(eight, eight_drops);
	tcase_set_timeout(fresh, 3600);
	tcase_add_test(fresh, fresh_no_bounce);
	tcase_add_test(fresh, fresh_presses);
	suite_add_tcase(s, three);
	suite_add_tcase(s, eight);
	suite_add_tcase(s, fresh);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
