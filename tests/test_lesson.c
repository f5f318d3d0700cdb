/*
 * test_lesson.c: every number of the seed lesson's tables (03 · Contact), computed
 * by the contact core through its API and by real MuJoCo 2.2.2 (mjscene), each
 * formatted with the lesson's printed precision and compared digit for digit.
 *
 * The expected strings are the lesson's. Where real MuJoCo prints other digits, the
 * row carries MuJoCo's digits in `mujoco` (the core must match those) and the test
 * also asserts that MuJoCo does NOT print the lesson's digits, so the documented
 * difference stays true (docs/parity.md, spec §14).
 *
 * Conventions, verified by the digits they reproduce:
 *  - the Experiment: a 10 cm, 1 kg cube (half-size 0.05) or a 5 cm radius, 1 kg
 *    sphere on a plane, dt = 2 ms, the same solref on both geoms, everything else
 *    MuJoCo's default (condim 3, so the Experiment's sphere has 4 pyramid rows);
 *  - Build it: the same sphere with condim="1" on both geoms (one row per contact;
 *    the pair takes the larger condim, so the plane needs it too);
 *  - "rest": placed touching the plane (height 0), penetration after 2 s;
 *    "drop": released with its lowest point 10 cm above the plane, 2 s.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/growth.h"
#include "core/law.h"
#include "core/scene.h"
#include "core/sim.h"
#include "mjscene.h"
#include "core/knobs.h"

#define LESSON_TIMESTEP 0.002
#define LESSON_SIZE 0.05
#define LESSON_MASS 1.0
#define LESSON_HEIGHT 0.10
#define LESSON_DURATION 2.0
/* Build it, Step 4 and the Break-it tables state d = 0.95, the default solimp's dwidth */
#define LESSON_D DEFAULT_SOLIMP_DWIDTH

/* ---- scenes ---- */

static void lesson_scene(struct core_scene *s, enum core_scene_shape shape, int condim,
    double timeconst, double dampratio, int refsafe)
{
	memset(s, 0, sizeof *s);
	s->shape = shape;
	s->size[0] = s->size[1] = s->size[2] = LESSON_SIZE;
	s->mass = LESSON_MASS;
	core_pair_geom_default(&s->geom);
	s->geom.solref[0] = timeconst;
	s->geom.solref[1] = dampratio;
	s->geom.condim = condim;
	s->floor = s->geom;
	s->option.timestep = LESSON_TIMESTEP;
	s->option.mujoco = CORE_MJVER_2_2_2; /* the reference: libmujoco 2.2.2 */
	s->option.refsafe = refsafe;
	s->option.gravity = DEFAULT_GRAVITY;
	s->option.impratio = DEFAULT_IMPRATIO;
	s->option.integrator = CORE_SCENE_EULER;
	s->height = LESSON_HEIGHT;
	s->duration = LESSON_DURATION;
}

/* Build it's sphere: one frictionless row */
static void build_sphere(struct core_scene *s, double timeconst, double dampratio, int refsafe)
{
	lesson_scene(s, CORE_SCENE_SPHERE, 1, timeconst, dampratio, refsafe);
}

/* the Experiment's cube, default condim */
static void cube(struct core_scene *s, double timeconst, double dampratio, int refsafe)
{
	lesson_scene(s, CORE_SCENE_BOX, DEFAULT_CONDIM, timeconst, dampratio, refsafe);
}

/* ---- the two ways of answering ---- */

static void core_drop(const struct core_scene *s, struct core_sim_drop *out)
{
	struct core_scene_model m;

	core_scene_prepare(s, &m);
	core_sim_drop(&m, s->height, s->duration, out);
}

static void core_rest(const struct core_scene *s, struct core_sim_rest *out)
{
	struct core_scene_model m;

	core_scene_prepare(s, &m);
	core_sim_rest(&m, 0, s->duration, out);
}

static struct mjscene open_mujoco(const struct core_scene *s)
{
	struct mjscene ms;
	char err[600];

	ck_assert_msg(mjscene_open(&ms, s, err, sizeof err) == 0, "MuJoCo: %s", err);
	return ms;
}

/* MuJoCo's drop; if run is not NULL it receives the run's samples, one per step
 * (the caller frees them) */
static void mujoco_drop(
    const struct core_scene *s, struct core_sim_drop *out, struct mjscene_sample **run)
{
	struct mjscene ms = open_mujoco(s);
	long n = core_sim_step_count(s->duration, s->option.timestep);
	struct mjscene_sample *samples = calloc((size_t)n, sizeof *samples);

	ck_assert_ptr_nonnull(samples);
	/* the lesson's scenes never trip MuJoCo's bad-number reset */
	ck_assert_int_lt(mjscene_run(&ms, n, samples), 0);
	mjscene_metrics(samples, n, ms.half_height, s->height, s->option.timestep, out);
	mjscene_close(&ms);
	if (run)
		*run = samples;
	else
		free(samples);
}

