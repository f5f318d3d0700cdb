/*
 * test_calib_discrete.c: a calibration setup under MuJoCo 3.13.0+'s discrete integrator
 * is accepted and its fit models drops as MuJoCo steps them there.
 *
 * The drops are the official WebAssembly build of MuJoCo 3.14.0's, under
 * integrator="discrete" (tests/fixtures/calib-discrete-3.14.0.txt, written by
 * tests/mjref/mjref_js_calib_drops.mjs): a 2 cm, 100 g sphere dropped from 0.02 to 0.23 m
 * onto the SO-101 pad at the calibration's 5 ms timestep, refsafe on, the first bounce's
 * apex of each. Two pads: (0.012, 0.5), whose rows refsafe never replaces; and
 * (0.006, 0.5), below 2*timestep, which Euler's refsafe would clamp to 0.01 and discrete
 * keeps, replacing every row with h^2 K imp > 1 by K' = 1/(h^2 imp), B' = 2 dr/(h sqrt(imp)),
 * which no longer depend on timeconst: every pad stiffer than timeconst
 * h/(sqrt(dmax) dr) = 0.0102598 (dmax = solimp[1] = 0.95, where imp sits through the
 * bounce) is stepped as that pad's own, unreplaced rows at imp = dmax. So the drops name
 * (0.0102598, 0.5), the pad MuJoCo steps, which is the truth the fit can reach, and the
 * answer to paste: with it MuJoCo replaces nothing. The setup is parsed as the service
 * parses one (calreq_setup_parse) with "option": {"integrator": "discrete", "mujoco":
 * "3.14.0"}.
 *   - noise-free, the fit lands on that truth to 1 % (the bar; the model is
 *     MuJoCo's arithmetic, so in practice to far less), and its 2-sigma intervals hold it;
 *     the fitted pad, stepped by the core under discrete with refsafe on as MuJoCo would
 *     step the pasted snippet, makes the build's rebounds to 1e-9 m;
 *   - with Gaussian noise of the fit's default scale (0.5 mm) from a fixed SplitMix64
 *     seed, the 2-sigma intervals still hold the truth (a 2-sigma band an honest interval
 *     misses 5 % of the time; the seed is fixed, so the test is deterministic);
 *   - the same drops fitted under Euler (the same setup without the integrator) miss the
 *     (0.006, 0.5) pad's interval: the integrator is what makes the fit right;
 *   - the same setup under "mujoco": "3.12.0" is a 422 naming /option/integrator.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <jansson.h>

#include "calib/calreq.h"
#include "fit/fit.h"
#include "fit/model.h"
#include "http/status.h"
#include "service/calask.h"
#include "testlib.h"
#include "fit/knobs.h"
#include "calib/knobs.h"

#define NDROPS 8
#define NPADS 2

#ifndef CALIB_DISCRETE_TABLE
#error "CALIB_DISCRETE_TABLE: the path of tests/fixtures/calib-discrete-3.14.0.txt"
#endif

struct pad_drops {
	double pad[2];   /* timeconst, dampratio of the table */
	double truth[2]; /* the pad MuJoCo steps: above */
	struct calib_drop drops[NDROPS];
};

static struct pad_drops pads[NPADS];

/* The table: a "mujoco" line, then per pad a "pad TC DR" line and NDROPS "drop H APEX". */
static void read_table(void)
{
	char line[256], version[32] = "";
	FILE *f = fopen(CALIB_DISCRETE_TABLE, "r");
	int p = -1, d = 0;

	ck_assert_msg(f != NULL, "cannot open %s", CALIB_DISCRETE_TABLE);
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "mujoco %31s", version) == 1)
			continue;
		if (strncmp(line, "pad ", 4) == 0) {
			ck_assert(++p < NPADS);
			ck_assert(
			    sscanf(line, "pad %lf %lf", &pads[p].pad[0], &pads[p].pad[1]) == 2);
			/* the pad whose unreplaced rows at imp = dmax are the replacement's */
			pads[p].truth[0] = fmax(
			    pads[p].pad[0], CALIB_DEFAULT_TIMESTEP / (sqrt(0.95) * pads[p].pad[1]));
			pads[p].truth[1] = pads[p].pad[1];
			d = 0;
			continue;
		}
		ck_assert(p >= 0 && d < NDROPS);
		ck_assert(sscanf(line, "drop %lf %lf", &pads[p].drops[d].height,
		              &pads[p].drops[d].rebound) == 2);
		pads[p].drops[d].sigma = 0;
		d++;
	}
	fclose(f);
	ck_assert_str_eq(version, "3.14.0");
	ck_assert_int_eq(p, NPADS - 1);
	ck_assert_int_eq(d, NDROPS);
}

