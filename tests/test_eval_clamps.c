/*
 * test_eval_clamps.c: /v1/eval answers what MuJoCo does where the seed lesson's
 * typed-in functions disagree with it (docs/grading.md): solimp outside MuJoCo's
 * ranges (d0 = dwidth = 1, width 0, power below 1, midpoint above 1, d0 below 0),
 * a dmax of 1, and a pull away from the plane (a_u < 0). Every expected number is
 * read from libmujoco 2.2.2 (efc_KBIP, qacc, a simulated run) on a sphere scene with
 * the same solimp and solref on both geoms.
 *
 * Tolerance: impedance, K and B are MuJoCo's formulas in MuJoCo's order: 1e-15
 * relative (an ulp or two). contact_accel is the closed form of a Newton solve that
 * sums in another order: 1e-12 relative.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjscene.h"
#include "service/service.h"
#include "svc_test.h"

static const double solimps[][5] = {
    {1, 1, 0.001, 0.5, 2},        /* lesson: d = 1; MuJoCo clamps both to 0.9999 */
    {0.9, 0.95, 0, 0.5, 2},       /* lesson: r / 0; MuJoCo: flat (d0 + dwidth) / 2 */
    {0.9, 0.95, 0.001, 0.5, 0.5}, /* lesson: x^0.5 curves; MuJoCo: power 1, linear */
    {0.9, 0.95, 0.001, 1.5, 3},   /* lesson: (1 - mid)^(p-1) < 0 ...; MuJoCo: mid 0.9999 */
    {-0.5, 0.95, 0.002, 0.3, 2},  /* lesson: negative impedance; MuJoCo: d0 1e-4 */
    {0.99, 0.5, 0.01, 0.3, 3},    /* d0 above dwidth: both agree (a falling curve) */
};
static const double penetrations[] = {0.0002, 0.0005, 0.0015, 0.004};

/* A frictionless sphere of 1 kg, radius 5 cm, with solimp and solref on both geoms. */
static void sphere_scene(struct core_scene *s, const double solimp[5], const double solref[2])
{
	memset(s, 0, sizeof *s);
	s->shape = CORE_SCENE_SPHERE;
	s->size[0] = 0.05;
	s->mass = 1;
	core_pair_geom_default(&s->geom);
	memcpy(s->geom.solimp, solimp, sizeof s->geom.solimp);
	s->geom.solref[0] = solref[0];
	s->geom.solref[1] = solref[1];
	s->geom.condim = 1;
	s->floor = s->geom;
	s->option.timestep = 0.002;
	s->option.refsafe = 1;
	s->option.gravity = 9.81;
	s->option.impratio = 1;
	s->option.mujoco = CORE_MJVER_2_2_2;
	s->duration = 1;
}

static void open_scene(struct mjscene *ms, const struct core_scene *s)
{
	char errbuf[256];

	ck_assert_msg(mjscene_open(ms, s, errbuf, sizeof errbuf) == 0, "%s", errbuf);
}

static json_t *eval(const char *body)
{
	json_t *a = tsvc_answer(SVC_EVAL, body, NULL);
	ck_assert_ptr_nonnull(json_object_get(a, "result"));
	return a;
}

static double result(const json_t *a, const char *key)
{
	return tsvc_real(json_object_get(a, "result"), key);
}

static void assert_rel(double got, double want, double tol, const char *what, size_t i)
{
	ck_assert_msg(fabs(got - want) <= tol * fabs(want),
	    "%s, solimp %zu: eval %.17g, MuJoCo %.17g", what, i, got, want);
}

