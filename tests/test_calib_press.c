/*
 * test_calib_press.c: presses as MuJoCo computes them (issue #29, item 2), against real
 * MuJoCo 2.2.2 (libmujoco, linked into tests only).
 *
 * A press is the lab's: the object placed at rest touching the pad (mj_resetData of a body
 * whose lowest point is on the plane), xfrc_applied = -(force - m*g) from the first step,
 * mj_step for 4 s, the depth the mean of -(bottom) over the last 1 s (fit/model.h). The
 * core's core_sim_press() must give libmujoco's depth on random bouncy and damped pads,
 * and a fit of presses made so must hold the truth.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim.h"
#include "fit/fit.h"
#include "fit/model.h"
#include "mjscene.h"
#include "testlib.h"
#include "fit/knobs.h"

/* libmujoco's press of total force `force` on scene s (its height ignored): the mean
 * penetration over the last CALIB_PRESS_WINDOW s of CALIB_PRESS_DURATION s, summed in
 * step order; *spread its population standard deviation (two passes). */
static double mj_press(const struct core_scene *s, double force, double *spread)
{
	struct core_scene at = *s;
	struct mjscene ms;
	char msg[512];
	long n = lround(CALIB_PRESS_DURATION / s->option.timestep);
	long w = lround(CALIB_PRESS_WINDOW / s->option.timestep), i;
	double *pen = malloc((size_t)n * sizeof *pen), sum = 0, sq = 0, mean;

	ck_assert_ptr_nonnull(pen);
	at.height = 0;
	ck_assert_msg(mjscene_open(&ms, &at, msg, sizeof msg) == 0, "%s", msg);
	ms.data->xfrc_applied[6 + 2] = -(force - s->mass * s->option.gravity);
	for (i = 0; i < n; i++) {
		mj_step(ms.model, ms.data);
		pen[i] = -(ms.data->qpos[2] - ms.half_height);
	}
	mjscene_close(&ms);
	for (i = n - w; i < n; i++)
		sum += pen[i];
	mean = sum / (double)w;
	for (i = n - w; i < n; i++)
		sq += (pen[i] - mean) * (pen[i] - mean);
	*spread = sqrt(sq / (double)w);
	free(pen);
	return mean;
}

/*
 * The core's press is libmujoco's, on 120 random pads (timeconst 0.008 to 0.1 s, dampratio
 * 0.1 to 2, timestep 2 or 5 ms, refsafe on), spheres of radius 1 to 3 cm and 20 to 300 g
 * and cubes of those half-sizes, pressed with 1 to 20 times their weight. Tolerance
 * 1e-12 of the depth: the core's step is MuJoCo's operations in MuJoCo's order, so the
 * trajectories agree step for step to rounding (observed: at most 2e-14 relative); a
 * repeat the core recognises replays the penetrations already made, in step order.
 * Where model_press_followed() says the model does not follow (an object thrown clear
 * of the pad, a box that rocks) the fit gets no depth; those pads are counted and must be
 * few (a sixth at most: the energy-gaining pads near timeconst = 2 timesteps), and a
 * sphere is refused only where libmujoco's mean depth is not positive either. The set
 * must hold pads that keep hopping (spread above 10 um) and pads that settle, so both are
 * proved.
 */
