/*
 * budget.c: a question's CPU budget and cancellation (budget.h). Each thread counts its
 * own CPU clock (CLOCK_THREAD_CPUTIME_ID) from the moment it took the budget on, and
 * adds what it spent since its last poll to the budget's total.
 */
#include "service/budget.h"

#include <stddef.h>
#include <time.h>

#include "base/jtext.h"
#include "service/knobs.h"

/* The calling thread's CPU clock reading at its last poll, and the budget it was for. */
static _Thread_local long long last_ns;
static _Thread_local const struct core_budget *last_owner;

static long long thread_cpu_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
		return 0;
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The core's poll: count this thread's CPU since its last poll, then decide. */
static int budget_check(struct core_budget *cb)
{
	struct budget *b = (struct budget *)cb;
	long long now = thread_cpu_ns(), spent, asked;

	if (last_owner != cb) {
		/* a thread that took the budget on without budget_enter() (a sweep's) */
		last_owner = cb;
		last_ns = now;
	}
	spent = atomic_fetch_add(&b->spent_ns, now - last_ns) + (now - last_ns);
	last_ns = now;
	if (b->cpu_seconds > 0 && (double)spent > b->cpu_seconds * 1e9)
		return BUDGET_SPENT;
	asked = atomic_load(&b->gone_at);
	if (b->gone && spent - asked >= BUDGET_GONE_CHECK_NS &&
	    atomic_compare_exchange_strong(&b->gone_at, &asked, spent) && b->gone(b->gone_ctx))
		return BUDGET_GONE;
	return BUDGET_RUNNING;
}

void budget_init(struct budget *b, double cpu_seconds, int (*gone)(void *ctx), void *ctx)
{
	atomic_init(&b->core.stop, 0);
	b->core.check = budget_check;
	b->cpu_seconds = cpu_seconds;
	atomic_init(&b->spent_ns, 0);
	atomic_init(&b->gone_at, 0);
	b->gone = gone;
	b->gone_ctx = ctx;
}

struct core_budget *budget_enter(struct core_budget *b)
{
	last_owner = b;
	last_ns = b ? thread_cpu_ns() : 0;
	return core_budget_enter(b);
}

int budget_error(struct err *err)
{
	const struct budget *b = (const struct budget *)core_budget_current();

	switch (core_budget_stopped()) {
	case BUDGET_GONE:
		return err_set(err, ERR_UNAVAILABLE, "",
		    "cancelled: the client closed its connection before the answer was ready");
	case BUDGET_SPENT:
		return err_set(err, ERR_UNAVAILABLE, "",
		    "the question ran out of its compute budget of %s CPU seconds before it was "
		    "answered: ask a shorter one (or split a sweep into shards)",
		    JTEXT_NUM(b->cpu_seconds));
	default:
		return 0;
	}
}

double budget_step_ns(const struct ans_kind *kind, const void *request)
{
	return kind->step_ns ? kind->step_ns(request) : BUDGET_STEP_NS;
}

int budget_refuse(double steps, double step_ns, double cpu_seconds, const char *field,
    const char *what, struct err *err)
{
	double seconds = steps * step_ns * 1e-9;

	if (!(cpu_seconds > 0) || seconds <= cpu_seconds)
		return 0;
	return err_set(err, ERR_BAD_VALUE, field,
	    "%s may simulate up to %.3g steps, about %.3g CPU seconds, over this server's "
	    "compute budget of %s CPU seconds a question: shorten the run (a shorter duration, "
	    "a longer timestep, fewer points)",
	    what, steps, seconds, JTEXT_NUM(cpu_seconds));
}
