/*
 * budget.c: the calling thread's stop signal (budget.h).
 */
#include "core/budget.h"

#include <stddef.h>

static _Thread_local struct ctd_budget *current;

struct ctd_budget *ctd_budget_enter(struct ctd_budget *b)
{
	struct ctd_budget *old = current;

	current = b;
	return old;
}

struct ctd_budget *ctd_budget_current(void)
{
	return current;
}

int ctd_budget_poll(void)
{
	struct ctd_budget *b = current;
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

int ctd_budget_stopped(void)
{
	struct ctd_budget *b = current;

	return b ? atomic_load_explicit(&b->stop, memory_order_relaxed) : 0;
}
