/*
 * test_hold_release.c: the hold scene's release rules of 3.8.0-3.14.0 (issue 28), on the
 * core alone (no MuJoCo linked): the figures are the official WebAssembly builds'
 * (npm's @mujoco/mujoco 3.12.0, 3.13.0, 3.14.0), whose 3.12.0 equals a native 3.12.0
 * build on 120 random pinch scenes; the tables of tests/test_hold hold many more.
 *
 * The 3.12.0 pinch defect: 3.8.0-3.13.0 start with the left pad's contact alone when
 * the pads' float32 broadphase ends tie (docs/hold.md, "Releases"), 3.14.0 with both.
 * Tolerance: the issue's, 1e-6 relative + 1e-9 m on the slip; the builds' figures are
 * given to 10-12 digits, and the releases differ by 1-13 % here, so a core that misses
 * the one-pad start fails by four orders more than the tolerance.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hold.h"
#include "core/mjver.h"
#include "core/pinch.h"

#define SLIP_REL 1e-6
#define SLIP_ABS 1e-9 /* m */

/* the issue's first scene: pyramidal, condim 4, impratio 3, h 5 ms, 3 s */
static void scene_one(struct core_hold *h, const char *release)
{
	core_hold_default(h);
	h->size[0] = 0.0274;
	h->mass = 0.4016;
	h->pad_size[0] = 0.005;
	h->pad_size[1] = 0.03;
	h->pad_size[2] = 0.3;
	h->pad_mass = 0.116;
	h->pad.solref[0] = 0.0295;
	h->pad.solref[1] = 0.823;
	memcpy(h->pad.solimp, (double[]){0.935, 0.969, 0.0037, 0.5, 2}, sizeof h->pad.solimp);
	h->pad.condim = 4;
	memcpy(h->pad.friction, (double[]){1.324, 0.005, 0.0005}, sizeof h->pad.friction);
	h->pad.priority = 1;
	h->grip_force = 22.474;
	h->option.timestep = 0.005;
	h->option.cone = CORE_CONE_PYRAMIDAL;
	h->option.impratio = 3;
	h->option.mujoco = core_mjver_find(release);
	h->duration = 3.0;
}

/* the second: the first with these fields (noslip 10, h 2 ms, impratio 1) */
static void scene_two(struct core_hold *h, const char *release)
{
	scene_one(h, release);
	h->size[0] = 0.0141;
	h->mass = 0.0373;
	h->pad_mass = 0.059;
	h->pad.solref[0] = 0.0398;
	h->pad.solref[1] = 0.934;
	memcpy(h->pad.solimp, (double[]){0.896, 0.971, 0.0006, 0.5, 2}, sizeof h->pad.solimp);
	h->pad.friction[0] = 1.306;
	h->grip_force = 0.441;
	h->option.timestep = 0.002;
	h->option.impratio = 1;
	h->noslip_iterations = 10;
}

static void check_slip(const struct core_hold *h, double want, const char *what)
{
	struct core_hold_answer a;

	ck_assert_ptr_null(core_hold_supported(h));
	core_hold_solve(h, &a);
	ck_assert_msg(!a.crushed && a.reproducible, "%s: crushed %d reproducible %d", what,
	    a.crushed, a.reproducible);
	ck_assert_msg(fabs(a.slip - want) <= SLIP_REL * fabs(want) + SLIP_ABS,
	    "%s: slip %.12g, the build's %.12g", what, a.slip, want);
}

/* the builds' slips (3.12.0 = 3.13.0; 3.14.0) */
START_TEST(test_issue_scenes)
{
	static const char *const releases[] = {"3.12.0", "3.13.0", "3.14.0"};
	static const double one[] = {0.0317146213, 0.0317146213, 0.0314152765};
	static const double two[] = {0.000894731475, 0.000894731475, 0.000780056119};
	struct core_hold h;
	char what[64];
	int i;

	for (i = 0; i < 3; i++) {
		scene_one(&h, releases[i]);
		snprintf(what, sizeof what, "scene 1, %s", releases[i]);
		check_slip(&h, one[i], what);
		scene_two(&h, releases[i]);
		snprintf(what, sizeof what, "scene 2, %s", releases[i]);
		check_slip(&h, two[i], what);
	}
}
END_TEST

