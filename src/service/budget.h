/*
 * budget.h: a question's compute budget, in CPU seconds, and its cancellation.
 *
 * Before it starts, a question is refused (422, naming the field that makes it long)
 * when its steps estimate (the kind's steps() times budget_step_ns()) is over the
 * budget; while it runs, a struct budget installed on its threads stops it once its
 * threads together have spent the budget's CPU seconds, or once gone() says its client
 * left: the core's loops poll it every CORE_BUDGET_STEPS steps (core/budget.h), a
 * sweep between points. A stopped question's answer is discarded, never cached
 * (budget_error()).
 */
#ifndef CONTACTD_SERVICE_BUDGET_H
#define CONTACTD_SERVICE_BUDGET_H

#include <stdatomic.h>

#include "base/error.h"
#include "core/budget.h"
#include "service/answer.h"

/* Why a question stopped (struct core_budget's stop). */
enum budget_stop { BUDGET_RUNNING = 0, BUDGET_GONE = 1, BUDGET_SPENT = 2 };

struct budget {
	struct core_budget core; /* first: the core's check() casts back */
	double cpu_seconds;     /* CPU seconds all its threads may spend; 0: no limit */
	atomic_llong spent_ns;  /* spent by its threads, as of their last polls */
	atomic_llong gone_at;   /* spent_ns when gone() was last asked */
	/* Nonzero: the client left (asked about every BUDGET_GONE_CHECK_NS of CPU, from
	 * any of the question's threads); NULL: it never leaves. */
	int (*gone)(void *ctx);
	void *gone_ctx;
};

/* Set b up: cpu_seconds of CPU (0: no limit), gone (may be NULL) with its ctx. */
void budget_init(struct budget *b, double cpu_seconds, int (*gone)(void *ctx), void *ctx);

/* Install b on the calling thread (NULL: none; its CPU is counted from now on);
 * returns the budget it replaces. */
struct core_budget *budget_enter(struct core_budget *b);

/* When the calling thread's budget stopped its question: fill err (503 unavailable,
 * saying why) and return -1; else 0. */
int budget_error(struct err *err);

/* A lower bound of the CPU nanoseconds one simulated step of request (of kind) costs,
 * on a machine faster than any we measured (service/knobs.h, BUDGET_*_NS). */
double budget_step_ns(const struct ans_kind *kind, const void *request);

/* Refuse (422 bad_value at field, -1) when steps steps at step_ns each are over
 * cpu_seconds (0: no limit); what names what was estimated ("the hold"). */
int budget_refuse(double steps, double step_ns, double cpu_seconds, const char *field,
    const char *what, struct err *err);

#endif
