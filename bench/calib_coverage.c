/*
 * calib_coverage.c: how honest the fit's standard errors are (issue #8): over many noisy
 * data sets made with real MuJoCo 2.2.2 (libmujoco), how often the reported 1- and
 * 2-sigma intervals of log(timeconst) and log(dampratio) cover the truth, against the
 * nominal 68.3 % and 95.4 %, for 3-drop sets (one residual degree of freedom: status
 * few_dof, errors from the stated sigmas) and 8-drop sets. A measurement (`make
 * bench-coverage`), not part of `make check`: a fit takes about a second here, and the
 * rates are not yet within the binomial tolerance it prints (see the report of issue #8).
 *
 * Data: a 2 cm, 100 g sphere dropped on the SO-101 pad at 5 ms with refsafe on, for two
 * bouncing truths; each drop's first apex is MuJoCo's (mj_step from rest, as
 * test_calib_fit.c reads it), plus Gaussian noise of the default rebound sigma (0.5 mm)
 * from fixed seeds, so the test is deterministic. COVERAGE_SETS data sets per truth and
 * size (CALIB_COVERAGE_SETS in the environment for a larger run).
 *
 * Tolerance printed: each rate is a binomial proportion over n = 2 truths x sets trials; an
 * honest estimator is within 3 binomial standard deviations sqrt(p (1 - p) / n) of the
 * nominal p but 0.3 % of the time, and errors inflated beyond what the noise allows show
 * as rates far above it. The seeds are fixed. Exit status 1 when a rate is outside.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "fit/fit.h"
#include "mjscene.h"
#include "tunables.h"

#define COVERAGE_SETS 40
#define RUN_STEPS 400
#define MAX_DROPS 8

static const double truths[2][2] = {{0.012, 0.5}, {0.03, 0.3}};
static const double heights3[3] = {0.05, 0.1, 0.15};
static const double heights8[MAX_DROPS] = {0.02, 0.05, 0.08, 0.11, 0.14, 0.17, 0.2, 0.23};

static struct scene pad_scene(double timeconst, double dampratio)
{
	struct scene s = {0};

	s.shape = SCENE_SPHERE;
	s.size[0] = 0.02;
	s.mass = 0.1;
	pair_geom_default(&s.geom);
	pair_geom_default(&s.floor);
	s.floor.solref[0] = timeconst;
	s.floor.solref[1] = dampratio;
	s.floor.condim = CALIB_PAD_CONDIM;
	s.floor.friction[0] = CALIB_PAD_FRICTION_SLIDE;
	s.floor.friction[1] = CALIB_PAD_FRICTION_SPIN;
	s.floor.friction[2] = CALIB_PAD_FRICTION_ROLL;
	s.floor.priority = CALIB_PAD_PRIORITY;
	s.option.timestep = CALIB_DEFAULT_TIMESTEP;
	s.option.refsafe = 1;
	s.option.gravity = DEFAULT_GRAVITY;
	s.option.impratio = DEFAULT_IMPRATIO;
	s.option.integrator = SCENE_EULER;
	s.duration = RUN_STEPS * CALIB_DEFAULT_TIMESTEP;
	return s;
}

/* MuJoCo's first apex of a drop from height: the highest bottom after the first step in
 * contact, until it falls again after leaving the pad. */
static double mj_apex(const struct scene *pad, double height)
{
	struct scene s = *pad;
	struct mjscene ms;
	char msg[512];
	double bottom, prev = 0, apex = 0;
	int i, touched = 0, left = 0;

	s.height = height;
	if (mjscene_open(&ms, &s, msg, sizeof msg) != 0) {
		fprintf(stderr, "calib_coverage: %s\n", msg);
		exit(2);
	}
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

/* Coverage of ndrops-drop sets: fills covered[param][k] (k sigma, k = 1, 2) and trials. */
static void coverage(
    const double *heights, size_t ndrops, int covered[2][2], int *trials, int *statuses)
{
	int t, n, q, k, nsets = sets();

	memset(covered, 0, 2 * 2 * sizeof covered[0][0]);
	*trials = 0;
	for (t = 0; t < 2; t++) {
		struct scene truth = pad_scene(truths[t][0], truths[t][1]);
		struct scene start = pad_scene(CALIB_PAD_TIMECONST, CALIB_PAD_DAMPRATIO);
		double apex[MAX_DROPS];
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		size_t i;

		gsl_rng_set(rng, 1000u + (unsigned)t * 7919u + (unsigned)ndrops);
		for (i = 0; i < ndrops; i++)
			apex[i] = mj_apex(&truth, heights[i]);
		for (n = 0; n < nsets; n++) {
			struct calib_drop drops[MAX_DROPS];
			struct calib_data data = {0};
			struct fit_result *fit = NULL;
			struct err err;

			for (i = 0; i < ndrops; i++) {
				drops[i].height = heights[i];
				drops[i].rebound = fmax(
				    0, apex[i] + CALIB_SIGMA_REBOUND * gsl_ran_gaussian(rng, 1));
				drops[i].sigma = 0;
			}
			data.drops = drops;
			data.ndrops = ndrops;
			if (fit_solref(&start, &data, &fit, &err) != 0) {
				fprintf(stderr, "calib_coverage: %s\n", err.message);
				exit(2);
			}
			statuses[fit->status]++;
			for (q = 0; q < 2; q++) {
				double value = q == 0 ? fit->timeconst : fit->dampratio;
				double dev = fabs(log(value / truths[t][q]));
				double se = fit->identified[q] ? fit->se_log[q] : INFINITY;

				for (k = 0; k < 2; k++)
					covered[q][k] += isfinite(value) && dev <= (k + 1) * se;
			}
			(*trials)++;
			fit_free(fit);
		}
		gsl_rng_free(rng);
	}
}

/* Print the rates; how many are outside the tolerance. */
static int check_rates(const char *what, int covered[2][2], int trials)
{
	static const double nominal[2] = {0.6827, 0.9545};
	static const char *const names[2] = {"timeconst", "dampratio"};
	int q, k, outside = 0;

	for (q = 0; q < 2; q++) {
		for (k = 0; k < 2; k++) {
			double rate = (double)covered[q][k] / trials, p = nominal[k];
			double tol = 3 * sqrt(p * (1 - p) / trials);

			outside += fabs(rate - p) > tol;
			printf("%-8s %-9s %d-sigma coverage %.3f   nominal %.3f +- %.3f   %s\n",
			    what, names[q], k + 1, rate, p, tol,
			    fabs(rate - p) > tol ? "OUTSIDE" : "ok");
		}
	}
	return outside;
}

int main(void)
{
	int covered[2][2], trials, statuses[8] = {0}, outside = 0;

	printf("calib_coverage: %d data sets per truth and size, 2 truths\n", sets());
	coverage(heights3, 3, covered, &trials, statuses);
	printf("3 drops: %d of %d fits had status ok (one degree of freedom: never expected)\n",
	    statuses[FIT_OK], trials);
	outside += check_rates("3 drops", covered, trials) + (statuses[FIT_OK] != 0);
	coverage(heights8, MAX_DROPS, covered, &trials, statuses);
	outside += check_rates("8 drops", covered, trials);
	return outside ? 1 : 0;
}
