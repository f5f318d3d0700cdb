/*
 * sim.c: the lesson's rest and drop experiments on a prepared scene, and the press.
 *
 * Heights are recorded after each step, as the lesson's experiment does; the
 * state is MuJoCo's (centre height, vertical speed), so trajectories agree with
 * mj_step step for step.
 */
#include "core/sim.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/budget.h"
#include "core/knobs.h"

long core_sim_step_count(double duration, double timestep)
{
	return lround(duration / timestep);
}

/* The decimation state of a trace: the current bucket's extremes. */
struct bucket {
	long size, left;       /* steps per bucket, steps left in this one */
	long lo_i, hi_i, last; /* step indices; last: the latest emitted */
	double lo, hi;
};

static void trace_put(struct core_sim_trace *tr, struct bucket *b, long i, double timestep, double z)
{
	if (i == b->last || tr->count >= tr->cap)
		return;
	tr->t[tr->count] = (double)(i + 1) * timestep;
	tr->z[tr->count] = z;
	tr->count++;
	b->last = i;
}

/* Emit the bucket's extremes in time order and start a new bucket. */
static void trace_flush(struct core_sim_trace *tr, struct bucket *b, double timestep)
{
	int low_first = b->lo_i < b->hi_i;

	b->left = b->size;
	trace_put(tr, b, low_first ? b->lo_i : b->hi_i, timestep, low_first ? b->lo : b->hi);
	trace_put(tr, b, low_first ? b->hi_i : b->lo_i, timestep, low_first ? b->hi : b->lo);
}

/* Bottom height z after step i: fold it into the bucket, emit the bucket when full. */
static void trace_step(
    struct core_sim_trace *tr, struct bucket *b, long i, double timestep, double z)
{
	if (b->left == b->size) {
		b->lo_i = b->hi_i = i;
		b->lo = b->hi = z;
	} else if (z < b->lo) {
		b->lo = z;
		b->lo_i = i;
	} else if (z > b->hi) {
		b->hi = z;
		b->hi_i = i;
	}
	if (--b->left == 0)
		trace_flush(tr, b, timestep);
}

void core_sim_drop(
    const struct core_scene_model *m, double height, double duration, struct core_sim_drop *out)
{
	core_sim_drop_trace(m, height, duration, out, NULL);
}

void core_sim_drop_trace(const struct core_scene_model *m, double height, double duration,
    struct core_sim_drop *out, struct core_sim_trace *trace)
{
	long n = core_sim_step_count(duration, m->timestep);
	long first_jitter = core_sim_first_jitter(m, duration);
	double z = height + m->half_height, vel = 0, warm = 0;
	double bottom = height;
	double mean = 0, m2 = 0; /* Welford's running variance: no buffer */
	long count = 0, i;
	int touched = 0, left = 0, first_done = 0;
	const double leave = fmax(0, m->contact.includemargin);
	struct bucket b = {1, 1, 0, 0, -1, 0, 0};

	if (trace) {
		/* the start and the last step, and two points per bucket between */
		long buckets = (long)(trace->cap - 2) / 2;

		b.size = b.left = n > buckets ? (n + buckets - 1) / buckets : 1;
		trace->t[0] = 0;
		trace->z[0] = height;
		trace->count = 1;
	}
	out->peak_penetration = -INFINITY;
	out->max_height = -INFINITY;
	out->rebound = 0;
	out->first_rebound = 0;
	for (i = 0; i < n; i++) {
		/* stopped from outside (budget.h): the caller discards this answer */
		if ((i & (CORE_BUDGET_STEPS - 1)) == CORE_BUDGET_STEPS - 1 && core_budget_poll())
			break;
		core_scene_step_warm(m, &z, &vel, &warm);
		bottom = z - m->half_height;
		if (-bottom > out->peak_penetration)
			out->peak_penetration = -bottom;
		if (bottom > out->max_height)
			out->max_height = bottom;
		if (touched && bottom > out->rebound)
			out->rebound = bottom;
		if (touched && !first_done) {
			/* the first bounce's apex, as fit/model.c's model_rebound() reads it */
			if (bottom > out->first_rebound)
				out->first_rebound = bottom;
			left |= bottom > leave;
			first_done = left && vel < 0;
		}
		if (bottom < 0)
			touched = 1;
		if (i >= first_jitter) {
			double delta = bottom - mean;
			count++;
			mean += delta / count;
			m2 += delta * (bottom - mean);
		}
		if (trace)
			trace_step(trace, &b, i, m->timestep, bottom);
	}
	if (trace && n > 0) {
		/* a partial last bucket, then the last step itself */
		if (b.left != b.size)
			trace_flush(trace, &b, m->timestep);
		trace_put(trace, &b, n - 1, m->timestep, bottom);
	}
	if (n == 0) {
		out->peak_penetration = -height;
		out->max_height = height;
	}
	out->jitter = count > 0 ? sqrt(m2 / count) : 0;
	out->final_penetration = -bottom;
	out->energy_gain = out->rebound > height;
	out->steps = n;
}

