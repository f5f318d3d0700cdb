/*
 * test_hold.c: the hold core (src/core/hold.c, pinch.c, noslip.c, nsnewton.c) against libmujoco
 * 2.2.2, live.
 *
 * Scenes are drawn over issue 21's ranges: radius 1-4 cm, mass 30-500 g, pad
 * solref (standard and direct), solimp and friction varied, condim 3, 4 and 6,
 * priority 1 on the pads or priority 0 on both with solmix, grip force 2-50x the
 * Coulomb minimum m*g/(2*mu), both cones, impratio 1-10, timestep 1-5 ms, Euler or
 * implicit (a quarter: with no velocity-dependent smooth force it steps as Euler). Each is
 * built in MuJoCo by tests/mjhold.c and compared:
 *   - step for step over the answer's duration: the object's z and vz, the pad's q
 *     and vq, and the slip the core answers;
 *   - the constraint rows at one state: MuJoCo's efc_KBIP, efc_R and qacc against
 *     core_pinch_step's state;
 *   - the creep velocity (the closed form) against MuJoCo's settled speed.
 *
 * Tolerance: REL_TOL = 1e-6 relative with an ABS_FLOOR of 1e-10 (m, m/s), the
 * issue's. The core computes the exact minimiser MuJoCo's Newton solver converges to;
 * measured deviations are 1e-12 to 1e-9 (the pyramid at impratio 10 is the worst: its
 * rows are stiffest), so 1e-6 leaves three orders of margin, while a wrong R (a missing
 * 1/3 in the pad's invweight0, the elliptic rows' impratio) moves creep by 10% or more.
 */
#include <check.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hold.h"
#include "core/mjver.h"
#include "core/noslip.h"
#include "core/pinch.h"
#include "holdtab.h"
#include "mjhold.h"
#include "mjref/hold_scene.h"
#include "core/knobs.h"

#define REL_TOL 1e-6
#define ABS_FLOOR 1e-10
#define TAIL_REL_TOL 1e-9
#define TAIL_ABS_FLOOR 1e-13       /* m */
#define TAIL_SPEED_ABS_FLOOR 1e-11 /* m/s: 10x inside the issue's 1e-10 floor */
#define TAIL_CREEP_REL_TOL 1e-7
#define UNREPRODUCIBLE_CONFIRM 1e-2 /* check_unreproducible */
#define SCENES_DEFAULT 60
#define SEED_DEFAULT 20261202u
#define TALL_PAD_HZ 1e4  /* m */
#define SETTLE_RUN 50    /* steps of a steady speed that count as settled */
#define SETTLE_REL 1e-11 /* a speed that changes less than this per step has settled */
#define NOSLIP_SETTLE_REL 1e-9
#define NOSLIP_SETTLE_ABS 1e-13 /* m/s */

static uint64_t rng_state;

static int env_int(const char *name, int fallback)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : fallback;
}

static int close_enough(double got, double want)
{
	return fabs(got - want) <= REL_TOL * fabs(want) + ABS_FLOOR;
}

/* A random scene of hold_scene.h's live rules, under 2.2.2's. */
static void random_scene(struct core_hold *h)
{
	struct hold_scene s;

	hold_scene_draw(&s, &rng_state, HOLD_SCENE_LIVE);
	memset(h, 0, sizeof *h);
	h->size[0] = s.radius;
	h->mass = s.mass;
	holdtab_pair_geom(&h->object, &s.object);
	holdtab_pair_geom(&h->pad, &s.pad);
	memcpy(h->pad_size, s.pad_size, sizeof h->pad_size);
	h->pad_mass = s.pad_mass;
	h->grip_force = s.grip_force;
	h->option.timestep = s.timestep;
	h->option.refsafe = 1;
	h->option.gravity = s.gravity;
	h->option.impratio = s.impratio;
	h->option.cone = s.elliptic ? CORE_CONE_ELLIPTIC : CORE_CONE_PYRAMIDAL;
	h->option.integrator = s.implicit ? CORE_SCENE_IMPLICIT : CORE_SCENE_EULER;
	h->option.mujoco = CORE_MJVER_2_2_2;
	h->duration = s.duration;
	h->slip_limit = 1e-3;
}

static void print_scene(const struct core_hold *h)
{
	char xml[8192];

	if (mjhold_xml(h, xml, sizeof xml) == 0)
		fprintf(stderr, "%s<!-- ctrl = grip_force = %.17g on both motors -->\n", xml,
		    h->grip_force);
}

/* Step by step over the duration; returns the number of mismatches. */
static int crushed_scenes, unsettled_scenes, closed_forms, unreproducible_scenes;

/* An answer that calls its run not reproducible (core/hold.c, hold_reproducible) must be
 * right about MuJoCo: its own height, as many steps in, must move when its pads start
 * nudged as the core's second run was (the left pad alone with noslip, both without), by
 * more than UNREPRODUCIBLE_CONFIRM of the core's threshold. A run that settles moves by
 * about the nudge (relative, 1e-16); the rounding that grows 2.5x a step in the core
 * need not cross the threshold in MuJoCo at the same step (seed 17, noslip scene 17:
 * the core's run crossed it, MuJoCo's moved by 8.7e-8 of its slip), so a hundredth of it,
 * 1e7 times a settling run's move, confirms the flag. Else the flag would hide a number
 * the core could give. Returns 0 when MuJoCo's does move. */
