/*
 * model.c: the model of a measurement: a drop's rebound, a press's depth and a trajectory,
 * simulated by the contact core (see model.h).
 */
#include "fit/model.h"

#include <math.h>

#include "core/sim.h"
#include "tunables.h"

double model_rebound(const struct ctd_scene_model *m, double height)
{
	double z = height + m->half_height, vel = 0, bottom, rebound = 0;
	double leave = fmax(0, m->contact.includemargin);
	long settle = ctd_sim_step_count(CALIB_DROP_SETTLE, m->timestep);
	long fall, touch = -1, i;
	int left = 0;

	if (!(m->a0 < 0))
		return 0; /* nothing pulls the object onto the pad */
	/* semi-implicit Euler falls at least as fast as the continuous motion */
	fall = (long)ceil(sqrt(2 * height / -m->a0) / m->timestep) + 2;
	for (i = 0; touch < 0 ? i <= fall + settle : i - touch <= settle; i++) {
		ctd_scene_step(m, &z, &vel);
		bottom = z - m->half_height;
		if (!isfinite(bottom))
			return NAN;
		if (touch >= 0) {
			if (bottom > rebound)
				rebound = bottom;
			if (bottom > leave)
				left = 1;
			if (left && vel < 0)
				break; /* the step after the apex */
		}
		if (touch < 0 && bottom < 0)
			touch = i;
	}
	return rebound;
}

int model_press_followed(const struct ctd_scene_model *m, const struct ctd_sim_press *out)
{
	/* the depth not positive: the object spends the window more off the pad than on it
	 * (a pad that gains energy throws it clear); such flights are chaotic, the core and
	 * libmujoco part within a few bounces, and a lab would report no deflection */
	if (!(out->depth > 0))
		return 0;
	/* a box (four corner contacts) that leaves the pad and never falls into a cycle:
	 * MuJoCo's box starts to rock there, which the core's flat box does not */
	return !(m->contacts > 1 && out->period == 0 && out->lift > 0);
}

double model_press(const struct ctd_scene_model *m, double force)
{
	struct ctd_sim_press out;

	if (ctd_sim_press(m, force, CALIB_PRESS_DURATION, CALIB_PRESS_WINDOW, &out) != 0 ||
	    !isfinite(out.depth))
		return NAN;
	return model_press_followed(m, &out) ? out.depth : NAN;
}

/* Catmull-Rom spline through p0..p3 at u in [0, 1] between p1 and p2. */
static double catmull_rom(double p0, double p1, double p2, double p3, double u)
{
	return p1 +
	    0.5 * u *
	    (p2 - p0 + u * (2 * p0 - 5 * p1 + 4 * p2 - p3 + u * (3 * (p1 - p2) + p3 - p0)));
}

void model_trajectory(const struct ctd_scene_model *m, double release_time, double release_height,
    const double *t, size_t n, double *buf, double *z)
{
	const double h = m->timestep, cap = CALIB_MAX_TRAJECTORY_STEPS;
	double centre = release_height + m->half_height, vel = 0;
	double last = n > 0 ? (t[n - 1] - release_time) / h : 0;
	long need, k;
	size_t i;

	/* buf[k]: bottom after k steps; up to two past the last sample for the spline */
	need = last > 0 ? (long)ceil(fmin(last, cap)) + 2 : 1;
	buf[0] = release_height;
	for (k = 1; k <= need; k++) {
		ctd_scene_step(m, &centre, &vel);
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
