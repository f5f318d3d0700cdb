/*
 * test_parity.c: the contact core against real MuJoCo 2.2.2 on randomised scenes.
 *
 * Every scene is drawn from a fixed seed (printed; CONTACTD_PARITY_SEED overrides
 * it, CONTACTD_PARITY_SCENES the count), built both ways from the same struct core_scene
 * (core_scene_prepare; mjscene_open) and compared three ways:
 *   1. one step at a time: from MuJoCo's own state (qpos[2], qvel[2]) before every
 *      mj_step, one core_scene_step must land on MuJoCo's next state. Nothing can
 *      amplify here, so this holds in every regime, energy-gaining ones included;
 *   2. the free runs from the same start, step by step, and their drop metrics
 *      (core_sim_drop vs mjscene_metrics, shared/api-contract.md), as far as the
 *      scene's regime allows (below);
 *   3. at one penetrating state: contact count, nefc and, for every row, efc_KBIP's
 *      K, B, imp, efc_R and efc_aref, and qacc, against core_scene_accel's state.
 * Besides, MuJoCo must warn about a mixed-sign solref exactly where the core falls
 * back to the default one.
 *
 * Tolerance. The core replays MuJoCo's arithmetic, so a step agrees bit for bit or
 * within a few ulps: MuJoCo's Newton solve and Cholesky sum in another order than
 * the closed form (spec §9, §11). That is ~1e-15 relative; any modelling error (a
 * wrong clamp, mix, R or row count) moves an answer by far more than 1e-6.
 * PARITY_REL_TOL = 1e-9 sits between the two with six orders of magnitude on either
 * side. Heights are relative to max(|z|, drop height + half height), speeds to
 * max(|v|, impact speed), so values passing through zero are not over-weighted.
 *
 * Regimes. Each scene is classified BEFORE comparing, from the physics and MuJoCo's
 * run alone (enum regime): settling scenes must agree over the whole run. Where an
 * ulp can grow -- energy-gaining contacts (linearized growth > 1, growth.h, or
 * MuJoCo's rebound above the drop height), repeated impacts (~100x per impact, spec
 * §9 limits), a body that leaves the axis, MuJoCo's bad-number reset, or the
 * implicit integrator on an ill-conditioned pyramid -- the free runs must agree up
 * to a horizon derived for that regime (the first impact, or as many contact steps
 * as the growth leaves headroom for), the energy_gain flag must agree wherever a
 * run decided it within the horizon, and the test reports how many runs parted
 * afterwards and after how many impacts.
 */
#include <check.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/growth.h"
#include "core/law.h"
#include "core/pair.h"
#include "core/scene.h"
#include "core/sim.h"
#include "mjscene.h"
#include "testlib.h"
#include "core/knobs.h"

#define PARITY_DEFAULT_SEED UINT64_C(20261130)
#define PARITY_DEFAULT_SCENES 1000
#define PARITY_MIN_SCENES 500
/* 1.5 s covers the fall from 0.5 m (0.32 s), the impacts and a 0.5 s jitter window;
 * at the smallest timestep (0.5 ms) that is 3000 steps, which keeps the whole test
 * within a couple of minutes on 2 cores under ASan. */
#define PARITY_DURATION 1.5
#define PARITY_REL_TOL 1e-9
/* impedance samples across the solimp width when linearizing the contact */
#define PARITY_GROWTH_SAMPLES 64

/* ---- a small deterministic generator (splitmix64): same scenes on every platform ---- */

struct rng {
	uint64_t state;
};

static uint64_t rng_next(struct rng *r)
{
	return tl_splitmix64(&r->state);
}

/* uniform in [0, 1) with 53 random bits */
static double rng_unit(struct rng *r)
{
	return tl_uniform(&r->state);
}

static double rng_uniform(struct rng *r, double lo, double hi)
{
	return lo + (hi - lo) * rng_unit(r);
}

/* log-uniform in [lo, hi]: sizes, masses and timesteps span decades */
static double rng_log(struct rng *r, double lo, double hi)
{
	return exp(rng_uniform(r, log(lo), log(hi)));
}

static int rng_int(struct rng *r, int n)
{
	return (int)(rng_next(r) % (uint64_t)n);
}

static int rng_chance(struct rng *r, double p)
{
	return rng_unit(r) < p;
}

/* ---- which parts of the parameter space the scenes cover ---- */

enum feature {
	F_SPHERE,
	F_CUBE,
	F_BOX3,
	F_SMALL_SIZE, /* < 1 cm */
	F_LARGE_SIZE, /* > 0.2 m */
	F_LIGHT,      /* < 0.1 kg */
	F_HEAVY,      /* > 10 kg */
	F_AWKWARD_MASS,
	F_STANDARD_SOLREF,
	F_DIRECT_SOLREF,
	F_MIXED_SOLREF, /* mixed sign: MuJoCo falls back to the default */
	F_FLAT_SOLIMP,  /* d0 == dwidth */
	F_ZERO_WIDTH,
	F_TINY_WIDTH,
	F_POWER1,
	F_HIGH_POWER, /* power > 4 */
	F_CLAMPED_SOLIMP,
	F_CONDIM1,
	F_CONDIM3,
	F_CONDIM4,
	F_CONDIM6,
	F_MIXED_FLOOR, /* floor params differ from the body's */
	F_SOLMIX,      /* solmix != 1 on a mixed floor */
	F_PRIORITY,    /* priorities differ */
	F_MARGIN,
	F_GAP,
	F_REFSAFE_OFF,
	F_IMPRATIO,
	F_SMALL_STEP, /* < 1 ms */
	F_LARGE_STEP, /* > 5 ms */
	F_TOUCHING,   /* height 0 */
	F_EULER,
	F_IMPLICIT,
	F_RK4,
	F_GRAVITY, /* not 9.81 */
	F_ELLIPTIC,
	F_ELLIPTIC_BOX,
	F_COUNT
};

