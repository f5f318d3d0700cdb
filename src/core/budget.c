/*
 * budget.c: the calling thread's stop signal (budget.h).
 */
#include "core/budget.h"

#include <stddef.h>

static _Thread_local struct core_budget *current;

struct core_budget *core_budget_enter(struct core_budget *b)
{
	struct core_budget *old = current;

	current = b;
	return old;
}

struct core_budget *core_budget_current(void)
{
	return current;
}

int core_budget_poll(void)
{
	struct core_budget *b = current;
	int why;

	if (!b)
		return 0;
	why = atomic_load_explicit(&b->stop, memory_order_relaxed);
	if (why || !b->check)
		return why;
	why = b->check(b);
	if (why) {
		int expected = 0;

		/* the first reason stays (a client that left, then the deadline) */
		if (!atomic_compare_exchange_strong(&b->stop, &expected, why))
			why = expected;
	}
	return why;
}

int core_budget_stopped(void)
{
	struct core_budget *b = current;

	return b ? atomic_load_explicit(&b->stop, memory_order_relaxed) : 0;
}
