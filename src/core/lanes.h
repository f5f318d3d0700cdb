/*
 * lanes.h: many drops at once, several in the lanes of one SIMD vector, with the
 * same answers, bit for bit, as core_sim_drop() on each alone.
 *
 * Every lane performs exactly the operations core_sim_drop() performs for its point,
 * in the same order, with branches replaced by selects: IEEE arithmetic is lane-wise
 * and correctly rounded, so each lane gets its point's bits. Floating-point
 * contraction (a*b+c fused) would break that; lanes.c forbids it in its own source.
 *
 * A lane that finishes takes the next point at once (points of different lengths or
 * integrators share a vector), and a lane whose whole state repeats bit for bit stops
 * stepping: every later step would be the same, so its statistics are finished
 * without the physics (the proof is in lanes.c).
 *
 * The lanes follow scene.c's pyramidal cone: a caller drops points of any other cone
 * with core_sim_drop() (the scene model does not say its cone).
 */
#ifndef CONTACTD_CORE_LANES_H
#define CONTACTD_CORE_LANES_H

#include <stddef.h>

#include "core/scene.h"
#include "core/sim.h"

/*
 * Where core_lanes_drop() takes its points and leaves its answers.
 * next(): the next point to drop, or -1 when none is left; it fills *model (copied
 * at once: the callee may reuse its storage), *height and *duration. done(): the
 * answer of point `index` (as next() numbered it), final. Both are called from the
 * thread that runs core_lanes_drop(); several threads may each run their own call on
 * feeds whose next() hands out distinct points.
 */
struct core_lanes_feed {
	long (*next)(void *ctx, struct core_scene_model *model, double *height, double *duration);
	void (*done)(void *ctx, long index, const struct core_sim_drop *out);
	void *ctx;
	/* Non-zero: a point ends once its first bounce's apex is known (the step after it,
	 * first_rebound final; the calibration's model needs nothing else), or at its duration.
	 * Its answer is then first_rebound, final_penetration (that of the steps it ran) and
	 * steps alone: peak_penetration, max_height, rebound and jitter are NAN, energy_gain 0
	 * (the lanes keep no track of them, a third of a step's work). */
	int first_bounce;
	/* Optional (NULL: every point from rest): where point `index` starts, a free fall from
	 * core_sim_fall() (NULL: from rest). Used only when it fits the point's model and height
	 * (core_sim_start_fits()), has steps left and ends before the jitter window; the answer
	 * is then the same, bit for bit, as from rest: the fall's steps are the ones the lane
	 * would have stepped. */
	const struct core_sim_start *(*start)(void *ctx, long index);
	/* Non-zero: every point is a press (sim.h's core_sim_press()) whose window is
	 * press_window seconds, not a drop: next()'s model is core_sim_press_model()'s, its height 0
	 * and its duration the press's, and done_press() reports it (done() is never called;
	 * first_bounce and start must be 0). The answer is core_sim_press()'s, bit for bit,
	 * except that the lanes look for no cycle but rest (`period` is 1 for a press that came
	 * to rest and 0 otherwise, `stepped` the steps until then) and keep no spread (NAN: the
	 * calibration's model is the depth; the spread's running variance would cost a division
	 * a step). */
	int press;
	double press_window;
	void (*done_press)(void *ctx, long index, const struct core_sim_press *out);
};

/* Drop every point of feed, as core_sim_drop(model, height, duration) would. No
 * allocation; never fails. */
void core_lanes_drop(const struct core_lanes_feed *feed);

/* core_lanes_drop() over arrays: out[i] = core_sim_drop(&models[i], heights[i], durations[i]).
 * first_bounce as the feed's; starts[i] point i's start as the feed's start() (starts NULL:
 * all from rest). */
void core_lanes_drop_array(const struct core_scene_model *models, const double *heights,
    const double *durations, const struct core_sim_start *const *starts, struct core_sim_drop *out,
    size_t n, int first_bounce);

/*
 * Presses over arrays: out[i] = core_sim_press(&models[i], forces[i], duration, window), with
 * the lanes' period, stepped and spread (struct core_lanes_feed's press_window). A point whose force
 * core_sim_press() refuses, or whose press has no step, gets out[i].steps = 0 and depth NAN.
 * The lanes follow the pyramidal cone only: a caller presses any other cone with
 * core_sim_press(). No allocation; never fails.
 */
void core_lanes_press_array(const struct core_scene_model *models, const double *forces, size_t n,
    double duration, double window, struct core_sim_press *out);

/* The number of points one core_lanes_drop() call steps at once (lanes per vector
 * times the vectors stepped side by side) with the kernel in use. */
int core_lanes_width(void);

/*
 * Choose the kernel of later core_lanes_drop() calls: 0 the widest this processor runs
 * (the default), 4 the 4-lane one, 8 the AVX-512 one where it runs (else 4). Returns
 * the lanes per vector now in use. For tests and benchmarks; not thread-safe against
 * running drops.
 */
int core_lanes_select(int width);

/* The AVX-512 kernel (lanes512.c, x86-64 only); call core_lanes_drop(), which
 * chooses it when the processor has AVX-512. */
void core_lanes_drop8(const struct core_lanes_feed *feed);

#endif