static const char *const feature_name[F_COUNT] = {"sphere", "cube", "box hx,hy,hz", "size<1cm",
    "size>0.2m", "mass<0.1kg", "mass>10kg", "awkward mass", "standard solref", "direct solref",
    "mixed-sign solref", "d0==dwidth", "width 0", "tiny width", "power 1", "power>4",
    "clamped solimp", "condim 1", "condim 3", "condim 4", "condim 6", "mixed floor", "solmix",
    "priority", "margin", "gap", "refsafe off", "impratio", "h<1ms", "h>5ms", "height 0", "Euler",
    "implicit", "RK4", "gravity", "elliptic", "elliptic box"};

struct coverage {
	int count[F_COUNT];
};

static void cover(struct coverage *c, enum feature f, int cond)
{
	if (c && cond)
		c->count[f]++;
}

static void random_solref(struct rng *r, double solref[2], struct coverage *c)
{
	double pick = rng_unit(r);

	if (pick < 0.72) {
		/* standard form: timeconst, dampratio */
		solref[0] = rng_log(r, 0.001, 0.2);
		solref[1] = rng_log(r, 0.2, 3);
		cover(c, F_STANDARD_SOLREF, 1);
	} else if (pick < 0.95) {
		/* direct form: -stiffness, -damping (damping may be 0) */
		solref[0] = -rng_log(r, 10, 1e6);
		solref[1] = rng_chance(r, 0.1) ? 0 : -rng_log(r, 0.1, 1e3);
		cover(c, F_DIRECT_SOLREF, 1);
	} else {
		/* mixed sign, e.g. a zero dampratio: MuJoCo warns and uses (0.02, 1) */
		solref[0] = rng_log(r, 0.001, 0.2);
		solref[1] = rng_chance(r, 0.5) ? 0 : -rng_log(r, 0.1, 10);
		cover(c, F_MIXED_SOLREF, 1);
	}
}

static void random_solimp(struct rng *r, double solimp[5], struct coverage *c)
{
	double pick;

	solimp[0] = rng_uniform(r, 0.3, 0.99);
	solimp[1] = rng_chance(r, 0.15) ? solimp[0] : rng_uniform(r, 0.5, 0.9999);
	cover(c, F_FLAT_SOLIMP, solimp[0] == solimp[1]);
	pick = rng_unit(r);
	if (pick < 0.08) {
		solimp[2] = 0;
		cover(c, F_ZERO_WIDTH, 1);
	} else if (pick < 0.16) {
		solimp[2] = rng_log(r, 1e-12, 1e-7); /* below and above mjMINVAL's reach */
		cover(c, F_TINY_WIDTH, 1);
	} else {
		solimp[2] = rng_log(r, 1e-4, 0.05);
	}
	solimp[3] = rng_uniform(r, 0.05, 0.95);
	solimp[4] = rng_chance(r, 0.5) ? 1 + rng_int(r, 6) : rng_uniform(r, 1, 6);
	cover(c, F_POWER1, solimp[4] == 1);
	cover(c, F_HIGH_POWER, solimp[4] > 4);
	if (rng_chance(r, 0.05)) {
		/* outside MuJoCo's [mjMINIMP, mjMAXIMP] and power >= 1: exercises the clamps */
		solimp[rng_int(r, 2)] = rng_chance(r, 0.5) ? 0 : 1;
		solimp[3] = rng_chance(r, 0.5) ? 0 : solimp[3];
		solimp[4] = rng_chance(r, 0.5) ? 0.5 : solimp[4];
		cover(c, F_CLAMPED_SOLIMP, 1);
	}
}

static void random_geom(struct rng *r, struct core_pair_geom *g, struct coverage *c)
{
	static const int condims[4] = {1, 3, 4, 6};

	core_pair_geom_default(g);
	random_solref(r, g->solref, c);
	random_solimp(r, g->solimp, c);
	g->condim = condims[rng_int(r, 4)];
	g->friction[0] = rng_chance(r, 0.05) ? 0 : rng_log(r, 0.05, 2);
	g->friction[1] = rng_log(r, 1e-4, 0.05);
	g->friction[2] = rng_log(r, 1e-5, 1e-2);
	if (rng_chance(r, 0.2)) {
		g->margin = rng_log(r, 1e-4, 0.01);
		if (rng_chance(r, 0.5))
			g->gap = rng_uniform(r, 0, g->margin);
	}
}

static const double awkward_masses[] = {0.33, 2.5, 0.1, 0.7, 3.0, 1.0 / 3.0, 7.77, 0.01, 100};

