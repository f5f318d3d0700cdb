/*
 * hold.c: the hold question: its defaults, and the run that answers it.
 *
 * Both scenes (the mirror-symmetric one and noslip's asymmetric one) are run by one
 * loop: step until the duration, or until the rest of the run is known, then sum the
 * rest of the descent in closed form. The rest is known when
 *  - the state repeats: every coordinate but z moves by less than its rounding for
 *    CORE_HOLD_SETTLE_RUN steps in a row, so the object descends at a constant speed;
 *  - or the transient has become one geometric mode (struct tail): every coordinate's
 *    successive changes shrink by one ratio r, so vz_j = v + (vz_k - v) r^(j-k), the
 *    state is within CORE_HOLD_TAIL_NEAR of its limit, and the predictions of the limit
 *    speed v and of the final height that this makes agree from step to step.
 * The second ends most runs after about a third of the steps the first needs (the
 * transient decays by about 0.57 a step; the first waits for it to reach the rounding).
 */
#include "core/hold.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/budget.h"
#include "core/noslip.h"
#include "core/pinch.h"
#include "core/knobs.h"

void core_hold_default(struct core_hold *h)
{
	memset(h, 0, sizeof *h);
	h->shape = CORE_HOLD_SPHERE;
	h->size[0] = DEFAULT_HOLD_RADIUS;
	h->actuator.type = CORE_HOLD_MOTOR;
	h->mass = DEFAULT_HOLD_MASS;
	core_pair_geom_default(&h->object);
	core_pair_geom_default(&h->pad);
	/* Menagerie's SO-101 gripper class */
	h->pad.solref[0] = 0.01;
	h->pad.solref[1] = 1;
	h->pad.condim = 6;
	h->pad.friction[0] = 1;
	h->pad.friction[1] = 5e-3;
	h->pad.friction[2] = 5e-4;
	h->pad.priority = 1;
	h->pad_size[0] = DEFAULT_HOLD_PAD_HX;
	h->pad_size[1] = DEFAULT_HOLD_PAD_HY;
	h->pad_size[2] = DEFAULT_HOLD_PAD_HZ;
	h->pad_mass = DEFAULT_HOLD_PAD_MASS;
	h->grip_force = DEFAULT_HOLD_GRIP_FORCE;
	core_scene_option_default(&h->option);
	h->duration = DEFAULT_HOLD_DURATION;
	h->slip_limit = DEFAULT_HOLD_SLIP_LIMIT;
}

const char *core_hold_supported(const struct core_hold *h)
{
	struct core_mjver_rules rules;
	struct core_pinch_model m;

	if (h->option.integrator == CORE_SCENE_RK4)
		return "the RK4 integrator is not reproduced for the hold scene";
	core_mjver_rules(h->option.mujoco, &rules);
	if (h->option.integrator == CORE_SCENE_DISCRETE && !rules.discrete_integrator)
		return "the discrete integrator exists from MuJoCo 3.13.0 on";
	/* without velocity-dependent forces implicitfast steps as implicit and Euler do, and
	 * earlier releases have been answered so */
	if (h->option.integrator == CORE_SCENE_IMPLICITFAST && !rules.implicitfast &&
	    (h->joint.damping > 0 || (h->actuator.type == CORE_HOLD_POSITION && h->actuator.kv > 0)))
		return "the implicitfast integrator exists from MuJoCo 2.3.3 on";
	/* measured (2.2.2, 3.12.0-3.14.0): a capsule longer than the pads meets them at their
	 * edges, where MuJoCo's rounding finds two contacts with one pad and one with the
	 * other in some scenes (3.12.0: most), two each in others */
	if (h->shape == CORE_HOLD_CAPSULE && h->size[1] > h->pad_size[1])
		return "a capsule longer than the pads (size[1] > the pads' size[1]) is not answered: "
		       "at the pads' edges MuJoCo finds two contacts with one pad and one with the "
		       "other, or two with each, by its rounding";
	/* mjc_BoxBox was rewritten in 3.4.0, 3.5.0, 3.8.0, 3.10.0 and 3.12.0; the start's
	 * contact depth, which decides the first step, is reproduced for 3.12.0's */
	if (h->shape == CORE_HOLD_BOX && h->option.mujoco < core_mjver_find("3.12.0"))
		return "a box is answered for MuJoCo 3.12.0 on: the box-box collisions of earlier "
		       "releases are not reproduced";
	if (h->shape != CORE_HOLD_SPHERE && h->noslip_iterations > 0)
		return "noslip is answered for a sphere only: its sweeps, contact by contact, turn a "
		       "capsule or a box out of the plane the reduction keeps";
	core_pinch_prepare(h, &m);
	/* measured in 3.13.0 and 3.14.0: the discrete integrator scales each contact's R by
	 * its first row's exact J (qM + h qDeriv + h^2 kp)^-1 J' over J qM^-1 J'; a pyramid's
	 * first edge x + mu y has a lever px mu - py at a capsule's or box's contact, which
	 * differs from contact to contact (docs/hold.md, "Grasps") */
	if (h->option.integrator == CORE_SCENE_DISCRETE && h->shape != CORE_HOLD_SPHERE &&
	    h->option.cone == CORE_CONE_PYRAMIDAL && m.contact.condim > 1 &&
	    (h->joint.damping > 0 || h->actuator.type == CORE_HOLD_POSITION))
		return "discrete with joint damping or a servo is answered for a capsule or a box "
		       "under the elliptic cone only: the pyramid weighs a pad's contacts unequally "
		       "and turns the object out of the reduction's plane";
	if (m.noslip_iterations > 0 || core_pinch_start_asymmetric(&m)) {
		if (h->shape != CORE_HOLD_SPHERE)
			return "a capsule or a box whose start finds one pad's contacts only (a margin, "
			       "in MuJoCo 3.8.0-3.13.0) turns out of the plane the reduction keeps";
		/* the asymmetric step weighs no row by discrete's metric (pinch.c,
		 * discrete_weight: the mirror step's only) */
		if (h->option.integrator == CORE_SCENE_DISCRETE &&
		    (h->joint.damping > 0 || h->actuator.type == CORE_HOLD_POSITION))
			return "with noslip, or a start that finds one pad's contacts only, the discrete "
			       "integrator is answered for pads on motors without joint damping: the "
			       "asymmetric step does not weigh its rows by discrete's metric";
		/* measured (3.12.0, 3.13.0; docs/hold.md, "The pads' own forces under noslip"):
		 * after a one-pad start a servo's or damped pads ring, and the answer misses
		 * MuJoCo's by up to 3e-6 where they do, even with MuJoCo's Newton replayed */
		if (core_pinch_start_asymmetric(&m) &&
		    (h->actuator.type == CORE_HOLD_POSITION || h->joint.damping > 0))
			return "a start that finds one pad's contacts only is answered for pads on "
			       "motors without joint damping: after it a servo's or damped pads ring, "
			       "and the asymmetry they carry is not reproduced to 1e-6";
	}
	return NULL;
}