/* MuJoCo's "2 s at rest": placed touching, the penetration at the end */
static double mujoco_rest(const struct core_scene *s)
{
	struct core_scene touching = *s;
	struct core_sim_drop settle;

	touching.height = 0;
	mujoco_drop(&touching, &settle, NULL);
	return settle.final_penetration;
}

/* ---- digits ---- */

/* value printed with fmt must read `printed` */
static void assert_digits(const char *what, const char *fmt, double value, const char *printed)
{
	char buf[64];

	snprintf(buf, sizeof buf, fmt, value);
	ck_assert_msg(
	    strcmp(buf, printed) == 0, "%s: %s, the lesson prints %s", what, buf, printed);
}

/* value printed with fmt must NOT read `printed` (a documented lesson/MuJoCo difference) */
static void assert_not_digits(const char *what, const char *fmt, double value, const char *printed)
{
	char buf[64];

	snprintf(buf, sizeof buf, fmt, value);
	ck_assert_msg(strcmp(buf, printed) != 0,
	    "%s: MuJoCo now prints the lesson's %s; update docs/parity.md", what, printed);
}

/*
 * One printed cell: the core and MuJoCo must both print `expected` (the lesson's
 * digits, or MuJoCo's where `lesson_differs`); when the lesson differs, MuJoCo must
 * not print the lesson's digits `lesson`.
 */
static void assert_cell(const char *what, const char *fmt, double core, double mujoco,
    const char *lesson, const char *mujoco_digits)
{
	char label[160];
	const char *expected = mujoco_digits ? mujoco_digits : lesson;

	snprintf(label, sizeof label, "%s, core", what);
	assert_digits(label, fmt, core, expected);
	snprintf(label, sizeof label, "%s, MuJoCo 2.2.2", what);
	assert_digits(label, fmt, mujoco, expected);
	if (mujoco_digits)
		assert_not_digits(label, fmt, mujoco, lesson);
}

/* ---- Build it ---- */

/* Step 1: impedance and reference spring vs efc_KBIP, sphere placed at penetration r */
START_TEST(build_step1_kbip)
{
	static const struct {
		double timeconst, r_mm;
		const char *d, *K, *B;
	} rows[] = {
	    {0.001, 0.5, "0.9250", "69252.1", "526.32"},
	    {0.004, 0.5, "0.9250", "69252.1", "526.32"},
	    {0.020, 0.2, "0.9040", "2770.1", "105.26"},
	    {0.020, 0.5, "0.9250", "2770.1", "105.26"},
	    {0.020, 2.0, "0.9500", "2770.1", "105.26"},
	    {0.100, 0.5, "0.9250", "110.8", "21.05"},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_law_solimp solimp;
		struct core_law_gains gains;
		struct mjscene ms;
		struct mjscene_efc efc;
		double r = rows[i].r_mm * 1e-3, d;
		char what[64];

		build_sphere(&s, rows[i].timeconst, 1, 1);
		/* core: the law functions, as the lesson's impedance() and solref_kb() */
		core_law_solimp_clamp(s.geom.solimp, &solimp);
		d = core_law_impedance(-r, &solimp, NULL);
		core_law_solref_kb(
		    s.geom.solref, solimp.dwidth, s.option.timestep, s.option.refsafe, &gains);
		/* MuJoCo: the sphere's centre at radius - r, at rest, one row */
		ms = open_mujoco(&s);
		ck_assert_int_eq(mjscene_efc(&ms, LESSON_SIZE - r, 0, &efc), 0);
		mjscene_close(&ms);
		ck_assert_int_eq(efc.nefc, 1);
		snprintf(what, sizeof what, "step 1, timeconst %.3f r %.1f mm", rows[i].timeconst,
		    rows[i].r_mm);
		assert_cell(what, "%.4f", d, efc.imp[0], rows[i].d, NULL);
		assert_cell(what, "%.1f", gains.K, efc.K[0], rows[i].K, NULL);
		assert_cell(what, "%.2f", gains.B, efc.B[0], rows[i].B, NULL);
	}
}
END_TEST

