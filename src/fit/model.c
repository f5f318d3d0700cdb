/* model.c: a drop's rebound, a press's depth and a trajectory, simulated by the core (model.h). */
#include "fit/model.h"

#include <math.h>
#include <string.h>

#include "core/budget.h"
#include "core/lanes.h"
#include "core/sim.h"
#include "fit/parallel.h"
#include "fit/knobs.h"

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* Steps of a drop from height on m: the fall (semi-implicit Euler falls at least as fast as
 * the continuous motion), two more, and CALIB_DROP_SETTLE s. */
static long rebound_steps(const struct core_scene_model *m, double height)
{
	long fall = (long)ceil(sqrt(2 * height / -m->a0) / m->timestep) + 2;

	return fall + core_sim_step_count(CALIB_DROP_SETTLE, m->timestep);
}

double model_rebound(const struct core_scene_model *m, double height)
{
	double z = height + m->half_height, vel = 0, warm = 0, bottom, rebound = 0;
	double leave = fmax(0, m->contact.includemargin);
	long steps, i;
	int touched = 0, left = 0;

	if (!(m->a0 < 0))
		return 0; /* nothing pulls the object onto the pad */
	steps = rebound_steps(m, height);
	for (i = 0; i < steps; i++) {
		double z0 = z, v0 = vel, w0 = warm;

		/* stopped from outside (core/budget.h: an audit's budget): the caller discards
		 * this value */
		if ((i & (CORE_BUDGET_STEPS - 1)) == CORE_BUDGET_STEPS - 1 && core_budget_poll())
			break;
		core_scene_step_warm(m, &z, &vel, &warm);
		bottom = z - m->half_height;
		if (!isfinite(bottom))
			return NAN;
		if (touched) {
			if (bottom > rebound)
				rebound = bottom;
			if (bottom > leave)
				left = 1;
			if (left && vel < 0)
				break; /* the step after the apex */
		}
		if (bottom < 0)
			touched = 1;
		/* the state repeats bit for bit: every later step is this one (at rest) */
		if (same_bits(z, z0) && same_bits(vel, v0) && same_bits(warm, w0))
			break;
	}
	return rebound;
}

void model_falls(const struct core_scene_model *m, const double *heights, size_t ndrops,
    struct core_sim_start *falls)
{
	size_t i;

	for (i = 0; i < ndrops; i++) {
		/* the lanes' duration (model_rebounds()); the fall ends before its jitter window */
		double duration = (double)rebound_steps(m, heights[i]) * m->timestep;

		core_sim_fall(
		    m, heights[i], m->a0 < 0 ? core_sim_first_jitter(m, duration) : 0, &falls[i]);
	}
}

/* A batch shared over the fit's threads (fit/parallel.h), MODEL_CHUNK points a job (stiff pads
 * take more steps), each point computed once with the bits it would have alone; a batch under
 * MODEL_SHARE_MIN points, on the caller's thread. */
enum { MODEL_CHUNK = 256, MODEL_SHARE_MIN = 2 * MODEL_CHUNK, MODEL_PRESS_LANES_MIN = 4 };

struct model_share {
	void (*chunk)(const struct model_share *sh, size_t at, size_t end);
	const struct core_scene_model *models;
	const double *values; /* drop heights or press forces */
	size_t nvalues;       /* per pad */
	const struct core_sim_start *falls;
	double *out;
	size_t total;
};

static void model_share_run(void *ctx, size_t job)
{
	const struct model_share *sh = ctx;
	size_t at = job * MODEL_CHUNK;

	sh->chunk(sh, at, at + MODEL_CHUNK < sh->total ? at + MODEL_CHUNK : sh->total);
}

/* chunk over npads * nvalues points; falls: as model_rebounds()'s. */
static void model_share_out(void (*chunk)(const struct model_share *sh, size_t at, size_t end),
    const struct core_scene_model *models, size_t npads, const double *values, size_t nvalues,
    const struct core_sim_start *falls, double *out)
{
	struct model_share sh = {chunk, models, values, nvalues, falls, out, npads * nvalues};

	parallel_for((sh.total + MODEL_CHUNK - 1) / MODEL_CHUNK, sh.total >= MODEL_SHARE_MIN,
	    model_share_run, &sh);
}

/* Drops [at, end) of a share (at most MODEL_CHUNK); the lanes follow the pyramidal cone only. */
static void rebounds_chunk(const struct model_share *sh, size_t at, size_t end)
{
	struct core_scene_model m[MODEL_CHUNK];
	struct core_sim_drop d[MODEL_CHUNK];
	const struct core_sim_start *st[MODEL_CHUNK];
	double h[MODEL_CHUNK], dur[MODEL_CHUNK], *out[MODEL_CHUNK];
	size_t used = 0, nd = sh->nvalues, k;

	for (; at < end; at++) {
		const struct core_scene_model *pm = &sh->models[at / nd];

		if (!(pm->a0 < 0) || pm->cone != CORE_CONE_PYRAMIDAL) {
			sh->out[at] = model_rebound(pm, sh->values[at % nd]);
			continue;
		}
		m[used] = *pm;
		h[used] = sh->values[at % nd];
		/* a whole number of steps: core_sim_step_count() rounds back to it */
		dur[used] = (double)rebound_steps(pm, h[used]) * pm->timestep;
		st[used] = sh->falls ? &sh->falls[at % nd] : NULL;
		out[used++] = &sh->out[at];
	}
	if (used == 0)
		return;
	core_lanes_drop_array(m, h, dur, st, d, used, 1);
	for (k = 0; k < used; k++)
		*out[k] = isfinite(d[k].final_penetration) && isfinite(d[k].first_rebound)
		    ? d[k].first_rebound
		    : NAN;
}