/* Scene `index` of the run with `seed`: a function of both only. */
static void random_scene(uint64_t seed, int index, struct core_scene *s, struct coverage *c)
{
	struct rng r = {seed ^ (UINT64_C(0xD1B54A32D192ED03) * (uint64_t)(index + 1))};
	static const enum core_scene_integrator integrators[4] = {
	    CORE_SCENE_EULER, CORE_SCENE_EULER, CORE_SCENE_IMPLICIT, CORE_SCENE_RK4};
	double pick = rng_unit(&r);
	int i;

	memset(s, 0, sizeof *s);
	if (pick < 0.4) {
		s->shape = CORE_SCENE_SPHERE;
		s->size[0] = s->size[1] = s->size[2] = rng_log(&r, 0.005, 0.5);
	} else if (pick < 0.7) {
		s->shape = CORE_SCENE_BOX;
		s->size[0] = s->size[1] = s->size[2] = rng_log(&r, 0.005, 0.5);
	} else {
		s->shape = CORE_SCENE_BOX;
		for (i = 0; i < 3; i++)
			s->size[i] = rng_log(&r, 0.005, 0.5);
	}
	cover(c, F_SPHERE, s->shape == CORE_SCENE_SPHERE);
	cover(c, F_CUBE, s->shape == CORE_SCENE_BOX && pick < 0.7);
	cover(c, F_BOX3, pick >= 0.7);
	cover(c, F_SMALL_SIZE, s->size[0] < 0.01 || s->size[2] < 0.01);
	cover(c, F_LARGE_SIZE, s->size[0] > 0.2 || s->size[2] > 0.2);

	if (rng_chance(&r, 0.2)) {
		s->mass =
		    awkward_masses[rng_int(&r, sizeof awkward_masses / sizeof *awkward_masses)];
		cover(c, F_AWKWARD_MASS, 1);
	} else {
		s->mass = rng_log(&r, 0.01, 100);
	}
	cover(c, F_LIGHT, s->mass < 0.1);
	cover(c, F_HEAVY, s->mass > 10);

	random_geom(&r, &s->geom, c);
	if (rng_chance(&r, 0.5)) {
		/* the lesson's setting: the same parameters on both geoms */
		s->floor = s->geom;
	} else {
		random_geom(&r, &s->floor, c);
		cover(c, F_MIXED_FLOOR, 1);
		if (rng_chance(&r, 0.5)) {
			s->floor.solmix = rng_chance(&r, 0.1) ? 0 : rng_log(&r, 0.1, 10);
			s->geom.solmix = rng_chance(&r, 0.1) ? 0 : rng_log(&r, 0.1, 10);
		}
		if (rng_chance(&r, 0.3)) {
			s->floor.priority = rng_int(&r, 3) - 1;
			s->geom.priority = rng_int(&r, 3) - 1;
		}
		cover(c, F_SOLMIX, s->floor.solmix != 1 || s->geom.solmix != 1);
		cover(c, F_PRIORITY, s->floor.priority != s->geom.priority);
	}
	cover(c, F_CONDIM1, s->geom.condim == 1 || s->floor.condim == 1);
	cover(c, F_CONDIM3, s->geom.condim == 3 || s->floor.condim == 3);
	cover(c, F_CONDIM4, s->geom.condim == 4 || s->floor.condim == 4);
	cover(c, F_CONDIM6, s->geom.condim == 6 || s->floor.condim == 6);
	cover(c, F_MARGIN, s->geom.margin > 0 || s->floor.margin > 0);
	cover(c, F_GAP, s->geom.gap > 0 || s->floor.gap > 0);

	s->option.timestep = rng_log(&r, 0.0005, 0.01);

	s->option.mujoco = CORE_MJVER_2_2_2; /* the reference: libmujoco 2.2.2 */
	s->option.refsafe = !rng_chance(&r, 0.25);
	s->option.gravity = rng_chance(&r, 0.1) ? rng_uniform(&r, 1, 25) : DEFAULT_GRAVITY;
	s->option.impratio = rng_chance(&r, 0.3) ? rng_log(&r, 0.2, 10) : 1;
	s->option.integrator = integrators[rng_int(&r, 4)];
	s->height = rng_chance(&r, 0.1) ? 0 : rng_uniform(&r, 0, 0.5);
	s->duration = PARITY_DURATION;
	cover(c, F_REFSAFE_OFF, !s->option.refsafe);
	cover(c, F_IMPRATIO, s->option.impratio != 1);
	cover(c, F_SMALL_STEP, s->option.timestep < 0.001);
	cover(c, F_LARGE_STEP, s->option.timestep > 0.005);
	cover(c, F_TOUCHING, s->height == 0);
	cover(c, F_EULER, s->option.integrator == CORE_SCENE_EULER);
	cover(c, F_IMPLICIT, s->option.integrator == CORE_SCENE_IMPLICIT);
	cover(c, F_RK4, s->option.integrator == CORE_SCENE_RK4);
	cover(c, F_GRAVITY, s->option.gravity != DEFAULT_GRAVITY);
	/* drawn last, so every other field of scene i is what it was before the cone */
	s->option.cone = rng_chance(&r, 0.3) ? CORE_CONE_ELLIPTIC : CORE_CONE_PYRAMIDAL;
	cover(c, F_ELLIPTIC, s->option.cone == CORE_CONE_ELLIPTIC);
	cover(c, F_ELLIPTIC_BOX, s->option.cone == CORE_CONE_ELLIPTIC && s->shape == CORE_SCENE_BOX);
}

/* ---- run parameters ---- */

static uint64_t parity_seed(void)
{
	const char *env = getenv("CONTACTD_PARITY_SEED");

	return env && *env ? strtoull(env, NULL, 0) : PARITY_DEFAULT_SEED;
}

static int parity_scenes(void)
{
	const char *env = getenv("CONTACTD_PARITY_SCENES");
	long n = env && *env ? strtol(env, NULL, 10) : PARITY_DEFAULT_SCENES;

	return n > 0 && n < 1000000 ? (int)n : PARITY_DEFAULT_SCENES;
}

/* ---- classification, from the physics, before anything is compared ---- */

/*
 * The scene's contact linearized around a penetration r with the impedance frozen
 * at imp: the law a = (m a0 + N D aref) / (m + N D), aref = -B v - K imp r, is the
 * spring-damper x'' = -w imp K x - w B x' with w = N D / (m + N D) (for one
 * frictionless row of a unit body w = imp: the lesson's d^2 K and d B).
 */
struct linear_contact {
	double growth;       /* largest growth per step (growth.h) over the impedance curve */
	double conditioning; /* largest N D / m: how much stiffer the rows are than the body */
};

static void linearize(const struct core_scene_model *m, struct linear_contact *out)
{
	int i;

	out->growth = 0;
	out->conditioning = 0;
	for (i = 0; i <= PARITY_GROWTH_SAMPLES; i++) {
		double r = -m->solimp.width * i / PARITY_GROWTH_SAMPLES;
		double imp = core_law_impedance(r, &m->solimp, NULL);
		double nd = m->normal_rows / core_scene_row_R(m, imp);
		double w = nd / (m->mass + nd);
		double g = core_growth_step(
		    w * imp * m->gains.K, w * m->gains.B, m->timestep, m->integrator);
		out->growth = fmax(out->growth, g);
		out->conditioning = fmax(out->conditioning, nd / m->mass);
	}
}