static int check_unreproducible(const struct core_hold *h, const struct core_hold_answer *a)
{
	struct mjhold mh;
	char err[256];
	double z[2], nudge = CORE_HOLD_SHADOW_NUDGE * h->size[0];
	long k;
	int run;

	for (run = 0; run < 2; run++) {
		ck_assert_msg(mjhold_open(&mh, h, err, sizeof err) == 0, "%s", err);
		if (run == 1) {
			mh.data->qpos[7] -= nudge;
			if (h->noslip_iterations == 0)
				mh.data->qpos[8] -= nudge;
		}
		for (k = 1; k <= a->stepped; k++)
			mj_step(mh.model, mh.data);
		z[run] = mh.data->qpos[2];
		mjhold_close(&mh);
	}
	unreproducible_scenes++;
	if (fabs(z[1] - z[0]) >
	    UNREPRODUCIBLE_CONFIRM * (CORE_HOLD_REPRODUCE_REL * fabs(z[0]) + CORE_HOLD_REPRODUCE_ABS))
		return 0;
	fprintf(stderr,
	    "not reproducible, but MuJoCo's height after %ld steps moved by %.3g only\n",
	    a->stepped, fabs(z[1] - z[0]));
	return 1;
}

static int compare_run(const struct core_hold *h, double *worst)
{
	struct mjhold mh;
	struct core_pinch_model m;
	struct core_pinch_state s;
	struct core_noslip_state ns;
	struct core_hold_answer a;
	struct mjhold_sample ms;
	char err[256];
	long n = lround(h->duration / h->option.timestep), k;
	/* noslip can hold the object still (a creep of 1e-17 m/s), and its sweeps leave
	 * rounding noise of up to 1e-13 m/s in MuJoCo's speed (measured over 200 random
	 * scenes): settled once it changes by less than NOSLIP_SETTLE_ABS */
	double settle_abs = h->noslip_iterations > 0 ? NOSLIP_SETTLE_ABS : 0;
	/* and its speed wanders at 1e-11 relative (the sweeps' rounding): settled at 1e-9 */
	double settle_rel = h->noslip_iterations > 0 ? NOSLIP_SETTLE_REL : SETTLE_REL;
	int bad = 0;

	core_hold_solve(h, &a);
	if (!a.crushed && !a.reproducible)
		return check_unreproducible(h, &a);
	ck_assert_msg(mjhold_open(&mh, h, err, sizeof err) == 0, "%s", err);
	core_pinch_prepare(h, &m);
	core_pinch_start(&s);
	core_noslip_start(&ns);
	for (k = 1; k <= n; k++) {
		double e;

		if (core_pinch_crushed(&m, s.q) || s.z < -h->pad_size[2])
			break; /* crushed or off the pads' faces: the core stops there too */
		mj_step(mh.model, mh.data);
		mjhold_sample(&mh, &ms);
		if (h->noslip_iterations > 0) {
			/* the asymmetric step: both pads, and the rotation about y (its floor:
			 * MuJoCo's own rounding noise there is 1e-13 rad/s) */
			core_noslip_step(&m, &ns);
			s.z = ns.z;
			s.vz = ns.vz;
			s.q = ns.qR;
			s.vq = ns.vqR;
			if (!close_enough(ns.qL, mh.data->qpos[7]) ||
			    !close_enough(ns.vqL, mh.data->qvel[6]) ||
			    fabs(ns.wy - mh.data->qvel[4]) >
			        REL_TOL * fabs(mh.data->qvel[4]) + 1e-9) {
				fprintf(stderr,
				    "step %ld: MuJoCo qL %.17g vqL %.17g wy %.17g, core %.17g "
				    "%.17g %.17g\n",
				    k, mh.data->qpos[7], mh.data->qvel[6], mh.data->qvel[4], ns.qL,
				    ns.vqL, ns.wy);
				bad++;
				break;
			}
		} else {
			core_pinch_step(&m, &s, NULL);
		}
		e = fmax(fmax(fabs(ms.z - s.z) / (fabs(ms.z) + ABS_FLOOR / REL_TOL),
		             fabs(ms.vz - s.vz) / (fabs(ms.vz) + ABS_FLOOR / REL_TOL)),
		    fmax(fabs(ms.q - s.q) / (fabs(ms.q) + ABS_FLOOR / REL_TOL),
		        fabs(ms.vq - s.vq) / (fabs(ms.vq) + ABS_FLOOR / REL_TOL)));
		if (e > *worst)
			*worst = e;
		if (!close_enough(s.z, ms.z) || !close_enough(s.vz, ms.vz) ||
		    !close_enough(s.q, ms.q) || !close_enough(s.vq, ms.vq)) {
			fprintf(stderr,
			    "step %ld: MuJoCo z %.17g vz %.17g q %.17g vq %.17g, core %.17g %.17g "
			    "%.17g %.17g\n",
			    k, ms.z, ms.vz, ms.q, ms.vq, s.z, s.vz, s.q, s.vq);
			bad++;
			break;
		}
	}
	if (a.crushed && !a.falls && a.steps < n) {
		/* within the duration, MuJoCo's own pads really reached the centre (the last
		 * compared step is one short of it): the refusal is about the scene */
		ck_assert_msg(!bad && core_pinch_crushed(&m, mh.data->qpos[8] + 0.5 * h->size[0]),
		    "crushed, but MuJoCo's q %.17g", mh.data->qpos[8]);
		crushed_scenes++;
		mjhold_close(&mh);
		return bad;
	}
	if (!a.falls && !close_enough(a.slip, -mh.data->qpos[2])) {
		fprintf(stderr, "slip: MuJoCo %.17g core %.17g\n", -mh.data->qpos[2], a.slip);
		bad++;
	}
	/* run MuJoCo on until its speed settles, then compare the creep; the pads are made
	 * TALL_PAD_HZ tall for this, so a fast creep cannot carry the object off their
	 * faces first (nothing else in the scene depends on the pads' height) */
	if (a.crushed) {
		crushed_scenes++;
		mjhold_close(&mh);
		return bad;
	}
	{
		struct core_hold tall = *h;
		double prev;
		int settled = 0;

		mjhold_close(&mh);
		tall.pad_size[2] = TALL_PAD_HZ;
		ck_assert_msg(mjhold_open(&mh, &tall, err, sizeof err) == 0, "%s", err);
		prev = mh.data->qvel[2];
		/* as far as the core went; when the core settled, on until MuJoCo has too */
		for (k = 1; k <= a.creep_steps ||
		     (a.creep_settled && settled < SETTLE_RUN && k <= a.creep_steps + 20000);
		     k++) {
			mj_step(mh.model, mh.data);
			settled =
			    fabs(mh.data->qvel[2] - prev) <= settle_rel * fabs(prev) + settle_abs
			    ? settled + 1
			    : 0;
			prev = mh.data->qvel[2];
		}
		if (a.creep_settled) {
			/* MuJoCo has settled too, at the core's creep */
			if (settled < SETTLE_RUN ||
			    !close_enough(a.creep_velocity, -mh.data->qvel[2])) {
				fprintf(stderr,
				    "creep: MuJoCo %.17g (steady for %d steps) core %.17g\n",
				    -mh.data->qvel[2], settled, a.creep_velocity);
				bad++;
			}
			closed_forms += a.creep_closed_form;
		} else {
			/* the core answers no creep: MuJoCo must not have settled either */
			unsettled_scenes++;
			if (settled >= SETTLE_RUN) {
				fprintf(stderr,
				    "creep: MuJoCo settled at %.17g, the core did not\n",
				    -mh.data->qvel[2]);
				bad++;
			}
		}
	}
	mjhold_close(&mh);
	return bad;
}

