/*
 * lanes_kernel.h: the body of the lanes (lanes.c's header says what they do and why
 * each lane keeps its point's bits), written once for any vector width. A kernel
 * file defines LANES (4 or 8), KERNEL_NAME and KERNEL_ATTR, forbids contraction and
 * includes it: lanes.c (4 lanes: AVX2 without FMA, or the baseline) and lanes512.c
 * (8 lanes: AVX-512 without FMA). Not a header of the core's interface.
 */
#ifndef LANES
#error "define LANES, KERNEL_NAME and KERNEL_ATTR before including lanes_kernel.h"
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/lanes.h"
#include "core/knobs.h"

/* the vector helpers must melt into the kernel (and into each of its clones) */
#define INLINE static inline __attribute__((always_inline))

typedef double vd __attribute__((vector_size(LANES * sizeof(double))));
typedef int64_t vi __attribute__((vector_size(LANES * sizeof(double))));

/* a where m (all ones), else b: bits moved, never arithmetic */
#define SEL(m, a, b) ((vd)(((vi)(a) & (m)) | ((vi)(b) & ~(m))))
#define SPLAT(x) ((vd){0} + (x)) /* x must not be -0: 0 + -0 is +0 */
#define SPLAT_I(x) ((vi){0} + (x))

/* Is any lane of m set? A tree of ORs over halves, not a loop over lanes. */
INLINE int any(vi m)
{
#if defined(__GNUC__) && !defined(__clang__)
#if LANES == 8
	m |= __builtin_shuffle(m, (vi){4, 5, 6, 7, 0, 1, 2, 3});
	m |= __builtin_shuffle(m, (vi){2, 3, 0, 1, 6, 7, 4, 5});
	m |= __builtin_shuffle(m, (vi){1, 0, 3, 2, 5, 4, 7, 6});
#else
	m |= __builtin_shuffle(m, (vi){2, 3, 0, 1});
	m |= __builtin_shuffle(m, (vi){1, 0, 3, 2});
#endif
	return m[0] != 0;
#else
	int64_t acc = 0;
	int j;

	for (j = 0; j < LANES; j++)
		acc |= m[j];
	return acc != 0;
#endif
}

/* The constants of one lane's point, lane-wise: a scene model spread over vectors. */
struct params {
	vd half_height, includemargin;
	/* impedance (core_law_impedance) */
	vd d0, d1, width, midpoint, power, scale_below, scale_above, flat_value;
	vi flat, power1, power2, power_other;
	/* gains, R, solve */
	vd neg_B, K, diag_raw, pyramid_scale, impratio_clamped, friction0;
	vi R_single, R_scaled, R_general;
	vd mass, a0, qfrc, rows, certificate_scale, timestep;
	vi rk4, certificate; /* certificate: the warm Euler step with the Newton exit */
	/* the discrete integrator: its rows (scene.c's row_R0 and core_law_discrete_gains) */
	vi discrete, discrete_refsafe;
	vd R_floor, h2; /* h2: timestep * timestep, as the scalar code's h * h */
	/* how many live lanes need the rare paths: they run only when some lane does */
	int n_power_other, n_R_general, n_rk4, n_euler, n_discrete;
};

/* The running state of the lanes' drops. */
struct lane_state {
	vd z, vel, warm;
	vd step, steps, first_jitter; /* step index, step count, first step of the window */
	vd peak, max_height, rebound, touched, bottom;
	vd first_rebound, left, first_done; /* sim.c's first bounce: 0 or 1 flags */
	vd count, mean, m2;
	vd sum;    /* the window's bottoms summed in order (a press's depth) */
	vi active; /* all ones: the lane holds a point */
};

/* Bookkeeping per lane: which point it holds. */
struct lane_slot {
	long index; /* the feed's index, -1: idle */
	double height;
};

INLINE vd vabs(vd x)
{
	return (vd)((vi)x & SPLAT_I(INT64_MAX));
}

/* core_law_impedance(r) per lane (no derivative). */
INLINE vd impedance(const struct params *p, vd r)
{
	vd x = vabs(r) / p->width, y, imp;
	vi le = x <= p->midpoint;
	vd a = SEL(le, p->scale_below, p->scale_above);
	vd u = SEL(le, x, 1 - x);
	vd uu = a * (u * u);
	vd y2 = SEL(le, uu, 1 - uu);

	y = SEL(p->power1, x, y2);
	if (p->n_power_other > 0) {
		vd yo = y;
		int j;

		for (j = 0; j < LANES; j++)
			if (p->power_other[j])
				yo[j] = x[j] <= p->midpoint[j]
				    ? p->scale_below[j] * pow(x[j], p->power[j])
				    : 1 - p->scale_above[j] * pow(1 - x[j], p->power[j]);
		y = yo;
	}
	imp = p->d0 + y * (p->d1 - p->d0);
	imp = SEL(x <= 0, p->d0, imp);
	imp = SEL(x >= 1, p->d1, imp);
	return SEL(p->flat, p->flat_value, imp);
}

