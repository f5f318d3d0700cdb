/*
 * sim.c: the lesson's rest and drop experiments on a prepared scene.
 *
 * Heights are recorded after each step, as the lesson's experiment does; the
 * state is MuJoCo's (centre height, vertical speed), so trajectories agree with
 * mj_step step for step.
 */
#include "core/sim.h"

#include <math.h>
#include <stddef.h>

#include "tunables.h"

long sim_step_count(double duration, double timestep)
{
	return lround(duration / timestep);
}

void sim_drop(const struct scene_model *m, double height, double duration, struct sim_drop *out)
{
	long n = sim_step_count(duration, m->timestep);
	long window = lround(JITTER_WINDOW / m->timestep);
	long first_jitter = n > window ? n - window : 0;
	double z = height + m->half_height, vel = 0, warm = 0;
	double bottom = height;
	double mean = 0, m2 = 0; /* Welford's running variance: no buffer */
	long count = 0, i;
	int touched = 0;

	out->peak_penetration = -INFINITY;
	out->max_height = -INFINITY;
	out->rebound = 0;
	for (i = 0; i < n; i++) {
		scene_step_warm(m, &z, &vel, &warm);
		bottom = z - m->half_height;
		if (-bottom > out->peak_penetration)
			out->peak_penetration = -bottom;
		if (bottom > out->max_height)
			out->max_height = bottom;
		if (touched && bottom > out->rebound)
			out->rebound = bottom;
		if (bottom < 0)
			touched = 1;
		if (i >= first_jitter) {
			double delta = bottom - mean;
			count++;
			mean += delta / count;
			m2 += delta * (bottom - mean);
		}
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

struct load_args {
	const struct scene_model *m;
	double load;
};

static double load_excess(double violation, void *p)
{
	const struct load_args *a = p;

	return scene_rest_force(a->m, violation) - a->load;
}

int sim_equilibrium(const struct scene_model *m, double load, double *penetration)
{
	struct load_args args = {m, load};
	double violation;

	if (load < 0 || law_root_increasing(load_excess, &args, &violation) != 0)
		return -1;
	/* violation is measured from includemargin: dist = includemargin - violation */
	*penetration = violation - m->contact.includemargin;
	return 0;
}

void sim_rest(const struct scene_model *m, double height, double duration, struct sim_rest *out)
{
	struct sim_drop settle;
	double penetration;

	out->has_equilibrium = sim_equilibrium(m, -m->qfrc, &penetration) == 0;
	out->penetration = out->has_equilibrium ? penetration : 0;
	out->impedance = out->has_equilibrium
	    ? law_impedance(-(penetration + m->contact.includemargin), &m->solimp, NULL)
	    : 0;
	out->K = m->gains.K;
	out->B = m->gains.B;
	out->timeconst_used = m->gains.timeconst_used;
	out->contacts = m->contacts;
	out->rows = m->rows;
	sim_drop(m, height, duration, &settle);
	out->settled_penetration = settle.final_penetration;
}