enum regime {
	/* one impact, then the contact dissipates: every step must agree */
	REGIME_SETTLING,
	/* the body leaves the contact and hits it again: where within a step each impact
	 * begins decides its outcome, so an ulp grows ~100x per impact (spec §9 limits) */
	REGIME_BOUNCY,
	/* MuJoCo's body leaves the axis by more than the tolerance (a box that starts to
	 * rock or spin from the ~1e-16 rad its Newton solve leaves, spec §9 limits): from
	 * there on the 1-D scene is not MuJoCo's */
	REGIME_TILTING,
	/* energy-gaining: linearized growth > 1, or MuJoCo's rebound above the drop height */
	REGIME_GAINING,
	/* implicit integrator with rows far stiffer than the body (conditioning N D / m
	 * above tolerance / eps, e.g. a friction coefficient at its 1e-5 clamp): MuJoCo's
	 * implicit step integrates qfrc_smooth + qfrc_constraint, i.e. Newton's forces,
	 * which are accurate only to about conditioning * eps (its stopping test is on
	 * the cost, not the forces), while Euler integrates qacc. The core integrates the
	 * exact qacc for both (see check_solver_limited) */
	REGIME_SOLVER_LIMITED,
	/* MuJoCo's bad-number guard fired (|qacc|, |qvel| or |qpos| beyond mjMAXVAL = 1e10)
	 * and mj_step reset the state to the start; the core has no such guard */
	REGIME_MUJOCO_RESET,
	REGIME_COUNT
};

static const char *const regime_name[REGIME_COUNT] = {
    "settling", "bouncy", "tilting", "energy-gaining", "solver-limited", "MuJoCo reset"};

/* ---- comparison ---- */

/* |a - b| within PARITY_REL_TOL of scale */
static int close_to(double a, double b, double scale)
{
	return fabs(a - b) <= PARITY_REL_TOL * scale;
}

struct run {
	long n;
	struct mjscene_sample *mj;   /* MuJoCo's run: the state after each step */
	struct mjscene_sample *core; /* the core's, in the same form (always on the axis) */
	struct core_sim_drop mj_drop, core_drop;
	struct linear_contact lin;
	enum regime regime;
	double zscale, vscale;
	long first_contact; /* MuJoCo's first step with a contact force, n if none */
	long impacts;       /* runs of steps with a contact force */
	long second_impact; /* the first step of the second, n if none */
	long off_axis_step; /* MuJoCo's first state off the core's axis, n if none */
	long horizon;       /* global agreement is asserted for steps 0..horizon */
	long reset_step;    /* the step after which MuJoCo had reset itself, or -1 */
	long first_off;     /* first step where the free runs differ, or -1 */
	long warnings;      /* MuJoCo warnings during its run */
	int bitwise;        /* the free runs agree exactly at every step */
};

/* One step of the core from each of MuJoCo's states: nothing can amplify. */
struct local {
	long off;     /* first step the core does not reproduce, or -1 */
	long checked; /* steps compared */
	long skipped; /* steps from a state off the core's axis (a tilted or slipping body) */
	double worst; /* largest relative deviation of a compared step */
};

static void print_scene(uint64_t run_seed, int index, const struct core_scene *s)
{
	char xml[4096];

	if (mjscene_xml(s, xml, sizeof xml) == 0)
		fprintf(stderr, "scene %d of seed %" PRIu64 " (height %.17g):\n%s", index, run_seed,
		    s->height, xml);
}

/* relative deviation of (z, vel) from MuJoCo's sample */
static double deviation(const struct run *r, double z, double vel, const struct mjscene_sample *mj)
{
	double dz = fabs(z - mj->z) / fmax(fabs(mj->z), r->zscale);
	double dv = fabs(vel - mj->vel) / fmax(fabs(mj->vel), r->vscale);

	return fmax(dz, dv);
}

/* MuJoCo's body is off the core's axis by more than the tolerance: a tilted box
 * or a slipping, spinning body is no longer the 1-D scene (spec §9 limits). */
static int off_axis(const struct run *r, const struct mjscene_sample *mj)
{
	return mj->tilt > PARITY_REL_TOL * r->zscale || mj->slip > PARITY_REL_TOL * r->vscale;
}

/*
 * Step the core once from MuJoCo's state before every step of mj (n samples,
 * starting at centre height z0 at rest) and compare with MuJoCo's next state.
 * The 1-D reduction is exact only on the axis (spec §9 limits): states whose
 * tilt or slip exceeds the tolerance are a different scene and are skipped.
 */
static void check_locally(const struct core_scene_model *m, const struct run *r,
    const struct mjscene_sample *mj, long n, double z0, double tol, struct local *out)
{
	long i;

	out->off = -1;
	out->checked = out->skipped = 0;
	out->worst = 0;
	for (i = 0; i < n; i++) {
		double z = i > 0 ? mj[i - 1].z : z0;
		double vel = i > 0 ? mj[i - 1].vel : 0;
		double d;
		if (i > 0 && off_axis(r, &mj[i - 1])) {
			out->skipped++;
			continue;
		}
		core_scene_step(m, &z, &vel);
		d = deviation(r, z, vel, &mj[i]);
		out->checked++;
		out->worst = fmax(out->worst, d);
		if (out->off < 0 && d > tol)
			out->off = i;
	}
}

/* Whether a contact force acted during MuJoCo's step i: its speed changed by other
 * than one step of gravity (beyond the rounding of that sum). Unlike the recorded
 * heights this also sees contacts that begin and end inside one RK4 step. */
static int contact_step(const struct run *r, const struct core_scene_model *m, long i)
{
	double before = i > 0 ? r->mj[i - 1].vel : 0;
	double free_dv = m->a0 * m->timestep;

	return fabs(r->mj[i].vel - before - free_dv) >
	    PARITY_REL_TOL * fabs(free_dv) + 4 * DBL_EPSILON * fabs(before);
}

