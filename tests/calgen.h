/*
 * calgen.h: fresh calibration data sets made by libmujoco 2.2.2 (test and bench helper only):
 * a pad and an object drawn from a seeded SplitMix64 sequence (testlib.h) over issue 29's
 * ranges, drops simulated by mj_step (the first bounce's apex, the calibration's quantity)
 * plus Gaussian noise of a drawn sigma. Nothing in src/ may include this file.
 *
 * The ranges: timeconst 0.012-0.08 s and dampratio 0.15-2.0 (log-uniform), a sphere of radius
 * 1-3 cm and mass 20-300 g, timestep 2 or 5 ms, drop heights 0.02-0.30 m, sigma 0.1-0.5 mm
 * plus 3-8 % of the rebound (stated with every drop).
 */
#ifndef CONTACTD_TESTS_CALGEN_H
#define CONTACTD_TESTS_CALGEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/scene.h"
#include "fit/input.h"

#define CALGEN_MAX_DROPS 16
#define CALGEN_MAX_PRESSES 4

/* One set: the truth, the setup a fit starts from, and the measured drops. */
struct calgen_set {
	double timeconst, dampratio;   /* the truth */
	struct core_scene truth;        /* the setup with the true pad */
	struct core_scene setup;        /* the setup with the default starting pad */
	double apex[CALGEN_MAX_DROPS]; /* MuJoCo's first apex of each drop (noise-free) */
	struct calib_drop drops[CALGEN_MAX_DROPS];
	double depth[CALGEN_MAX_PRESSES]; /* MuJoCo's mean depth of each press (noise-free) */
	struct calib_press presses[CALGEN_MAX_PRESSES];
	struct calib_data data; /* points into drops and presses */
};

/* MuJoCo 2.2.2's first apex (libmujoco, mj_step) of a drop from height on scene s: the
 * highest bottom after the first step in contact, until it falls again after leaving the
 * pad (above 0), or 0 if it never leaves within 1 s of contact. */
double calgen_mj_apex(const struct core_scene *s, double height);

/* Draw a set of ndrops (<= CALGEN_MAX_DROPS) drops from *state into *out; set->data points into
 * *out, so do not copy it. */
void calgen_draw(uint64_t *state, size_t ndrops, struct calgen_set *out);

/* MuJoCo 2.2.2's press (libmujoco, mj_step) on scene s, as fit/model.h defines it: from rest
 * touching the pad, a total downward force `force` (weight included) from the first step,
 * CALIB_PRESS_DURATION s, the mean penetration over the last CALIB_PRESS_WINDOW s. */
double calgen_mj_press_depth(const struct core_scene *s, double force);

/* Add npresses (<= CALGEN_MAX_PRESSES) presses to *set from *state: forces 1.5 to 20 times the
 * weight, sigma 3 % of the depth, MuJoCo's depth plus that noise. */
void calgen_add_presses(uint64_t *state, size_t npresses, struct calgen_set *set);

#endif