/* Either scene, stepped by one function. */
struct sim {
	const struct core_pinch_model *m;
	int noslip;
	struct core_pinch_state s; /* the mirror-symmetric scene (noslip_iterations 0) */
	struct core_pinch_cache cache;
	struct core_noslip_state ns; /* the asymmetric scene */
	/* past the duration: the closed form's vertical speed (core_pinch_steady), which a
	 * speed within CORE_HOLD_ANCHOR_REL of it settles to; 0: none */
	double anchor;
};

/* The state besides z, as one vector: c[0] the vertical speed, then the other speeds
 * (m/s; the rotation's at the contact), then the positions (m). */
#define SIM_COORDS 8
struct sim_vec {
	double c[SIM_COORDS];
	int speeds, n; /* c[0..speeds) are speeds, c[speeds..n) positions */
};

static void sim_start(struct sim *w, const struct core_pinch_model *m)
{
	memset(w, 0, sizeof *w);
	w->m = m;
	/* the five coordinates also when the start has one pad's contact only (3.8.0-3.13.0,
	 * pinch.h): its first step pushes the object sideways and spins it */
	w->noslip = m->noslip_iterations > 0 || core_pinch_start_asymmetric(m);
	core_pinch_start(&w->s);
	core_noslip_start(&w->ns);
}

static void sim_step(struct sim *w)
{
	if (w->noslip)
		core_noslip_step(w->m, &w->ns);
	else
		core_pinch_step_cached(w->m, &w->s, NULL, &w->cache);
}

/* 1 when the asymmetric scene's object centre is inside a pad's slab, |x - pad| <= HX:
 * mjc_SphereBox's inside branch (the nearest face's normal), which noslip.c does not
 * model. A one-pad start pushes the object sideways by up to R - HX. */
static int sim_centre_in_pad(const struct sim *w)
{
	double x0 = w->m->rest_dist, hx = w->m->half_x;

	if (!w->noslip)
		return 0;
	return !(fabs(w->ns.x - (-x0 + w->ns.qL)) > hx) || !(fabs(w->ns.x - (x0 - w->ns.qR)) > hx);
}

/* The asymmetric step (noslip.c) steps the scene as MuJoCo does: a sphere (one contact a
 * pad), without discrete's weights of the pads' own forces (core_hold_supported). */
static int sim_asymmetric_serves(const struct core_pinch_model *m)
{
	return m->contacts == 1 && !(m->discrete && (m->position || m->damping > 0));
}

/* discrete: refsafe replaced a contact row of the last step (core_law_discrete_gains) */
static int sim_replaced(const struct sim *w)
{
	return w->noslip ? w->ns.replaced : w->s.replaced;
}

static double sim_z(const struct sim *w)
{
	return w->noslip ? w->ns.z : w->s.z;
}

static double sim_vz(const struct sim *w)
{
	return w->noslip ? w->ns.vz : w->s.vz;
}

/* the pads' mean joint position (their penetration, from touching) */
static double sim_pad_q(const struct sim *w)
{
	return w->noslip ? 0.5 * (w->ns.qL + w->ns.qR) : w->s.q;
}

/* the pads' mean joint position in a state vector */
static double sim_vec_pad_q(const struct sim_vec *v)
{
	return v->n == 3 ? v->c[2] : 0.5 * (v->c[6] + v->c[7]);
}

static void sim_vec(const struct sim *w, struct sim_vec *v)
{
	if (w->noslip) {
		const struct core_noslip_state *s = &w->ns;

		*v = (struct sim_vec){
		    {s->vz, s->vx, s->wy * w->m->radius, s->vqL, s->vqR, s->x, s->qL, s->qR}, 5, 8};
	} else {
		*v = (struct sim_vec){{w->s.vz, w->s.vq, w->s.q}, 2, 3};
	}
}

/* the rounding each coordinate of v moves by in a state that repeats, for the tests
 * below, which read it several times: every coordinate's but the vertical speed's is the
 * run's constant, filled once (sim_noise_start), the speed's each step (sim_noise) */
static void sim_noise_start(
    const struct core_pinch_model *m, const struct sim_vec *v, double *noise)
{
	int i;

	for (i = 1; i < v->n; i++)
		noise[i] = i < v->speeds ? CORE_HOLD_STEADY_OTHER : CORE_HOLD_STEADY_REL * m->radius;
}