START_TEST(press_is_mujocos)
{
	uint64_t rng = 2029;
	int t, hopping = 0, settled = 0, refused = 0, cycles = 0;
	double worst = 0;
	long stepped = 0, steps = 0;

	for (t = 0; t < 120; t++) {
		int box = t % 3 == 2;
		double tc = exp(tl_between(&rng, log(0.008), log(0.1)));
		double dr = exp(tl_between(&rng, log(0.1), log(2.0)));
		double size = tl_between(&rng, 0.01, 0.03), mass = tl_between(&rng, 0.02, 0.3);
		double h = tl_uniform(&rng) < 0.5 ? 0.002 : 0.005;
		double load = tl_between(&rng, 1, 20);
		struct core_scene s = mjscene_pad(box, tc, dr, CALIB_PRESS_DURATION);
		struct core_scene_model m;
		struct core_sim_press p;
		double force, spread, depth, rel;

		s.size[0] = size;
		if (box)
			s.size[1] = s.size[2] = size;
		s.mass = mass;
		s.option.timestep = h;
		force = load * mass * s.option.gravity;
		core_scene_prepare(&s, &m);
		ck_assert_int_eq(
		    core_sim_press(&m, force, CALIB_PRESS_DURATION, CALIB_PRESS_WINDOW, &p), 0);
		stepped += p.stepped;
		steps += p.steps;
		depth = mj_press(&s, force, &spread);
		if (!model_press_followed(&m, &p)) {
			/* a sphere is refused only where MuJoCo throws it clear too */
			refused++;
			ck_assert(isnan(model_press(&m, force)));
			ck_assert_msg(box || !(depth > 0),
			    "sphere (%g, %g) at %g s refused: MuJoCo's depth %g", tc, dr, h, depth);
			continue;
		}
		rel = fabs(p.depth - depth) / depth;
		worst = fmax(worst, rel);
		ck_assert_msg(rel <= 1e-12,
		    "%s (%g, %g) at %g s, %g x weight: core %.9g, MuJoCo %.9g (spread %.3g)",
		    box ? "box" : "sphere", tc, dr, h, load, p.depth, depth, spread);
		ck_assert(fabs(p.spread - spread) <= 1e-9 + 1e-6 * spread);
		ck_assert(model_press(&m, force) == p.depth);
		hopping += spread > 1e-5;
		settled += p.period == 1;
		cycles += p.period > 1;
	}
	printf("press parity: 120 pads, %d hopping, %d settled, %d in a cycle, %d refused; "
	       "worst relative difference %.3g; %ld of %ld steps stepped\n",
	    hopping, settled, cycles, refused, worst, stepped, steps);
	fflush(stdout);
	ck_assert_int_ge(hopping, 20);
	ck_assert_int_ge(settled, 20);
	ck_assert_int_le(refused, 20);
}
END_TEST

/*
 * The fit's batches (model_presses(), model_rebounds(): the lanes, shared over the fit's
 * threads, and a small batch in scalar code) give each point model_press()'s and
 * model_rebound()'s own answer, bit for bit (NaN as NaN): 700 pads, spheres and boxes, both
 * cones, two presses and two drops each (1400 points: over the sharing threshold), then the
 * first pad alone (one and two presses: the scalar path).
 */