/* Impacts in MuJoCo's run: runs of contact steps after a free one. */
static void count_impacts(const struct core_scene_model *m, struct run *r)
{
	long i, n = r->reset_step >= 0 ? r->reset_step : r->n;
	int before = 0;

	r->impacts = 0;
	r->first_contact = r->second_impact = r->n;
	for (i = 0; i < n; i++) {
		int now = contact_step(r, m, i);
		if (now && !before) {
			r->impacts++;
			if (r->impacts == 1)
				r->first_contact = i;
			else if (r->impacts == 2)
				r->second_impact = i;
		}
		before = now;
	}
}

/* Decide the regime and how far the free runs must agree, from the physics and
 * MuJoCo's run only. */
static void classify(const struct core_scene_model *m, const struct core_scene *s, struct run *r)
{
	/* a difference of a few ulps (~1e-15) reaches the tolerance after this growth */
	const double headroom = PARITY_REL_TOL / 1e-15;

	linearize(m, &r->lin);
	count_impacts(m, r);
	for (r->off_axis_step = 0; r->off_axis_step < r->n; r->off_axis_step++)
		if (off_axis(r, &r->mj[r->off_axis_step]))
			break;
	r->horizon = r->n - 1;
	if (r->reset_step >= 0) {
		/* the runs are comparable only until MuJoCo threw its state away */
		r->regime = REGIME_MUJOCO_RESET;
		r->horizon = r->reset_step - 1;
	} else if (s->option.integrator == CORE_SCENE_IMPLICIT &&
	    r->lin.conditioning * DBL_EPSILON > PARITY_REL_TOL) {
		/* contact-free steps only: the first contact step already differs */
		r->regime = REGIME_SOLVER_LIMITED;
		r->horizon = r->first_contact - 1;
	} else if (r->lin.growth > 1 || r->mj_drop.energy_gain) {
		r->regime = REGIME_GAINING;
		/* until the second impact, and while growth^steps in contact stays in headroom */
		r->horizon = r->second_impact - 1;
		if (r->lin.growth > 1) {
			long k = (long)floor(log(headroom) / log(r->lin.growth));
			if (r->first_contact + k < r->horizon)
				r->horizon = r->first_contact + k;
		}
	} else if (r->impacts >= 2) {
		r->regime = REGIME_BOUNCY;
		r->horizon = r->second_impact - 1;
	} else if (r->off_axis_step < r->n) {
		r->regime = REGIME_TILTING;
	} else {
		r->regime = REGIME_SETTLING;
	}
	/* in every regime: once MuJoCo's body is off the axis, the scenes differ */
	if (r->horizon > r->off_axis_step - 1)
		r->horizon = r->off_axis_step - 1;
	if (r->horizon > r->n - 1)
		r->horizon = r->n - 1;
}

static void run_both(
    const struct core_scene *s, const struct core_scene_model *m, struct mjscene *ms, struct run *out)
{
	double z, vel, length;
	long i;

	out->n = core_sim_step_count(s->duration, s->option.timestep);
	out->mj = calloc((size_t)out->n, sizeof *out->mj);
	out->core = calloc((size_t)out->n, sizeof *out->core);
	ck_assert(out->mj && out->core);
	out->warnings = mjscene_warnings();
	out->reset_step = mjscene_run(ms, out->n, out->mj);
	out->warnings = mjscene_warnings() - out->warnings;
	mjscene_metrics(
	    out->mj, out->n, ms->half_height, s->height, s->option.timestep, &out->mj_drop);
	core_sim_drop(m, s->height, s->duration, &out->core_drop);

	/* z is the centre height, at least the half height; speeds are bounded by the
	 * impact speed from the drop height (plus one step of gravity for height 0) */
	length = m->half_height + s->height + fabs(m->contact.includemargin);
	out->zscale = length;
	out->vscale = sqrt(2 * s->option.gravity * length) + s->option.gravity * s->option.timestep;
	classify(m, s, out);

	/* the free runs from the same start */
	out->first_off = -1;
	out->bitwise = 1;
	z = s->height + m->half_height;
	vel = 0;
	for (i = 0; i < out->n; i++) {
		core_scene_step(m, &z, &vel);
		out->core[i].z = z;
		out->core[i].vel = vel;
		if (z != out->mj[i].z || vel != out->mj[i].vel)
			out->bitwise = 0;
		if (out->first_off < 0 && deviation(out, z, vel, &out->mj[i]) > PARITY_REL_TOL)
			out->first_off = i;
	}
}

static void free_run(struct run *r)
{
	free(r->mj);
	free(r->core);
}

/* The scale of a length metric: the centre heights it derives from are compared
 * relative to max(|z|, length), and |z| <= |bottom| + half height <= |value| + length. */
static double metric_scale(double value, double length)
{
	return fabs(value) + length;
}

static void assert_metrics_agree(const struct run *r, uint64_t run_seed, int index)
{
	const struct core_sim_drop *a = &r->core_drop, *b = &r->mj_drop;
	double L = r->zscale;

	ck_assert_msg(a->steps == b->steps, "scene %d (seed %" PRIu64 "): steps %ld vs %ld", index,
	    run_seed, a->steps, b->steps);
	ck_assert_msg(close_to(a->peak_penetration, b->peak_penetration,
	                  metric_scale(b->peak_penetration, L)) &&
	        close_to(a->rebound, b->rebound, metric_scale(b->rebound, L)) &&
	        close_to(a->max_height, b->max_height, metric_scale(b->max_height, L)) &&
	        close_to(a->final_penetration, b->final_penetration,
	            metric_scale(b->final_penetration, L)) &&
	        close_to(a->jitter, b->jitter, metric_scale(b->jitter, L)) &&
	        a->energy_gain == b->energy_gain,
	    "scene %d (seed %" PRIu64 "): metrics differ: core peak %.17g rebound %.17g max %.17g "
	    "jitter %.17g final %.17g gain %d; MuJoCo %.17g %.17g %.17g %.17g %.17g %d",
	    index, run_seed, a->peak_penetration, a->rebound, a->max_height, a->jitter,
	    a->final_penetration, a->energy_gain, b->peak_penetration, b->rebound, b->max_height,
	    b->jitter, b->final_penetration, b->energy_gain);
}