static void sim_noise(const struct sim_vec *v, double *noise)
{
	noise[0] = CORE_HOLD_STEADY_REL * fabs(v->c[0]) + CORE_HOLD_STEADY_ABS;
}

/* 1 when every speed of v but the vertical one is at rest beside it (within
 * CORE_HOLD_ANCHOR_REL of it): pads that still move, the object's speed repeating, have
 * not settled (measured, 3.14.0: a sphere's speed held to 16 digits for 300 steps while
 * its pads crept back on their frictionloss, then moved by 8e-6 as they came to rest) */
static int sim_resting(const struct sim_vec *v)
{
	int i;

	for (i = 1; i < v->speeds; i++)
		if (!(fabs(v->c[i]) <= CORE_HOLD_ANCHOR_REL * fabs(v->c[0]) + CORE_HOLD_STEADY_OTHER))
			return 0;
	return 1;
}

/* 1 when the step from p to v (its noise: sim_noise) left every coordinate but z where
 * it was */
static int sim_repeats(const struct sim_vec *p, const struct sim_vec *v, const double *noise)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (!(fabs(v->c[i] - p->c[i]) <= noise[i]))
			return 0;
	return 1;
}

/* 1 when the state v is near the limit the tail predicts: each position within
 * CORE_HOLD_TAIL_NEAR of its own, each speed within NEAR of the scene's speed scale (the
 * creep, plus the pads' penetration per step) */
static int tail_near(const struct core_pinch_model *m, const struct sim_vec *limit,
    const struct sim_vec *v, const double *noise)
{
	double speed = fabs(limit->c[0]) + fabs(sim_vec_pad_q(limit)) / m->timestep;
	int i, near = 1;

	for (i = 0; i < v->n; i++) {
		double rest = fabs(limit->c[i] - v->c[i]);

		near &= rest <=
		    CORE_HOLD_TAIL_NEAR * (i < v->speeds ? speed : fabs(limit->c[i])) + noise[i];
	}
	return near;
}

/* A predicted height at the run's last step, kept as its inputs (tail_height's) and
 * summed only when a test reads it: most steps' predictions are never compared. */
struct tail_end {
	double z, vz, v, r, h;
	long j; /* steps to the run's end; <= 0: not predicted (the height reads 0) */
};

/* The transient's last steps, and what they predict. */
struct tail {
	struct sim_vec last[3]; /* the last three states, the oldest at last[head] */
	int head;
	long seen;
	int agreed;           /* predictions in a row that agreed with the one before */
	double r;             /* the mode's ratio; 0: no prediction */
	double v_end;         /* the limit vertical speed */
	struct tail_end end;  /* the height at the run's last step, as predicted */
	struct sim_vec limit; /* every coordinate's limit */
	double v_seen[2];     /* the mode's last two limit speeds, oldest first */
	int v_count;          /* how many of them there are */
};

/* r^j for j >= 0 by squaring: the height is predicted at every step, and libm's pow
 * was a third of the run loop's own work (its rounding: a few ulps of r^j, far below
 * the tail's tolerances) */
static double tail_pow(double r, long j)
{
	double p = 1;

	for (; j > 0; j >>= 1) {
		if (j & 1)
			p *= r;
		r *= r;
	}
	return p;
}

/* The height j steps after step k (height z, speed vz) in the mode of ratio r and limit
 * speed v: z_{k+j} = z + h sum_{i=1..j} (v + (vz - v) r^i). r = 0: a constant speed. */
static double tail_height(double z, double vz, double v, double r, long j, double h)
{
	if (r == 0)
		return z + h * ((double)j * vz);
	return z + h * ((double)j * v + (vz - v) * r * (1 - tail_pow(r, j)) / (1 - r));
}

/* tail_height of a predicted end (struct tail_end) */
static double tail_end_height(const struct tail_end *e)
{
	return e->j > 0 ? tail_height(e->z, e->vz, e->v, e->r, e->j, e->h) : 0;
}

/* The limit speed the mode (ratio r) predicts converges geometrically too, by the
 * transient's next mode. Where that is the mode's square (r^2 a step: the step is
 * quadratic in the transient, as the impedance and the pads' depth make it), Aitken's
 * step on the last three predictions takes it out too, so that they agree
 * (tail_observe) a few steps sooner, and closer to the limit. Where the predictions
 * converge at another rate (a second mode of the step's own, which the one-mode sum
 * does not hold either), they are left as they are, and agree only once that mode has
 * died out. Noise in predictions that have converged is at their rounding, far below
 * the agreement asked. */
static void tail_accelerate(struct tail *t, double r)
{
	double plain = t->limit.c[0];

	if (t->v_count == 2) {
		double d1 = t->v_seen[1] - t->v_seen[0], d2 = plain - t->v_seen[1];
		double rho = d1 != 0 ? d2 / d1 : 0;

		/* within a tenth of the gap between r^2 and r: not the first mode's own rate */
		if (rho > 0 && fabs(rho - r * r) <= CORE_HOLD_TAIL_SQUARE_REL * (r - r * r))
			t->limit.c[0] = plain + d2 * rho / (1 - rho);
	}
	t->v_seen[0] = t->v_seen[1];
	t->v_seen[1] = plain;
	t->v_count = t->v_count < 2 ? t->v_count + 1 : 2;
}

/* Observe the state v (height z; its noise: sim_noise) after step k of a run of n steps
 * (n <= k: the height is not predicted). Returns 1 when the prediction can be taken
 * (t->r, limit, z_end): every coordinate moves in one mode (its change is r times its
 * last one, to CORE_HOLD_TAIL_MODE_REL or its rounding), is within CORE_HOLD_TAIL_NEAR of
 * its limit, and the predictions agreed CORE_HOLD_TAIL_AGREE times in a row. A transient
 * of several modes (the pads still settling while the speed looks steady) fails the
 * first test. */