START_TEST(batches_are_single_answers)
{
	enum { PADS = 700 };
	struct core_scene_model *m = calloc(PADS, sizeof *m);
	double *press = calloc(2 * PADS, sizeof *press), *drop = calloc(2 * PADS, sizeof *drop);
	double forces[2], heights[2] = {0.05, 0.2};
	uint64_t rng = 2031;
	int i, k, elliptic = 0, boxes = 0, nan = 0;

	ck_assert(m && press && drop);
	for (i = 0; i < PADS; i++) {
		int box = i % 3 == 2;
		struct core_scene s = mjscene_pad(box, exp(tl_between(&rng, log(0.008), log(0.3))),
		    exp(tl_between(&rng, log(0.1), log(2.0))), CALIB_PRESS_DURATION);

		s.size[0] = tl_between(&rng, 0.01, 0.03);
		if (box)
			s.size[1] = s.size[2] = s.size[0];
		s.mass = 0.1;
		s.option.timestep = i % 2 ? 0.002 : 0.005;
		s.option.cone = i % 5 == 0 ? CORE_CONE_ELLIPTIC : CORE_CONE_PYRAMIDAL;
		core_scene_prepare(&s, &m[i]);
		elliptic += m[i].cone == CORE_CONE_ELLIPTIC;
		boxes += box;
	}
	forces[0] = 0.1 * 9.81 * 1.5;
	forces[1] = 0.1 * 9.81 * 12;
	model_presses(m, PADS, forces, 2, press);
	model_rebounds(m, PADS, heights, 2, NULL, drop);
	for (i = 0; i < PADS; i++)
		for (k = 0; k < 2; k++) {
			double p1 = model_press(&m[i], forces[k]),
			       d1 = model_rebound(&m[i], heights[k]);
			double pb = press[i * 2 + k], db = drop[i * 2 + k];

			ck_assert_msg(memcmp(&p1, &pb, sizeof p1) == 0 || (isnan(p1) && isnan(pb)),
			    "pad %d press %d: batch %.17g, alone %.17g", i, k, pb, p1);
			ck_assert_msg(memcmp(&d1, &db, sizeof d1) == 0 || (isnan(d1) && isnan(db)),
			    "pad %d drop %d: batch %.17g, alone %.17g", i, k, db, d1);
			nan += isnan(p1);
		}
	for (k = 1; k <= 2; k++) {
		model_presses(m, 1, forces, (size_t)k, press);
		ck_assert(memcmp(&press[k - 1], (double[]){model_press(&m[0], forces[k - 1])},
		              sizeof(double)) == 0 ||
		    isnan(press[k - 1]));
	}
	ck_assert_int_gt(elliptic, 0);
	ck_assert_int_gt(boxes, 0);
	ck_assert_int_lt(nan, PADS); /* most presses have a depth */
	free(m);
	free(press);
	free(drop);
}
END_TEST

/*
 * A pad that hops under a press: its mean depth lies far beyond the equilibrium's (the old
 * model), and a force below the object's weight has no press.
 */
START_TEST(hopping_press_is_deeper)
{
	struct core_scene s = mjscene_pad(0, 0.03, 0.2, CALIB_PRESS_DURATION);
	struct core_scene_model m;
	struct core_sim_press p;
	double eq, spread, depth;

	s.size[0] = 0.015;
	s.mass = 0.08;
	s.option.timestep = 0.002;
	core_scene_prepare(&s, &m);
	ck_assert_int_eq(
	    core_sim_press(&m, 1.7848, CALIB_PRESS_DURATION, CALIB_PRESS_WINDOW, &p), 0);
	ck_assert_int_eq(core_sim_equilibrium(&m, 1.7848, &eq), 0);
	depth = mj_press(&s, 1.7848, &spread);
	ck_assert(fabs(p.depth - depth) <= 1e-12 * depth);
	ck_assert_msg(p.depth > 2 * eq, "depth %g, equilibrium %g", p.depth, eq);
	ck_assert(spread > 1e-5);
	ck_assert_int_eq(
	    core_sim_press(&m, 0.5 * s.mass * s.option.gravity, CALIB_PRESS_DURATION, 1, &p), -1);
	ck_assert(isnan(model_press(&m, 0.5 * s.mass * s.option.gravity)));
}
END_TEST

/*
 * The issue's example: a 15 mm, 80 g sphere at 2 ms on a pad of (0.03, 0.2), two presses
 * measured in MuJoCo as above (the issue's numbers, 3 % sigmas). The fit modelled them as
 * the equilibrium and answered partial with timeconst*dampratio 0.01007 +- 0.00011
 * against the truth's 0.006 (38 sigma). Now the truth's presses are libmujoco's (checked
 * here to within 0.2 sigma of the measured: the issue's lab is this definition), the
 * reported chi2 is no higher than the truth's, the fit is not ok (two presses cannot fix
 * two parameters and a settled pad of timeconst*dampratio 0.0101 fits them too), every
 * interval it gives holds the truth (an open end holds everything beyond it), and a
 * timeconst*dampratio it calls identified holds the truth's within 2 standard errors.
 */
