/*
 * budget.h: how a long computation of the core is stopped from outside: the caller
 * installs a struct core_budget on the computing thread, and the core's long loops
 * (hold's steps, a drop's steps) poll it every CORE_BUDGET_STEPS steps. A stopped
 * computation's result is meaningless: the caller, which knows it stopped
 * (core_budget_stopped()), discards it.
 *
 * The core reads no clock and no socket: what "over" means (CPU seconds spent, a
 * client gone) is the caller's check(). With no budget installed (the library's
 * users, the CLI) a poll is one thread-local load, and no loop ever stops.
 * Internal to the core: not part of contactd.h.
 */
#ifndef CONTACTD_CORE_BUDGET_H
#define CONTACTD_CORE_BUDGET_H

#include <stdatomic.h>

/* Steps between two polls: a power of two (the loops test k & (CORE_BUDGET_STEPS - 1)).
 * A hold step costs at least ~50 ns, so a poll comes within ~0.2 ms of CPU without
 * noslip and ~10 ms with 100 noslip sweeps; a poll costs well under 1 us. */
#define CORE_BUDGET_STEPS 4096L

struct core_budget {
	/* 0 while it may go on; else why it stopped (the caller's numbers). Set by
	 * check() or by any thread (atomic_store) to stop every thread polling it. */
	atomic_int stop;
	/* Called by a poll on the polling thread (any thread that installed the budget);
	 * returns 0 to go on, else the reason to store in stop. NULL: only stop counts. */
	int (*check)(struct core_budget *b);
};

/* Install b on the calling thread (NULL: none); returns the one it replaces. b must
 * outlive its installation. */
struct core_budget *core_budget_enter(struct core_budget *b);

/* The budget installed on the calling thread, or NULL. */
struct core_budget *core_budget_current(void);

/* Poll the calling thread's budget: nonzero (the stop reason) when the computation
 * must stop now, 0 to go on (always 0 without a budget). */
int core_budget_poll(void);

/* The stop reason of the calling thread's budget, 0 when it runs on or has none;
 * unlike core_budget_poll() it calls no check(). */
int core_budget_stopped(void);

#endif