/* max2(a, b) of scene.c: a > b ? a : b */
INLINE vd vmax2(vd a, vd b)
{
	return SEL(a > b, a, b);
}

/* scene.c's cone_adjust(R0) per lane. */
INLINE vd cone_adjust(const struct params *p, vd R0)
{
	vd R = SEL(p->R_scaled, p->pyramid_scale * R0, R0);

	if (p->n_R_general > 0) {
		int j;

		for (j = 0; j < LANES; j++)
			if (p->R_general[j]) {
				double R1 = R0[j] / p->impratio_clamped[j];
				double mu = p->friction0[j] * sqrt(R1 / R0[j]);
				R[j] = 2 * mu * mu * R0[j];
			}
	}
	return R;
}

/* certified_accel of scene.c per lane. */
INLINE vd certified(const struct params *p, vd aref, vd R, vd warm, vd exact)
{
	vd D = 1 / R, n = p->rows, scale = p->certificate_scale, start, x, grad, gap;
	vd xw = warm - aref, xs = p->a0 - aref;
	vd cost_warm = 0.5 * (p->mass * warm - p->qfrc) * (warm - p->a0);
	vd cost_smooth = SPLAT(0);
	vi ok;

	cost_warm = SEL(xw < 0, cost_warm + n * (0.5 * D * xw * xw), cost_warm);
	cost_smooth = SEL(xs < 0, cost_smooth + n * (0.5 * D * xs * xs), cost_smooth);
	start = SEL(cost_warm > cost_smooth, p->a0, warm);
	x = start - aref;
	grad = p->mass * start - p->qfrc + SEL(x < 0, n * D * x, SPLAT(0));
	gap = vmax2(SPLAT(0), 0.5 * scale * (grad * (grad / p->mass)));
	ok = (scale * vabs(grad) < MJ_TOLERANCE) & (gap < MJ_TOLERANCE);
	return SEL(ok, start, exact);
}

/* accel of scene.c per lane; warm applies where `certify` is set. */
INLINE vd accel(const struct params *p, vd z, vd vel, vd warm, vi certify)
{
	vd dist = z - p->half_height;
	vi contact = dist < p->includemargin;
	vd r;

	/* no lane in contact (a fall, a bounce): every lane's answer is a0 */
	if (!any(contact))
		return p->a0;
	r = dist - p->includemargin;
	vd imp = impedance(p, r);
	vd aref = p->neg_B * vel - p->K * imp * r;
	vd R0 = vmax2(SPLAT(MJ_MINVAL), (1 - imp) * p->diag_raw / imp);

	if (p->n_discrete > 0 && any(p->discrete & contact)) {
		/* core_law_discrete_gains, core_law_aref_discrete and row_R0 of the discrete
		 * lanes; the others keep Euler's aref and R0 */
		vd K = p->K, neg_B = p->neg_B, s, aref_d;
		vd q = p->h2 * p->K * imp;
		vi replace = p->discrete_refsafe & (q > 1);

		if (any(replace & contact)) {
			int j;
			/* B' = B / sqrt(q), so -B' = -B / sqrt(q) exactly: IEEE sqrt and
			 * division are correctly rounded and sign-symmetric */
			for (j = 0; j < LANES; j++)
				if (replace[j]) {
					neg_B[j] = p->neg_B[j] / sqrt(q[j]);
					K[j] = 1 / (p->h2[j] * imp[j]);
				}
		}
		s = 1 + p->timestep * -neg_B + p->h2 * K * imp;
		aref_d = (neg_B * vel - K * imp * (r + p->timestep * vel)) / s;
		aref = SEL(p->discrete, aref_d, aref);
		R0 = SEL(p->discrete, vmax2(R0 / s, p->R_floor), R0);
	}
	vd R = cone_adjust(p, R0);
	vd solved = (p->mass * p->a0 * R + p->rows * aref) / (p->mass * R + p->rows);
	vd acc = SEL(p->a0 >= aref, p->a0, solved);

	if (any(certify & contact))
		acc = SEL(certify, certified(p, aref, R, warm, acc), acc);
	return SEL(contact, acc, p->a0);
}