/* Step 2: a_ref at r = 0.5 mm, v = -0.3 m/s (default solref) */
START_TEST(build_step2_aref)
{
	struct core_scene s;
	struct core_scene_model m;
	struct core_scene_contact_state st;
	struct mjscene ms;
	struct mjscene_efc efc;
	double z = LESSON_SIZE - 0.0005, vel = -0.3;

	build_sphere(&s, DEFAULT_TIMECONST, DEFAULT_DAMPRATIO, 1);
	core_scene_prepare(&s, &m);
	core_scene_accel(&m, z, vel, &st);
	ms = open_mujoco(&s);
	ck_assert_int_eq(mjscene_efc(&ms, z, vel, &efc), 0);
	mjscene_close(&ms);
	ck_assert_int_eq(efc.nefc, 1);
	assert_cell("step 2 a_ref", "%.6f", st.aref, efc.aref[0], "32.860111", NULL);
}
END_TEST

/* Step 2: the 10 cm drop of the one-row sphere at three dampratios */
START_TEST(build_step2_drop)
{
	static const struct {
		double dampratio;
		const char *peak_mm, *rebound_mm;
		double lesson_max_dz; /* the lesson's max |z_ours - z_mujoco| (m) */
	} rows[] = {
	    {1.0, "8.726", "0.000", 2.4e-13},
	    {0.3, "4.859", "14.519", 1.4e-13},
	    {0.1, "2.282", "57.912", 8.7e-12},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_scene_model m;
		struct core_sim_drop core, mj;
		struct mjscene_sample *run;
		double z, vel = 0, max_dz = 0;
		char what[64];
		long k;

		build_sphere(&s, DEFAULT_TIMECONST, rows[i].dampratio, 1);
		core_drop(&s, &core);
		mujoco_drop(&s, &mj, &run);
		snprintf(what, sizeof what, "step 2, dampratio %.1f", rows[i].dampratio);
		assert_cell(what, "%.3f", core.peak_penetration * 1e3, mj.peak_penetration * 1e3,
		    rows[i].peak_mm, NULL);
		assert_cell(
		    what, "%.3f", core.rebound * 1e3, mj.rebound * 1e3, rows[i].rebound_mm, NULL);
		/* the lesson's claim "follows MuJoCo to 1e-11 m or better": the core does at
		 * least as well as the lesson's own 1-D code did in every row */
		core_scene_prepare(&s, &m);
		z = s.height + m.half_height;
		for (k = 0; k < core.steps; k++) {
			core_scene_step(&m, &z, &vel);
			max_dz = fmax(max_dz, fabs(z - run[k].z));
		}
		free(run);
		ck_assert_msg(max_dz <= rows[i].lesson_max_dz,
		    "%s: max |z_core - z_mujoco| = %.3g m, the lesson's code reached %.1g", what,
		    max_dz, rows[i].lesson_max_dz);
	}
}
END_TEST

/* Step 3: resting penetration, "ours" (the equilibrium) and "MuJoCo, 2 s at rest" */
START_TEST(build_step3_rest)
{
	static const struct {
		double timeconst;
		const char *ours_mm, *mujoco_mm, *mujoco_2_2_2;
	} rows[] = {
	    {0.001, "0.0175", "0.0175", NULL},
	    {0.002, "0.0175", "0.0175", NULL},
	    {0.004, "0.0175", "0.0175", NULL},
	    {0.005, "0.0273", "0.0273", NULL},
	    {0.010, "0.1078", "0.1078", NULL},
	    {0.020, "0.3672", "0.3672", NULL},
	    /* MuJoCo 2.2.2 settles at 1.22625000000008 mm: the exact equilibrium 1.22625
	     * is a rounding tie and MuJoCo lands just above it (the lesson's 3.17 run
	     * printed 1.2262) */
	    {0.050, "1.2263", "1.2262", "1.2263"},
	    {0.100, "4.9050", "4.9050", NULL},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_sim_rest rest;
		struct core_law_solimp solimp;
		double pen;
		char what[64];

		build_sphere(&s, rows[i].timeconst, 1, 1);
		core_rest(&s, &rest);
		ck_assert(rest.has_equilibrium);
		/* "ours": the lesson's resting_penetration, through the law API as well */
		core_law_solimp_clamp(s.geom.solimp, &solimp);
		ck_assert_int_eq(core_law_resting_penetration(DEFAULT_GRAVITY, s.geom.solref,
		                     &solimp, s.option.timestep, s.option.refsafe, &pen),
		    0);
		snprintf(what, sizeof what, "step 3, timeconst %.3f", rows[i].timeconst);
		assert_digits(what, "%.4f", rest.penetration * 1e3, rows[i].ours_mm);
		assert_digits(what, "%.4f", pen * 1e3, rows[i].ours_mm);
		assert_cell(what, "%.4f", rest.settled_penetration * 1e3, mujoco_rest(&s) * 1e3,
		    rows[i].mujoco_mm, rows[i].mujoco_2_2_2);
	}
}
END_TEST

