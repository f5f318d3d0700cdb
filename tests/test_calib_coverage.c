/*
 * test_calib_coverage.c: the fit's confidence intervals are honest (issue #8). Over many
 * noisy data sets made with real MuJoCo 2.2.2 (libmujoco), the reported 1- and 2-sigma
 * intervals of timeconst and dampratio must cover the truth at the nominal 68.3 % and
 * 95.4 %, for 3-drop sets (one residual degree of freedom: status few_dof) and 8-drop sets.
 *
 * Data: a 2 cm, 100 g sphere dropped on the SO-101 pad at 5 ms with refsafe on, for four
 * truths from a pad that rebounds a third of the way to one that barely bounces (two of
 * them, (0.03, 0.3) and (0.05, 0.5), leave the drops' timeconst valley rough and wide); each
 * drop's first apex is MuJoCo's own (mj_step from rest), plus Gaussian noise of the
 * default rebound sigma (0.5 mm) from fixed seeds, so the test is deterministic.
 * CALIB_COVERAGE_SETS data sets per truth and size (default COVERAGE_SETS; `make
 * bench-coverage` runs 100 and prints the rates).
 *
 * Tolerance: each rate pools n = 4 truths x sets trials, a binomial proportion; an honest
 * interval is within 3 standard deviations sqrt(p (1 - p) / n) of the nominal p but 0.3 %
 * of the time. Below that is dishonest (errors too small) and fails for every size. Above
 * it fails for 8 drops (inflated errors); for 3 drops, whose one degree of freedom cannot
 * tell a smooth chi^2 from a rough one, the intervals also satisfy the chi^2 test of the
 * whole parameter set and are conservative by design where chi^2 is smooth: only the
 * lower bound is asserted there (the rates are printed).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "fit/fit.h"
#include "mjscene.h"
#include "tunables.h"

#define COVERAGE_SETS 12
#define RUN_STEPS 400
#define MAX_DROPS 8
#define NTRUTHS 4

static const double truths[NTRUTHS][2] = {{0.012, 0.5}, {0.03, 0.3}, {0.02, 0.2}, {0.05, 0.5}};
static const double heights3[3] = {0.05, 0.1, 0.15};
static const double heights8[MAX_DROPS] = {0.02, 0.05, 0.08, 0.11, 0.14, 0.17, 0.2, 0.23};
static const double nominal[2] = {0.682689492137086, 0.954499736103642};

static struct ctd_scene pad_scene(double timeconst, double dampratio)
{
	return mjscene_pad(0, timeconst, dampratio, RUN_STEPS * CALIB_DEFAULT_TIMESTEP);
}

/* MuJoCo's first apex of a drop from height: the highest bottom after the first step in
 * contact, until it falls again after leaving the pad. */
static double mj_apex(const struct ctd_scene *pad, double height)
{
	struct ctd_scene s = *pad;
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
	int trials;
	int interval[2][2]; /* [parameter][k - 1]: the k-sigma interval covers the truth */
	int stderr_k[2][2]; /* |log(estimate / truth)| <= k standard errors */
	int ok, few_dof;    /* statuses */
};

/* Coverage over ndrops-drop sets of every truth. */
static void measure(const double *heights, size_t ndrops, struct coverage *c)
{
	int t, n, q, k;

	memset(c, 0, sizeof *c);
	for (t = 0; t < NTRUTHS; t++) {
		struct ctd_scene truth = pad_scene(truths[t][0], truths[t][1]);
		struct ctd_scene start = pad_scene(CALIB_PAD_TIMECONST, CALIB_PAD_DAMPRATIO);
		double apex[MAX_DROPS];
		gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
		size_t i;

		ck_assert_ptr_nonnull(rng);
		gsl_rng_set(rng, 1000u + (unsigned)t * 7919u + (unsigned)ndrops);
		for (i = 0; i < ndrops; i++)
			apex[i] = mj_apex(&truth, heights[i]);
		for (n = 0; n < sets(); n++) {
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
			ck_assert_msg(
			    fit_solref(&start, &data, &fit, &err) == 0, "%s", err.message);
			c->ok += fit->status == FIT_OK;
			c->few_dof += fit->status == FIT_FEW_DOF;
			for (q = 0; q < 2; q++) {
				double est = log(q == 0 ? fit->timeconst : fit->dampratio);
				double v = log(truths[t][q]);

				for (k = 0; k < 2; k++) {
					/* an interval the fit did not give covers nothing */
					c->interval[q][k] += fit->interval_log[q][k][0] <= v &&
					    v <= fit->interval_log[q][k][1];
					c->stderr_k[q][k] +=
					    fabs(est - v) <= (k + 1) * fit->se_log[q];
				}
			}
			c->trials++;
			fit_free(fit);
		}
		gsl_rng_free(rng);
	}
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
	return outside;
}

START_TEST(three_drop_intervals_cover)
{
	struct coverage c;

	measure(heights3, 3, &c);
	printf("3 drops: %d fits, %d few_dof, %d ok\n", c.trials, c.few_dof, c.ok);
	ck_assert_int_eq(c.ok, 0); /* one degree of freedom is never "ok" */
	ck_assert_int_eq(c.few_dof, c.trials);
	ck_assert_int_eq(check_rates("3 drops", &c, 0), 0);
}
END_TEST

START_TEST(eight_drop_intervals_cover)
{
	struct coverage c;

	measure(heights8, MAX_DROPS, &c);
	printf("8 drops: %d fits, %d ok\n", c.trials, c.ok);
	ck_assert_int_eq(check_rates("8 drops", &c, 1), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calib_coverage");
	TCase *tc = tcase_create("coverage");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 3600);
	tcase_add_test(tc, three_drop_intervals_cover);
	tcase_add_test(tc, eight_drop_intervals_cover);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