START_TEST(issue_example)
{
	static const struct calib_press presses[2] = {
	    {1.7848, 9.9036e-5, 2.98e-6}, {3.7848, 2.0373e-4, 5.07e-6}};
	static const double truth[2] = {0.03, 0.2};
	struct core_scene s = mjscene_pad(0, truth[0], truth[1], 1);
	struct core_scene start = mjscene_pad(0, CALIB_PAD_TIMECONST, CALIB_PAD_DAMPRATIO, 1);
	struct calib_data data = {0};
	struct fit_result *fit = NULL;
	struct err err;
	double truth_chi2 = 0, spread;
	int i, q, k;

	s.size[0] = start.size[0] = 0.015;
	s.mass = start.mass = 0.08;
	s.option.timestep = start.option.timestep = 0.002;
	for (i = 0; i < 2; i++) {
		double d = mj_press(&s, presses[i].force, &spread);
		double z = (presses[i].deflection - d) / presses[i].sigma;

		ck_assert_msg(fabs(z) < 0.2, "press %d: MuJoCo %.6g, measured %.6g", i, d,
		    presses[i].deflection);
		truth_chi2 += z * z;
	}
	data.presses = presses;
	data.npresses = 2;
	ck_assert_msg(fit_solref(&start, &data, NULL, &fit, &err) == 0, "%s", err.message);
	printf("issue example: status %d at (%.6g, %.6g), chi2 %.4g (truth %.4g)\n", fit->status,
	    fit->timeconst, fit->dampratio, fit->chi2, truth_chi2);
	ck_assert(fit->status != FIT_OK);
	ck_assert(fit->chi2 <= truth_chi2 * (1 + 1e-9) + 1e-9);
	for (q = 0; q < 2; q++)
		for (k = 0; k < 2; k++) {
			const double *ci = fit->interval_log[q][k];

			if (!isnan(ci[0]))
				ck_assert_msg(ci[0] <= log(truth[q]) && log(truth[q]) <= ci[1],
				    "parameter %d: %d-sigma [%g, %g] misses %g", q, k + 1,
				    exp(ci[0]), exp(ci[1]), truth[q]);
		}
	if (fit->product_identified)
		ck_assert_msg(fabs(log(fit->timeconst * fit->dampratio / (truth[0] * truth[1]))) <=
		        2 * fit->se_log_product,
		    "timeconst*dampratio %g +- %g misses %g", fit->timeconst * fit->dampratio,
		    fit->timeconst * fit->dampratio * fit->se_log_product, truth[0] * truth[1]);
	fit_free(fit);
}
END_TEST

/* A set of drops and presses of the 2 cm, 100 g sphere at 5 ms on a pad that hops under a
 * press, made by libmujoco (noise-free); one of its measurements is then spoiled. */
static void hopping_set(
    struct calib_drop drops[4], struct calib_press presses[2], struct core_scene *start)
{
	static const double heights[4] = {0.05, 0.1, 0.15, 0.2};
	struct core_scene s = mjscene_pad(0, 0.03, 0.3, 2);
	struct core_scene_model m;
	double spread;
	int i;