/* The issue's table, 2.2.2 row: the same scene as the issue's measurement. */
START_TEST(test_issue_table)
{
	static const struct {
		enum core_cone cone;
		double impratio, creep_mm_s;
	} rows[] = {
	    {CORE_CONE_PYRAMIDAL, 1, 6.16},
	    {CORE_CONE_PYRAMIDAL, 10, 0.858},
	    {CORE_CONE_ELLIPTIC, 1, 2.12},
	    {CORE_CONE_ELLIPTIC, 10, 0.212},
	};
	struct core_hold h;
	struct core_hold_answer a;
	size_t i;
	double worst = 0;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		mjhold_issue_scene(&h, rows[i].cone, rows[i].impratio);
		ck_assert_ptr_null(core_hold_supported(&h));
		core_hold_solve(&h, &a);
		ck_assert_int_eq(a.creep_closed_form, 1);
		ck_assert_int_eq(a.reproducible, 1);
		/* the issue prints three significant digits */
		ck_assert_msg(fabs(a.creep_velocity * 1e3 - rows[i].creep_mm_s) <
		        0.005 * rows[i].creep_mm_s + 5e-4,
		    "row %zu: creep %.6g mm/s, issue %.6g", i, a.creep_velocity * 1e3,
		    rows[i].creep_mm_s);
		/* Coulomb holds at every row; it holds only where the 1 s descent stays within the
		 * 1 mm slip limit (issue #29; compare_run checks the slip against MuJoCo): at
		 * 0.212 mm/s, not at 6.16 mm/s */
		ck_assert(a.load < a.friction_capacity);
		ck_assert_int_eq(a.holds, a.slip < h.slip_limit);
		if (i == 0 || i == 3)
			ck_assert_int_eq(a.holds, i == 3);
		ck_assert_int_eq(a.falls, 0);
		ck_assert(fabs(a.normal_force - 10) < 1e-12);
		ck_assert(fabs(a.friction_capacity - 20) < 1e-12);
		ck_assert_int_eq(compare_run(&h, &worst), 0);
	}
}
END_TEST