/* Periods of a press's state up to this many steps are recognised (sim.h); its recent
 * penetrations are kept in a ring of this size. A power of two. */
#define PRESS_RING 256
/* Beside Brent's search (whose saves grow to PRESS_RING steps apart), a state saved every
 * PRESS_SHORT steps catches a cycle no longer than that within two of them. */
#define PRESS_SHORT 32

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

int core_sim_press_model(const struct core_scene_model *m, double force, struct core_scene_model *out)
{
	if (!isfinite(force) || !(force >= -m->qfrc))
		return -1;
	*out = *m;
	/* MuJoCo's qfrc_smooth: (passive - bias) + J' xfrc, the applied force being the
	 * total less the weight (-m->qfrc is m*g as MuJoCo's bias has it) */
	out->qfrc = m->qfrc + -(force + m->qfrc);
	out->a0 = out->qfrc * (1 / m->mass);
	return 0;
}

long core_sim_press_window(long steps, long window_steps)
{
	return window_steps < 1 ? 1 : window_steps > steps ? steps : window_steps;
}

int core_sim_press(const struct core_scene_model *m, double force, double duration, double window,
    struct core_sim_press *out)
{
	struct core_scene_model pm;
	long n = core_sim_step_count(duration, m->timestep);
	long w = core_sim_step_count(window, m->timestep), first, i, power = 1, lam = 0;
	double z = m->half_height, vel = 0, warm = 0, sum = 0, mean = 0, m2 = 0, count = 0;
	double ref_z = z, ref_v = vel, ref_w = warm, ring[PRESS_RING];
	double short_z = z, short_v = vel, short_w = warm;
	long short_at = -1;

	if (core_sim_press_model(m, force, &pm) != 0 || n < 1)
		return -1;
	w = core_sim_press_window(n, w);
	first = n - w;
	out->peak = 0;
	out->lift = 0;
	out->period = 0;
	out->stepped = 0;
	for (i = 0; i < n; i++) {
		double pen, delta, last_z = z, last_v = vel, last_w = warm;

		if (out->period > 0) {
			/* the state repeats with this period: so does every later penetration */
			pen = ring[(i - out->period) & (PRESS_RING - 1)];
		} else {
			if ((i & (CORE_BUDGET_STEPS - 1)) == CORE_BUDGET_STEPS - 1 &&
			    core_budget_poll())
				break;
			core_scene_step_warm(&pm, &z, &vel, &warm);
			out->stepped++;
			pen = pm.half_height - z;
			if (pen > out->peak)
				out->peak = pen;
			if (-pen > out->lift)
				out->lift = -pen;
			/* Brent's cycle search: the state is compared with one saved at most
			 * PRESS_RING steps before; the step is a function of (z, vel, warm), so
			 * once one repeats bit for bit the whole sequence repeats */
			lam++;
			if (same_bits(z, ref_z) && same_bits(vel, ref_v) && same_bits(warm, ref_w))
				out->period = lam;
			else if (same_bits(z, last_z) && same_bits(vel, last_v) &&
			    same_bits(warm, last_w))
				out->period = 1; /* at rest: caught at once, not at the next save */
			else if (same_bits(z, short_z) && same_bits(vel, short_v) &&
			    same_bits(warm, short_w))
				out->period = i - short_at; /* a short cycle, caught early */
			if ((i & (PRESS_SHORT - 1)) == PRESS_SHORT - 1) {
				short_z = z;
				short_v = vel;
				short_w = warm;
				short_at = i;
			}
			if (out->period == 0 && lam == power) {
				ref_z = z;
				ref_v = vel;
				ref_w = warm;
				power = power < PRESS_RING ? 2 * power : PRESS_RING;
				lam = 0;
			}
		}
		ring[i & (PRESS_RING - 1)] = pen;
		if (i >= first) {
			sum += pen;
			count++;
			delta = pen - mean;
			mean += delta / count;
			m2 += delta * (pen - mean);
		}
	}
	out->steps = i;
	out->depth = count > 0 ? sum / count : 0;
	out->spread = count > 0 ? sqrt(m2 / count) : 0;
	return 0;
}

