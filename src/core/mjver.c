/*
 * mjver.c: MuJoCo releases and their contact rules (mjver.h).
 *
 * Every tag from 2.2.0 to 3.14.0 is listed; the rules change at 3.0.0 (slide-only
 * bodies' invweight0, which only the hold scene's pads have), 3.2.0 (power
 * shortcut), 3.5.0 (margins summed), 3.9.0 (margin/gap redesign), 3.11.0 (Newton
 * certificate) and 3.13.0 (the `discrete` integrator, with its own refsafe rule).
 * 3.13.0 and 3.14.0 were checked against the official WebAssembly builds (no source
 * tag past 3.12.0 was reachable): under Euler, implicit and RK4 they step these
 * scenes bit for bit as 3.12.0 does; implicitfast at 3.14.0 differs only below 1e-40
 * in the off-axis velocities, which the 1-D reduction never sees. Nothing else in
 * those tags changes these scenes: refsafe (outside discrete), KBIP, R, the pyramid,
 * aref, the plane collisions, body_invweight0 of a free body and the Euler step are
 * the same code; the 3.2.0 quaternion change and the 3.3.6 warmstart move cannot
 * affect a body that stays flat and an Euler step.
 */
#include "core/mjver.h"

#include <stdatomic.h>
#include <string.h>

#include "core/knobs.h"

enum era { ERA_2_2, ERA_3_0, ERA_3_2, ERA_3_5, ERA_3_9, ERA_3_11, ERA_3_13 };

struct release {
	const char *name;
	enum era era;
};

/* in release order; index 2 is 2.2.2 (CORE_MJVER_2_2_2). 3.13.0 and 3.14.0 (the newest
 * verified, the last) are npm's @mujoco/mujoco WebAssembly builds */
static const struct release releases[] = {
    {"2.2.0", ERA_2_2},
    {"2.2.1", ERA_2_2},
    {"2.2.2", ERA_2_2},
    {"2.3.0", ERA_2_2},
    {"2.3.1", ERA_2_2},
    {"2.3.2", ERA_2_2},
    {"2.3.3", ERA_2_2},
    {"2.3.4", ERA_2_2},
    {"2.3.5", ERA_2_2},
    {"2.3.6", ERA_2_2},
    {"2.3.7", ERA_2_2},
    {"3.0.0", ERA_3_0},
    {"3.0.1", ERA_3_0},
    {"3.1.0", ERA_3_0},
    {"3.1.1", ERA_3_0},
    {"3.1.2", ERA_3_0},
    {"3.1.3", ERA_3_0},
    {"3.1.4", ERA_3_0},
    {"3.1.5", ERA_3_0},
    {"3.1.6", ERA_3_0},
    {"3.2.0", ERA_3_2},
    {"3.2.1", ERA_3_2},
    {"3.2.2", ERA_3_2},
    {"3.2.3", ERA_3_2},
    {"3.2.4", ERA_3_2},
    {"3.2.5", ERA_3_2},
    {"3.2.6", ERA_3_2},
    {"3.2.7", ERA_3_2},
    {"3.3.0", ERA_3_2},
    {"3.3.1", ERA_3_2},
    {"3.3.2", ERA_3_2},
    {"3.3.3", ERA_3_2},
    {"3.3.4", ERA_3_2},
    {"3.3.5", ERA_3_2},
    {"3.3.6", ERA_3_2},
    {"3.3.7", ERA_3_2},
    {"3.3.8", ERA_3_2}, /* npm's mujoco-js 0.0.7, a WebAssembly build */
    {"3.4.0", ERA_3_2},
    {"3.5.0", ERA_3_5},
    {"3.6.0", ERA_3_5},
    {"3.7.0", ERA_3_5},
    {"3.8.0", ERA_3_5},
    {"3.8.1", ERA_3_5},
    {"3.9.0", ERA_3_9},
    {"3.10.0", ERA_3_9},
    {"3.11.0", ERA_3_11},
    {"3.12.0", ERA_3_11},
    {"3.13.0", ERA_3_13},
    {"3.14.0", ERA_3_13},
};

#define RELEASE_COUNT ((int)(sizeof releases / sizeof releases[0]))

int core_mjver_count(void)
{
	return RELEASE_COUNT;
}

int core_mjver_default(void)
{
	return core_mjver_find(DEFAULT_MUJOCO);
}

int core_mjver_find(const char *name)
{
	int i;

	for (i = 0; name && i < RELEASE_COUNT; i++)
		if (strcmp(releases[i].name, name) == 0)
			return i;
	return -1;
}

const char *core_mjver_name(int index)
{
	return releases[index].name;
}

const char *core_mjver_supported(void)
{
	return "every release tag 2.2.0-3.14.0: 2.2.0-2.2.2, 2.3.0-2.3.7, 3.0.0, 3.0.1, "
	       "3.1.0-3.1.6, "
	       "3.2.0-3.2.7, 3.3.0-3.3.8, 3.4.0, 3.5.0, 3.6.0, 3.7.0, 3.8.0, 3.8.1, 3.9.0, 3.10.0, "
	       "3.11.0, 3.12.0, 3.13.0, 3.14.0";
}

/* The index of a listed release, looked up once into *memo (-1 until then; threads that race
 * store the same value): core_mjver_rules() runs for every scene a fit prepares. */
static int listed(const char *name, atomic_int *memo)
{
	int i = atomic_load_explicit(memo, memory_order_relaxed);

	if (i < 0) {
		i = core_mjver_find(name);
		atomic_store_explicit(memo, i, memory_order_relaxed);
	}
	return i;
}

void core_mjver_rules(int index, struct core_mjver_rules *out)
{
	static atomic_int tie_from = -1, tie_until = -1, implicitfast_from = -1, boxbox_from = -1,
	                  shifted_from = -1, warmstart_from = -1;
	enum era era = releases[index].era;

	out->power_shortcut = era >= ERA_3_2;
	out->margin_sum = era >= ERA_3_5;
	out->margin_gap_split = era >= ERA_3_9;
	out->newton_certificate = era >= ERA_3_11;
	out->newton_shifted_costs = index >= listed("3.10.0", &shifted_from);
	out->simple_body_invweight = era >= ERA_3_0;
	out->discrete_integrator = era >= ERA_3_13;
	/* makeAAMM's tight bounds came with 3.8.0 (inside ERA_3_5); 3.14.0 dropped the tie */
	out->sap_float_tie =
	    index >= listed("3.8.0", &tie_from) && index < listed("3.14.0", &tie_until);
	out->aamm_gap = era >= ERA_3_9;
	out->solver_islands = era >= ERA_3_5;
	out->clamped_no_derivative = era >= ERA_3_5;
	out->implicitfast = index >= listed("2.3.3", &implicitfast_from);
	out->boxbox_full_depth = index >= listed("3.4.0", &boxbox_from);
	out->warmstart_after_noslip = index >= listed("3.3.6", &warmstart_from);
}