/* The rows at one mid-run state: MuJoCo's efc arrays against the core's. */
START_TEST(test_rows)
{
	struct core_hold h;
	struct mjhold mh;
	struct core_pinch_model m;
	struct core_pinch_state s;
	struct core_pinch_step_state st;
	char err[256];
	int cone, i, k;

	for (cone = 0; cone < 2; cone++) {
		mjhold_issue_scene(&h, cone, 3);
		ck_assert_int_eq(mjhold_open(&mh, &h, err, sizeof err), 0);
		for (k = 0; k < 7; k++)
			mj_step(mh.model, mh.data);
		mj_forward(mh.model, mh.data);
		core_pinch_prepare(&h, &m);
		s.z = mh.data->qpos[2];
		s.vz = mh.data->qvel[2];
		s.q = mh.data->qpos[8];
		s.vq = mh.data->qvel[7];
		s.qacc_warm[0] = mh.data->qacc_warmstart[2];
		s.qacc_warm[1] = mh.data->qacc_warmstart[7];
		ck_assert_msg(close_enough(core_pinch_dist(&m, s.q), mh.data->contact[1].dist),
		    "dist %.17g, MuJoCo %.17g", core_pinch_dist(&m, s.q), mh.data->contact[1].dist);
		core_pinch_step(&m, &s, &st);
		ck_assert_int_eq(mh.data->ncon, 2);
		ck_assert_int_eq(mh.data->nefc, 2 * m.rows_per_pad);
		for (i = 0; i < mh.data->nefc; i++) {
			int j = i % m.rows_per_pad;
			double R = cone == CORE_CONE_PYRAMIDAL || j == 0 ? st.R_normal
			    : j <= 2                                    ? st.R_friction
			                                                : -1;

			ck_assert(close_enough(mh.data->efc_KBIP[4 * i + 2], st.imp));
			ck_assert(close_enough(mh.data->efc_KBIP[4 * i + 1], st.B));
			if (R > 0)
				ck_assert_msg(close_enough(mh.data->efc_R[i], R),
				    "row %d R %.17g core %.17g", i, mh.data->efc_R[i], R);
		}
		ck_assert(close_enough(st.accel_object, mh.data->qacc[2]));
		ck_assert(close_enough(st.accel_pad, mh.data->qacc[7]));
		ck_assert(close_enough(st.accel_pad, mh.data->qacc[6]));
		mjhold_close(&mh);
	}
}
END_TEST

START_TEST(test_random_scenes)
{
	int scenes = env_int("CONTACTD_HOLD_SCENES", SCENES_DEFAULT);
	int i, failed = 0, cones[2] = {0, 0}, condims[7] = {0}, implicit = 0;
	double worst = 0;
	struct core_hold h;

	rng_state = (uint64_t)env_int("CONTACTD_HOLD_SEED", (int)SEED_DEFAULT);
	unreproducible_scenes = 0;
	for (i = 0; i < scenes; i++) {
		random_scene(&h);
		cones[h.option.cone]++;
		implicit += h.option.integrator == CORE_SCENE_IMPLICIT;
		condims[h.pad.condim]++;
		if (compare_run(&h, &worst) != 0) {
			fprintf(stderr, "scene %d differs from MuJoCo:\n", i);
			print_scene(&h);
			failed++;
		}
	}
	fprintf(stderr,
	    "hold: %d scenes (%d pyramidal, %d elliptic, %d crushed, %d closed-form creeps, %d "
	    "unsettled, %d not reproducible), worst deviation %.3g\n",
	    scenes, cones[0], cones[1], crushed_scenes, closed_forms, unsettled_scenes,
	    unreproducible_scenes, worst);
	ck_assert_int_eq(failed, 0);
	/* the flag is for the few chaotic scenes, not a way out of the comparison */
	ck_assert(unreproducible_scenes <= scenes / 10);
	ck_assert(cones[0] > 0 && cones[1] > 0 && implicit > 0 && implicit < scenes);
	ck_assert(crushed_scenes < scenes / 4);
	ck_assert(condims[3] > 0 && condims[4] > 0 && condims[6] > 0);
}
END_TEST

/* ---- reference tables written by real MuJoCo builds (tests/mjref/mjref_hold.c) ---- */

#define TABLE_SAMPLES 17
#define PAD_REL_TOL 1e-4
#define TABLE_LINE HOLDTAB_LINE

struct table_scene {
	struct core_hold h;
	long stride, samples;
	double z[TABLE_SAMPLES], q[TABLE_SAMPLES];
	int settled;
	double creep;
	int replaced; /* the record's "replaced" line (discrete, newer tables); -1: none */
};

/* The next scene of a table; 1 at the end, -1 on a malformed record. */
static int read_scene(FILE *f, int mujoco, struct table_scene *t)
{
	char line[TABLE_LINE], cone[16];
	struct core_hold *h = &t->h;
	long steps, stride;
	int index, used = 0;

	if (!fgets(line, sizeof line, f))
		return 1;
	memset(t, 0, sizeof *t);
	if (sscanf(line, "scene %d %lf %lf %lf %lf %lf %lf %lf %lf %lf %15s %lf %ld%n", &index,
	        &h->size[0], &h->mass, &h->pad_size[0], &h->pad_size[1], &h->pad_size[2],
	        &h->pad_mass, &h->grip_force, &h->option.timestep, &h->option.impratio, cone,
	        &h->option.gravity, &steps, &used) != 13)
		return -1;
	/* the noslip scenes end their line with "noslip N" */
	if (sscanf(line + used, " noslip %d", &h->noslip_iterations) != 1)
		h->noslip_iterations = 0;
	/* the discrete scenes of 3.13.0 on (mjref_js_hold_gen.mjs -D) end it with this */
	if (strstr(line + used, " integrator discrete"))
		h->option.integrator = CORE_SCENE_DISCRETE;
	h->option.cone = strcmp(cone, "elliptic") == 0 ? CORE_CONE_ELLIPTIC : CORE_CONE_PYRAMIDAL;
	h->option.refsafe = 1;
	h->option.mujoco = mujoco;
	h->duration = steps * h->option.timestep;
	h->slip_limit = 1e-3;
	if (holdtab_read_geom(f, "object", &h->object) || holdtab_read_geom(f, "pad", &h->pad))
		return -1;
	t->samples = holdtab_read_series(f, "traj", &t->stride, t->z, TABLE_SAMPLES);
	if (t->samples < 1 || holdtab_read_series(f, "pads", &stride, t->q, TABLE_SAMPLES) != t->samples ||
	    !fgets(line, sizeof line, f) ||
	    sscanf(line, "creep %d %lf", &t->settled, &t->creep) != 2 ||
	    !fgets(line, sizeof line, f))
		return -1;
	/* whether refsafe replaced a contact row on some step of the duration, as the
	 * build's efc_KBIP says (mjref_js_hold_gen.mjs); the committed tables predate it */
	t->replaced = -1;
	if (sscanf(line, "replaced %d", &t->replaced) == 1 && !fgets(line, sizeof line, f))
		return -1;
	if (strncmp(line, "end", 3) != 0)
		return -1;
	return 0;
}