/* The first step at which a run's rebound (after its first penetrating step)
 * exceeds the drop height, or n: when the energy_gain flag is decided. */
static long gain_step(const struct mjscene_sample *run, long n, double half_height, double height)
{
	int touched = 0;
	long i;

	for (i = 0; i < n; i++) {
		double bottom = run[i].z - half_height;
		if (touched && bottom > height)
			return i;
		if (bottom < 0)
			touched = 1;
	}
	return n;
}

/* ---- tests ---- */

static uint64_t seed;
static int scene_count;

static void setup(void)
{
	seed = parity_seed();
	scene_count = parity_scenes();
}

/* The generator reaches every corner the brief lists, and the run is big enough. */
START_TEST(test_coverage)
{
	struct coverage c;
	struct core_scene s;
	int i;

	memset(&c, 0, sizeof c);
	for (i = 0; i < scene_count; i++)
		random_scene(seed, i, &s, &c);
	printf("parity: seed %" PRIu64 " (CONTACTD_PARITY_SEED), %d scenes\n", seed, scene_count);
	for (i = 0; i < F_COUNT; i++) {
		printf("  %-18s %d\n", feature_name[i], c.count[i]);
		/* about 1% of scenes at least: every feature is exercised many times */
		ck_assert_msg(c.count[i] >= scene_count / 100,
		    "feature %s covered by only %d of %d scenes", feature_name[i], c.count[i],
		    scene_count);
	}
	ck_assert_int_ge(scene_count, PARITY_MIN_SCENES);
}
END_TEST

struct tally {
	int scenes[REGIME_COUNT], parted[REGIME_COUNT], flag_differs[REGIME_COUNT];
	int bitwise;
	long parted_after[4]; /* parting begins after 0, 1, 2, 3+ impacts */
	long checked, skipped, local_bitwise_scenes;
	double worst_local, worst_implicit, worst_solver_euler;
};

/* impacts in MuJoCo's run before `step` */
static long impacts_before(const struct run *r, const struct core_scene_model *m, long step)
{
	long i, count = 0;
	int before = 0;

	for (i = 0; i < step && i < r->n; i++) {
		int now = contact_step(r, m, i);
		if (now && !before)
			count++;
		before = now;
	}
	return count;
}

static void assert_local(const struct local *l, uint64_t run_seed, int index,
    const struct core_scene *s, const char *what)
{
	if (l->off >= 0)
		print_scene(run_seed, index, s);
	ck_assert_msg(l->off < 0,
	    "scene %d (seed %" PRIu64 ", %s): from MuJoCo's state before step %ld the core's "
	    "step differs by %.3g relative",
	    index, run_seed, what, l->off, l->worst);
}

/*
 * Solver-limited scenes: MuJoCo's implicit step integrates Newton's forces, not its
 * qacc. Step the same scene with Euler in MuJoCo, which integrates qacc: the core
 * must reproduce every step of that. Returns the implicit run's local deviation.
 */
static double check_solver_limited(
    const struct core_scene *s, const struct run *r, int index, struct tally *t)
{
	struct core_scene euler = *s;
	struct core_scene_model m;
	struct mjscene ms;
	struct mjscene_sample *mj;
	struct local implicit, l;
	char err[600];
	long reset;

	euler.option.integrator = CORE_SCENE_EULER;
	core_scene_prepare(s, &m);
	check_locally(&m, r, r->mj, r->n, s->height + m.half_height, PARITY_REL_TOL, &implicit);
	core_scene_prepare(&euler, &m);
	ck_assert_msg(mjscene_open(&ms, &euler, err, sizeof err) == 0, "scene %d: %s", index, err);
	mj = calloc((size_t)r->n, sizeof *mj);
	ck_assert_ptr_nonnull(mj);
	/* a reset in the Euler run ends the comparison there */
	reset = mjscene_run(&ms, r->n, mj);
	/* Newton's qacc itself carries round-off up to conditioning * eps (a backward-stable
	 * Cholesky of a Hessian that stiff), so that is the tolerance here */
	check_locally(&m, r, mj, reset >= 0 ? reset : r->n, ms.z0,
	    fmax(PARITY_REL_TOL, r->lin.conditioning * DBL_EPSILON), &l);
	assert_local(&l, seed, index, s, "solver-limited, stepped with Euler");
	t->checked += l.checked;
	t->skipped += l.skipped;
	t->worst_solver_euler = fmax(t->worst_solver_euler, l.worst);
	free(mj);
	mjscene_close(&ms);
	return implicit.worst;
}

