/*
 * calgen.h: fresh calibration data sets made by libmujoco 2.2.2 (test and bench helper only):
 * a pad and an object drawn from a seeded SplitMix64 sequence (testlib.h) over issue 29's
 * ranges, drops simulated by mj_step (the first bounce's apex, the calibration's quantity)
 * plus Gaussian noise of a drawn sigma; presses and a trajectory through an impact may be
 * added. Nothing in src/ may include this file.
 *
 * The ranges: timeconst 0.012-0.08 s and dampratio 0.15-2.0 (log-uniform; calgen_draw_in()
 * takes others), a sphere of radius 1-3 cm and mass 20-300 g, timestep 2 or 5 ms, drop heights
 * 0.02-0.30 m, sigma 0.1-0.5 mm plus 3-8 % of the rebound (stated with every drop).
 */
#ifndef CONTACTD_TESTS_CALGEN_H
#define CONTACTD_TESTS_CALGEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/scene.h"
#include "fit/fit.h"

#define CALGEN_MAX_DROPS 16
#define CALGEN_MAX_PRESSES 4
#define CALGEN_MAX_SAMPLES 256 /* of a trajectory */

/* The truths' ranges (log-uniform). */
struct calgen_ranges {
	double timeconst[2], dampratio[2]; /* [low, high) */
};

/* calgen_draw()'s: issue 29's, timeconst 0.012-0.08 s and dampratio 0.15-2.0. */
extern const struct calgen_ranges calgen_ranges_issue29;

/* A trajectory through an impact (calgen_add_trajectory()): the object at rest with its bottom
 * at release_height until release_time, then falling; its bottom at the times t. */
struct calgen_traj {
	double release_time, release_height; /* the truth of the two nuisance parameters */
	double t[CALGEN_MAX_SAMPLES];        /* s, on the camera's clock */
	double clean[CALGEN_MAX_SAMPLES];    /* m, MuJoCo's bottom at t (noise-free) */
	double z[CALGEN_MAX_SAMPLES];        /* m, clean plus the noise: the measurement */
	struct calib_trajectory traj;        /* points into t and z, n samples */
};

/* One set: the truth, the setup a fit starts from, and the measurements. */
struct calgen_set {
	double timeconst, dampratio;   /* the truth */
	struct core_scene truth;       /* the setup with the true pad */
	struct core_scene setup;       /* the setup with the default starting pad */
	double apex[CALGEN_MAX_DROPS]; /* MuJoCo's first apex of each drop (noise-free) */
	struct calib_drop drops[CALGEN_MAX_DROPS];
	double depth[CALGEN_MAX_PRESSES]; /* MuJoCo's mean depth of each press (noise-free) */
	struct calib_press presses[CALGEN_MAX_PRESSES];
	struct calgen_traj traj; /* one trajectory, when calgen_add_trajectory() added it */
	struct calib_data data;  /* points into drops, presses and traj */
};

/* MuJoCo 2.2.2's first apex (libmujoco, mj_step) of a drop from height on scene s: the
 * highest bottom after the first step in contact, until it falls again after leaving the
 * pad (above 0), or 0 if it never leaves within 1 s of contact. */
double calgen_mj_apex(const struct core_scene *s, double height);

/* Draw a set of ndrops (<= CALGEN_MAX_DROPS) drops from *state into *out; set->data points into
 * *out, so do not copy it. */
void calgen_draw(uint64_t *state, size_t ndrops, struct calgen_set *out);

/* calgen_draw() with the truth drawn from *ranges (calgen_draw() is this with
 * calgen_ranges_issue29: the same numbers from the same state). */
void calgen_draw_in(
    uint64_t *state, size_t ndrops, const struct calgen_ranges *ranges, struct calgen_set *out);

/* MuJoCo 2.2.2's press (libmujoco, mj_step) on scene s, as fit/model.h defines it: from rest
 * touching the pad, a total downward force `force` (weight included) from the first step,
 * CALIB_PRESS_DURATION s, the mean penetration over the last CALIB_PRESS_WINDOW s. */
double calgen_mj_press_depth(const struct core_scene *s, double force);

/* Add npresses (<= CALGEN_MAX_PRESSES) presses to *set from *state: forces 1.5 to 20 times the
 * weight, sigma 3 % of the depth, MuJoCo's depth plus that noise. */
void calgen_add_presses(uint64_t *state, size_t npresses, struct calgen_set *set);

/* MuJoCo 2.2.2's bottom heights (libmujoco, mj_step) of scene s released at rest with its
 * bottom at height: bottom[0] = height, bottom[k] after k steps (k = 1..steps), qpos[2] less
 * the half height, as fit/model.h's trajectory records them. 0, or -1 if MuJoCo refused the
 * scene. */
int calgen_mj_fall(const struct core_scene *s, double height, long steps, double *bottom);

/*
 * calgen_mj_trajectory: the bottom at each of the n times t[] of scene s released at rest at
 * release_time from release_height, as fit/model.h's model_trajectory() places samples
 * between MuJoCo's steps: release_height up to release_time, then at s = (t - release_time) /
 * timestep the Catmull-Rom spline through the bottoms after steps k - 1 .. k + 2 (k = floor(s),
 * the bottom at release for step -1), each step's bottom MuJoCo's (calgen_mj_fall()). Into
 * z[] (n values). 0, or -1 if MuJoCo refused the scene or the samples reach beyond
 * CALGEN_MAX_SAMPLES * 8 steps.
 */
int calgen_mj_trajectory(const struct core_scene *s, double release_time, double release_height,
    const double *t, size_t n, double *z);

/*
 * Add one trajectory through the first impact to *set from *state: release height 0.03 to
 * 0.15 m at a release time of 0.5 to 1.5 s on the camera's clock, samples every 2 to 4 ms
 * from 10 to 40 ms before the release to 80 to 150 ms after the free fall would reach the
 * pad (at most CALGEN_MAX_SAMPLES; the camera's clock is not the steps'), each
 * calgen_mj_trajectory()'s bottom on set->truth plus Gaussian noise of a stated sigma of 0.2
 * to 0.5 mm. set->data then holds it.
 */
void calgen_add_trajectory(uint64_t *state, struct calgen_set *set);

#endif