/* 1 when the asymmetric scene's object centre is inside a pad's slab, where the core
 * answers crushed (core/hold.c, sim_centre_in_pad) */
static int centre_in_pad(const struct core_pinch_model *m, const struct core_noslip_state *ns)
{
	double x0 = m->rest_dist, hx = m->half_x;

	return !(fabs(ns->x - (-x0 + ns->qL)) > hx) || !(fabs(ns->x - (x0 - ns->qR)) > hx);
}

/* What one table held and how close the core came (check_table_file). */
struct table_stats {
	int scenes, noslip, discrete, asym, refused, unrepro, creeps;
	int flags, replaced;                  /* scenes with a "replaced" line; of them, replaced */
	double worst, worst_creep;            /* every scene's worst relative deviation */
	double worst_discrete, worst_creep_d; /* the discrete scenes' */
};

/* The core under the table's release against every scene of the table at path (its
 * `mujoco` line names the release; want, when not NULL, must be it); with live, the
 * 2.2.2 table is also re-stepped in libmujoco. Every scene must agree; a scene that
 * starts with one pad's contact (3.8.0-3.13.0) is counted into st->asym, and one whose
 * object centre the one-pad start pushes into a pad must be answered crushed
 * (refused), counted into st->refused. */
static void check_table_file(const char *path, const char *want, int live, struct table_stats *st)
{
	char line[TABLE_LINE], version[32];
	FILE *f;
	struct table_scene t;
	int mujoco, rc, bad = 0;

	memset(st, 0, sizeof *st);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert(fgets(line, sizeof line, f) != NULL);
	ck_assert(fgets(line, sizeof line, f) && sscanf(line, "mujoco %31s", version) == 1);
	if (want)
		ck_assert_str_eq(version, want);
	mujoco = core_mjver_find(version);
	ck_assert_int_ge(mujoco, 0);
	ck_assert(fgets(line, sizeof line, f) != NULL);
	while ((rc = read_scene(f, mujoco, &t)) == 0) {
		struct core_pinch_model m;
		struct core_pinch_state s;
		struct core_noslip_state ns;
		struct core_hold_answer a;
		struct mjhold mh;
		char err[256];
		long k, n = lround(t.h.duration / t.h.option.timestep), i = 0;
		int five, inside = 0, discrete = t.h.option.integrator == CORE_SCENE_DISCRETE;
		double dev;

		st->scenes++;
		st->noslip += t.h.noslip_iterations > 0;
		st->discrete += discrete;
		ck_assert_ptr_null(core_hold_supported(&t.h));
		core_pinch_prepare(&t.h, &m);
		core_pinch_start(&s);
		core_noslip_start(&ns);
		st->asym += core_pinch_start_asymmetric(&m);
		five = t.h.noslip_iterations > 0 || core_pinch_start_asymmetric(&m);
		core_hold_solve(&t.h, &a);
		if (!a.crushed && !a.reproducible) {
			/* the answer gives no slip or creep (pads that bounce chaotically: the
			 * wide tables' dampratio down to 0.2): nothing claimed to compare */
			st->unrepro++;
			continue;
		}
		if (live)
			ck_assert_int_eq(mjhold_open(&mh, &t.h, err, sizeof err), 0);
		for (k = 1; k <= n && i < t.samples; k++) {
			if (five) {
				core_noslip_step(&m, &ns);
				s.z = ns.z;
				s.q = ns.qR;
				if ((inside = centre_in_pad(&m, &ns)) != 0)
					break;
			} else {
				core_pinch_step(&m, &s, NULL);
			}
			if (live)
				mj_step(mh.model, mh.data);
			if (k % t.stride != 0 && k != n)
				continue;
			dev = fabs(s.z - t.z[i]) / (fabs(t.z[i]) + ABS_FLOOR / REL_TOL);
			st->worst = fmax(st->worst, dev);
			if (discrete)
				st->worst_discrete = fmax(st->worst_discrete, dev);
			/* slip (z) is the answer, held to the issue's 1e-6; the pads' q is internal
			 * and a pad that bounces off the object amplifies ulps as a bouncing drop
			 * does (docs/parity.md), so it is held to PAD_REL_TOL */
			if (!close_enough(s.z, t.z[i]) ||
			    fabs(s.q - t.q[i]) > PAD_REL_TOL * fabs(t.q[i]) + ABS_FLOOR) {
				fprintf(stderr,
				    "%s scene %d step %ld: table z %.17g q %.17g, core %.17g "
				    "%.17g\n",
				    version, st->scenes - 1, k, t.z[i], t.q[i], s.z, s.q);
				bad++;
				break;
			}
			if (live)
				ck_assert_msg(
				    mh.data->qpos[2] == t.z[i] && mh.data->qpos[8] == t.q[i],
				    "libmujoco does not rewrite the 2.2.2 table: step %ld", k);
			i++;
		}
		if (live)
			mjhold_close(&mh);
		if (inside) {
			/* past there the core has no model of MuJoCo's contact: refused */
			ck_assert_msg(a.crushed, "%s scene %d: centre in a pad, not refused",
			    version, st->scenes - 1);
			st->refused++;
			continue;
		}
		ck_assert(!a.crushed);
		if (t.replaced >= 0) {
			/* the answer's refsafe_replaced is the build's, exactly */
			st->flags++;
			st->replaced += t.replaced;
			if (a.refsafe_replaced != t.replaced) {
				fprintf(stderr, "%s scene %d: refsafe_replaced table %d core %d\n",
				    version, st->scenes - 1, t.replaced, a.refsafe_replaced);
				bad++;
			}
		} else if (!discrete) {
			ck_assert_int_eq(a.refsafe_replaced, 0);
		}
		if (t.settled && a.creep_settled) {
			st->creeps++;
			dev = fabs(a.creep_velocity - t.creep) /
			    (fabs(t.creep) + ABS_FLOOR / REL_TOL);
			st->worst_creep = fmax(st->worst_creep, dev);
			if (discrete)
				st->worst_creep_d = fmax(st->worst_creep_d, dev);
			if (!close_enough(a.creep_velocity, t.creep)) {
				fprintf(stderr, "%s scene %d: creep table %.17g core %.17g\n",
				    version, st->scenes - 1, t.creep, a.creep_velocity);
				bad++;
			}
		}
	}
	fclose(f);
	fprintf(stderr,
	    "hold-%s: %d scenes (%d with noslip, %d discrete, %d one-pad starts, %d refused, %d "
	    "not reproducible), %d creeps compared, worst z deviation %.3g, worst creep "
	    "deviation %.3g (discrete scenes: %.3g, %.3g), refsafe_replaced compared on %d "
	    "(%d true)\n",
	    version, st->scenes, st->noslip, st->discrete, st->asym, st->refused, st->unrepro,
	    st->creeps, st->worst, st->worst_creep, st->worst_discrete, st->worst_creep_d,
	    st->flags, st->replaced);
	ck_assert_int_eq(rc, 1);
	ck_assert_int_eq(bad, 0);
}