static const char *const setup_discrete =
    "{\"object\":{\"shape\":\"sphere\",\"size\":0.02,\"mass\":0.1},"
    "\"option\":{\"integrator\":\"discrete\",\"mujoco\":\"3.14.0\"}}";
static const char *const setup_euler =
    "{\"object\":{\"shape\":\"sphere\",\"size\":0.02,\"mass\":0.1},"
    "\"option\":{\"mujoco\":\"3.14.0\"}}";

static int parse_setup(const char *text, struct calreq_setup *setup, struct err *err)
{
	json_t *v = json_loads(text, 0, NULL);
	int rc;

	ck_assert_ptr_nonnull(v);
	rc = calreq_setup_parse(v, setup, NULL, err);
	json_decref(v);
	return rc;
}

/* A standard normal deviate from the SplitMix64 sequence (Box-Muller). */
static double gaussian(uint64_t *state)
{
	double u = 1 - tl_uniform(state), w = tl_uniform(state);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * w);
}

/* Fit drops under the setup text; *fit is the caller's to free. */
static struct fit_result *fit_drops(const char *setup_text, const struct calib_drop *drops)
{
	struct calreq_setup setup;
	struct calib_data data = {0};
	struct fit_result *fit = NULL;
	struct err err;

	ck_assert_msg(parse_setup(setup_text, &setup, &err) == 0, "%s", err.message);
	data.drops = drops;
	data.ndrops = NDROPS;
	ck_assert_msg(fit_solref(&setup.scene, &data, NULL, &fit, &err) == 0, "%s", err.message);
	return fit;
}

/* Whether both 2-sigma intervals hold the truth. */
static int holds_truth(const struct fit_result *fit, const double truth[2])
{
	int q;

	for (q = 0; q < 2; q++)
		if (!(fit->interval_log[q][1][0] <= log(truth[q]) &&
		        log(truth[q]) <= fit->interval_log[q][1][1]))
			return 0;
	return 1;
}

START_TEST(setup_is_discrete)
{
	struct calreq_setup setup;
	struct err err;

	ck_assert_msg(parse_setup(setup_discrete, &setup, &err) == 0, "%s", err.message);
	ck_assert_int_eq(setup.scene.option.integrator, CORE_SCENE_DISCRETE);
	ck_assert_double_eq(setup.scene.option.timestep, CALIB_DEFAULT_TIMESTEP);
	ck_assert_int_eq(setup.scene.option.refsafe, 1);
}
END_TEST

/* Noise-free: the fit is the pad, to 1 %, inside its own 2-sigma intervals. */
START_TEST(fit_exact)
{
	struct pad_drops *p;
	struct fit_result *fit;

	read_table();
	p = &pads[_i];
	fit = fit_drops(setup_discrete, p->drops);
	ck_assert_msg(fit->status == FIT_OK, "pad %d: status %d (%s)", _i, fit->status,
	    fit->nnotes ? fit->notes[0] : "");
	ck_assert_msg(fabs(fit->timeconst / p->truth[0] - 1) < 0.01, "timeconst %.9g vs %g",
	    fit->timeconst, p->truth[0]);
	ck_assert_msg(fabs(fit->dampratio / p->truth[1] - 1) < 0.01, "dampratio %.9g vs %g",
	    fit->dampratio, p->truth[1]);
	ck_assert(holds_truth(fit, p->truth));
	/* discrete never clamps timeconst, and replaces nothing of the fitted spring: no
	 * direct form is offered, even below 2*timestep */
	ck_assert_int_eq(fit->below_refsafe, 0);
	{
		struct core_scene_model sm;
		struct core_scene fitted = fit->scene;
		int d;

		fitted.option.refsafe = 1;
		core_scene_prepare(&fitted, &sm);
		for (d = 0; d < NDROPS; d++)
			ck_assert_msg(fabs(model_rebound(&sm, p->drops[d].height) -
			                  p->drops[d].rebound) <= 1e-9,
			    "drop %d: the fitted pad %.9g MuJoCo %.9g", d,
			    model_rebound(&sm, p->drops[d].height), p->drops[d].rebound);
	}
	{
		/* a pad stiffer than refsafe's edge was stepped as the edge: the fit says that
		 * no stiffer pad can be told from it; a pad above the edge gets no such note */
		size_t k;
		int edge = 0;

		for (k = 0; k < fit->nnotes; k++)
			edge |= strstr(fit->notes[k], "cannot tell a stiffer pad") != NULL;
		ck_assert_msg(edge == (p->pad[0] < p->truth[0]), "pad %g: edge note %d", p->pad[0],
		    edge);
	}
	fprintf(stderr, "pad (%g, %g), truth (%.9g, %g): fit (%.9g, %.9g)\n", p->pad[0], p->pad[1],
	    p->truth[0], p->truth[1], fit->timeconst, fit->dampratio);
	fit_free(fit);
}
END_TEST