/* Step 4: growth of the linearized spring (d = 0.95) vs the 10 cm drop's highest bottom */
START_TEST(build_step4_growth)
{
	static const struct {
		double timeconst, dampratio;
		int refsafe;
		const char *h_omega, *growth, *highest_m, *mujoco_2_2_2;
	} rows[] = {
	    {0.0005, 1.00, 0, "4.00", "22.314", "6.687", NULL},
	    {0.0010, 1.00, 0, "2.00", "6.464", "13.753", NULL},
	    {0.0020, 1.00, 0, "1.00", "1.618", "1.786", NULL},
	    {0.0030, 1.00, 0, "0.67", "0.699", "0.100", NULL},
	    {0.0010, 1.00, 1, "0.50", "0.750", "0.100", NULL},
	    {0.0200, 0.10, 1, "1.00", "0.894", "0.100", NULL},
	    {0.0200, 0.07, 1, "1.43", "0.894", "0.100", NULL},
	    /* spec §14 reports 0.340 m for this row, but with the lesson's conventions
	     * (this sphere, condim 1 or 3, Euler, 2 s) MuJoCo 2.2.2 reaches 0.344993 m,
	     * the lesson's 0.345; the core follows it step for step */
	    {0.0200, 0.05, 1, "2.00", "1.740", "0.345", NULL},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_growth_report g;
		struct core_sim_drop core, mj;
		char what[80];

		build_sphere(&s, rows[i].timeconst, rows[i].dampratio, rows[i].refsafe);
		core_growth_stability(s.geom.solref, s.geom.solimp, LESSON_D, s.option.timestep,
		    s.option.refsafe, CORE_SCENE_EULER, &g);
		snprintf(what, sizeof what, "step 4, timeconst %.4f dampratio %.2f refsafe %d",
		    rows[i].timeconst, rows[i].dampratio, rows[i].refsafe);
		assert_digits(what, "%.2f", g.h_omega, rows[i].h_omega);
		assert_digits(what, "%.3f", g.growth, rows[i].growth);
		/* "growth above 1 means every step amplifies": exactly the launching rows */
		ck_assert_int_eq(g.stable, strcmp(rows[i].highest_m, "0.100") == 0);
		core_drop(&s, &core);
		mujoco_drop(&s, &mj, NULL);
		assert_cell(what, "%.3f", core.max_height, mj.max_height, rows[i].highest_m,
		    rows[i].mujoco_2_2_2);
	}
}
END_TEST

/* Step 4's aside: the Experiment's cube rebounds above its drop height at dampratio 0.07 */
START_TEST(build_step4_cube_aside)
{
	struct core_scene s;
	struct core_sim_drop core, mj;

	cube(&s, DEFAULT_TIMECONST, 0.07, 1);
	core_drop(&s, &core);
	mujoco_drop(&s, &mj, NULL);
	assert_cell("step 4 aside, cube dampratio 0.07", "%.3f", core.max_height, mj.max_height,
	    "0.106", NULL);
	ck_assert(core.energy_gain && mj.energy_gain);
}
END_TEST

/* ---- Experiment ---- */