/* check_table_file on tests/fixtures/hold-RELEASE.txt, with the committed tables' counts:
 * at least 50 scenes, 20 with noslip, and creeps compared on half of them. */
static void check_table_counts(const char *release, int live, struct table_stats *out)
{
	char path[512];
	struct table_stats st;

	snprintf(path, sizeof path, "%s/hold-%s.txt", FIXTURE_DIR, release);
	check_table_file(path, release, live, &st);
	ck_assert_int_ge(st.scenes, 50);
	ck_assert_int_ge(st.noslip, 20);
	ck_assert_int_ge(st.creeps, st.scenes / 2);
	ck_assert_int_le(st.refused, st.scenes / 50);
	ck_assert_int_le(st.unrepro, st.scenes / 20);
	if (out)
		*out = st;
}

static void check_table(const char *release, int live)
{
	check_table_counts(release, live, NULL);
}

START_TEST(test_table_2_2_2)
{
	check_table("2.2.2", 1);
}
END_TEST

/* mujoco-js 0.0.7's rerun of the 2.2.2 table's scenes (tests/mjref/mjref_js_hold.mjs) */
START_TEST(test_table_3_3_8)
{
	check_table("3.3.8", 0);
}
END_TEST

START_TEST(test_table_3_5_0)
{
	check_table("3.5.0", 0);
}
END_TEST

START_TEST(test_table_3_9_0)
{
	check_table("3.9.0", 0);
}
END_TEST

/* The 3.12.0-3.14.0 tables are mjref_js_hold_gen.mjs's wide scenes (bouncing pads,
 * small grips, pad margins), in the official WebAssembly builds. 3.12.0 and 3.13.0
 * start a tenth of them with the left pad's contact alone (the float32 broadphase
 * tie), 3.14.0 none: the tables hold the one-pad starts the core must follow. */
START_TEST(test_table_3_12_0)
{
	struct table_stats st;

	check_table_counts("3.12.0", 0, &st);
	ck_assert_int_ge(st.asym, 10);
	ck_assert_int_eq(st.discrete, 0);
}
END_TEST

/* 3.13.0 and 3.14.0 add mjref_js_hold_gen.mjs's discrete scenes after the same Euler
 * ones (-D 100 -S 60: 140 and 141 kept, about half with noslip; the 60 with timeconst
 * 0.1-2 timesteps, where refsafe replaces rows: 43 and 44 scenes replace a row). */
START_TEST(test_table_3_13_0)
{
	struct table_stats st;

	check_table_counts("3.13.0", 0, &st);
	ck_assert_int_ge(st.asym, 10);
	ck_assert_int_ge(st.discrete, 120);
}
END_TEST

START_TEST(test_table_3_14_0)
{
	struct table_stats st;

	check_table_counts("3.14.0", 0, &st);
	ck_assert_int_eq(st.asym, 0);
	ck_assert_int_ge(st.discrete, 120);
}
END_TEST

/* Tables given on the command line (tests/test_wasm.sh: the WebAssembly builds' hold
 * scenes, stepped live): each must agree scene for scene, as the committed ones. */
