/*
 * model.h: the model of a pad calibration's measurements (issue #4): the contact core, the pad
 * a struct core_scene's floor and the object its body, so a fitted solref reproduces them in
 * MuJoCo 2.2.2 step for step. Pure computation on a prepared scene (core_scene_prepare()): no
 * I/O, no allocation, no global state; thread-safe.
 *
 * A drop is released at rest, its bottom `height` above the pad; `rebound`: the apex of its first
 * bounce, the highest bottom from the first step in which it penetrates to the first step, once
 * it has left the pad (bottom above max(0, includemargin)), in which it moves down; within the
 * fall (overestimated by two steps) and CALIB_DROP_SETTLE s; never below 0. sim.c's steps,
 * MuJoCo's warmstart: /v1/drop's first_rebound (its rebound, for a contact that dissipates
 * energy). A press is pressed by a total downward force `force` (N, weight included) as a lab
 * does in MuJoCo: at rest on the pad's surface, xfrc_applied = -(force - m*g) from the first
 * step, for CALIB_PRESS_DURATION s; `deflection`: the mean penetration (m) over the last
 * CALIB_PRESS_WINDOW s (core_sim_press()). A damped pad has settled to the static equilibrium by
 * then; a little damped one keeps hopping (issue #29: dampratio up to 0.3-0.4 at 2 ms, 0.7 at
 * 5 ms), its mean depth far beyond it, so there the press depends on dampratio too, not only on
 * timeconst*dampratio. A trajectory: bottom heights z[i] at times t[i] around an impact, the
 * release time and height fitted (nuisance): at rest until released, then falling; the bottom
 * after each step (as mj_step) interpolated at t[i] by Catmull-Rom splines. Only samples before
 * the second impact are fitted (a later impact begins within a step, and MuJoCo's damping
 * impulse jumps with the parameters; the notes say how many).
 */
#ifndef CONTACTD_FIT_MODEL_H
#define CONTACTD_FIT_MODEL_H

#include <stddef.h>

#include "core/scene.h"
#include "core/sim.h"

/* The rebound (m) of a drop from height (m) on m, as above: 0 when nothing pulls the object
 * onto the pad, NAN when the simulation diverges. */
double model_rebound(const struct core_scene_model *m, double height);

/* model_rebound() of ndrops heights on npads scenes into out[pad * ndrops + drop], the same
 * bits through the SIMD lanes and the fit's threads. falls (NULL: none): model_falls() on a
 * scene of the same object, timestep and gravity: the drops start there. Thread-safe. */
void model_rebounds(const struct core_scene_model *models, size_t npads, const double *heights,
    size_t ndrops, const struct core_sim_start *falls, double *out);

/* The free fall before contact of each of ndrops heights on m into falls[] (caller-owned),
 * for model_rebounds(): the steps every pad of a fit shares, stepped once. */
void model_falls(const struct core_scene_model *m, const double *heights, size_t ndrops,
    struct core_sim_start *falls);

/* The depth (m) of a press of total force `force` (N) on m, as above; NAN below the object's
 * weight, on divergence, or where model_press_followed() says the model is not MuJoCo's. */
double model_press(const struct core_scene_model *m, double force);

/* model_press() of npresses forces on npads scenes into out[pad * npresses + press], the same
 * bits, as model_rebounds(). */
void model_presses(const struct core_scene_model *models, size_t npads, const double *forces,
    size_t npresses, double *out);

/* Whether the core's press *out on m is MuJoCo's (tests/test_calib_press): not when the object
 * is thrown clear (mean depth not positive: chaotic flights), nor when a box leaves the pad and
 * never falls into a cycle (MuJoCo's box rocks; the core's stays flat). */
int model_press_followed(const struct core_scene_model *m, const struct core_sim_press *out);

/* The bottom height at each of the n times t[] of an object released at rest at release_time
 * from release_height, into z[]: held until release_time, beyond CALIB_MAX_TRAJECTORY_STEPS
 * steps the height at that step. buf: scratch of CALIB_MAX_TRAJECTORY_STEPS + 3 doubles. */
void model_trajectory(const struct core_scene_model *m, double release_time, double release_height,
    const double *t, size_t n, double *buf, double *z);

#endif