START_TEST(impedance_is_mujocos)
{
	static const double solref[2] = {0.02, 1};
	size_t i, k;

	for (i = 0; i < sizeof solimps / sizeof solimps[0]; i++) {
		struct core_scene s;
		struct mjscene ms;
		char body[512];

		sphere_scene(&s, solimps[i], solref);
		open_scene(&ms, &s);
		for (k = 0; k < sizeof penetrations / sizeof penetrations[0]; k++) {
			struct mjscene_efc efc;
			const double *p = solimps[i];
			/* the penetration MuJoCo sees: dist = z - radius, rounded */
			double z = 0.05 - penetrations[k], pen = -(z - 0.05);
			json_t *a;

			ck_assert_int_eq(mjscene_efc(&ms, z, -0.3, &efc), 0);
			ck_assert_int_eq(efc.nefc, 1);
			/* the lesson's r >= 0 penetration; MuJoCo's r = dist < 0 gives the same */
			snprintf(body, sizeof body,
			    "{\"function\": \"impedance\", \"args\": {\"r\": %.17g, \"solimp\": "
			    "[%.17g, "
			    "%.17g, %.17g, %.17g, %.17g]}}",
			    pen, p[0], p[1], p[2], p[3], p[4]);
			a = eval(body);
			assert_rel(result(a, "value"), efc.imp[0], 1e-15, "impedance", i);
			json_decref(a);

			/* solref_kb with the lesson's dmax = solimp[1], unclamped */
			snprintf(body, sizeof body,
			    "{\"function\": \"solref_kb\", \"args\": {\"solref\": [0.02, 1], "
			    "\"dmax\": "
			    "%.17g, \"h\": 0.002}}",
			    p[1]);
			a = eval(body);
			assert_rel(result(a, "K"), efc.K[0], 1e-15, "K", i);
			assert_rel(result(a, "B"), efc.B[0], 1e-15, "B", i);
			json_decref(a);

			/* contact_accel: MuJoCo's qacc of the 1 kg sphere, a0 = -g */
			snprintf(body, sizeof body,
			    "{\"function\": \"contact_accel\", \"args\": {\"dist\": %.17g, "
			    "\"vel\": -0.3,"
			    " \"a0\": -9.81, \"solref\": [0.02, 1], \"solimp\": [%.17g, %.17g, "
			    "%.17g, "
			    "%.17g, %.17g], \"h\": 0.002}}",
			    -pen, p[0], p[1], p[2], p[3], p[4]);
			a = eval(body);
			assert_rel(result(a, "value"), efc.qacc[2], 1e-12, "contact_accel", i);
			json_decref(a);
		}
		mjscene_close(&ms);
	}
}
END_TEST

/* a_u < 0 pulls the body off the plane: the lesson's bisection answers a penetration
 * of ~0, MuJoCo holds nothing (the body placed touching leaves the plane), and eval
 * answers null (no resting penetration). */
START_TEST(pull_has_no_resting_penetration)
{
	static const double solimp[5] = {0.9, 0.95, 0.001, 0.5, 2}, solref[2] = {0.02, 1};
	struct core_scene s;
	struct mjscene ms;
	struct mjscene_sample *run = calloc(500, sizeof *run);
	json_t *a;

	ck_assert(run != NULL);
	sphere_scene(&s, solimp, solref);
	s.option.gravity = -9.81; /* a_u = -9.81: upwards */
	open_scene(&ms, &s);
	mjscene_run(&ms, 500, run);
	ck_assert(run[499].z - 0.05 > 1); /* 1 s later the sphere is metres above the plane */
	mjscene_close(&ms);
	free(run);
	a = eval("{\"function\": \"resting_penetration\", \"args\": {\"a_u\": -9.81, \"solref\": "
	         "[0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}}");
	ck_assert(json_is_null(json_object_get(json_object_get(a, "result"), "value")));
	json_decref(a);

	/* and a_u > 0 gives MuJoCo's settled rest (the equilibrium the sphere settles to) */
	s.option.gravity = 9.81;
	open_scene(&ms, &s);
	run = calloc(1000, sizeof *run);
	ck_assert(run != NULL);
	s.duration = 2;
	mjscene_run(&ms, 1000, run);
	a = eval("{\"function\": \"resting_penetration\", \"args\": {\"a_u\": 9.81, \"solref\": "
	         "[0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}}");
	/* settled for 2 s: the run is within 1e-9 relative of the equilibrium */
	assert_rel(result(a, "value"), -(run[999].z - 0.05), 1e-9, "resting_penetration", 0);
	json_decref(a);
	mjscene_close(&ms);
	free(run);
}
END_TEST

static Suite *eval_clamps_suite(void)
{
	Suite *s = suite_create("eval_clamps");
	TCase *tc = tcase_create("clamps");

	tcase_add_test(tc, impedance_is_mujocos);
	tcase_add_test(tc, pull_has_no_resting_penetration);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(eval_clamps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