void model_rebounds(const struct core_scene_model *models, size_t npads, const double *heights,
    size_t ndrops, const struct core_sim_start *falls, double *out)
{
	model_share_out(rebounds_chunk, models, npads, heights, ndrops, falls, out);
}

int model_press_followed(const struct core_scene_model *m, const struct core_sim_press *out)
{
	if (!(out->depth > 0))
		return 0;
	/* a box (four corner contacts) that leaves the pad and never falls into a cycle */
	return !(m->contacts > 1 && out->period == 0 && out->lift > 0);
}

double model_press(const struct core_scene_model *m, double force)
{
	struct core_sim_press out;

	if (core_sim_press(m, force, CALIB_PRESS_DURATION, CALIB_PRESS_WINDOW, &out) != 0 ||
	    !isfinite(out.depth))
		return NAN;
	return model_press_followed(m, &out) ? out.depth : NAN;
}

/* Presses [at, end) of a share, as rebounds_chunk(); a few in all step faster in scalar code (a
 * few live lanes cost a full vector; model_press() replays a hopping press's cycle). */
static void presses_chunk(const struct model_share *sh, size_t at, size_t end)
{
	struct core_scene_model m[MODEL_CHUNK];
	struct core_sim_press r[MODEL_CHUNK];
	double f[MODEL_CHUNK], *out[MODEL_CHUNK];
	size_t used = 0, np = sh->nvalues, k;

	for (; at < end; at++) {
		const struct core_scene_model *pm = &sh->models[at / np];

		if (pm->cone != CORE_CONE_PYRAMIDAL || sh->total < MODEL_PRESS_LANES_MIN) {
			sh->out[at] = model_press(pm, sh->values[at % np]);
			continue;
		}
		m[used] = *pm;
		f[used] = sh->values[at % np];
		out[used++] = &sh->out[at];
	}
	if (used == 0)
		return;
	core_lanes_press_array(m, f, used, CALIB_PRESS_DURATION, CALIB_PRESS_WINDOW, r);
	for (k = 0; k < used; k++) {
		if (r[k].steps == 0 || !isfinite(r[k].depth))
			*out[k] = NAN;
		else if (m[k].contacts > 1 && r[k].period == 0 && r[k].lift > 0)
			/* a box that leaves the pad: model_press() looks for the cycle */
			*out[k] = model_press(&m[k], f[k]);
		else
			*out[k] = model_press_followed(&m[k], &r[k]) ? r[k].depth : NAN;
	}
}

void model_presses(const struct core_scene_model *models, size_t npads, const double *forces,
    size_t npresses, double *out)
{
	model_share_out(presses_chunk, models, npads, forces, npresses, NULL, out);
}

/* Catmull-Rom spline through p0..p3 at u in [0, 1] between p1 and p2. */
static double catmull_rom(double p0, double p1, double p2, double p3, double u)
{
	return p1 +
	    0.5 * u *
	    (p2 - p0 + u * (2 * p0 - 5 * p1 + 4 * p2 - p3 + u * (3 * (p1 - p2) + p3 - p0)));
}

void model_trajectory(const struct core_scene_model *m, double release_time, double release_height,
    const double *t, size_t n, double *buf, double *z)
{
	const double h = m->timestep, cap = CALIB_MAX_TRAJECTORY_STEPS;
	double centre = release_height + m->half_height, vel = 0;
	double last = n > 0 ? (t[n - 1] - release_time) / h : 0;
	long need, k;
	size_t i;
	int stopped = 0;

	/* buf[k]: bottom after k steps; up to two past the last sample for the spline */
	need = last > 0 ? (long)ceil(fmin(last, cap)) + 2 : 1;
	buf[0] = release_height;
	for (k = 1; k <= need; k++) {
		/* stopped from outside (core/budget.h): polled at a trajectory's first step too,
		 * as a descent asks for many short ones; the rest is held, the values discarded */
		if (!stopped && (k & (CORE_BUDGET_STEPS - 1)) == 1)
			stopped = core_budget_poll();
		if (!stopped)
			core_scene_step(m, &centre, &vel);
		buf[k] = centre - m->half_height;
	}
	for (i = 0; i < n; i++) {
		double s = (t[i] - release_time) / h, u;

		if (!(s > 0)) {
			z[i] = release_height; /* held at rest until released */
			continue;
		}
		s = fmin(s, cap);
		k = (long)floor(s);
		u = s - (double)k;
		z[i] = catmull_rom(buf[k > 0 ? k - 1 : 0], buf[k], buf[k + 1], buf[k + 2], u);
	}
}