static int tail_observe(const struct core_pinch_model *m, struct tail *t, const struct sim_vec *v,
    const double *noise, const double *moved, double z, long k, long n)
{
	const struct sim_vec *a, *b;
	double d0 = 0, d1 = 0, r, vz = v->c[0], lead = 0;
	struct tail_end zn = {z, vz, 0, 0, m->timestep, n - k};
	int agree, mode = 1, i;

	t->last[t->head] = *v;
	t->head = t->head == 2 ? 0 : t->head + 1;
	a = &t->last[t->head];
	b = &t->last[t->head == 2 ? 0 : t->head + 1];
	if (++t->seen < 3)
		return 0;
	/* the mode's ratio, from the coordinate that moves most above its rounding (the
	 * speed while the object creeps; a pad while a held object sits still) */
	for (i = 0; i < v->n; i++) {
		double e1 = moved[i];

		if (e1 > lead) {
			lead = e1;
			d0 = b->c[i] - a->c[i];
			d1 = v->c[i] - b->c[i];
		}
	}
	r = d1 / d0;
	if (!(lead > 1 && d0 != 0 && r > 0 && r <= CORE_HOLD_TAIL_MAX_RATIO)) {
		t->agreed = 0;
		t->r = 0;
		t->v_count = 0;
		return 0;
	}
	t->limit.speeds = v->speeds;
	t->limit.n = v->n;
	for (i = 0; i < v->n; i++) {
		double e0 = b->c[i] - a->c[i], e1 = v->c[i] - b->c[i];

		mode &= fabs(e1 - r * e0) <= CORE_HOLD_TAIL_MODE_REL * fabs(e1) + noise[i];
		t->limit.c[i] = v->c[i] + e1 * r / (1 - r);
	}
	tail_accelerate(t, r);
	zn.v = t->limit.c[0];
	zn.r = r;
	agree = mode && t->r > 0 && fabs(r - t->r) <= CORE_HOLD_TAIL_RATIO_REL * r &&
	    fabs(t->limit.c[0] - t->v_end) <=
	        CORE_HOLD_TAIL_SPEED_REL * fabs(t->limit.c[0]) + CORE_HOLD_TAIL_SPEED_ABS;
	if (agree) {
		double h1 = tail_end_height(&zn), h0 = tail_end_height(&t->end);

		agree = fabs(h1 - h0) <=
		    CORE_HOLD_TAIL_HEIGHT_REL * fabs(h1) + CORE_HOLD_TAIL_HEIGHT_ABS;
	}
	t->agreed = agree ? t->agreed + 1 : 0;
	t->r = r;
	t->v_end = t->limit.c[0];
	t->end = zn;
	/* descending (or rising) all the way to the limit, so that the height is monotone
	 * (or held, the limit speed within its rounding of 0) */
	return t->agreed >= CORE_HOLD_TAIL_AGREE && tail_near(m, &t->limit, v, noise) &&
	    ((vz < 0 && t->limit.c[0] < 0) || (vz > 0 && t->limit.c[0] > 0) ||
	        fabs(t->limit.c[0]) <= CORE_HOLD_STEADY_ABS);
}

/* The transient's last steps as a damped oscillation (a servo's pads ring for tens of
 * steps after the object's speed has settled): every coordinate's successive changes
 * follow one second-order recurrence d' = a d + b d'' (struct tail's single mode is
 * a = r, b = 0), or the vertical speed's a geometric mode of its own, d' = r d: under
 * the elliptic cone the creep does not depend on the grip, and the speed settles by
 * its own ratio (0.79 a step in issue 48's servo scenes) while the pads ring (0.92). */
struct ring {
	struct sim_vec last[5]; /* the last five states, the oldest at last[head] */
	int head;
	long seen;
	int agreed;
	double a, b;      /* the recurrence; a = b = 0: no prediction */
	double v_end;     /* the limit vertical speed */
	double z_end;     /* the height at the run's last step */
	double e0, e1;    /* the vertical speed's distance from its limit, now and a step before */
	double r;         /* > 0: the vertical speed's own geometric mode (ratio r), not (a, b) */
	struct sim_vec limit;
};

/* m = m * n, 2x2 row-major */
static void mat2_mul(double *m, const double *n)
{
	double r[4] = {m[0] * n[0] + m[1] * n[2], m[0] * n[1] + m[1] * n[3],
	    m[2] * n[0] + m[3] * n[2], m[2] * n[1] + m[3] * n[3]};

	memcpy(m, r, sizeof r);
}

/* The sum over the next j steps of the recurrence's (a, b) deviation from its limit,
 * e_k = e0, e_{k-1} = e1: the first component of C (I - C^j) (I - C)^-1 (e0, e1),
 * C = [a b; 1 0], C^j by squaring */
static double ring_sum(double a, double b, double e0, double e1, long j)
{
	double P[4] = {1, 0, 0, 1}, C[4] = {a, b, 1, 0}, M[4], det = (1 - a) - b, x0, x1;

	for (; j > 0; j >>= 1) {
		if (j & 1)
			mat2_mul(P, C);
		mat2_mul(C, C);
	}
	/* (I - C)^-1 (e0, e1) = [1 b; 1 1-a] (e0, e1) / det */
	x0 = (e0 + b * e1) / det;
	x1 = (e0 + (1 - a) * e1) / det;
	/* C (I - P) */
	M[0] = 1 - P[0];
	M[1] = -P[1];
	M[2] = -P[2];
	M[3] = 1 - P[3];
	return a * (M[0] * x0 + M[1] * x1) + b * (M[2] * x0 + M[3] * x1);
}

