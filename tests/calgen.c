/*
 * calgen.c: fresh calibration data sets made by libmujoco 2.2.2 (see calgen.h).
 */
#include "calgen.h"

#include <math.h>
#include <string.h>

#include "mjscene.h"
#include "testlib.h"
#include "fit/knobs.h"

double calgen_mj_apex(const struct core_scene *pad, double height)
{
	struct core_scene s = *pad;
	struct mjscene ms;
	char msg[512];
	double bottom, prev = 0, apex = 0;
	long i, steps, touched = -1;
	int left = 0;

	s.height = height;
	if (mjscene_open(&ms, &s, msg, sizeof msg) != 0)
		return NAN;
	/* the fall, then at most 1 s after the contact */
	steps = (long)ceil((sqrt(2 * height / 9.81) + 1.5) / s.option.timestep);
	for (i = 0; i < steps; i++) {
		mj_step(ms.model, ms.data);
		bottom = ms.data->qpos[2] - ms.half_height;
		if (touched >= 0) {
			if (left && bottom < prev)
				break;
			apex = fmax(apex, bottom);
			left |= bottom > 0;
		}
		if (touched < 0 && bottom < 0)
			touched = i;
		prev = bottom;
	}
	mjscene_close(&ms);
	return apex;
}

/* A standard normal deviate (Box-Muller). */
static double gaussian(uint64_t *state)
{
	double u = 1 - tl_uniform(state), v = tl_uniform(state);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

const struct calgen_ranges calgen_ranges_issue29 = {{0.012, 0.08}, {0.15, 2.0}};

void calgen_draw(uint64_t *state, size_t ndrops, struct calgen_set *out)
{
	calgen_draw_in(state, ndrops, &calgen_ranges_issue29, out);
}

void calgen_draw_in(
    uint64_t *state, size_t ndrops, const struct calgen_ranges *ranges, struct calgen_set *out)
{
	double radius, mass, h;
	size_t i;

	memset(out, 0, sizeof *out);
	out->timeconst =
	    exp(tl_between(state, log(ranges->timeconst[0]), log(ranges->timeconst[1])));
	out->dampratio =
	    exp(tl_between(state, log(ranges->dampratio[0]), log(ranges->dampratio[1])));
	radius = tl_between(state, 0.01, 0.03);
	mass = tl_between(state, 0.02, 0.3);
	h = tl_uniform(state) < 0.5 ? 0.002 : 0.005;
	out->truth = mjscene_pad(0, out->timeconst, out->dampratio, 2.0);
	out->truth.size[0] = radius;
	out->truth.mass = mass;
	out->truth.option.timestep = h;
	out->setup = out->truth;
	out->setup.floor.solref[0] = CALIB_PAD_TIMECONST;
	out->setup.floor.solref[1] = CALIB_PAD_DAMPRATIO;
	if (ndrops > CALGEN_MAX_DROPS)
		ndrops = CALGEN_MAX_DROPS;
	for (i = 0; i < ndrops; i++) {
		double height = tl_between(state, 0.02, 0.30);
		double abs_sigma = tl_between(state, 1e-4, 5e-4),
		       rel = tl_between(state, 0.03, 0.08);
		double apex = calgen_mj_apex(&out->truth, height), sigma = abs_sigma + rel * apex;

		out->apex[i] = apex;
		out->drops[i].height = height;
		out->drops[i].sigma = sigma;
		out->drops[i].rebound = fmin(height, fmax(0, apex + sigma * gaussian(state)));
	}
	out->data.drops = out->drops;
	out->data.ndrops = ndrops;
}

double calgen_mj_press_depth(const struct core_scene *pad, double force)
{
	struct core_scene s = *pad;
	struct mjscene ms;
	char msg[512];
	long n = lround(CALIB_PRESS_DURATION / s.option.timestep);
	long w = lround(CALIB_PRESS_WINDOW / s.option.timestep), i;
	double sum = 0;

	s.height = 0;
	if (mjscene_open(&ms, &s, msg, sizeof msg) != 0)
		return NAN;
	ms.data->xfrc_applied[6 + 2] = -(force - s.mass * s.option.gravity);
	for (i = 0; i < n; i++) {
		mj_step(ms.model, ms.data);
		if (i >= n - w)
			sum += -(ms.data->qpos[2] - ms.half_height);
	}
	mjscene_close(&ms);
	return sum / (double)w;
}

void calgen_add_presses(uint64_t *state, size_t npresses, struct calgen_set *set)
{
	size_t i;

	if (npresses > CALGEN_MAX_PRESSES)
		npresses = CALGEN_MAX_PRESSES;
	for (i = 0; i < npresses; i++) {
		double force =
		    tl_between(state, 1.5, 20) * set->truth.mass * set->truth.option.gravity;
		double depth = calgen_mj_press_depth(&set->truth, force),
		       sigma = 0.03 * fabs(depth);

		set->depth[i] = depth;
		set->presses[i].force = force;
		set->presses[i].sigma = sigma;
		set->presses[i].deflection = depth + sigma * gaussian(state);
	}
	set->data.presses = set->presses;
	set->data.npresses = npresses;
}

int calgen_mj_fall(const struct core_scene *pad, double height, long steps, double *bottom)
{
	struct core_scene s = *pad;
	struct mjscene ms;
	char msg[512];
	long k;

	s.height = height;
	if (mjscene_open(&ms, &s, msg, sizeof msg) != 0)
		return -1;
	bottom[0] = height;
	for (k = 1; k <= steps; k++) {
		mj_step(ms.model, ms.data);
		bottom[k] = ms.data->qpos[2] - ms.half_height;
	}
	mjscene_close(&ms);
	return 0;
}

/* Catmull-Rom spline through p0..p3 at u in [0, 1] between p1 and p2: fit/model.c's, term
 * for term, so that the noise-free samples are the model's to the last bits. */
static double catmull_rom(double p0, double p1, double p2, double p3, double u)
{
	return p1 +
	    0.5 * u *
	    (p2 - p0 + u * (2 * p0 - 5 * p1 + 4 * p2 - p3 + u * (3 * (p1 - p2) + p3 - p0)));
}

#define CALGEN_MAX_FALL_STEPS (8 * CALGEN_MAX_SAMPLES)

int calgen_mj_trajectory(const struct core_scene *s, double release_time, double release_height,
    const double *t, size_t n, double *z)
{
	double bottom[CALGEN_MAX_FALL_STEPS + 3];
	double h = s->option.timestep, last = n > 0 ? (t[n - 1] - release_time) / h : 0;
	long need = last > 0 ? (long)ceil(last) + 2 : 1;
	size_t i;

	if (need > CALGEN_MAX_FALL_STEPS || calgen_mj_fall(s, release_height, need, bottom) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		double at = (t[i] - release_time) / h, u;
		long k;

		if (!(at > 0)) {
			z[i] = release_height; /* at rest until released */
			continue;
		}
		k = (long)floor(at);
		u = at - (double)k;
		z[i] = catmull_rom(
		    bottom[k > 0 ? k - 1 : 0], bottom[k], bottom[k + 1], bottom[k + 2], u);
	}
	return 0;
}

void calgen_add_trajectory(uint64_t *state, struct calgen_set *set)
{
	struct calgen_traj *tr = &set->traj;
	double g = set->truth.option.gravity, fall, first, end, dt, sigma;
	size_t n, i;

	tr->release_height = tl_between(state, 0.03, 0.15);
	tr->release_time = tl_between(state, 0.5, 1.5);
	dt = tl_between(state, 0.002, 0.004);
	first = tr->release_time - tl_between(state, 0.01, 0.04);
	fall = sqrt(2 * tr->release_height / g);
	end = tr->release_time + fall + tl_between(state, 0.08, 0.15);
	sigma = tl_between(state, 2e-4, 5e-4);
	n = (size_t)floor((end - first) / dt) + 1;
	if (n > CALGEN_MAX_SAMPLES)
		n = CALGEN_MAX_SAMPLES;
	for (i = 0; i < n; i++)
		tr->t[i] = first + (double)i * dt;
	if (calgen_mj_trajectory(
	        &set->truth, tr->release_time, tr->release_height, tr->t, n, tr->clean) != 0) {
		for (i = 0; i < n; i++)
			tr->clean[i] = NAN; /* MuJoCo refused the scene: no data to fit */
	}
	for (i = 0; i < n; i++)
		tr->z[i] = tr->clean[i] + sigma * gaussian(state);
	tr->traj.t = tr->t;
	tr->traj.z = tr->z;
	tr->traj.n = n;
	tr->traj.sigma = sigma;
	set->data.trajectories = &tr->traj;
	set->data.ntrajectories = 1;
}