/* Trajectories and drop metrics, classified first. */
START_TEST(test_trajectories)
{
	struct tally t;
	int i, k;

	memset(&t, 0, sizeof t);
	for (i = 0; i < scene_count; i++) {
		struct core_scene s;
		struct core_scene_model m;
		struct mjscene ms;
		struct run r;
		struct local l;
		char err[600];
		long core_gain, mj_gain, before;

		random_scene(seed, i, &s, NULL);
		ck_assert_msg(mjscene_open(&ms, &s, err, sizeof err) == 0, "scene %d: %s", i, err);
		/* the compiled body must be the requested one, or we compare different scenes */
		ck_assert_msg(ms.model->body_mass[1] == s.mass,
		    "scene %d: body mass %.17g, not %.17g", i, ms.model->body_mass[1], s.mass);
		core_scene_prepare(&s, &m);
		run_both(&s, &m, &ms, &r);
		t.scenes[r.regime]++;

		/* MuJoCo warns at every contact whose combined solref has mixed signs, and
		 * then uses the default; the core must see the same fallback */
		if (r.regime != REGIME_MUJOCO_RESET)
			ck_assert_msg(
			    (r.warnings > 0) == (m.gains.fell_back && r.first_contact < r.n),
			    "scene %d (seed %" PRIu64 "): %ld MuJoCo warnings, core fallback %d", i,
			    seed, r.warnings, m.gains.fell_back);

		/* every step of MuJoCo, taken by the core from MuJoCo's own state */
		if (r.regime == REGIME_SOLVER_LIMITED) {
			t.worst_implicit =
			    fmax(t.worst_implicit, check_solver_limited(&s, &r, i, &t));
		} else {
			check_locally(&m, &r, r.mj, r.reset_step >= 0 ? r.reset_step : r.n, ms.z0,
			    PARITY_REL_TOL, &l);
			assert_local(&l, seed, i, &s, regime_name[r.regime]);
			t.checked += l.checked;
			t.skipped += l.skipped;
			t.worst_local = fmax(t.worst_local, l.worst);
			if (l.worst == 0)
				t.local_bitwise_scenes++;
		}

		/* the free runs, up to the horizon of the scene's regime */
		if (r.first_off >= 0 && r.first_off <= r.horizon)
			print_scene(seed, i, &s);
		ck_assert_msg(r.first_off < 0 || r.first_off > r.horizon,
		    "scene %d (seed %" PRIu64
		    ", %s, growth %.6g): the runs part at step %ld of %ld, "
		    "before step %ld: z %.17g vs %.17g, vel %.17g vs %.17g in MuJoCo",
		    i, seed, regime_name[r.regime], r.lin.growth, r.first_off, r.n, r.horizon,
		    r.core[r.first_off].z, r.mj[r.first_off].z, r.core[r.first_off].vel,
		    r.mj[r.first_off].vel);

		/* the energy_gain flag, wherever one run decided it within the horizon */
		core_gain = gain_step(r.core, r.n, m.half_height, s.height);
		mj_gain = gain_step(r.mj, r.n, m.half_height, s.height);
		ck_assert_msg((core_gain > r.horizon && mj_gain > r.horizon) ||
		        r.core_drop.energy_gain == r.mj_drop.energy_gain,
		    "scene %d (seed %" PRIu64 "): energy_gain %d in the core, %d in MuJoCo", i,
		    seed, r.core_drop.energy_gain, r.mj_drop.energy_gain);

		if (r.first_off < 0) {
			assert_metrics_agree(&r, seed, i);
		} else {
			t.parted[r.regime]++;
			before = impacts_before(&r, &m, r.first_off);
			t.parted_after[before < 3 ? before : 3]++;
			if (r.core_drop.energy_gain != r.mj_drop.energy_gain)
				t.flag_differs[r.regime]++;
		}
		if (r.bitwise)
			t.bitwise++;
		free_run(&r);
		mjscene_close(&ms);
	}
	printf("parity: %d scenes (seed %" PRIu64 "), tolerance %.0e relative\n", scene_count, seed,
	    PARITY_REL_TOL);
	printf("parity: one step from MuJoCo's state: %ld steps agree (largest deviation %.3g; "
	       "%ld scenes bitwise at every step); %ld steps from a tilted or slipping body "
	       "skipped\n",
	    t.checked, t.worst_local, t.local_bitwise_scenes, t.skipped);
	printf("parity: free runs from the same start: %d bitwise identical at every step\n",
	    t.bitwise);
	for (k = 0; k < REGIME_COUNT; k++)
		printf(
		    "parity: %-15s %4d scenes, %3d free runs part after their horizon (%d with a "
		    "different energy_gain flag)\n",
		    regime_name[k], t.scenes[k], t.parted[k], t.flag_differs[k]);
	printf("parity: parted runs began to differ after 0/1/2/3+ impacts: %ld/%ld/%ld/%ld\n",
	    t.parted_after[0], t.parted_after[1], t.parted_after[2], t.parted_after[3]);
	printf("parity: solver-limited: the core reproduces MuJoCo's Euler steps of these scenes "
	       "within %.3g; MuJoCo's implicit steps depart from them by up to %.3g relative\n",
	    t.worst_solver_euler, t.worst_implicit);
	/* settling scenes must never part: that would be a modelling error, not amplification */
	ck_assert_int_eq(t.parted[REGIME_SETTLING], 0);
	/* the sample must contain the regimes, or the classification tested nothing */
	ck_assert_int_gt(t.scenes[REGIME_SETTLING], scene_count / 4);
	ck_assert_int_gt(t.scenes[REGIME_GAINING], 0);
	ck_assert_int_gt(t.scenes[REGIME_BOUNCY], 0);
	/* most steps are on the axis; the skipped ones are tilted boxes after many bounces */
	ck_assert_int_gt(t.checked, 10 * t.skipped);
}
END_TEST

/* Pick a penetrating state inside (or beyond) the impedance curve's width. */
static void penetrating_state(
    uint64_t run_seed, int index, const struct core_scene_model *m, double *z, double *vel)
{
	struct rng r = {run_seed ^ (UINT64_C(0x8CB92BA72F3D8DD7) * (uint64_t)(index + 1))};
	double width = m->solimp.width > 1e-6 ? m->solimp.width : 1e-4;
	double violation = width * rng_uniform(&r, 0.02, 1.5);

	*z = m->half_height + m->contact.includemargin - violation;
	*vel = rng_uniform(&r, -1, 0.5);
}

