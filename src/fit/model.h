/*
 * model.h: the model of a measurement in a pad calibration (issue #4).
 *
 * The model is the contact core itself: the pad is the plane ("floor") of a
 * struct core_scene and the test object its body, so a fitted solref reproduces the
 * measurements in MuJoCo 2.2.2 step for step. Three kinds of measurement:
 *
 *   drop        the object released at rest with its bottom `height` above the pad;
 *               `rebound` is the apex of its first bounce: the highest bottom after
 *               the first step in which it penetrates, up to the first step after it
 *               has left the pad (bottom above max(0, includemargin)) in which it
 *               moves down again, within the fall (overestimated by two steps) and
 *               CALIB_DROP_SETTLE s more if it never leaves; never below 0; the steps
 *               are sim.c's, with MuJoCo's warmstart (/v1/drop's first_rebound). For
 *               any contact that dissipates energy this is /v1/drop's rebound, whose
 *               later bounces are lower.
 *   press       the object pressed onto the pad by a total downward force `force` (N,
 *               its weight included), as a lab presses it in MuJoCo: placed at rest
 *               touching the pad (its lowest point on the pad's surface), the force
 *               applied from the first step (xfrc_applied = -(force - m*g)), stepped
 *               for CALIB_PRESS_DURATION s; `deflection` is the mean penetration (m)
 *               over the last CALIB_PRESS_WINDOW s (core_sim_press()). A damped pad has
 *               settled by then and the depth is the static equilibrium's; a pad of
 *               little damping never settles under a press (issue #29: dampratio up to
 *               0.3-0.4 at 2 ms, 0.7 at 5 ms keeps hopping) and its mean depth lies far
 *               beyond the equilibrium, so the press depends on dampratio as well as on
 *               timeconst*dampratio there.
 *   trajectory  the object's bottom height z[i] at times t[i] around an impact, with
 *               release time and height unknown: both are fitted per trajectory as
 *               nuisance parameters. The object rests at the release height until the
 *               release time, then falls; the simulated bottom (recorded after each
 *               step, as mj_step would) is interpolated at t[i] by Catmull-Rom splines.
 *               Only the samples before the second impact are fitted (a later impact
 *               begins within a step and MuJoCo's damping impulse jumps with the
 *               parameters; the fit's notes say how many were left out).
 *
 * Pure computation on a prepared scene (core_scene_prepare()): no I/O, no allocation, no
 * global state; safe to call from many threads.
 */
#ifndef CONTACTD_FIT_MODEL_H
#define CONTACTD_FIT_MODEL_H

#include <stddef.h>

#include "core/scene.h"
#include "core/sim.h"

/*
 * model_rebound: the model rebound of a drop from height (m, the bottom above the pad at
 * release) on a prepared scene m, as defined above: 0 when nothing pulls the object onto
 * the pad, NAN when the simulation diverges.
 */
double model_rebound(const struct core_scene_model *m, double height);

/*
 * model_rebounds: model_rebound() of every drop height heights[d] (ndrops) on every prepared
 * scene models[p] (npads), into out[p * ndrops + d] (caller-owned), the same bits: those of a
 * pyramidal cone stepped side by side through the SIMD lanes (core/lanes.h), the others one by
 * one. falls (NULL: none) holds model_falls()' free fall of each drop: a pad whose fall it is
 * (the same object, timestep and gravity; any solref) starts its drop there, with the same
 * answer. A large batch is shared over the fit's threads (fit/parallel.h), a small one stays
 * on the caller's. No allocation but the helpers' threads; thread-safe for disjoint outputs.
 */
void model_rebounds(const struct core_scene_model *models, size_t npads, const double *heights,
    size_t ndrops, const struct core_sim_start *falls, double *out);

/*
 * model_falls: the free fall before contact of each drop from heights[d] (ndrops) on the
 * prepared scene m, into falls[d] (caller-owned), for model_rebounds(): the steps every pad
 * of a fit shares, stepped once.
 */
void model_falls(const struct core_scene_model *m, const double *heights, size_t ndrops,
    struct core_sim_start *falls);

/*
 * model_press: the model depth (m) of a press of total force `force` (N) on a prepared
 * scene m, as defined above; NAN when force is below the object's weight, the simulation
 * diverges, or model_press_followed() says the model does not follow MuJoCo there.
 */
double model_press(const struct core_scene_model *m, double force);

/* model_presses: model_press() of each of npresses forces on each of npads prepared scenes,
 * into out[pad * npresses + press] (caller-owned), the same bits: through the lanes and over
 * the threads as model_rebounds(), but a few presses in all stepped by model_press() (faster
 * than a vector of a few lanes: it replays a hopping press's cycle). */
void model_presses(const struct core_scene_model *models, size_t npads, const double *forces,
    size_t npresses, double *out);

/*
 * model_press_followed: whether the core's press *out on scene m is MuJoCo's: 0 when the
 * object spends the window off the pad more than on it (mean depth not positive: a pad
 * that gains energy throws it clear, and those flights are chaotic, the core and
 * libmujoco parting within a few bounces), or when a box leaves the pad and never falls
 * into a cycle (MuJoCo's box starts to rock; the core's stays flat). Checked against
 * libmujoco 2.2.2 over random pads, spheres and boxes by tests/test_calib_press.
 */
int model_press_followed(const struct core_scene_model *m, const struct core_sim_press *out);

/*
 * model_trajectory: the model bottom height at each of the n times t[] for an
 * object released at rest at release_time from release_height, into z[] (caller-owned,
 * n values): release_height until release_time, the height at step
 * CALIB_MAX_TRAJECTORY_STEPS after it beyond that step. buf is scratch space of
 * CALIB_MAX_TRAJECTORY_STEPS + 3 doubles, owned by the caller.
 */
void model_trajectory(const struct core_scene_model *m, double release_time, double release_height,
    const double *t, size_t n, double *buf, double *z);

#endif
