/*
 * test_calib_global.c: the calibration fit returns the lowest chi2 over its whole searched
 * range, distant valleys included (issue #29, item 3):
 *   - issue 29's example (a 25.5 mm, 27.2 g sphere at 5 ms, three drops): the fit answered
 *     few_dof at [0.0344, 0.1305] with chi2 2.609 while the pad [0.018205, 0.194775] scores
 *     0.249 in the fit's own model; the fit's chi2 must be at most that pad's;
 *   - fresh sets made at test time by libmujoco 2.2.2 (tests/calgen.h: truths, objects,
 *     timesteps, heights and sigmas drawn from a seeded SplitMix64 the tuning never saw): the
 *     fit's chi2 is never above the lowest chi2 of a dense log grid over the searched range
 *     (GRID_TC x GRID_DR points, the fit's model through fit/model.h) by more than TOLERANCE.
 *
 * TOLERANCE: the grid is a sample of a rough function, so its lowest point is itself at or
 * above the range's true minimum; a fit at the true minimum is below it. The fit's own descents
 * end where the trust region's tolerances (fit.h's FIT_XTOL, FIT_FTOL) stop them, 1e-8
 * relative; 1e-6 absolute plus 1e-6 relative covers that with room and still catches any
 * missed valley, which costs at least the noise's order (chi2 differences of 0.1 and more,
 * as issue 29's 2.609 against 0.249).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calgen.h"
#include "fit/audit.h"
#include "fit/fit.h"
#include "fit/model.h"
#include "mjscene.h"
#include "testlib.h"
#include "fit/knobs.h"

#define GRID_TC 384
#define GRID_DR 192
#define TOLERANCE_ABS 1e-6
#define TOLERANCE_REL 1e-6

/* The lowest chi2 of drops over the dense grid of the fit's searched range on setup (the
 * fit's model: refsafe off, its sigmas, its residual cap); its pad into best[2]. */
static double grid_min(const struct core_scene *setup, const struct calib_data *d, double best[2])
{
	const double lo[2] = {log(CALIB_GRID_TIMECONST_MIN_STEPS * setup->option.timestep),
	    log(CALIB_GRID_DAMPRATIO_MIN)};
	const double hi[2] = {log(CALIB_GRID_TIMECONST_MAX), log(CALIB_GRID_DAMPRATIO_MAX)};
	struct core_scene_model *m = malloc(GRID_DR * sizeof *m);
	double *out = malloc(GRID_DR * d->ndrops * sizeof *out), heights[CALGEN_MAX_DROPS];
	double lowest = INFINITY;
	size_t i;
	int a, b;

	ck_assert(m && out && d->ndrops <= CALGEN_MAX_DROPS);
	for (i = 0; i < d->ndrops; i++)
		heights[i] = d->drops[i].height;
	for (a = 0; a < GRID_TC; a++) {
		for (b = 0; b < GRID_DR; b++) {
			struct core_scene s = *setup;

			s.option.refsafe = 0;
			s.floor.solref[0] = exp(lo[0] + (hi[0] - lo[0]) * a / (GRID_TC - 1));
			s.floor.solref[1] = exp(lo[1] + (hi[1] - lo[1]) * b / (GRID_DR - 1));
			core_scene_prepare(&s, &m[b]);
		}
		model_rebounds(m, GRID_DR, heights, d->ndrops, NULL, out);
		for (b = 0; b < GRID_DR; b++) {
			double chi2 = 0;

			for (i = 0; i < d->ndrops; i++) {
				double r = (out[b * d->ndrops + i] - d->drops[i].rebound) /
				    d->drops[i].sigma;

				chi2 += isfinite(r) && fabs(r) < RESIDUAL_CAP
				    ? r * r
				    : RESIDUAL_CAP * RESIDUAL_CAP;
			}
			if (chi2 < lowest) {
				lowest = chi2;
				best[0] = exp(lo[0] + (hi[0] - lo[0]) * a / (GRID_TC - 1));
				best[1] = exp(lo[1] + (hi[1] - lo[1]) * b / (GRID_DR - 1));
			}
		}
	}
	free(out);
	free(m);
	return lowest;
}

/* issue 29's example setup: the calibration's defaults (the SO-101 pad, 2.2.2's rules) */
static struct core_scene example_setup(void)
{
	struct core_scene s = mjscene_pad(0, CALIB_PAD_TIMECONST, CALIB_PAD_DAMPRATIO, 2.0);