/* Sweep 1: timeconst -> steady penetration (dampratio 1), cube and sphere */
START_TEST(sweep1_rest)
{
	static const struct {
		double timeconst;
		const char *cube_mm, *sphere_mm, *sphere_2_2_2, *d, *equation_mm;
	} rows[] = {
	    {0.001, "0.0044", "0.0175", NULL, "0.9000", "0.0175"},
	    {0.002, "0.0044", "0.0175", NULL, "0.9000", "0.0175"},
	    {0.004, "0.0044", "0.0175", NULL, "0.9000", "0.0175"},
	    {0.005, "0.0068", "0.0273", NULL, "0.9001", "0.0273"},
	    {0.01, "0.0273", "0.1078", NULL, "0.9012", "0.1078"},
	    {0.02, "0.1078", "0.3672", NULL, "0.9135", "0.3672"},
	    /* see Build it, Step 3: MuJoCo 2.2.2 settles just above the tie 1.22625 */
	    {0.05, "0.4914", "1.2262", "1.2263", "0.9500", "1.2263"},
	    {0.1, "1.2263", "4.9050", NULL, "0.9500", "4.9050"},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene box, ball;
		struct core_sim_rest box_rest, ball_rest;
		struct core_law_solimp solimp;
		double tc, d, equation;
		char what[64];

		cube(&box, rows[i].timeconst, 1, 1);
		lesson_scene(&ball, CORE_SCENE_SPHERE, DEFAULT_CONDIM, rows[i].timeconst, 1, 1);
		core_rest(&box, &box_rest);
		core_rest(&ball, &ball_rest);
		/* the Experiment's sphere is one contact of 4 pyramid rows, the cube 4 of 4 */
		ck_assert(ball_rest.contacts == 1 && ball_rest.rows == 4);
		ck_assert(box_rest.contacts == 4 && box_rest.rows == 16);
		snprintf(what, sizeof what, "sweep 1, timeconst %g, cube", rows[i].timeconst);
		assert_cell(what, "%.4f", box_rest.settled_penetration * 1e3,
		    mujoco_rest(&box) * 1e3, rows[i].cube_mm, NULL);
		snprintf(what, sizeof what, "sweep 1, timeconst %g, sphere", rows[i].timeconst);
		assert_cell(what, "%.4f", ball_rest.settled_penetration * 1e3,
		    mujoco_rest(&ball) * 1e3, rows[i].sphere_mm, rows[i].sphere_2_2_2);
		/* d: the sphere's impedance at its equilibrium */
		assert_digits(what, "%.4f", ball_rest.impedance, rows[i].d);
		/* "equation above": (1-d) a_u (dw/d)^2 timeconst^2 dampratio^2, at that d
		 * and the timeconst refsafe uses; and the core's exact equilibrium */
		core_law_solimp_clamp(ball.geom.solimp, &solimp);
		d = ball_rest.impedance;
		tc = ball_rest.timeconst_used;
		equation =
		    (1 - d) * DEFAULT_GRAVITY * (solimp.dwidth / d) * (solimp.dwidth / d) * tc * tc;
		assert_digits(what, "%.4f", equation * 1e3, rows[i].equation_mm);
		assert_digits(what, "%.4f", ball_rest.penetration * 1e3, rows[i].equation_mm);
	}
}
END_TEST

/* Sweep 2: the cube at solimp "d d 0.001", timeconst 0.02: penetration proportional to 1-d */
START_TEST(sweep2_impedance)
{
	static const struct {
		double d;
		const char *penetration_mm, *mujoco_2_2_2;
	} rows[] = {
	    {0.5, "0.4905", NULL},
	    {0.9, "0.0981", NULL},
	    /* another rounding tie: the exact value is (1 - 0.95) g 0.02^2 / 4 = 0.04905 mm;
	     * MuJoCo 2.2.2 settles at 0.04905000000004 mm and the equilibrium computes to
	     * 0.04905000000000005 mm, both "0.0491"; the lesson prints 0.0490 */
	    {0.95, "0.0490", "0.0491"},
	    {0.99, "0.0098", NULL},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_sim_rest rest;
		char what[64];

		cube(&s, DEFAULT_TIMECONST, 1, 1);
		s.geom.solimp[0] = s.geom.solimp[1] = rows[i].d;
		s.floor = s.geom;
		core_rest(&s, &rest);
		snprintf(what, sizeof what, "sweep 2, d %.2f", rows[i].d);
		assert_cell(what, "%.4f", rest.settled_penetration * 1e3, mujoco_rest(&s) * 1e3,
		    rows[i].penetration_mm, rows[i].mujoco_2_2_2);
		/* the core's equilibrium too: with a flat impedance the body settles right there */
		assert_digits(what, "%.4f", rest.penetration * 1e3,
		    rows[i].mujoco_2_2_2 ? rows[i].mujoco_2_2_2 : rows[i].penetration_mm);
	}
}
END_TEST

/* Sweep 3: dampratio -> the cube's 10 cm drop (timeconst 0.02) */
START_TEST(sweep3_drop)
{
	static const struct {
		double dampratio;
		const char *peak_mm, *rebound_mm;
	} rows[] = {
	    {0.1, "2.220", "56.504"},
	    {0.2, "3.503", "24.202"},
	    {0.3, "4.629", "13.766"},
	    {0.5, "6.236", "3.339"},
	    {0.7, "7.288", "0.055"},
	    {1.0, "8.283", "0.000"},
	    {2.0, "9.723", "0.000"},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_sim_drop core, mj;
		char what[64];

		cube(&s, DEFAULT_TIMECONST, rows[i].dampratio, 1);
		core_drop(&s, &core);
		mujoco_drop(&s, &mj, NULL);
		snprintf(what, sizeof what, "sweep 3, dampratio %.1f", rows[i].dampratio);
		assert_cell(what, "%.3f", core.peak_penetration * 1e3, mj.peak_penetration * 1e3,
		    rows[i].peak_mm, NULL);
		assert_cell(
		    what, "%.3f", core.rebound * 1e3, mj.rebound * 1e3, rows[i].rebound_mm, NULL);
	}
}
END_TEST