/* With the default 0.5 mm noise: the 2-sigma intervals hold the truth. */
START_TEST(fit_noisy)
{
	struct pad_drops *p;
	struct calib_drop noisy[NDROPS];
	struct fit_result *fit;
	uint64_t state = 20261203 + (uint64_t)_i;
	int d;

	read_table();
	p = &pads[_i];
	for (d = 0; d < NDROPS; d++) {
		noisy[d] = p->drops[d];
		noisy[d].rebound =
		    fmax(0, noisy[d].rebound + CALIB_SIGMA_REBOUND * gaussian(&state));
	}
	fit = fit_drops(setup_discrete, noisy);
	fprintf(stderr,
	    "noisy, truth (%.6g, %g): 2-sigma timeconst [%.6g, %.6g], dampratio [%.6g, %.6g]\n",
	    p->truth[0], p->truth[1], exp(fit->interval_log[0][1][0]),
	    exp(fit->interval_log[0][1][1]), exp(fit->interval_log[1][1][0]),
	    exp(fit->interval_log[1][1][1]));
	ck_assert_msg(fit->status == FIT_OK || fit->status == FIT_PARTIAL, "status %d (%s)",
	    fit->status, fit->nnotes ? fit->notes[0] : "");
	ck_assert_msg(holds_truth(fit, p->truth),
	    "pad (%g, %g): fit (%g, %g), 2-sigma timeconst [%g, %g], dampratio [%g, %g]",
	    p->truth[0], p->truth[1], fit->timeconst, fit->dampratio,
	    exp(fit->interval_log[0][1][0]), exp(fit->interval_log[0][1][1]),
	    exp(fit->interval_log[1][1][0]), exp(fit->interval_log[1][1][1]));
	fit_free(fit);
}
END_TEST

/* The discrete drops of the (0.006, 0.5) pad fitted with Euler's model: its intervals miss
 * the pad (Euler's refsafe would step 0.006 as 0.01), so the integrator matters here. */
START_TEST(euler_model_misses)
{
	struct fit_result *fit;

	read_table();
	fit = fit_drops(setup_euler, pads[0].drops);
	fprintf(stderr, "Euler's fit of the discrete drops: (%.6g, %.6g), chi2 %.3g\n",
	    fit->timeconst, fit->dampratio, fit->chi2);
	ck_assert_msg(!holds_truth(fit, pads[0].truth), "Euler's fit (%g, %g) holds the truth",
	    fit->timeconst, fit->dampratio);
	fit_free(fit);
}
END_TEST

/* 3.12.0 has no discrete integrator: a 422 naming the field. */
START_TEST(release_without_discrete)
{
	struct calreq_setup setup;
	struct err err;

	err_clear(&err);
	ck_assert_int_eq(parse_setup("{\"object\":{\"shape\":\"sphere\",\"size\":0.02,"
	                             "\"mass\":0.1},\"option\":{\"integrator\":\"discrete\","
	                             "\"mujoco\":\"3.12.0\"}}",
	                     &setup, &err),
	    -1);
	ck_assert_int_eq(err_status(err.code), 422);
	ck_assert_str_eq(err.path, "/option/integrator");
	ck_assert_ptr_nonnull(strstr(err.message, "3.13.0"));
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("calib_discrete");
	TCase *tc = tcase_create("discrete");
	SRunner *runner;
	int failed;

	gsl_set_error_handler_off();
	questions_bind(&calask_questions); /* setups, as the daemon binds them */
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, setup_is_discrete);
	tcase_add_loop_test(tc, fit_exact, 0, NPADS);
	tcase_add_loop_test(tc, fit_noisy, 0, NPADS);
	tcase_add_test(tc, euler_model_misses);
	tcase_add_test(tc, release_without_discrete);
	suite_add_tcase(suite, tc);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