struct load_args {
	const struct core_scene_model *m;
	double load;
};

static double load_excess(double violation, void *p)
{
	const struct load_args *a = p;

	return core_scene_rest_force(a->m, violation) - a->load;
}

int core_sim_equilibrium(const struct core_scene_model *m, double load, double *penetration)
{
	struct load_args args = {m, load};
	double violation;

	if (load < 0 || core_law_root_increasing(load_excess, &args, &violation) != 0)
		return -1;
	/* violation is measured from includemargin: dist = includemargin - violation */
	*penetration = violation - m->contact.includemargin;
	return 0;
}

void core_sim_rest(
    const struct core_scene_model *m, double height, double duration, struct core_sim_rest *out)
{
	struct core_sim_drop settle;
	double penetration;

	out->has_equilibrium = core_sim_equilibrium(m, -m->qfrc, &penetration) == 0;
	out->penetration = out->has_equilibrium ? penetration : 0;
	out->impedance = out->has_equilibrium
	    ? core_law_impedance(-(penetration + m->contact.includemargin), &m->solimp, NULL)
	    : 0;
	out->K = m->gains.K;
	out->B = m->gains.B;
	out->refsafe_replaced = 0;
	if (m->discrete && out->has_equilibrium) {
		/* the row's gains at the equilibrium: refsafe's replacement depends on imp */
		struct core_law_discrete d;
		core_law_discrete_gains(
		    &m->gains, out->impedance, m->timestep, m->discrete_refsafe, &d);
		out->K = d.K;
		out->B = d.B;
		out->refsafe_replaced = d.replaced;
	}
	out->timeconst_used = m->gains.timeconst_used;
	out->contacts = m->contacts;
	out->rows = m->rows;
	core_sim_drop(m, height, duration, &settle);
	out->settled_penetration = settle.final_penetration;
}

/* The library's entry points take the scene itself (contactd.h): its model is internal. */
void core_sim_rest_scene(const struct core_scene *scene, struct core_sim_rest *out)
{
	struct core_scene_model m;

	core_scene_prepare(scene, &m);
	core_sim_rest(&m, scene->height, scene->duration, out);
}

void core_sim_drop_scene(
    const struct core_scene *scene, struct core_sim_drop *out, struct core_sim_trace *trace)
{
	struct core_scene_model m;

	core_scene_prepare(scene, &m);
	core_sim_drop_trace(&m, scene->height, scene->duration, out, trace);
}

long core_sim_first_jitter(const struct core_scene_model *m, double duration)
{
	long n = core_sim_step_count(duration, m->timestep);
	long window = lround(JITTER_WINDOW / m->timestep);

	return n > window ? n - window : 0;
}

void core_sim_fall(
    const struct core_scene_model *m, double height, long limit, struct core_sim_start *out)
{
	double z = height + m->half_height, vel = 0, warm = 0;
	long i;

	out->height = height;
	out->half_height = m->half_height;
	out->includemargin = m->contact.includemargin;
	out->timestep = m->timestep;
	out->a0 = m->a0;
	out->integrator = (int)m->integrator;
	out->certificate = m->rules.newton_certificate;
	out->peak = out->max_height = -INFINITY;
	out->bottom = height;
	/* RK4's later stages look below the step's start: only the Euler family is followed */
	if (m->integrator == CORE_SCENE_RK4)
		limit = 0;
	for (i = 0; i < limit; i++) {
		double zn = z, vn = vel, wn = warm, bottom;

		/* accel()'s test: in contact, the step depends on the pad */
		if (z - m->half_height < m->contact.includemargin)
			break;
		core_scene_step_warm(m, &zn, &vn, &wn);
		bottom = zn - m->half_height;
		/* touching (or not finite) sets what a fall does not carry */
		if (!(bottom >= 0))
			break;
		z = zn;
		vel = vn;
		warm = wn;
		/* sim.c's extremes, folded in the same order */
		if (-bottom > out->peak)
			out->peak = -bottom;
		if (bottom > out->max_height)
			out->max_height = bottom;
		out->bottom = bottom;
	}
	out->steps = i;
	out->z = z;
	out->vel = vel;
	out->warm = warm;
}

int core_sim_start_fits(
    const struct core_sim_start *s, const struct core_scene_model *m, double height)
{
	return same_bits(s->height, height) && same_bits(s->half_height, m->half_height) &&
	    same_bits(s->includemargin, m->contact.includemargin) &&
	    same_bits(s->timestep, m->timestep) && same_bits(s->a0, m->a0) &&
	    s->integrator == (int)m->integrator && s->certificate == m->rules.newton_certificate;
}
