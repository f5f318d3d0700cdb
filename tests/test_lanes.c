/*
 * test_lanes.c: core_lanes_drop() answers every point exactly as core_sim_drop() does,
 * bit for bit (no tolerance: the lanes promise the same operations in the same order).
 *
 * Thousands of random scenes cover what the lanes select between: both shapes, condim
 * 1/3/4/6 (one row, the scaled pyramid, impratio's general pyramid), solref in both
 * forms, flat and sigmoid impedance with power 1, 2, 3 and a fractional one, every
 * integrator, every release's rules (the Newton certificate from 3.11.0), margins and
 * gaps, timesteps and durations that give points of different lengths (and none) in
 * one vector, and drops that come to rest (the shortcut) or blow up (NaN and inf).
 * Presses (core_lanes_press_array()) answer exactly as core_sim_press() does.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/lanes.h"
#include "core/mjver.h"
#include "core/scene.h"
#include "core/sim.h"
#include "testlib.h"

#define POINTS 3000

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* SplitMix64 (testlib.h): a fixed sequence, so a failure reproduces */
static double uniform(void)
{
	return tl_uniform(&rng_state);
}

static double between(double lo, double hi)
{
	return tl_between(&rng_state, lo, hi);
}

static int pick(int n)
{
	int k = (int)(uniform() * n);

	return k < n ? k : n - 1;
}

static void random_scene(struct core_scene *s)
{
	static const int condims[] = {1, 3, 4, 6};
	static const double powers[] = {1, 2, 2, 3, 1.5};
	static const enum core_scene_integrator integrators[] = {CORE_SCENE_EULER, CORE_SCENE_IMPLICIT,
	    CORE_SCENE_IMPLICITFAST, CORE_SCENE_RK4, CORE_SCENE_DISCRETE};

	memset(s, 0, sizeof *s);
	s->shape = uniform() < 0.5 ? CORE_SCENE_SPHERE : CORE_SCENE_BOX;
	s->size[0] = between(0.01, 0.1);
	s->size[1] = between(0.01, 0.1);
	s->size[2] = between(0.01, 0.1);
	s->mass = between(0.1, 5);
	core_pair_geom_default(&s->geom);
	core_pair_geom_default(&s->floor);
	s->geom.condim = s->floor.condim = condims[pick(4)];
	if (uniform() < 0.5) {
		/* the standard form, refsafe clamping some */
		s->geom.solref[0] = between(0.001, 0.1);
		s->geom.solref[1] = between(0.02, 2);
	} else {
		/* the direct form: -stiffness, -damping */
		s->geom.solref[0] = -between(100, 50000);
		s->geom.solref[1] = -between(0, 300);
	}
	s->geom.solimp[0] = between(0.5, 0.99);
	s->geom.solimp[1] = uniform() < 0.1 ? s->geom.solimp[0] : between(0.5, 0.999);
	s->geom.solimp[2] = uniform() < 0.1 ? 0 : between(0.0001, 0.01);
	s->geom.solimp[3] = between(0.1, 0.9);
	s->geom.solimp[4] = powers[pick(5)];
	s->geom.friction[0] = between(0.1, 1.5);
	s->geom.margin = uniform() < 0.7 ? 0 : between(0, 0.003);
	s->geom.gap = uniform() < 0.7 ? 0 : between(0, 0.002);
	s->option.timestep = uniform() < 0.5 ? 0.002 : between(0.0005, 0.01);
	s->option.refsafe = uniform() < 0.8;
	s->option.gravity = 9.81;
	s->option.impratio = uniform() < 0.7 ? 1 : between(0.5, 10);
	s->option.integrator = integrators[pick(5)];
	s->option.mujoco = pick(core_mjver_count());
	if (s->option.integrator == CORE_SCENE_DISCRETE) {
		/* discrete exists from 3.13.0 on: one of those releases */
		s->option.mujoco = core_mjver_find(uniform() < 0.5 ? "3.13.0" : "3.14.0");
		/* timeconst from a tenth of the step to 20 steps: refsafe replaces many rows */
		if (s->geom.solref[0] > 0 && uniform() < 0.7)
			s->geom.solref[0] =
			    s->option.timestep * exp(log(0.1) + uniform() * log(200));
		/* both geoms: the pair mixes the two solrefs */
		s->floor.solref[0] = s->geom.solref[0];
		s->floor.solref[1] = s->geom.solref[1];
	}
	s->height = uniform() < 0.1 ? 0 : between(0, 0.2);
	if (uniform() < 0.03) {
		/* a spring far too stiff for the step, or past the largest double: the drop
		 * flies off or blows up to inf and NaN */
		s->geom.solref[0] = uniform() < 0.5 ? -between(1e8, 1e10) : -1.7e308;
		s->geom.solref[1] = -between(0, 1);
		s->option.timestep = 0.01;
	}
	s->duration = uniform() < 0.05 ? 0
	    : uniform() < 0.5          ? between(0.001, 0.3)
	                               : between(0.3, 2);
}