/* efc rows at one penetrating state of every scene against core_scene_accel's state. */
START_TEST(test_constraint_rows)
{
	int i, rows_checked = 0, pushing = 0, elliptic_friction_rows = 0;

	for (i = 0; i < scene_count; i++) {
		struct core_scene s;
		struct core_scene_model m;
		struct core_scene_contact_state st;
		struct mjscene ms;
		struct mjscene_efc efc;
		char err[600];
		double z, vel, r, acc, ascale;
		int k;

		random_scene(seed, i, &s, NULL);
		core_scene_prepare(&s, &m);
		penetrating_state(seed, i, &m, &z, &vel);
		r = z - m.half_height - m.contact.includemargin;
		acc = core_scene_accel(&m, z, vel, &st);
		ck_assert_msg(mjscene_open(&ms, &s, err, sizeof err) == 0, "scene %d: %s", i, err);
		ck_assert_msg(
		    mjscene_efc(&ms, z, vel, &efc) == 0, "scene %d: %d rows", i, efc.nefc);
		ck_assert_msg(st.active, "scene %d: the chosen state is not penetrating", i);
		ck_assert_msg(efc.ncon == m.contacts && efc.nefc == m.rows,
		    "scene %d: MuJoCo has %d contacts and %d rows, the core %d and %d", i, efc.ncon,
		    efc.nefc, m.contacts, m.rows);
		for (k = 0; k < efc.nefc; k++) {
			/* an elliptic contact's friction rows: K = 0, their own R, and aref 0
			 * (no position, no velocity along them) */
			int j = k % m.rows_per_contact;
			int friction_row = m.cone == CORE_CONE_ELLIPTIC && j > 0;
			double K = friction_row ? 0 : m.gains.K;
			double R = core_scene_cone_R(&m, st.impedance, j);
			double aref = friction_row ? 0 : st.aref;

			ck_assert_msg(close_to(efc.K[k], K, fabs(efc.K[k])) &&
			        close_to(efc.B[k], m.gains.B, fabs(efc.B[k])) &&
			        close_to(efc.imp[k], st.impedance, fabs(efc.imp[k])) &&
			        close_to(efc.R[k], R, fabs(efc.R[k])),
			    "scene %d row %d: MuJoCo K %.17g B %.17g imp %.17g R %.17g; core %.17g "
			    "%.17g %.17g %.17g",
			    i, k, efc.K[k], efc.B[k], efc.imp[k], efc.R[k], K, m.gains.B,
			    st.impedance, R);
			/* aref = -B v - K imp r is a difference of two terms: scale by their size
			 */
			ck_assert_msg(
			    close_to(efc.aref[k], aref,
			        fabs(m.gains.B * vel) + fabs(m.gains.K * st.impedance * r)),
			    "scene %d row %d: aref %.17g in MuJoCo, %.17g in the core", i, k,
			    efc.aref[k], aref);
			rows_checked++;
			elliptic_friction_rows += friction_row;
		}
		/* qacc: z against the core, the other five must vanish (the minimizer lies on
		 * the z axis, spec §9) relative to the accelerations involved */
		ascale = fmax(fabs(efc.qacc[2]), s.option.gravity);
		ck_assert_msg(close_to(efc.qacc[2], acc, ascale),
		    "scene %d: qacc_z %.17g in MuJoCo, %.17g in the core", i, efc.qacc[2], acc);
		for (k = 0; k < 6; k++)
			ck_assert_msg(k == 2 || fabs(efc.qacc[k]) <= PARITY_REL_TOL * ascale,
			    "scene %d: qacc[%d] = %.17g off the z axis", i, k, efc.qacc[k]);
		if (acc != m.a0)
			pushing++;
		mjscene_close(&ms);
	}
	printf("parity: constraint rows: %d rows of %d scenes agree (%d of them an elliptic "
	       "cone's friction rows; %d states with a pushing contact)\n",
	    rows_checked, scene_count, elliptic_friction_rows, pushing);
	ck_assert_int_gt(elliptic_friction_rows, 0);
	ck_assert_int_gt(pushing, scene_count / 2);
}
END_TEST

/* The drop page's trajectory is MuJoCo's: the lesson's cube dropped 10 cm, each traced
 * bottom height against mj_step's qpos[2] minus the half-size, step by step. This scene
 * settles (the README's bit-identical regime), so the tolerance is PARITY_REL_TOL of
 * the drop height, far looser than the observed 0. */
START_TEST(test_drop_trace)
{
	struct core_scene s;
	struct core_scene_model m;
	struct mjscene ms;
	struct mjscene_sample mj[500];
	struct core_sim_drop drop;
	double t[502], z[502];
	struct core_sim_trace tr = {t, z, 502, 0};
	char err[600];
	long i;

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
	s.option.integrator = CORE_SCENE_EULER;
	s.height = 0.1;
	s.duration = 1;
	ck_assert_msg(mjscene_open(&ms, &s, err, sizeof err) == 0, "%s", err);
	ck_assert_int_eq(mjscene_run(&ms, 500, mj), -1);
	core_scene_prepare(&s, &m);
	core_sim_drop_trace(&m, s.height, s.duration, &drop, &tr);
	ck_assert_uint_eq(tr.count, 501); /* 500 steps under the cap: none decimated */
	for (i = 0; i < 500; i++)
		ck_assert_msg(
		    fabs(z[i + 1] - (mj[i].z - ms.half_height)) <= PARITY_REL_TOL * s.height,
		    "step %ld: traced %.17g, MuJoCo %.17g", i, z[i + 1], mj[i].z - ms.half_height);
	mjscene_close(&ms);
}
END_TEST

static Suite *parity_suite(void)
{
	Suite *suite = suite_create("parity");
	TCase *tc = tcase_create("mujoco");

	tcase_add_checked_fixture(tc, setup, NULL);
	/* hundreds of thousands of mj_step calls under sanitizers on a 2-core machine */
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_coverage);
	tcase_add_test(tc, test_trajectories);
	tcase_add_test(tc, test_constraint_rows);
	tcase_add_test(tc, test_drop_trace);
	suite_add_tcase(suite, tc);
	return suite;
}

int main(void)
{
	SRunner *runner = srunner_create(parity_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