static char **given_tables;
static int given_count;

START_TEST(test_given_tables)
{
	int i, scenes = 0, discrete = 0, creeps = 0;

	for (i = 0; i < given_count; i++) {
		struct table_stats st;

		check_table_file(given_tables[i], NULL, 0, &st);
		scenes += st.scenes - st.unrepro - st.refused;
		discrete += st.discrete;
		creeps += st.creeps;
	}
	/* something was compared: a run whose scenes were all dropped proves nothing */
	ck_assert_int_ge(scenes, given_count);
	ck_assert_int_ge(discrete, 1);
	ck_assert_int_ge(creeps, 1);
}
END_TEST

/* noslip in the issue's scene (pyramidal, impratio 1, 2.2.2): step for step and the
 * creep against libmujoco; the figures are libmujoco's (docs/hold.md), not the issue's
 * (2.9 mm/s at 2 sweeps, 37 um/s at 10, 3.3 um/s at 20), which match 1, 5 and 10+. */
START_TEST(test_noslip_issue)
{
	static const struct {
		int iterations;
		double creep_mm_s;
	} rows[] = {{1, 2.906}, {2, 1.384}, {5, 0.0373}, {10, 0.003282}, {20, 0.003282}};
	struct core_hold h;
	struct core_hold_answer a;
	size_t i;
	double worst = 0;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		mjhold_issue_scene(&h, CORE_CONE_PYRAMIDAL, 1);
		h.noslip_iterations = rows[i].iterations;
		ck_assert_ptr_null(core_hold_supported(&h));
		core_hold_solve(&h, &a);
		ck_assert_int_eq(a.creep_settled, 1);
		ck_assert_int_eq(a.reproducible, 1);
		ck_assert_msg(
		    fabs(a.creep_velocity * 1e3 - rows[i].creep_mm_s) < 0.001 * rows[i].creep_mm_s,
		    "noslip %d: creep %.6g mm/s, measured %.6g", rows[i].iterations,
		    a.creep_velocity * 1e3, rows[i].creep_mm_s);
		ck_assert_int_eq(compare_run(&h, &worst), 0);
	}
}
END_TEST

/* noslip_iterations 1-10 on random scenes over the issue's ranges. */
START_TEST(test_noslip_scenes)
{
	int scenes = env_int("CONTACTD_HOLD_NOSLIP_SCENES", 24);
	int i, failed = 0, cones[2] = {0, 0}, condims[7] = {0};
	double worst = 0;
	struct core_hold h;

	rng_state = (uint64_t)env_int("CONTACTD_HOLD_SEED", (int)SEED_DEFAULT) + 1;
	unreproducible_scenes = 0;
	for (i = 0; i < scenes; i++) {
		random_scene(&h);
		h.noslip_iterations = hold_scene_noslip(&rng_state);
		cones[h.option.cone]++;
		condims[h.pad.condim]++;
		if (compare_run(&h, &worst) != 0) {
			fprintf(stderr, "noslip scene %d (%d sweeps) differs from MuJoCo:\n", i,
			    h.noslip_iterations);
			print_scene(&h);
			failed++;
		}
	}
	fprintf(stderr,
	    "hold noslip: %d scenes (%d pyramidal, %d elliptic, %d not reproducible), worst "
	    "deviation %.3g\n",
	    scenes, cones[0], cones[1], unreproducible_scenes, worst);
	ck_assert_int_eq(failed, 0);
	ck_assert(cones[0] > 0 && cones[1] > 0);
	ck_assert(unreproducible_scenes <= scenes / 10);
}
END_TEST

/* The rest of a run summed in closed form (the state repeats, or the transient's tail
 * is one geometric mode) against the core's own step functions run to the end: the
 * slip to TAIL_REL_TOL, 1000x inside the 1e-6 kept to MuJoCo (the tail's rules aim at
 * 1e-10, see core/knobs.h), the steps of slipping and falling to the step, and the creep
 * against the speed the stepped scene settles to (to its rounding), to TAIL_CREEP_REL_TOL
 * or TAIL_SPEED_ABS_FLOOR: a creep read past the duration by the speed-only rule (20
 * steps changing by less than CORE_HOLD_SETTLE_REL of the speed + CORE_HOLD_SETTLE_ABS,
 * noslip's rounding noise) is up to a few 1e-9 off, or a few 1e-12 m/s for a creep of
 * um/s, when the transient decays slowly; both stay 10x inside these tolerances, and
 * these 10x inside what is kept to MuJoCo (1e-6, 1e-10 m/s). Over live
 * scenes with noslip 0-10; a third at least must have been summed, so that the rule is tried. */