/* the same bits, NaN included */
static int same(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* the same bits, or both NaN (a NaN's sign is no answer: negating a sum flips it) */
static int same_or_nan(double a, double b)
{
	return same(a, b) || (isnan(a) && isnan(b));
}

static int same_drop(const struct core_sim_drop *a, const struct core_sim_drop *b)
{
	return same(a->peak_penetration, b->peak_penetration) && same(a->rebound, b->rebound) &&
	    same(a->max_height, b->max_height) && same(a->jitter, b->jitter) &&
	    same(a->final_penetration, b->final_penetration) && a->energy_gain == b->energy_gain &&
	    a->steps == b->steps;
}

START_TEST(lanes_match_single_drops)
{
	struct core_scene_model *models = calloc(POINTS, sizeof *models);
	struct core_sim_drop *lanes = calloc(POINTS, sizeof *lanes);
	double *heights = calloc(POINTS, sizeof *heights);
	double *durations = calloc(POINTS, sizeof *durations);
	int i, width, rest = 0, diverged = 0, rk4 = 0, certified = 0, discrete = 0, replaced = 0;

	ck_assert(models && lanes && heights && durations);
	for (i = 0; i < POINTS; i++) {
		struct core_scene s;
		random_scene(&s);
		core_scene_prepare(&s, &models[i]);
		heights[i] = s.height;
		durations[i] = s.duration;
	}
	/* each kernel this processor runs: the 4-lane one, and the AVX-512 one where it runs */
	for (width = 4; width <= 8; width += 4) {
		if (core_lanes_select(width) != width)
			continue;
		memset(lanes, 0, POINTS * sizeof *lanes);
		core_lanes_drop_array(models, heights, durations, NULL, lanes, POINTS, 0);
		for (i = 0; i < POINTS; i++) {
			struct core_sim_drop single;

			core_sim_drop(&models[i], heights[i], durations[i], &single);
			ck_assert_msg(same_drop(&single, &lanes[i]),
			    "%d lanes, point %d (integrator %d, refsafe %d, rows %d): peak %.17g / "
			    "%.17g, "
			    "final %.17g / %.17g",
			    width, i, models[i].integrator, models[i].discrete_refsafe,
			    models[i].rows, lanes[i].peak_penetration, single.peak_penetration,
			    lanes[i].final_penetration, single.final_penetration);
		}
	}
	core_lanes_select(0);
	/* first_bounce (the calibration's model): each point ends at its first apex, whose
	 * first_rebound is the whole run's, bit for bit */
	core_lanes_drop_array(models, heights, durations, NULL, lanes, POINTS, 1);
	for (i = 0; i < POINTS; i++) {
		struct core_sim_drop single;

		core_sim_drop(&models[i], heights[i], durations[i], &single);
		ck_assert_msg(same(single.first_rebound, lanes[i].first_rebound),
		    "point %d: first_bounce first_rebound %.17g, whole run's %.17g", i,
		    lanes[i].first_rebound, single.first_rebound);
	}
	core_lanes_drop_array(models, heights, durations, NULL, lanes, POINTS, 0);
	for (i = 0; i < POINTS; i++) {
		struct core_sim_drop single;

		core_sim_drop(&models[i], heights[i], durations[i], &single);
		ck_assert_msg(same_drop(&single, &lanes[i]),
		    "point %d: lanes peak %.17g rebound %.17g max %.17g jitter %.17g final %.17g; "
		    "single %.17g %.17g %.17g %.17g %.17g",
		    i, lanes[i].peak_penetration, lanes[i].rebound, lanes[i].max_height,
		    lanes[i].jitter, lanes[i].final_penetration, single.peak_penetration,
		    single.rebound, single.max_height, single.jitter, single.final_penetration);
		rest += single.steps > 0 && single.jitter == 0;
		diverged += !isfinite(single.final_penetration);
		rk4 += models[i].integrator == CORE_SCENE_RK4;
		certified += models[i].rules.newton_certificate;
		discrete += models[i].discrete;
		/* refsafe's replacement (h^2 K imp > 1) at the deepest impedance */
		replaced += models[i].discrete_refsafe && !models[i].gains.direct &&
		    models[i].timestep * models[i].timestep * models[i].gains.K *
		            models[i].solimp.dwidth >
		        1;
	}
	/* the sample reaches what it is meant to: rest, blow-ups, RK4, the certificate */
	ck_assert_int_gt(rest, POINTS / 20);
	ck_assert_int_gt(diverged, 0);
	ck_assert_int_gt(rk4, POINTS / 8);
	ck_assert_int_gt(certified, POINTS / 40);
	/* and the discrete integrator, with rows refsafe replaces */
	ck_assert_int_gt(discrete, POINTS / 8);
	ck_assert_int_gt(replaced, POINTS / 50);
	free(models);
	free(lanes);
	free(heights);
	free(durations);
}
END_TEST

/*
 * A point started from its free fall (core_sim_fall(), the calibration's shortcut) answers
 * exactly as from rest, for the whole run and for the first bounce; a start made for
 * another point (another model or height) is not taken. The sample is the random scenes
 * above: margins and gaps (contact before touching), every integrator (RK4 gets no fall).
 */
START_TEST(lanes_start_from_fall)
{
	struct core_scene_model *models = calloc(POINTS, sizeof *models);
	struct core_sim_drop *lanes = calloc(POINTS, sizeof *lanes);
	struct core_sim_start *falls = calloc(POINTS, sizeof *falls);
	const struct core_sim_start **starts = calloc(POINTS, sizeof *starts);
	double *heights = calloc(POINTS, sizeof *heights);
	double *durations = calloc(POINTS, sizeof *durations);
	int i, pass, fell = 0;

	ck_assert(models && lanes && falls && starts && heights && durations);
	for (i = 0; i < POINTS; i++) {
		struct core_scene s;

		random_scene(&s);
		/* mostly drops from a height that last past the jitter window, as the
		 * calibration's (a fall ends before the window) */
		if (uniform() < 0.8) {
			s.height = between(0.001, 0.5);
			s.duration = between(0.6, 2);
		}
		core_scene_prepare(&s, &models[i]);
		heights[i] = s.height;
		durations[i] = s.duration;
		core_sim_fall(&models[i], heights[i], core_sim_first_jitter(&models[i], durations[i]),
		    &falls[i]);
		fell += falls[i].steps > 0;
	}
	ck_assert_int_gt(fell, POINTS / 3);
	for (pass = 0; pass < 4; pass++) {
		int first_bounce = pass & 1;

		/* passes 2 and 3: each point offered its neighbour's fall */
		for (i = 0; i < POINTS; i++)
			starts[i] = &falls[pass < 2 ? i : (i + 1) % POINTS];
		core_lanes_drop_array(
		    models, heights, durations, starts, lanes, POINTS, first_bounce);
		for (i = 0; i < POINTS; i++) {
			struct core_sim_drop single;

			core_sim_drop(&models[i], heights[i], durations[i], &single);
			if (first_bounce)
				ck_assert_msg(same(single.first_rebound, lanes[i].first_rebound),
				    "pass %d point %d (fall of %ld steps): first_rebound %.17g, "
				    "from "
				    "rest %.17g",
				    pass, i, falls[i].steps, lanes[i].first_rebound,
				    single.first_rebound);
			else
				ck_assert_msg(same_drop(&single, &lanes[i]),
				    "pass %d point %d (fall of %ld steps): peak %.17g / %.17g, max "
				    "%.17g / %.17g, final %.17g / %.17g",
				    pass, i, falls[i].steps, lanes[i].peak_penetration,
				    single.peak_penetration, lanes[i].max_height, single.max_height,
				    lanes[i].final_penetration, single.final_penetration);
		}
	}
	/* and the lanes do start there: a fall moved 1 mm up changes the answers it is offered to
	 */
	{
		int moved = 0;

		for (i = 0; i < POINTS; i++) {
			falls[i].z += 1e-3;
			starts[i] = &falls[i];
		}
		core_lanes_drop_array(models, heights, durations, starts, lanes, POINTS, 0);
		for (i = 0; i < POINTS; i++) {
			struct core_sim_drop single;

			core_sim_drop(&models[i], heights[i], durations[i], &single);
			moved += !same_drop(&single, &lanes[i]);
		}
		ck_assert_int_gt(moved, fell / 2);
	}
	free(models);
	free(lanes);
	free(falls);
	free(starts);
	free(heights);
	free(durations);
}
END_TEST

/* The lesson's cube settles to an exact fixed point: the shortcut must give the same
 * jitter (0) and final penetration as stepping all 2 s. */
START_TEST(lanes_rest_shortcut_lesson_cube)
{
	struct core_scene s;
	struct core_scene_model m[3];
	double heights[3] = {0.1, 0.1, 0.1}, durations[3] = {2, 2, 0.6};
	struct core_sim_drop out[3], single;
	int i;

	memset(&s, 0, sizeof s);
	s.shape = CORE_SCENE_BOX;
	s.size[0] = s.size[1] = s.size[2] = 0.05;
	s.mass = 1;
	core_pair_geom_default(&s.geom);
	core_pair_geom_default(&s.floor);
	s.option.timestep = 0.002;
	s.option.refsafe = 1;
	s.option.gravity = 9.81;
	s.option.impratio = 1;
	for (i = 0; i < 3; i++) {
		s.option.mujoco = i == 0 ? CORE_MJVER_2_2_2 : core_mjver_count() - 1;
		core_scene_prepare(&s, &m[i]);
	}
	core_lanes_drop_array(m, heights, durations, NULL, out, 3, 0);
	for (i = 0; i < 3; i++) {
		core_sim_drop(&m[i], heights[i], durations[i], &single);
		ck_assert(same_drop(&single, &out[i]));
	}
	ck_assert(out[0].jitter == 0);
}
END_TEST

/*
 * Presses through the lanes (core_lanes_press_array(), the calibration's model of a press)
 * answer as core_sim_press() does, bit for bit: depth, peak, lift and steps (the lanes keep no
 * spread: NAN), over the
 * random scenes above pressed by 0.5 to 20 times their weight (those under it refused by
 * both) for random durations and windows. A lane reports rest (period 1) where the scalar
 * press found period 1 (but on the last step); the scalar press's longer cycles the lanes do
 * not look for.
 */
START_TEST(lanes_match_single_presses)
{
	enum { PRESSES = 1500 };
	struct core_scene_model *models = calloc(PRESSES, sizeof *models);
	struct core_sim_press *lanes = calloc(PRESSES, sizeof *lanes);
	double *forces = calloc(PRESSES, sizeof *forces);
	double duration = 0, window = 0;
	int i, width, round, refused = 0, rested = 0, cycled = 0, hopped = 0;

	ck_assert(models && lanes && forces);
	for (round = 0; round < 3; round++) {
		/* a duration and a window per round: all points of a call share them */
		duration = round == 0 ? 4.0 : between(0.01, 2);
		window = round == 0 ? 1.0 : round == 1 ? between(0, 3) : 0;
		for (i = 0; i < PRESSES; i++) {
			struct core_scene s;

			random_scene(&s);
			core_scene_prepare(&s, &models[i]);
			forces[i] = between(0.5, 20) * s.mass * s.option.gravity;
		}
		for (width = 4; width <= 8; width += 4) {
			if (core_lanes_select(width) != width)
				continue;
			core_lanes_press_array(models, forces, PRESSES, duration, window, lanes);
			for (i = 0; i < PRESSES; i++) {
				struct core_sim_press single;
				const struct core_sim_press *l = &lanes[i];

				if (core_sim_press(
				        &models[i], forces[i], duration, window, &single) != 0) {
					ck_assert_msg(l->steps == 0 && isnan(l->depth),
					    "point %d: refused by core_sim_press, lanes %ld steps",
					    i, l->steps);
					refused += width == 4;
					continue;
				}
				ck_assert_msg(same_or_nan(single.depth, l->depth) &&
				        isnan(l->spread) && same_or_nan(single.peak, l->peak) &&
				        same_or_nan(single.lift, l->lift) &&
				        single.steps == l->steps,
				    "%d lanes, round %d, point %d (integrator %d, rows %d): depth "
				    "%.17g / "
				    "%.17g, spread %.17g / %.17g, peak %.17g / %.17g, lift %.17g / "
				    "%.17g, steps %ld / %ld",
				    width, round, i, models[i].integrator, models[i].rows, l->depth,
				    single.depth, l->spread, single.spread, l->peak, single.peak,
				    l->lift, single.lift, l->steps, single.steps);
				/* rest seen by both, unless on the last step (nothing left to
				 * shortcut, the lanes just end) */
				ck_assert_msg((l->period == 1) == (single.period == 1) ||
				        (single.period == 1 && l->stepped == l->steps),
				    "point %d: lanes period %ld (stepped %ld), scalar %ld (stepped "
				    "%ld of %ld)",
				    i, l->period, l->stepped, single.period, single.stepped,
				    single.steps);
				if (width == 4) {
					rested += single.period == 1;
					cycled += single.period > 1;
					hopped += single.lift > 0;
				}
			}
		}
	}
	core_lanes_select(0);
	/* the sample reaches rest, cycles, hops and refusals */
	ck_assert_int_gt(refused, 0);
	ck_assert_int_gt(rested, 3 * PRESSES / 20);
	ck_assert_int_gt(cycled, 0);
	ck_assert_int_gt(hopped, 0);
	free(models);
	free(lanes);
	free(forces);
}
END_TEST

static Suite *lanes_suite(void)
{
	Suite *s = suite_create("lanes");
	TCase *tc = tcase_create("bits");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, lanes_match_single_drops);
	tcase_add_test(tc, lanes_rest_shortcut_lesson_cube);
	tcase_add_test(tc, lanes_start_from_fall);
	tcase_add_test(tc, lanes_match_single_presses);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lanes_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