/* step_rk4 of scene.c per lane: the new (z, vel) in *zo, *vo. */
INLINE void rk4(const struct params *p, vd z0, vd v0, vd *zo, vd *vo)
{
	static const double B[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
	const vd h = p->timestep;
	const vi none = {0};
	vd fv[4], fa[4], dv, da;
	int i;

	fv[0] = v0;
	fa[0] = accel(p, z0, v0, SPLAT(0), none);
	for (i = 1; i < 4; i++) {
		double w = i == 3 ? 1.0 : 0.5;
		vd zi = z0 + h * (fv[i - 1] * w);
		vd vi_ = v0 + (fa[i - 1] * w) * h;
		fv[i] = vi_;
		fa[i] = accel(p, zi, vi_, SPLAT(0), none);
	}
	dv = SPLAT(0);
	da = SPLAT(0);
	for (i = 0; i < 4; i++) {
		dv += fv[i] * B[i];
		da += fa[i] * B[i];
	}
	*zo = z0 + h * dv;
	*vo = v0 + da * h;
}

/* Put one point's constants into lane j. */
static void load_params(struct params *p, int j, const struct core_scene_model *m)
{
	const struct core_law_solimp *s = &m->solimp;
	int rk4_lane = m->integrator == CORE_SCENE_RK4;

	p->half_height[j] = m->half_height;
	p->includemargin[j] = m->contact.includemargin;
	p->d0[j] = s->d0;
	p->d1[j] = s->dwidth;
	p->width[j] = s->width;
	p->midpoint[j] = s->midpoint;
	p->power[j] = s->power;
	p->scale_below[j] = s->scale_below;
	p->scale_above[j] = s->scale_above;
	p->flat_value[j] = 0.5 * (s->d0 + s->dwidth);
	p->flat[j] = -(int64_t)(s->d0 == s->dwidth || s->width <= MJ_MINVAL);
	p->power1[j] = -(int64_t)(s->power == 1);
	p->power2[j] = -(int64_t)(s->power == 2);
	p->power_other[j] = -(int64_t)(s->power != 1 && s->power != 2);
	p->neg_B[j] = -m->gains.B;
	p->K[j] = m->gains.K;
	p->diag_raw[j] = m->diag_raw;
	p->pyramid_scale[j] = m->pyramid_scale;
	p->impratio_clamped[j] = MJ_MINVAL > m->impratio ? MJ_MINVAL : m->impratio;
	p->friction0[j] = m->friction0;
	p->R_single[j] = -(int64_t)(m->rows_per_contact == 1);
	p->R_scaled[j] = -(int64_t)(m->rows_per_contact != 1 && m->pyramid_scale > 0);
	p->R_general[j] = -(int64_t)(m->rows_per_contact != 1 && !(m->pyramid_scale > 0));
	p->mass[j] = m->mass;
	p->a0[j] = m->a0;
	p->qfrc[j] = m->qfrc;
	p->rows[j] = m->rows;
	p->certificate_scale[j] = m->certificate_scale;
	p->timestep[j] = m->timestep;
	p->rk4[j] = -(int64_t)rk4_lane;
	p->discrete[j] = -(int64_t)(m->discrete != 0);
	/* core_law_discrete_gains never replaces a direct-form row */
	p->discrete_refsafe[j] = -(int64_t)(m->discrete_refsafe && !m->gains.direct);
	p->R_floor[j] = m->R_floor;
	p->h2[j] = m->timestep * m->timestep;
	p->certificate[j] = -(int64_t)(!rk4_lane && m->rules.newton_certificate);
}

/* Start lane j on a point (sim.c's initial state). */
static void load_state(const struct core_lanes_feed *feed, struct lane_state *st, int j,
    const struct core_scene_model *m, double height, long n)
{
	long window = feed->press
	    ? core_sim_press_window(n, core_sim_step_count(feed->press_window, m->timestep))
	    : lround(JITTER_WINDOW / m->timestep);

	st->z[j] = height + m->half_height;
	st->vel[j] = 0;
	st->warm[j] = 0;
	st->step[j] = 0;
	st->steps[j] = (double)n;
	st->first_jitter[j] = (double)(n > window ? n - window : 0);
	st->peak[j] = -INFINITY;
	st->max_height[j] = -INFINITY;
	st->rebound[j] = 0;
	st->first_rebound[j] = 0;
	st->left[j] = 0;
	st->first_done[j] = 0;
	st->touched[j] = 0;
	st->bottom[j] = height;
	st->count[j] = 0;
	st->mean[j] = 0;
	st->m2[j] = 0;
	st->sum[j] = 0;
}

/* Move lane j on to a free fall's end (lanes.h's start): the state and extremes after its
 * steps; nothing else moves in a fall (no touch, no jitter window). */
static void load_start(struct lane_state *st, int j, const struct core_sim_start *s)
{
	st->z[j] = s->z;
	st->vel[j] = s->vel;
	st->warm[j] = s->warm;
	st->step[j] = (double)s->steps;
	st->peak[j] = s->peak;
	st->max_height[j] = s->max_height;
	st->bottom[j] = s->bottom;
}

static int same_bits(double a, double b)
{
	uint64_t x, y;

	memcpy(&x, &a, sizeof x);
	memcpy(&y, &b, sizeof y);
	return x == y;
}

/*
 * The jitter's remaining window steps of a lane at rest on bottom b (see the
 * shortcut's proof above): sim.c's Welford update, stopped once (mean, m2) repeats
 * bit for bit, the remaining steps then only counted.
 */
static void finish_window(
    double b, long from, long n, long first_jitter, double *count, double *mean, double *m2)
{
	long i = from > first_jitter ? from : first_jitter;

	for (; i < n; i++) {
		double delta = b - *mean, c = *count + 1;
		double mean_next = *mean + delta / c;
		double m2_next = *m2 + delta * (b - mean_next);

		*count = c;
		if (same_bits(mean_next, *mean) && same_bits(m2_next, *m2)) {
			*count += (double)(n - 1 - i);
			return;
		}
		*mean = mean_next;
		*m2 = m2_next;
	}
}

/* Lane j's answer (sim.c's closing lines), its remaining steps at rest if `at_rest`; a first
 * bounce's only first_rebound and final_penetration (lanes.h). */
static void finish(const struct lane_state *st, int j, double height, int at_rest, int first_bounce,
    struct core_sim_drop *out)
{
	long n = (long)st->steps[j];
	double count = st->count[j], mean = st->mean[j], m2 = st->m2[j];

	if (first_bounce) {
		out->peak_penetration = out->max_height = out->rebound = out->jitter = NAN;
		out->first_rebound = st->first_rebound[j];
		out->final_penetration = -st->bottom[j];
		out->energy_gain = 0;
		out->steps = n;
		return;
	}
	if (at_rest)
		finish_window(st->bottom[j], (long)st->step[j], n, (long)st->first_jitter[j],
		    &count, &mean, &m2);
	out->peak_penetration = st->peak[j];
	out->max_height = st->max_height[j];
	out->rebound = st->rebound[j];
	out->first_rebound = st->first_rebound[j];
	out->jitter = count > 0 ? sqrt(m2 / count) : 0;
	out->final_penetration = -st->bottom[j];
	out->energy_gain = out->rebound > height;
	out->steps = n;
}

/* Lane j's press (core_sim_press()'s answer but its spread, lanes.h), its remaining steps at
 * rest if `at_rest`: the window's sum goes on in order over the repeated bottom, as the scalar
 * press's does over its period's. The penetration is -bottom, and IEEE arithmetic is
 * sign-symmetric, so the sum of bottoms negated is the scalar press's sum of penetrations, bit
 * for bit. */
static void finish_press(const struct lane_state *st, int j, int at_rest, struct core_sim_press *out)
{
	long n = (long)st->steps[j], i = (long)st->step[j], first = (long)st->first_jitter[j];
	double count = st->count[j], sum = st->sum[j];
	double b = st->bottom[j];

	if (at_rest)
		for (i = i > first ? i : first; i < n; i++) {
			count += 1;
			sum += b;
		}
	out->depth = count > 0 ? -sum / count : 0;
	out->spread = NAN;
	out->peak = st->peak[j] > 0 ? st->peak[j] : 0;
	out->lift = st->max_height[j] > 0 ? st->max_height[j] : 0;
	out->period = at_rest ? 1 : 0;
	out->steps = n;
	out->stepped = (long)st->step[j];
}

/* A point with no steps: sim.c's answer without a loop. */
static void finish_empty(double height, struct core_sim_drop *out)
{
	out->peak_penetration = -height;
	out->max_height = height;
	out->rebound = 0;
	out->first_rebound = 0;
	out->jitter = 0;
	out->final_penetration = -height;
	out->energy_gain = 0 > height;
	out->steps = 0;
}

/* Count the live lanes on each rare path (params' n_ fields). */
static void count_paths(struct params *p, const struct lane_state *st)
{
	int j;

	p->n_power_other = p->n_R_general = p->n_rk4 = p->n_euler = p->n_discrete = 0;
	for (j = 0; j < LANES; j++) {
		if (!st->active[j])
			continue;
		p->n_power_other += p->power_other[j] != 0;
		p->n_R_general += p->R_general[j] != 0;
		p->n_rk4 += p->rk4[j] != 0;
		p->n_discrete += p->discrete[j] != 0;
		p->n_euler += p->rk4[j] == 0;
	}
}

/* Give lane j the feed's next point with steps; idle (index -1) when none is left. */
static void refill(const struct core_lanes_feed *feed, struct params *p, struct lane_state *st,
    struct lane_slot *slot, int j)
{
	struct core_scene_model m;
	double height, duration;
	long index;

	for (;;) {
		index = feed->next(feed->ctx, &m, &height, &duration);
		if (index < 0)
			break;
		long n = core_sim_step_count(duration, m.timestep);
		if (n > 0) {
			const struct core_sim_start *s =
			    feed->start ? feed->start(feed->ctx, index) : NULL;

			load_params(p, j, &m);
			load_state(feed, st, j, &m, height, n);
			if (s && s->steps > 0 && s->steps < n &&
			    s->steps <= (long)st->first_jitter[j] &&
			    core_sim_start_fits(s, &m, height))
				load_start(st, j, s);
			slot[j].index = index;
			slot[j].height = height;
			st->active[j] = -1;
			return;
		}
		if (feed->press) {
			struct core_sim_press press = {0};
			feed->done_press(feed->ctx, index, &press);
			continue;
		}
		struct core_sim_drop out;
		finish_empty(height, &out);
		feed->done(feed->ctx, index, &out);
	}
	slot[j].index = -1;
	/* an idle lane keeps stepping its last point's state harmlessly; it never reports */
	st->active[j] = 0;
}

/* GROUPS vectors stepped side by side: one step of one vector is a long chain of
 * dependent divisions; independent vectors fill the processor's pipelines meanwhile */
#define GROUPS 4

/* One vector's points: their constants, states and feed indices. */
struct group {
	struct params p;
	struct lane_state st;
	struct lane_slot slot[LANES];
};

/*
 * What a step keeps track of, by the feed's kind: each kind's step_group() is its own clone
 * (a constant argument of an inlined function), without the metrics its answers do not
 * report. A press (its depth, peak and lift) keeps no first bounce and no spread, a first
 * bounce (first_rebound, final_penetration) no extremes and no jitter: a third fewer
 * operations a step, which is what bounds the lanes (their divisions are not).
 */
enum step_kind { STEP_DROP, STEP_FIRST_BOUNCE, STEP_PRESS };

/* One step of every lane of g; lanes that finish report and take the next point.
 * Returns the number of lanes that went idle. */
INLINE int step_group(const struct core_lanes_feed *feed, struct group *g, const enum step_kind kind)
{
	struct params *p = &g->p;
	struct lane_state *st = &g->st;
	vd z = st->z, vel = st->vel, warm = st->warm, bottom;
	vd z_next = z, vel_next = vel, warm_next = warm;
	vi in_window, rest, finished;
	int j, idled = 0;

	if (p->n_euler > 0) {
		/* the Euler family (velocity first); the warmstart moves only where certified */
		vd acc = accel(p, z, vel, warm, p->certificate);
		vel_next = vel + acc * p->timestep;
		z_next = z + p->timestep * vel_next;
		warm_next = SEL(p->certificate, acc, warm);
	}
	if (p->n_rk4 > 0) {
		vd zr, vr;
		rk4(p, z, vel, &zr, &vr);
		z_next = SEL(p->rk4, zr, z_next);
		vel_next = SEL(p->rk4, vr, vel_next);
	}
	rest = ((vi)z_next == (vi)z) & ((vi)vel_next == (vi)vel) & ((vi)warm_next == (vi)warm);
	st->z = z_next;
	st->vel = vel_next;
	st->warm = warm_next;

	/* sim.c's metrics of this step */
	bottom = z_next - p->half_height;
	st->bottom = bottom;
	if (kind != STEP_FIRST_BOUNCE) {
		st->peak = SEL(-bottom > st->peak, -bottom, st->peak);
		st->max_height = SEL(bottom > st->max_height, bottom, st->max_height);
	}
	if (kind == STEP_DROP)
		st->rebound =
		    SEL(((vi)st->touched != 0) & (bottom > st->rebound), bottom, st->rebound);
	if (kind != STEP_PRESS) {
		/* sim.c's first bounce: until the step after its apex, once the body has left */
		vi open = ((vi)st->touched != 0) & ((vi)st->first_done == 0);
		vd leave = vmax2(SPLAT(0), p->includemargin);

		st->first_rebound =
		    SEL(open & (bottom > st->first_rebound), bottom, st->first_rebound);
		st->left = SEL(open & (bottom > leave), SPLAT(1), st->left);
		st->first_done =
		    SEL(open & ((vi)st->left != 0) & (vel_next < 0), SPLAT(1), st->first_done);
		st->touched = SEL(bottom < 0, SPLAT(1), st->touched);
	}
	in_window = st->step >= st->first_jitter;
	if (kind != STEP_FIRST_BOUNCE && any(in_window)) {
		vd count = st->count + 1;

		st->count = SEL(in_window, count, st->count);
		if (kind == STEP_DROP) {
			vd delta = bottom - st->mean;
			vd mean = st->mean + delta / count;
			vd m2 = st->m2 + delta * (bottom - mean);

			st->mean = SEL(in_window, mean, st->mean);
			st->m2 = SEL(in_window, m2, st->m2);
		} else {
			st->sum = SEL(in_window, st->sum + bottom, st->sum);
		}
	}
	st->step = st->step + 1;

	finished = ((st->step >= st->steps) | rest) & st->active;
	if (kind == STEP_FIRST_BOUNCE)
		finished = finished | (((vi)st->first_done != 0) & st->active);
	if (!any(finished))
		return 0;
	for (j = 0; j < LANES; j++) {
		struct core_sim_drop out;

		if (!finished[j])
			continue;
		if (kind == STEP_PRESS) {
			struct core_sim_press press;

			finish_press(st, j, st->step[j] < st->steps[j], &press);
			feed->done_press(feed->ctx, g->slot[j].index, &press);
		} else {
			/* at rest, the remaining steps' statistics follow; not so for a first
			 * bounce */
			finish(st, j, g->slot[j].height,
			    st->step[j] < st->steps[j] && kind != STEP_FIRST_BOUNCE,
			    kind == STEP_FIRST_BOUNCE, &out);
			feed->done(feed->ctx, g->slot[j].index, &out);
		}
		refill(feed, p, st, g->slot, j);
		idled += g->slot[j].index < 0;
	}
	count_paths(p, st);
	return idled;
}

/* The kernel's loop for one kind of feed (step_group()'s clones). */
INLINE void run(const struct core_lanes_feed *feed, struct group *groups, int *group_live, int live,
    const enum step_kind kind)
{
	int k;

	/* a group whose lanes are all idle is not stepped: a lane goes idle only once the
	 * feed is empty, so it never takes a point again (a small batch, a fit's one pad,
	 * steps one vector, not GROUPS) */
	while (live > 0)
		for (k = 0; k < GROUPS; k++)
			if (group_live[k] > 0) {
				int idled = step_group(feed, &groups[k], kind);

				group_live[k] -= idled;
				live -= idled;
			}
}

KERNEL_ATTR void KERNEL_NAME(const struct core_lanes_feed *feed)
{
	struct group groups[GROUPS];
	int j, k, live = 0, group_live[GROUPS];

	memset(groups, 0, sizeof groups);
	for (k = 0; k < GROUPS; k++) {
		struct group *g = &groups[k];

		group_live[k] = 0;
		for (j = 0; j < LANES; j++) {
			/* harmless constants for a lane that never gets a point */
			g->p.width[j] = g->p.midpoint[j] = g->p.power[j] = g->p.mass[j] = 1;
			g->p.rows[j] = g->p.diag_raw[j] = g->p.timestep[j] = 1;
			refill(feed, &g->p, &g->st, g->slot, j);
			group_live[k] += g->slot[j].index >= 0;
		}
		live += group_live[k];
		count_paths(&g->p, &g->st);
	}
	if (feed->press)
		run(feed, groups, group_live, live, STEP_PRESS);
	else if (feed->first_bounce)
		run(feed, groups, group_live, live, STEP_FIRST_BOUNCE);
	else
		run(feed, groups, group_live, live, STEP_DROP);
}