/* "A softer timeconst at dampratio 1 sinks deeper on impact" */
START_TEST(softer_sinks_deeper)
{
	static const struct {
		double timeconst;
		const char *peak_mm;
	} rows[] = {
	    {0.004, "0.297"}, {0.01, "3.295"}, {0.02, "8.283"}, {0.05, "23.248"}, {0.1, "48.314"}};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_sim_drop core, mj;
		char what[64];

		cube(&s, rows[i].timeconst, 1, 1);
		core_drop(&s, &core);
		mujoco_drop(&s, &mj, NULL);
		snprintf(what, sizeof what, "softer sinks deeper, timeconst %g", rows[i].timeconst);
		assert_cell(what, "%.3f", core.peak_penetration * 1e3, mj.peak_penetration * 1e3,
		    rows[i].peak_mm, NULL);
	}
}
END_TEST

/* ---- Break it ---- */

/* Break it 1: timeconst below 2 dt, refsafe on and off (cube, dampratio 1) */
START_TEST(break1_refsafe)
{
	static const struct {
		double timeconst;
		int refsafe;
		const char *peak_mm, *max_height_m, *jitter_mm;
		const char *rebound_mm, *rebound_2_2_2; /* the 0.003 row's note */
	} rows[] = {
	    /* "0.0005-0.004 on": every timeconst below 2h becomes 0.004 */
	    {0.0005, 1, "0.297", "0.100", "0.000", NULL, NULL},
	    {0.001, 1, "0.297", "0.100", "0.000", NULL, NULL},
	    {0.002, 1, "0.297", "0.100", "0.000", NULL, NULL},
	    {0.003, 1, "0.297", "0.100", "0.000", NULL, NULL},
	    {0.004, 1, "0.297", "0.100", "0.000", NULL, NULL},
	    {0.0005, 0, "0.297", "7.834", "497.278", NULL, NULL},
	    {0.001, 0, "2.327", "13.809", "2084.273", NULL, NULL},
	    {0.002, 0, "6.308", "0.894", "267.969", NULL, NULL},
	    /* spec §14: both real builds rebound 17.357 mm (the highest bottom after the
	     * first contact); the lesson prints 2.581 mm */
	    {0.003, 0, "0.578", "0.100", "0.000", "2.581", "17.357"},
	    {0.004, 0, "0.297", "0.100", "0.000", NULL, NULL},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_sim_drop core, mj;
		char what[64];

		cube(&s, rows[i].timeconst, 1, rows[i].refsafe);
		core_drop(&s, &core);
		mujoco_drop(&s, &mj, NULL);
		snprintf(what, sizeof what, "break it 1, timeconst %g refsafe %d",
		    rows[i].timeconst, rows[i].refsafe);
		assert_cell(what, "%.3f", core.peak_penetration * 1e3, mj.peak_penetration * 1e3,
		    rows[i].peak_mm, NULL);
		assert_cell(
		    what, "%.3f", core.max_height, mj.max_height, rows[i].max_height_m, NULL);
		assert_cell(
		    what, "%.3f", core.jitter * 1e3, mj.jitter * 1e3, rows[i].jitter_mm, NULL);
		if (rows[i].rebound_mm)
			assert_cell(what, "%.3f", core.rebound * 1e3, mj.rebound * 1e3,
			    rows[i].rebound_mm, rows[i].rebound_2_2_2);
	}
}
END_TEST

/* Break it 2: the gap in the guard (refsafe on, timeconst 0.02, small dampratio) */
START_TEST(break2_guard_gap)
{
	static const struct {
		double dampratio;
		const char *h_omega, *rebound_mm, *max_height_m;
	} rows[] = {
	    {0.10, "1.00", "56.504", "0.100"},
	    {0.07, "1.43", "105.891", "0.106"},
	    {0.05, "2.00", "3146.979", "3.147"},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof *rows; i++) {
		struct core_scene s;
		struct core_growth_report g;
		struct core_sim_drop core, mj;
		char what[64];

		cube(&s, DEFAULT_TIMECONST, rows[i].dampratio, 1);
		core_growth_stability(s.geom.solref, s.geom.solimp, LESSON_D, s.option.timestep, 1,
		    CORE_SCENE_EULER, &g);
		snprintf(what, sizeof what, "break it 2, dampratio %.2f", rows[i].dampratio);
		assert_digits(what, "%.2f", g.h_omega, rows[i].h_omega);
		core_drop(&s, &core);
		mujoco_drop(&s, &mj, NULL);
		assert_cell(
		    what, "%.3f", core.rebound * 1e3, mj.rebound * 1e3, rows[i].rebound_mm, NULL);
		assert_cell(
		    what, "%.3f", core.max_height, mj.max_height, rows[i].max_height_m, NULL);
		/* "at 0.07 the cube rebounds higher than it was dropped from" */
		ck_assert_int_eq(core.energy_gain, rows[i].dampratio < 0.1);
		ck_assert_int_eq(mj.energy_gain, rows[i].dampratio < 0.1);
	}
}
END_TEST