START_TEST(test_tail)
{
	int scenes = env_int("CONTACTD_HOLD_TAIL_SCENES", 80), i, summed = 0, bad = 0;
	double worst = 0;
	struct core_hold h;

	rng_state = (uint64_t)env_int("CONTACTD_HOLD_SEED", (int)SEED_DEFAULT) + 2;
	for (i = 0; i < scenes; i++) {
		struct core_pinch_model m;
		struct core_hold_answer a;
		struct core_pinch_state s;
		struct core_noslip_state ns;
		double z = 0, vz = 0, q = 0, ht, tts = -1, fall = -1, prev = 0, dev;
		long n, k, settle = 0;

		random_scene(&h);
		h.noslip_iterations = i % 2 ? hold_scene_noslip(&rng_state) : 0;
		core_hold_solve(&h, &a);
		if (a.crushed)
			continue;
		summed += a.stepped < a.steps;
		core_pinch_prepare(&h, &m);
		core_pinch_start(&s);
		core_noslip_start(&ns);
		ht = h.option.timestep;
		n = lround(h.duration / ht);
		for (k = 1; k <= n + 200000 && settle < 20; k++) {
			if (h.noslip_iterations > 0) {
				core_noslip_step(&m, &ns);
				z = ns.z;
				vz = ns.vz;
				q = 0.5 * (ns.qL + ns.qR);
			} else {
				core_pinch_step(&m, &s, NULL);
				z = s.z;
				vz = s.vz;
				q = s.q;
			}
			if (core_pinch_crushed(&m, q))
				break;
			if (k <= n && tts < 0 && -z >= h.slip_limit)
				tts = (double)k * ht;
			if (k <= n && fall < 0 && fabs(z) > m.fall_z)
				fall = (double)k * ht;
			if (k == (fall >= 0 ? lround(fall / ht) : n)) {
				dev = fabs(a.slip + z) / (fabs(z) + 1e-3);
				worst = fmax(worst, dev);
				if (!(fabs(a.slip + z) <=
				        TAIL_REL_TOL * fabs(z) + TAIL_ABS_FLOOR)) {
					fprintf(stderr,
					    "tail scene %d: slip %.17g, stepped %.17g\n", i, a.slip,
					    -z);
					bad++;
				}
			}
			/* settled: the speed repeats to its rounding (the noslip step's is a few
			 * 1e-16 m/s), far tighter than the answer's own rules */
			if (k > n)
				settle =
				    fabs(vz - prev) <= 1e-13 * fabs(vz) + 2e-15 ? settle + 1 : 0;
			prev = vz;
		}
		if (fabs(tts - (a.time_to_slip_extrapolated ? -1 : a.time_to_slip)) > 0.5 * ht ||
		    (fall >= 0) != a.falls || (a.falls && fabs(fall - a.fall_time) > 0.5 * ht)) {
			fprintf(stderr,
			    "tail scene %d: time to slip %g (stepped %g), falls %d at %g "
			    "(stepped %g)\n",
			    i, a.time_to_slip, tts, a.falls, a.fall_time, fall);
			bad++;
		}
		if (a.creep_settled && settle >= 20 && !a.falls &&
		    !(fabs(a.creep_velocity + vz) <=
		        TAIL_CREEP_REL_TOL * fabs(vz) + TAIL_SPEED_ABS_FLOOR)) {
			fprintf(stderr,
			    "tail scene %d (noslip %d): creep %.17g (stepped %ld of %ld, read "
			    "after "
			    "%ld), stepped %.17g (after %ld)\n",
			    i, h.noslip_iterations, a.creep_velocity, a.stepped, a.steps,
			    a.creep_steps, -vz, k - 1);
			bad++;
		}
	}
	fprintf(stderr, "hold tail: %d scenes, %d summed, worst slip deviation %.3g\n", scenes,
	    summed, worst);
	ck_assert_int_eq(bad, 0);
	ck_assert_int_ge(summed, scenes / 3);
}
END_TEST

/* What the core does not reproduce is refused, not answered. */
START_TEST(test_refusals)
{
	struct core_hold h;

	mjhold_issue_scene(&h, CORE_CONE_PYRAMIDAL, 1);
	h.noslip_iterations = 10;
	ck_assert_ptr_null(core_hold_supported(&h));
	h.noslip_iterations = 0;
	h.option.integrator = CORE_SCENE_RK4;
	ck_assert_ptr_nonnull(core_hold_supported(&h));
	/* discrete from 3.13.0 on only */
	h.option.integrator = CORE_SCENE_DISCRETE;
	h.option.mujoco = core_mjver_find("3.12.0");
	ck_assert_ptr_nonnull(core_hold_supported(&h));
	h.option.mujoco = core_mjver_find("3.13.0");
	ck_assert_ptr_null(core_hold_supported(&h));
}
END_TEST

static Suite *hold_suite(void)
{
	Suite *suite = suite_create("hold");
	TCase *tc = tcase_create("mujoco");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_issue_table);
	tcase_add_test(tc, test_rows);
	tcase_add_test(tc, test_random_scenes);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_noslip_issue);
	tcase_add_test(tc, test_noslip_scenes);
	tcase_add_test(tc, test_tail);
	tcase_add_test(tc, test_table_2_2_2);
	tcase_add_test(tc, test_table_3_3_8);
	tcase_add_test(tc, test_table_3_5_0);
	tcase_add_test(tc, test_table_3_9_0);
	tcase_add_test(tc, test_table_3_12_0);
	tcase_add_test(tc, test_table_3_13_0);
	tcase_add_test(tc, test_table_3_14_0);
	suite_add_tcase(suite, tc);
	return suite;
}

/* With arguments: check the hold tables named (mjref_js_hold_gen.mjs's format) only. */
static Suite *given_suite(void)
{
	Suite *suite = suite_create("hold tables");
	TCase *tc = tcase_create("given");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_given_tables);
	suite_add_tcase(suite, tc);
	return suite;
}

int main(int argc, char **argv)
{
	SRunner *runner;
	int failed;

	gsl_set_error_handler_off();
	given_tables = argv + 1;
	given_count = argc - 1;
	runner = srunner_create(argc > 1 ? given_suite() : hold_suite());
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