	s.size[0] = 0.0255;
	s.mass = 0.0272;
	s.option.timestep = 0.005;
	return s;
}

START_TEST(issue_example)
{
	static const struct calib_drop drops[3] = {
	    {0.092, 0.029293, 0.002650}, {0.259, 0.120965, 0.009221}, {0.288, 0.130051, 0.010108}};
	struct calib_data data = {drops, 3, NULL, 0, NULL, 0};
	struct core_scene setup = example_setup();
	struct fit_result *fit = NULL;
	struct audit_result *a = NULL;
	struct err err;
	double best[2], lowest;

	ck_assert_msg(fit_solref(&setup, &data, NULL, &fit, &err) == 0, "%s", err.message);
	ck_assert_int_eq(audit_solref(&setup, &data, 0.018205, 0.194775, NULL, &a, &err), 0);
	lowest = grid_min(&setup, &data, best);
	fprintf(stderr,
	    "issue example: fit [%.6g, %.6g] chi2 %.6g (%s); issue's pad %.6g; grid %.6g at [%.6g, "
	    "%.6g]\n",
	    fit->timeconst, fit->dampratio, fit->chi2,
	    fit->status == FIT_FEW_DOF ? "few_dof" : "other", a->chi2, lowest, best[0], best[1]);
	/* the issue's figure (0.249), in the fit's model */
	ck_assert_msg(a->chi2 < 0.25, "chi2 at the issue's pad %.6g", a->chi2);
	ck_assert_msg(fit->chi2 <= a->chi2 + TOLERANCE_ABS + TOLERANCE_REL * a->chi2,
	    "fit [%.6g, %.6g] chi2 %.6g above the issue's pad's %.6g", fit->timeconst,
	    fit->dampratio, fit->chi2, a->chi2);
	ck_assert_msg(fit->chi2 <= lowest + TOLERANCE_ABS + TOLERANCE_REL * lowest,
	    "fit [%.6g, %.6g] chi2 %.6g above the grid's %.6g at [%.6g, %.6g]", fit->timeconst,
	    fit->dampratio, fit->chi2, lowest, best[0], best[1]);
	audit_free(a);
	fit_free(fit);
}
END_TEST

/* Sets per drop count; CALIB_GLOBAL_SETS overrides (`make bench-coverage` style runs). */
static int sets(void)
{
	const char *env = getenv("CALIB_GLOBAL_SETS");
	int n = env ? atoi(env) : 4;

	return n > 0 ? n : 4;
}

START_TEST(fresh_sets)
{
	static const size_t counts[3] = {3, 5, 8};
	double worst = -INFINITY;
	int failures = 0, k, n;

	for (k = 0; k < 3; k++) {
		/* a seed the tuning never used (the benchmark's is 29) */
		uint64_t state = UINT64_C(0x2929) * 7919 + counts[k];

		for (n = 0; n < sets(); n++) {
			struct calgen_set set;
			struct fit_result *fit = NULL;
			struct err err;
			double best[2], lowest, excess;

			calgen_draw(&state, counts[k], &set);
			ck_assert_msg(fit_solref(&set.setup, &set.data, NULL, &fit, &err) == 0,
			    "%s", err.message);
			lowest = grid_min(&set.setup, &set.data, best);
			excess = fit->chi2 - lowest;
			worst = fmax(worst, excess);
			fprintf(stderr,
			    "%zu drops, set %d: truth [%.4g, %.4g] r %.4g m %.4g h %g; fit [%.5g, "
			    "%.5g] "
			    "chi2 %.6g; grid %.6g at [%.5g, %.5g]\n",
			    counts[k], n, set.timeconst, set.dampratio, set.setup.size[0],
			    set.setup.mass, set.setup.option.timestep, fit->timeconst,
			    fit->dampratio, fit->chi2, lowest, best[0], best[1]);
			failures += excess > TOLERANCE_ABS + TOLERANCE_REL * lowest;
			fit_free(fit);
		}
	}
	fprintf(stderr, "worst fit chi2 - grid chi2: %.3g\n", worst);
	ck_assert_msg(failures == 0, "%d fits above the dense grid's lowest chi2 (worst by %.4g)",
	    failures, worst);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calib_global");
	TCase *tc = tcase_create("global");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, issue_example);
	tcase_add_test(tc, fresh_sets);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