/*
 * The lesson's integrator `discrete` (MuJoCo 3.13.0+): its table (the cube, 3.14.0,
 * peak penetration / rebound in mm; Break it 1's timeconst 0.003 and Break it 2's
 * dampratios among the rows), with the discrete column MuJoCo 3.14.0's WebAssembly
 * build prints (the 3.13.0 build prints the same; tests/mjref/mjref_js_discrete.mjs
 * measures them live in tests/test_wasm.sh). Euler's column is the same build's and the
 * core's 3.14.0 Euler, which equals 3.12.0's.
 */
START_TEST(discrete_table)
{
	static const struct {
		double tc, dr;
		int refsafe;
		const char *euler_peak, *euler_rebound, *peak, *rebound;
	} rows[] = {
	    {0.0005, 1, 0, "0.297", "7833.706", "0.297", "0.113"},
	    {0.001, 1, 0, "2.327", "13809.134", "0.476", "0.078"},
	    {0.002, 1, 0, "6.308", "894.227", "0.916", "0.047"},
	    {0.003, 1, 0, "0.578", "17.357", "1.375", "0.000"}, /* Break it 1 */
	    {0.004, 1, 0, "0.297", "0.055", "1.843", "0.000"},
	    {0.02, 0.1, 1, "2.220", "56.504", "1.443", "4.412"}, /* Break it 2 */
	    {0.02, 0.07, 1, "2.159", "105.891", "1.476", "4.978"},
	    {0.02, 0.05, 1, "4.691", "3146.979", "1.499", "5.397"},
	    {0.001, 1, 1, "0.297", "0.055", "0.918", "0.039"},
	    {0.02, 1, 1, "8.283", "0.000", "9.717", "0.000"},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct core_scene s;
		struct core_sim_drop d;
		char what[96];

		cube(&s, rows[i].tc, rows[i].dr, rows[i].refsafe);
		s.option.mujoco = core_mjver_find("3.14.0");
		core_drop(&s, &d);
		snprintf(what, sizeof what, "Euler tc %g dr %g refsafe %d", rows[i].tc, rows[i].dr,
		    rows[i].refsafe);
		assert_digits(what, "%.3f", d.peak_penetration * 1e3, rows[i].euler_peak);
		assert_digits(what, "%.3f", d.rebound * 1e3, rows[i].euler_rebound);
		s.option.integrator = CORE_SCENE_DISCRETE;
		core_drop(&s, &d);
		snprintf(what, sizeof what, "discrete tc %g dr %g refsafe %d", rows[i].tc,
		    rows[i].dr, rows[i].refsafe);
		assert_digits(what, "%.3f", d.peak_penetration * 1e3, rows[i].peak);
		assert_digits(what, "%.3f", d.rebound * 1e3, rows[i].rebound);
		/* discrete is stable at any timeconst: no energy gain in any row */
		ck_assert_int_eq(d.energy_gain, 0);
	}
}
END_TEST

/*
 * The lesson: "under discrete, refsafe instead replaces rows with timeconst*dampratio < h"
 * and "Outside discrete, refsafe checks only timeconst". MuJoCo 3.13.0/3.14.0 replace a
 * row when q = h^2 K imp > 1 (measured on 389 replaced rows, bit for bit): the lesson's
 * criterion is exact only where imp = dmax^2. The WebAssembly builds' cases: solimp
 * d0 = dwidth = 0.5, tc*dr = 1.2h is replaced (q = 1.39 by h^2 K imp = imp/(dmax (tc dr/h))^2
 * = 0.5/(0.25 * 1.44)); with dmax 0.95 and imp 0.5 (d0 0.5 at zero penetration)
 * tc*dr = 0.9h is kept (q = 0.68). The lesson's second sentence holds: Euler clamps.
 */