/* The sum over the next j steps of a geometric mode of ratio r whose deviation from its
 * limit is e0 now: e0 r (1 - r^j) / (1 - r) */
static double geo_sum(double r, double e0, long j)
{
	return e0 * r * (1 - tail_pow(r, j)) / (1 - r);
}

static double ring_height(const struct ring *t, double z, double v, long j, double h)
{
	if (t->r > 0)
		return z + h * ((double)j * v + geo_sum(t->r, t->e0, j));
	return z + h * ((double)j * v + ring_sum(t->a, t->b, t->e0, t->e1, j));
}

/* The recurrence's roots inside CORE_HOLD_TAIL_MAX_RATIO: it decays */
static int ring_decays(double a, double b)
{
	double disc = a * a + 4 * b, rmax = CORE_HOLD_TAIL_MAX_RATIO;

	if (disc < 0)
		return -b < rmax * rmax; /* complex pair, modulus sqrt(-b) */
	return fabs(a) / 2 + sqrt(disc) / 2 < rmax;
}

/* tail_observe for a damped oscillation: 1 when the prediction can be taken. The
 * recurrence is fitted on the coordinate that moves most, every other coordinate must
 * follow it (the vertical speed, when another coordinate leads and rings, may follow a
 * geometric mode of its own instead, its ratio steady to CORE_HOLD_RING_OWN_REL and
 * agreeing with the step before's as tail_observe's), be within CORE_HOLD_TAIL_NEAR of its limit,
 * the predictions agree CORE_HOLD_TAIL_AGREE times in a row, and the vertical speed keep
 * its sign for good (the height monotone, as run_first asks). */
static int ring_observe(const struct core_pinch_model *m, struct ring *t, const struct sim_vec *v,
    const double *noise, const double *moved, double z, long k, long n)
{
	double D[4], lead = 0, a, b, det, zn = 0, vmax, e, ep, en, geo = 0;
	const struct sim_vec *last[4]; /* the four states before v, oldest first */
	int i, j, mode = 1, agree, li = 0;

	t->last[t->head] = *v;
	t->head = t->head == 4 ? 0 : t->head + 1;
	if (++t->seen < 5)
		return 0;
	for (j = 0, i = t->head; j < 4; j++, i = i == 4 ? 0 : i + 1)
		last[j] = &t->last[i];
	for (i = 0; i < v->n; i++) {
		double e1 = moved[i];

		if (e1 > lead) {
			lead = e1;
			li = i;
		}
	}
	D[0] = last[1]->c[li] - last[0]->c[li];
	D[1] = last[2]->c[li] - last[1]->c[li];
	D[2] = last[3]->c[li] - last[2]->c[li];
	D[3] = v->c[li] - last[3]->c[li];
	det = D[2] * D[0] - D[1] * D[1];
	if (!(lead > 1) || !(fabs(det) > 0)) {
		t->agreed = 0;
		t->a = t->b = t->r = 0;
		return 0;
	}
	a = (D[3] * D[0] - D[2] * D[1]) / det;
	b = (D[2] * D[2] - D[3] * D[1]) / det;
	if (!ring_decays(a, b) || !(fabs(1 - a - b) > 0)) {
		t->agreed = 0;
		t->a = t->b = t->r = 0;
		return 0;
	}
	t->limit.speeds = v->speeds;
	t->limit.n = v->n;
	for (i = 0; i < v->n && mode; i++) {
		double d0 = last[2]->c[i] - last[1]->c[i], d1 = last[3]->c[i] - last[2]->c[i];
		double d2 = v->c[i] - last[3]->c[i], r;

		if (fabs(d2 - (a * d1 + b * d0)) <= CORE_HOLD_TAIL_MODE_REL * fabs(d2) + noise[i]) {
			t->limit.c[i] = v->c[i] + ((a + b) * d2 + b * d1) / (1 - a - b);
			continue;
		}
		/* the vertical speed in a mode of its own (d1 = r d0, d2 = r d1), above its
		 * rounding as the tail's lead, while the lead rings (a complex pair: a lead in
		 * one geometric mode fits any (a, b) with that root, and is the tail's) */
		r = d1 != 0 ? d2 / d1 : 0;
		mode = i == 0 && li != 0 && a * a + 4 * b < 0 && moved[0] > 1 && r > 0 &&
		    r <= CORE_HOLD_TAIL_MAX_RATIO &&
		    fabs(d1 - r * d0) <= CORE_HOLD_RING_OWN_REL * fabs(d1) + noise[i];
		geo = r;
		t->limit.c[i] = v->c[i] + d2 * r / (1 - r);
	}
	if (!mode) {
		/* not (yet) one ringing mode: the cheap test first, the sums only once it holds */
		t->agreed = 0;
		t->a = a;
		t->b = b;
		t->r = 0;
		t->z_end = NAN;
		return 0;
	}
	if (n > k && geo > 0)
		zn = z + m->timestep * ((double)(n - k) * t->limit.c[0] +
		                           geo_sum(geo, v->c[0] - t->limit.c[0], n - k));
	else if (n > k)
		zn = z + m->timestep * ((double)(n - k) * t->limit.c[0] +
		                           ring_sum(a, b, v->c[0] - t->limit.c[0],
		                               last[3]->c[0] - t->limit.c[0], n - k));
	agree = mode && (t->a != 0 || t->b != 0) &&
	    (geo == 0 || t->r == 0 || fabs(geo - t->r) <= CORE_HOLD_TAIL_RATIO_REL * geo) &&
	    fabs(a - t->a) <= CORE_HOLD_TAIL_RATIO_REL * fabs(a) &&
	    fabs(b - t->b) <= CORE_HOLD_TAIL_RATIO_REL * fabs(b) &&
	    fabs(t->limit.c[0] - t->v_end) <=
	        CORE_HOLD_TAIL_SPEED_REL * fabs(t->limit.c[0]) + CORE_HOLD_TAIL_SPEED_ABS &&
	    fabs(zn - t->z_end) <= CORE_HOLD_TAIL_HEIGHT_REL * fabs(zn) + CORE_HOLD_TAIL_HEIGHT_ABS;
	t->agreed = agree ? t->agreed + 1 : 0;
	t->a = a;
	t->b = b;
	t->v_end = t->limit.c[0];
	t->z_end = zn;
	t->e0 = v->c[0] - t->limit.c[0];
	t->e1 = last[3]->c[0] - t->limit.c[0];
	t->r = geo;
	if (!(t->agreed >= CORE_HOLD_TAIL_AGREE && tail_near(m, &t->limit, v, noise) &&
	        ((v->c[0] < 0 && t->limit.c[0] < 0) || (v->c[0] > 0 && t->limit.c[0] > 0))))
		return 0;
	/* the speed keeps its sign: in its own mode it shrinks from e0 (0 < r < 1); in the
	 * ring's, its deviation from the limit, stepped on (a few hundred steps, by then
	 * below the rounding), stays smaller than the limit */
	if (geo > 0)
		return fabs(t->e0) < fabs(t->limit.c[0]);
	e = t->e0;
	ep = t->e1;
	vmax = fabs(e);
	for (j = 0; j < CORE_HOLD_RING_CHECK_STEPS && vmax < fabs(t->limit.c[0]); j++) {
		en = a * e + b * ep;
		ep = e;
		e = en;
		vmax = fabs(e) > vmax ? fabs(e) : vmax;
	}
	return vmax < fabs(t->limit.c[0]);
}