	*start = mjscene_pad(0, CALIB_PAD_TIMECONST, CALIB_PAD_DAMPRATIO, 1);
	core_scene_prepare(&s, &m);
	for (i = 0; i < 4; i++) {
		struct mjscene ms;
		struct core_scene at = s;
		char msg[512];
		double bottom, prev = 0, apex = 0;
		int j, touched = 0, left = 0;

		at.height = heights[i];
		ck_assert_msg(mjscene_open(&ms, &at, msg, sizeof msg) == 0, "%s", msg);
		for (j = 0; j < 400; j++) {
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
		drops[i].height = heights[i];
		drops[i].rebound = apex;
		drops[i].sigma = 2e-4;
	}
	for (i = 0; i < 2; i++) {
		presses[i].force = (2 + 2 * i) * s.mass * s.option.gravity;
		presses[i].deflection = mj_press(&s, presses[i].force, &spread);
		presses[i].sigma = 0.03 * presses[i].deflection;
		/* the pad hops: the equilibrium, the old model, is far shallower */
		{
			double eq;
			ck_assert_int_eq(core_sim_equilibrium(&m, presses[i].force, &eq), 0);
			ck_assert(presses[i].deflection > 2 * eq);
		}
	}
}

/* Fit, and return whether the status is misfit and the note names `needle`. */
static int misfit_names(const struct core_scene *start, const struct calib_drop *drops,
    const struct calib_press *presses, const char *needle)
{
	struct calib_data data = {0};
	struct fit_result *fit = NULL;
	struct err err;
	size_t k;
	int named = 0;

	data.drops = drops;
	data.ndrops = 4;
	data.presses = presses;
	data.npresses = 2;
	ck_assert_msg(fit_solref(start, &data, NULL, &fit, &err) == 0, "%s", err.message);
	for (k = 0; k < fit->nnotes; k++) {
		printf("  note: %s\n", fit->notes[k]);
		named |= strstr(fit->notes[k], needle) != NULL;
	}
	fflush(stdout);
	named = fit->status == FIT_MISFIT && named;
	fit_free(fit);
	return named;
}

/*
 * The misfit note names the measurement that is inconsistent. Drops and presses of a pad
 * that hops under a press (0.03, 0.3), noise-free from libmujoco: they fit (no misfit,
 * status ok or few_dof). With the second press's deflection halved, the fit is a misfit
 * and its note names that press; with the third drop's rebound doubled, that drop. Under
 * the equilibrium model the unspoiled set was itself a misfit (chi2 1013 for 4 degrees of
 * freedom, at (0.0079, 1.35)), which this test's first check catches.
 */
START_TEST(misfit_names_the_measurement)
{
	struct calib_drop drops[4], bad_drops[4];
	struct calib_press presses[2], bad_presses[2];
	struct core_scene start;
	struct calib_data data = {0};
	struct fit_result *fit = NULL;
	struct err err;
	char needle[64];

	hopping_set(drops, presses, &start);
	data.drops = drops;
	data.ndrops = 4;
	data.presses = presses;
	data.npresses = 2;
	ck_assert_msg(fit_solref(&start, &data, NULL, &fit, &err) == 0, "%s", err.message);
	ck_assert_msg(fit->status != FIT_MISFIT, "the truth's own data: %s",
	    fit->nnotes ? fit->notes[0] : "");
	ck_assert_msg(
	    fabs(log(fit->timeconst / 0.03)) < 0.05 && fabs(log(fit->dampratio / 0.3)) < 0.05,
	    "fit (%g, %g)", fit->timeconst, fit->dampratio);
	fit_free(fit);

	memcpy(bad_presses, presses, sizeof bad_presses);
	bad_presses[1].deflection *= 0.5;
	snprintf(needle, sizeof needle, "press of %.4g N", presses[1].force);
	ck_assert_msg(misfit_names(&start, drops, bad_presses, needle), "not named: %s", needle);

	memcpy(bad_drops, drops, sizeof bad_drops);
	bad_drops[2].rebound *= 2;
	snprintf(needle, sizeof needle, "drop from %.4g m", drops[2].height);
	ck_assert_msg(misfit_names(&start, bad_drops, presses, needle), "not named: %s", needle);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calib_press");
	TCase *core = tcase_create("core"), *fit = tcase_create("fit");
	SRunner *sr;
	int failed;

	tcase_set_timeout(core, 120);
	tcase_set_timeout(fit, 600);
	tcase_add_test(core, press_is_mujocos);
	tcase_add_test(core, hopping_press_is_deeper);
	tcase_add_test(core, batches_are_single_answers);
	tcase_add_test(fit, issue_example);
	tcase_add_test(fit, misfit_names_the_measurement);
	suite_add_tcase(s, core);
	suite_add_tcase(s, fit);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