/* The issue's scenes under the discrete integrator, both cones: the builds' slips
 * (tests/mjref/README.md, "The hold tables": the same MJCF, integrator="discrete",
 * stepped duration / timestep times). 3.13.0 keeps the one-pad start, 3.14.0 does not,
 * so the releases differ here as under Euler; earlier releases refuse discrete. */
START_TEST(test_issue_scenes_discrete)
{
	static const char *const releases[] = {"3.13.0", "3.14.0"};
	/* per release: scene 1, scene 2, scene 1 elliptic, scene 2 elliptic */
	static const double slip[2][4] = {
	    {0.0283503898521, 0.000907182244456, 0.0103530789575, 0.000315832018952},
	    {0.0279331247525, 0.000781955959001, 0.00972311199480, 0.0000170152958664}};
	struct core_hold h;
	char what[64];
	int i, k;

	for (i = 0; i < 2; i++)
		for (k = 0; k < 4; k++) {
			if (k % 2 == 0)
				scene_one(&h, releases[i]);
			else
				scene_two(&h, releases[i]);
			h.option.integrator = CORE_SCENE_DISCRETE;
			if (k >= 2)
				h.option.cone = CORE_CONE_ELLIPTIC;
			snprintf(what, sizeof what, "scene %d%s, discrete, %s", k % 2 + 1,
			    k >= 2 ? " elliptic" : "", releases[i]);
			check_slip(&h, slip[i][k], what);
		}
}
END_TEST

/* which releases have the tie: 3.8.0 (makeAAMM's tight bounds) to 3.13.0 */
START_TEST(test_rule_releases)
{
	static const char *const with[] = {"3.8.0", "3.8.1", "3.9.0", "3.12.0", "3.13.0"};
	static const char *const without[] = {"2.2.2", "3.3.8", "3.7.0", "3.14.0"};
	struct core_mjver_rules r;
	size_t i;

	for (i = 0; i < sizeof with / sizeof with[0]; i++) {
		core_mjver_rules(core_mjver_find(with[i]), &r);
		ck_assert_msg(r.sap_float_tie, "%s", with[i]);
	}
	for (i = 0; i < sizeof without / sizeof without[0]; i++) {
		core_mjver_rules(core_mjver_find(without[i]), &r);
		ck_assert_msg(!r.sap_float_tie, "%s", without[i]);
	}
	core_mjver_rules(core_mjver_find("3.8.1"), &r);
	ck_assert(!r.aamm_gap);
	core_mjver_rules(core_mjver_find("3.9.0"), &r);
	ck_assert(r.aamm_gap);
}
END_TEST

/* The right pad's contact appears once the sphere, moved right by dx, makes f32(dx + R)
 * round one float32 step up: 3.12.0 measured (sphere offset scan) 9.521841978e-10 in
 * scene 1 (R 0.0274) and 7.279217255e-10 in scene 2 (R 0.0141), to every digit the
 * rule predicts. Either side of each threshold by 1e-17 m: unpaired, then paired. */
START_TEST(test_tie_threshold)
{
	struct core_hold h;
	struct core_pinch_model m;
	double x0, dx;
	int k;

	for (k = 0; k < 2; k++) {
		if (k == 0)
			scene_one(&h, "3.12.0");
		else
			scene_two(&h, "3.12.0");
		core_pinch_prepare(&h, &m);
		x0 = m.rest_dist;
		dx = k == 0 ? 9.521841978082923e-10 : 7.279217255004579e-10;
		ck_assert(core_pinch_start_asymmetric(&m));
		ck_assert(core_pinch_paired(&m, 0, 0, -x0));
		ck_assert(!core_pinch_paired(&m, 1, 0, x0));
		ck_assert(!core_pinch_paired(&m, 1, dx - 1e-17, x0));
		ck_assert(core_pinch_paired(&m, 1, dx + 1e-17, x0));
		h.option.mujoco = core_mjver_find("3.14.0");
		core_pinch_prepare(&h, &m);
		ck_assert(!core_pinch_start_asymmetric(&m));
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hold_release");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_issue_scenes);
	tcase_add_test(tc, test_issue_scenes_discrete);
	tcase_add_test(tc, test_rule_releases);
	tcase_add_test(tc, test_tie_threshold);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