/* How a run ended. */
struct run_end {
	int known; /* the rest is known: 1 the state repeats, 2 the tail's mode, 3 its ring */
	int anchored; /* known 1 by the closed form: the speed stays at it (sim's anchor) */
	long bounces; /* the steps at which the pads left the object (see core_hold_solve) */
	long k;       /* the last step simulated */
	double z, vz; /* there */
	struct tail tail;
	struct ring ring;
};

/* The height j steps past the end of the simulated part */
static double run_height(const struct run_end *e, long j, double h)
{
	if (e->known == 2)
		return tail_height(e->z, e->vz, e->tail.v_end, e->tail.r, j, h);
	if (e->known == 3)
		return ring_height(&e->ring, e->z, e->ring.v_end, j, h);
	return tail_height(e->z, e->vz, e->vz, 0, j, h);
}

/* The first j in [1, jmax] whose height is past limit (-z >= limit, or |z| > limit when
 * above is set), or 0 when none: the height is monotone there (tail_observe). */
static long run_first(const struct run_end *e, long jmax, double limit, int above, double h)
{
	long lo = 0, hi = jmax; /* p(lo) false, p(hi) true */
	double z = run_height(e, jmax, h);

	if (!(above ? fabs(z) > limit : -z >= limit))
		return 0;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		z = run_height(e, mid, h);
		if (above ? fabs(z) > limit : -z >= limit)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Step w from step k0 on, at most to step n (the pads' height counts when track is
 * set: time_to_slip and falls are filled), stopping early when the rest is known or the
 * pads crush the object. */
static void run_steps(const struct core_hold *hq, struct sim *w, long k0, long n, int track,
    struct core_hold_answer *out, struct run_end *e)
{
	const struct core_pinch_model *m = w->m;
	double ht = m->timestep;
	struct sim_vec prev, cur;
	double noise[SIM_COORDS], moved[SIM_COORDS];
	long k, run = 0, anchored = 0, bounces;
	int touched = 1, touching, near, i;

	bounces = e->bounces;
	memset(e, 0, sizeof *e);
	e->bounces = bounces;
	sim_vec(w, &prev);
	sim_noise_start(m, &prev, noise);
	for (k = k0 + 1; k <= n; k++) {
		double z;

		/* stopped from outside (budget.h): the caller discards this answer */
		if ((k & (CORE_BUDGET_STEPS - 1)) == 0 && core_budget_poll())
			break;
		sim_step(w);
		z = sim_z(w);
		/* over the duration only (track): the steps the answer reports */
		if (track && sim_replaced(w))
			out->refsafe_replaced = 1;
		if (track && out->time_to_slip < 0 && -z >= hq->slip_limit)
			out->time_to_slip = (double)k * ht;
		if (core_pinch_crushed(m, sim_pad_q(w)) || !isfinite(sim_vz(w)) ||
		    sim_centre_in_pad(w)) {
			out->crushed = track || out->crushed;
			break;
		}
		touching = core_pinch_dist(m, sim_pad_q(w)) < m->contact.includemargin;
		e->bounces += touched && !touching;
		touched = touching;
		if (track && (-z > m->fall_z || z > m->fall_z)) {
			out->falls = 1;
			out->fall_time = (double)k * ht;
			break;
		}
		if (k == n)
			break;
		sim_vec(w, &cur);
		/* past the duration only the creep is read: a speed that repeats will do (the
		 * rest of the state may wander in its rounding) */
		sim_noise(&cur, noise);
		/* each coordinate's move over its rounding, which both observers rank */
		for (i = 0; i < cur.n; i++)
			moved[i] = fabs(cur.c[i] - prev.c[i]) / noise[i];
		/* from 3.11.0 Newton keeps a start within its tolerance, and the speed can
		 * circle the closed form's for good (MuJoCo's was seen to for 600 steps): there,
		 * the speed at the closed form's and the pads at rest counts as settled, the rest
		 * of the run at the closed form's speed */
		near = w->anchor != 0 &&
		    fabs(cur.c[0] - w->anchor) <= CORE_HOLD_ANCHOR_REL * fabs(w->anchor) &&
		    fabs(cur.c[1]) <= CORE_HOLD_ANCHOR_REL * fabs(w->anchor);
		anchored = near ? anchored + 1 : 0;
		run = sim_repeats(&prev, &cur, noise) || near ||
		        (!track &&
		            fabs(cur.c[0] - prev.c[0]) <=
		                CORE_HOLD_SETTLE_REL * fabs(cur.c[0]) + CORE_HOLD_SETTLE_ABS &&
		            sim_resting(&cur))
		    ? run + 1
		    : 0;
		if (run >= CORE_HOLD_SETTLE_RUN) {
			e->known = 1;
			e->anchored = anchored >= CORE_HOLD_SETTLE_RUN;
			break;
		}
		if (tail_observe(m, &e->tail, &cur, noise, moved, z, k, track ? n : k)) {
			e->known = 2;
			break;
		}
		if (ring_observe(m, &e->ring, &cur, noise, moved, z, k, track ? n : k)) {
			e->known = 3;
			break;
		}
		prev = cur;
	}
	e->k = k > n ? n : k;
	e->z = sim_z(w);
	e->vz = e->anchored ? w->anchor : sim_vz(w);
}

/* Whether the run that ended as e (its last step e->k, height e->z) survives a nudge:
 * the same scene from the pads' start backed off by CORE_HOLD_SHADOW_NUDGE of the radius
 * (the left pad alone in noslip's scene, so that an asymmetry can grow too), or pressed in
 * by as much after the first step, stepped as far, must end within CORE_HOLD_REPRODUCE_REL
 * (+ _ABS) of the same height. Pads that bounce off the object or sweep in a period-2
 * orbit can amplify rounding about 2.5x a step: there MuJoCo's own slip moves by 10% to 6x
 * when a pad starts 1e-15 m away, so no reproduction holds to 1e-6, and the answer says so
 * instead of giving a number. */
static int shadow_agrees(const struct core_hold *h, const struct core_pinch_model *m,
    const struct run_end *e, int pressed)
{
	struct sim w;
	struct run_end shadow = {0};
	struct core_hold_answer scratch;
	double nudge = CORE_HOLD_SHADOW_NUDGE * m->radius, z;
	long k0 = 0;

	memset(&scratch, 0, sizeof scratch);
	scratch.time_to_slip = scratch.fall_time = -1;
	sim_start(&w, m);
	/* a sphere's mirror-symmetric run is shadowed by the asymmetric step, the left pad
	 * alone nudged: pads that bounce can grow the mirror-odd mode (the object's x and tilt,
	 * the pads' difference) from MuJoCo's rounding, which the mirror step cannot see
	 * (docs/hold.md, "What the mirror-symmetric step cannot see") */
	if (!w.noslip && sim_asymmetric_serves(m))
		w.noslip = 1;
	if (pressed && e->k > 1) {
		/* pressed in after the first step: pads that come back to the touching pose
		 * (a servo's bounce) meet the object there an ulp inside or outside, as
		 * MuJoCo's arithmetic has it */
		run_steps(h, &w, 0, 1, 1, &scratch, &shadow);
		if (shadow.k < 1)
			return 0;
		k0 = 1;
		/* a few ulps of the pads' distance from the object, so that the contact's
		 * distance sees it (the start's nudge is below that) */
		nudge = CORE_HOLD_SHADOW_PRESS_ULPS * DBL_EPSILON * m->rest_dist;
		if (w.noslip)
			w.ns.qL += nudge;
		else
			w.s.q += nudge;
	} else if (w.noslip && core_pinch_start_asymmetric(m)) {
		/* backed off: the pads start just touching, where a contact turns on, and
		 * pressed in by the nudge they would touch one step sooner (a change of the
		 * scene, not of its rounding) */
		w.ns.qR -= nudge; /* the pad the start leaves out: the same contact set */
	} else if (w.noslip) {
		w.ns.qL -= nudge;
	} else {
		w.s.q -= nudge;
	}
	run_steps(h, &w, k0, e->k, 1, &scratch, &shadow);
	if (shadow.k < e->k) {
		/* it stopped sooner: its rest is known, or it fell or was crushed earlier */
		if (!shadow.known)
			return 0;
		z = run_height(&shadow, e->k - shadow.k, m->timestep);
	} else {
		z = shadow.z;
	}
	return fabs(z - e->z) <= CORE_HOLD_REPRODUCE_REL * fabs(e->z) + CORE_HOLD_REPRODUCE_ABS;
}

static int hold_reproducible(
    const struct core_hold *h, const struct core_pinch_model *m, const struct run_end *e)
{
	return shadow_agrees(h, m, e, 0) && shadow_agrees(h, m, e, 1);
}

/* Whether it holds, as MuJoCo steps it (issue #29): over the duration it neither left the
 * pads' faces nor descended slip_limit. The Coulomb comparison (load < friction_capacity)
 * is not that: MuJoCo's soft friction lets an object that passes it creep out of the grip. */
static void hold_verdict(struct core_hold_answer *out)
{
	int slipped = out->time_to_slip >= 0 && !out->time_to_slip_extrapolated;

	out->holds = !out->crushed && !out->falls && !slipped;
}

void core_hold_solve(const struct core_hold *h, struct core_hold_answer *out)
{
	struct core_pinch_model m;
	struct sim w;
	struct run_end e = {0};
	long n;
	double creep, pen, nf, grip, ht = h->option.timestep;
	int i, coulomb, steady;

	core_pinch_prepare(h, &m);
	out->load = -m.mass * m.a0_object;
	/* a servo's grip is its force where the pads come to rest */
	if (core_pinch_rest_force(&m, &grip) != 0)
		grip = 0;
	out->normal_force = grip;
	/* condim 1 is frictionless: nothing holds the object up */
	out->friction_capacity = m.contact.condim == 1 ? 0 : 2 * m.contact.friction[0] * grip;
	coulomb = out->load < out->friction_capacity;
	out->holds = 0; /* the run's verdict, set once the run is known (hold_verdict) */
	out->refsafe_clamped = m.gains.timeconst_used > 0 && !m.gains.fell_back &&
	    m.gains.timeconst_used > m.contact.solref[0];
	out->solref_fell_back = m.gains.fell_back;
	out->refsafe_replaced = 0; /* set by run_steps, step by step */
	/* the friction the pair takes (the higher priority's, else the larger), before
	 * MuJoCo raises each coefficient to mjMINMU */
	out->friction_clamped = 0;
	for (i = 0; i < 3; i++) {
		double fo = h->object.friction[i], fp = h->pad.friction[i];
		double used = h->pad.priority > h->object.priority ? fp
		    : h->object.priority > h->pad.priority         ? fo
		                                                   : (fo > fp ? fo : fp);

		if (used < MJ_MINMU)
			out->friction_clamped = 1;
	}
	out->falls = 0;
	out->crushed = 0;
	out->fall_time = -1;
	out->time_to_slip = -1;
	out->time_to_slip_extrapolated = 0;
	out->creep_closed_form = 0;
	out->creep_settled = 0;
	out->creep_velocity = out->penetration = 0;

	n = lround(h->duration / ht);
	sim_start(&w, &m);
	steady = !w.noslip && core_pinch_steady(&m, &creep, &pen, &nf) == 0;
	if (steady)
		w.anchor = -creep;
	run_steps(h, &w, 0, n, 1, out, &e);
	out->steps = out->stepped = e.k;
	out->slip = -e.z;
	/* a run that settled without a bounce is reproducible (its transient decayed); the
	 * others are checked by a nudged run */
	out->reproducible =
	    out->crushed || (e.known && e.bounces == 0) || hold_reproducible(h, &m, &e);
	if (e.known && e.k < n && !out->crushed) {
		/* the rest of the run in closed form: when it slips, when it falls */
		long left = n - e.k, j;

		if (out->time_to_slip < 0 && (j = run_first(&e, left, h->slip_limit, 0, ht)) > 0)
			out->time_to_slip = (double)(e.k + j) * ht;
		j = run_first(&e, left, m.fall_z, 1, ht);
		if (j > 0) {
			out->falls = 1;
			out->fall_time = (double)(e.k + j) * ht;
			out->steps = e.k + j;
			out->slip = -run_height(&e, j, ht);
		} else {
			out->steps = n;
			out->slip = -run_height(&e, left, ht);
		}
	}
	out->creep_steps = out->steps;
	if (out->crushed)
		return;
	hold_verdict(out);
	if (!coulomb) {
		/* below the Coulomb minimum the object slides ever faster: no steady creep */
		out->penetration = -core_pinch_dist(&m, sim_pad_q(&w));
		return;
	}
	if (!e.known && e.bounces <= CORE_HOLD_BOUNCE_MAX) {
		/* the creep as if the pads were long enough (the run ended at the duration, or
		 * where the object left the pads' faces): step on until it settles */
		long k0 = e.k;

		run_steps(h, &w, k0, k0 + CORE_HOLD_SETTLE_MAX_STEPS, 0, out, &e);
		out->creep_steps += e.k - k0;
	}
	/* pads that bounce off the object again and again leave it free between the hits:
	 * MuJoCo's free body picks up its rounding's asymmetry, the hits amplify it, and the
	 * mirror-symmetric (or noslip's) scene no longer follows it (a stiff direct solref
	 * was seen to settle here after 12,000 chaotic steps, and in MuJoCo never): a creep
	 * it settles to is not claimed */
	out->creep_settled = e.known != 0 && e.bounces <= CORE_HOLD_BOUNCE_MAX;
	if (e.known == 2) {
		out->creep_velocity = -e.tail.v_end;
		out->penetration = -core_pinch_dist(&m, sim_vec_pad_q(&e.tail.limit));
	} else if (e.known == 3) {
		out->creep_velocity = -e.ring.v_end;
		out->penetration = -core_pinch_dist(&m, sim_vec_pad_q(&e.ring.limit));
	} else {
		out->creep_velocity = e.known ? -e.vz : 0;
		out->penetration = -core_pinch_dist(&m, sim_pad_q(&w));
	}
	if (!out->creep_settled)
		out->creep_velocity = 0;
	if (steady && out->creep_settled &&
	    fabs(creep - out->creep_velocity) <= CORE_HOLD_ANCHOR_REL * fabs(creep)) {
		/* the loop settled where the closed form says (within the solver's circling
		 * about it): report the exact value */
		out->creep_velocity = creep;
		out->penetration = pen;
		out->creep_closed_form = 1;
	}
	if (out->time_to_slip < 0 && !out->falls && out->creep_settled && out->creep_velocity > 0) {
		out->time_to_slip =
		    (double)n * ht + (h->slip_limit - out->slip) / out->creep_velocity;
		out->time_to_slip_extrapolated = 1;
	}
}
