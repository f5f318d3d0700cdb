/*
 * lanes.c: core_sim_drop() for many points at once (lanes.h): 4 points per vector (AVX2,
 * or the x86-64 baseline), or 8 with AVX-512 (lanes512.c), chosen at run time; the
 * kernel itself is lanes_kernel.h, the same source for both widths.
 *
 * Bit-identity. Each lane evaluates the expressions of scene.c (accel, certified_accel,
 * step_rk4, core_scene_row_R), law.c (core_law_impedance) and sim.c (the drop's loop) with
 * the same operands in the same order. A branch of the scalar code becomes a select
 * between both sides, so the lane keeps exactly the side its point would have taken;
 * the side it discards may compute anything (even NaN), it never reaches the answer.
 * Where the scalar code skips an addition (cost += term only when x < 0) the select
 * keeps the unchanged value, never "x + 0", which would turn -0 into +0. pow() and
 * sqrt() are called per lane, the same libm calls. No fused multiply-add may appear:
 * the pragmas below forbid contraction in this file whatever CFLAGS say, and the x86
 * clone is AVX2 without FMA.
 *
 * The rest shortcut. The state a step reads is (z, vel, warm) and the lane's
 * constants; a step is a pure function of their bits. If a step returns the state it
 * was given, bit for bit, every later step returns it too, so every later height is
 * the bottom b just recorded. Folding b again into the extremes changes nothing:
 * peak and max_height already hold b or something beyond it (or b is NaN and no
 * comparison is true); the rebound test uses `touched`, which b can only set when
 * b < 0 <= rebound, where the test fails anyway. Only the jitter's running mean and
 * m2 can still move; they are finished by the same recurrence without the physics
 * (finish_window), itself stopped once (mean, m2) repeats bit for bit: the step's
 * quotient delta/count only shrinks in magnitude as count grows (delta is fixed while
 * mean is), rounding is monotone, so mean + quotient stays mean, and m2's increment
 * delta*(b - mean) is the same every step. The lane's answer is then final.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#if defined(__GNUC__)
/* the vector helpers are static: no other object file sees their calling convention */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include "core/lanes.h"

#include <math.h>
#include <stdint.h>
#include <string.h>


#define LANES 4
#define KERNEL_NAME drop4
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
/* AVX2 without FMA where the processor has it (twice the lanes per instruction of
 * the x86-64 baseline's SSE2), the baseline elsewhere: the same operations either way */
#define KERNEL_ATTR static __attribute__((target_clones("avx2", "default")))
#define HAVE_WIDE_KERNEL 1
#else
#define KERNEL_ATTR static
#define HAVE_WIDE_KERNEL 0
#endif
#include "core/lanes_kernel.h"

/* The kernel in use: 8 (lanes512.c) where the processor has AVX-512, else 4. */
static int selected_width;

static int wide_supported(void)
{
#if HAVE_WIDE_KERNEL
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512dq");
#else
	return 0;
#endif
}

int core_lanes_select(int width)
{
	selected_width = (width == 0 || width == 8) && wide_supported() ? 8 : 4;
	return selected_width;
}

void core_lanes_drop(const struct core_lanes_feed *feed)
{
	if (selected_width == 0)
		core_lanes_select(0);
#if HAVE_WIDE_KERNEL
	if (selected_width == 8) {
		core_lanes_drop8(feed);
		return;
	}
#endif
	drop4(feed);
}

/* The feed of core_lanes_drop_array. */
struct array_feed {
	const struct core_scene_model *models;
	const double *heights, *durations;
	const struct core_sim_start *const *starts;
	struct core_sim_drop *out;
	size_t n, next;
};

static long array_next(void *ctx, struct core_scene_model *m, double *height, double *duration)
{
	struct array_feed *a = ctx;

	if (a->next >= a->n)
		return -1;
	*m = a->models[a->next];
	*height = a->heights[a->next];
	*duration = a->durations[a->next];
	return (long)a->next++;
}

static void array_done(void *ctx, long index, const struct core_sim_drop *out)
{
	struct array_feed *a = ctx;

	a->out[index] = *out;
}

static const struct core_sim_start *array_start(void *ctx, long index)
{
	struct array_feed *a = ctx;

	return a->starts[index];
}

void core_lanes_drop_array(const struct core_scene_model *models, const double *heights,
    const double *durations, const struct core_sim_start *const *starts, struct core_sim_drop *out,
    size_t n, int first_bounce)
{
	struct array_feed a = {models, heights, durations, starts, out, n, 0};
	struct core_lanes_feed feed = {.next = array_next,
	    .done = array_done,
	    .ctx = &a,
	    .first_bounce = first_bounce,
	    .start = starts ? array_start : NULL};

	core_lanes_drop(&feed);
}

/* The feed of core_lanes_press_array: the points whose press has steps. */
struct press_feed {
	const struct core_scene_model *models;
	const double *forces;
	double duration;
	struct core_sim_press *out;
	size_t n, next;
};

static long press_next(void *ctx, struct core_scene_model *m, double *height, double *duration)
{
	struct press_feed *a = ctx;

	for (; a->next < a->n; a->next++) {
		struct core_sim_press *o = &a->out[a->next];
		const struct core_scene_model *pm = &a->models[a->next];

		if (core_sim_press_model(pm, a->forces[a->next], m) == 0 &&
		    core_sim_step_count(a->duration, pm->timestep) > 0) {
			*height = 0;
			*duration = a->duration;
			return (long)a->next++;
		}
		memset(o, 0, sizeof *o);
		o->depth = NAN;
	}
	return -1;
}

static void press_done(void *ctx, long index, const struct core_sim_press *out)
{
	struct press_feed *a = ctx;

	a->out[index] = *out;
}

void core_lanes_press_array(const struct core_scene_model *models, const double *forces, size_t n,
    double duration, double window, struct core_sim_press *out)
{
	struct press_feed a = {models, forces, duration, out, n, 0};
	struct core_lanes_feed feed = {.next = press_next,
	    .ctx = &a,
	    .press = 1,
	    .press_window = window,
	    .done_press = press_done};

	core_lanes_drop(&feed);
}

int core_lanes_width(void)
{
	if (selected_width == 0)
		core_lanes_select(0);
	return selected_width * GROUPS;
}