START_TEST(discrete_refsafe_rule)
{
	const double h = LESSON_TIMESTEP;
	struct core_law_gains g;
	struct core_law_discrete d;
	struct core_growth_report rep;
	const double flat[5] = {0.5, 0.5, 0.001, 0.5, 2};
	const double soft[5] = {0.5, 0.95, 0.001, 0.5, 2};
	double solref[2] = {1.2 * h, 1};

	/* tc*dr = 1.2h >= h: the lesson keeps it; MuJoCo replaces it (dmax = imp = 0.5) */
	core_law_solref_kb(solref, 0.5, h, 0, &g);
	core_law_discrete_gains(&g, 0.5, h, 1, &d);
	ck_assert_double_eq_tol(h * h * g.K * 0.5, 1 / (0.25 * 1.44) * 0.5, 1e-12);
	ck_assert_int_eq(d.replaced, 1);
	/* K' = 1/(h^2 imp), B' = B/sqrt(q): the damping ratio B/(2 sqrt(K imp)) is kept */
	ck_assert_double_eq_tol(d.K, 1 / (h * h * 0.5), 1e-9 * d.K);
	ck_assert_double_eq_tol(d.B / (2 * sqrt(d.K * 0.5)), g.B / (2 * sqrt(g.K * 0.5)), 1e-12);
	/* tc*dr = 0.9h < h: the lesson replaces it; MuJoCo keeps it at imp 0.5, dmax 0.95 */
	solref[0] = 0.9 * h;
	core_law_solref_kb(solref, 0.95, h, 0, &g);
	core_law_discrete_gains(&g, 0.5, h, 1, &d);
	ck_assert(h * h * g.K * 0.5 < 1);
	ck_assert_int_eq(d.replaced, 0);
	ck_assert_double_eq(d.K, g.K);
	/* the same through the stability answer, and no 2h clamp under discrete */
	core_growth_stability(solref, soft, 0.5, h, 1, CORE_SCENE_DISCRETE, &rep);
	ck_assert_int_eq(rep.refsafe_replaced, 0);
	ck_assert_double_eq(rep.timeconst_used, 0.9 * h);
	solref[0] = 1.2 * h;
	core_growth_stability(solref, flat, 0.5, h, 1, CORE_SCENE_DISCRETE, &rep);
	ck_assert_int_eq(rep.refsafe_replaced, 1);
	ck_assert(rep.growth < 1);
	/* outside discrete refsafe clamps timeconst to 2h and replaces nothing */
	core_growth_stability(solref, flat, 0.5, h, 1, CORE_SCENE_EULER, &rep);
	ck_assert_double_eq(rep.timeconst_used, 2 * h);
	ck_assert_int_eq(rep.refsafe_replaced, 0);
	/* direct-form rows are never replaced (MuJoCo keeps q = 406) */
	solref[0] = -1.1e8;
	solref[1] = -100;
	core_law_solref_kb(solref, 0.95, h, 0, &g);
	core_law_discrete_gains(&g, 0.95, h, 1, &d);
	ck_assert(h * h * g.K * 0.95 > 100);
	ck_assert_int_eq(d.replaced, 0);
}
END_TEST

static Suite *lesson_suite(void)
{
	Suite *suite = suite_create("lesson");
	TCase *build = tcase_create("build it");
	TCase *experiment = tcase_create("experiment");
	TCase *breaking = tcase_create("break it");

	/* a few dozen 1000-step MuJoCo runs each, under sanitizers on a slow machine */
	tcase_set_timeout(build, 120);
	tcase_set_timeout(experiment, 120);
	tcase_set_timeout(breaking, 120);
	tcase_add_test(build, build_step1_kbip);
	tcase_add_test(build, build_step2_aref);
	tcase_add_test(build, build_step2_drop);
	tcase_add_test(build, build_step3_rest);
	tcase_add_test(build, build_step4_growth);
	tcase_add_test(build, build_step4_cube_aside);
	tcase_add_test(experiment, sweep1_rest);
	tcase_add_test(experiment, sweep2_impedance);
	tcase_add_test(experiment, sweep3_drop);
	tcase_add_test(experiment, softer_sinks_deeper);
	tcase_add_test(breaking, break1_refsafe);
	tcase_add_test(breaking, break2_guard_gap);
	tcase_add_test(breaking, discrete_table);
	tcase_add_test(breaking, discrete_refsafe_rule);
	suite_add_tcase(suite, build);
	suite_add_tcase(suite, experiment);
	suite_add_tcase(suite, breaking);
	return suite;
}

int main(void)
{
	SRunner *runner = srunner_create(lesson_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
