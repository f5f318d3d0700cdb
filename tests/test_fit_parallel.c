/*
 * test_fit_parallel.c: the bound on the threads all fits take together (fit/parallel.h,
 * issue #29: fit workers must not crowd out the questions). While as many fits run as
 * CALIB_FIT_THREADS allows threads, parallel_for() shares with no helper; with one fit
 * running, its helper joins; every job runs exactly once either way. Lockstep jobs
 * (parallel_for_lockstep()) have their steps carried out together, each answered as alone,
 * with no more of them running at once than the fit has threads, from inside a job too.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "fit/parallel.h"
#include "fit/knobs.h"

enum { JOBS = 64 };

struct jobs {
	pthread_t caller;
	atomic_int runs[JOBS];
	atomic_int by_other;   /* jobs run on a thread other than the caller's */
	atomic_int waited_out; /* job 0 gave up waiting for another thread */
	int wait_for_other;    /* job 0 waits until some other thread has run a job */
};

static void pause_ms(long ms)
{
	struct timespec t = {0, ms * 1000000L};

	nanosleep(&t, NULL);
}

static void job_run(void *ctx, size_t j)
{
	struct jobs *s = ctx;
	int k;

	atomic_fetch_add(&s->runs[j], 1);
	if (!pthread_equal(pthread_self(), s->caller))
		atomic_fetch_add(&s->by_other, 1);
	if (j == 0 && s->wait_for_other) {
		/* the helper takes the next jobs while this one waits: 60 s is far beyond any
		 * wake-up, so only a helper that never came ends the wait */
		for (k = 0; k < 60000 && atomic_load(&s->by_other) == 0; k++)
			pause_ms(1);
		atomic_store(&s->waited_out, atomic_load(&s->by_other) == 0);
	} else if (s->wait_for_other == 0) {
		pause_ms(1); /* long enough for a woken helper to take some jobs */
	}
}

static void run_jobs(struct jobs *s, int wait_for_other)
{
	int j;

	s->caller = pthread_self();
	for (j = 0; j < JOBS; j++)
		atomic_init(&s->runs[j], 0);
	atomic_init(&s->by_other, 0);
	atomic_init(&s->waited_out, 0);
	s->wait_for_other = wait_for_other;
	parallel_for(JOBS, 1, job_run, s);
	for (j = 0; j < JOBS; j++)
		ck_assert_int_eq((int)atomic_load(&s->runs[j]), 1);
}

START_TEST(one_fit_takes_a_helper)
{
	struct jobs s;

	if (CALIB_FIT_THREADS < 2)
		return;
	parallel_fit_begin();
	run_jobs(&s, 1);
	parallel_fit_end();
	ck_assert_msg(!atomic_load(&s.waited_out), "no helper joined one fit in 60 s");
	ck_assert_int_gt((int)atomic_load(&s.by_other), 0);
}
END_TEST

START_TEST(fits_at_the_bound_share_with_none)
{
	struct jobs s;
	int k;

	/* as many fits as threads: each has its own, and no helper may join */
	for (k = 0; k < CALIB_FIT_THREADS; k++)
		parallel_fit_begin();
	run_jobs(&s, 0);
	ck_assert_int_eq((int)atomic_load(&s.by_other), 0);
	for (k = 0; k < CALIB_FIT_THREADS; k++)
		parallel_fit_end();
	/* and once they are done, a fit shares again (the count went back down) */
	if (CALIB_FIT_THREADS >= 2) {
		parallel_fit_begin();
		run_jobs(&s, 1);
		parallel_fit_end();
		ck_assert_int_gt((int)atomic_load(&s.by_other), 0);
	}
}
END_TEST

/* Lockstep: each job asks for STEPS steps, each answered by its batch as a pure function
 * of the request, and checks every answer. */
enum { CHAINS = 24, STEPS = 40 };

struct chain_step {
	struct parallel_step step;
	int chain, index, answer;
};

struct chains {
	atomic_int runs[CHAINS];
	atomic_int wrong;    /* answers that were not the request's */
	atomic_int running;  /* job code running now (not waiting for a step) */
	atomic_int most;     /* the most job code ever running at once */
	atomic_int requests; /* steps carried out */
	atomic_int batched;  /* batches of more than one step */
	atomic_int largest;  /* the most steps of one batch */
	int inner;           /* each job also runs two lockstep jobs of its own inside */
};

static struct chains *the_chains; /* the batch function's (it has no context) */

static void chain_batch(struct parallel_step *const *steps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct chain_step *c = (struct chain_step *)steps[i];

		c->answer = c->chain * 1000 + c->index;
	}
	atomic_fetch_add(&the_chains->requests, (int)n);
	if (n > 1)
		atomic_fetch_add(&the_chains->batched, 1);
	for (;;) {
		int most = atomic_load(&the_chains->largest);

		if ((int)n <= most ||
		    atomic_compare_exchange_weak(&the_chains->largest, &most, (int)n))
			break;
	}
}

static void chain_enter(struct chains *c)
{
	int now = atomic_fetch_add(&c->running, 1) + 1, most;

	for (most = atomic_load(&c->most); now > most;)
		if (atomic_compare_exchange_weak(&c->most, &most, now))
			break;
}

/* STEPS steps of chain `chain` (an inner chain counts from 100 up). */
static void chain_steps(struct chains *c, int chain)
{
	int k;

	for (k = 0; k < STEPS; k++) {
		struct chain_step st = {{chain_batch}, chain, k, -1};

		atomic_fetch_sub(&c->running, 1);
		parallel_step(&st.step);
		chain_enter(c);
		if (st.answer != chain * 1000 + k)
			atomic_fetch_add(&c->wrong, 1);
	}
}

static void inner_run(void *ctx, size_t j)
{
	struct chains *c = ctx;

	chain_steps(c, 100 + (int)j);
}

static void chain_run(void *ctx, size_t j)
{
	struct chains *c = ctx;

	atomic_fetch_add(&c->runs[j], 1);
	chain_enter(c);
	chain_steps(c, (int)j);
	if (c->inner)
		parallel_for_lockstep(2, 1, inner_run, c);
	atomic_fetch_sub(&c->running, 1);
}

static void run_chains(struct chains *c, int inner)
{
	int j;

	memset(c, 0, sizeof *c);
	c->inner = inner;
	the_chains = c;
	parallel_fit_begin();
	parallel_for_lockstep(CHAINS, 1, chain_run, c);
	parallel_fit_end();
	for (j = 0; j < CHAINS; j++)
		ck_assert_int_eq((int)atomic_load(&c->runs[j]), 1);
	ck_assert_int_eq((int)atomic_load(&c->wrong), 0);
	ck_assert_int_eq((int)atomic_load(&c->requests), CHAINS * STEPS * (inner ? 3 : 1));
	/* one member of each of the fit's threads runs at a time */
	ck_assert_int_le((int)atomic_load(&c->most), CALIB_FIT_THREADS);
	ck_assert_int_le((int)atomic_load(&c->largest), CALIB_LOCKSTEP_JOBS);
}

START_TEST(lockstep_steps_together)
{
	struct chains c;

	run_chains(&c, 0);
	if (CALIB_LOCKSTEP_JOBS > 1) {
		/* the chains' steps went together: with 24 chains over at most two threads,
		 * every thread's members all wait at each step but its last chains' */
		ck_assert_int_gt((int)atomic_load(&c.batched), STEPS);
		ck_assert_int_gt((int)atomic_load(&c.largest), 1);
	}
	/* chains inside a chain: their steps still go with their thread's */
	run_chains(&c, 1);
}
END_TEST

START_TEST(a_step_outside_lockstep_is_carried_out_at_once)
{
	struct chains c;
	struct chain_step st = {{chain_batch}, 7, 3, -1};

	memset(&c, 0, sizeof c);
	the_chains = &c;
	parallel_step(&st.step);
	ck_assert_int_eq(st.answer, 7003);
	ck_assert_int_eq((int)atomic_load(&c.requests), 1);
	ck_assert_int_eq((int)atomic_load(&c.largest), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fit_parallel");
	TCase *tc = tcase_create("bound");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, one_fit_takes_a_helper);
	tcase_add_test(tc, fits_at_the_bound_share_with_none);
	tcase_add_test(tc, lockstep_steps_together);
	tcase_add_test(tc, a_step_outside_lockstep_is_carried_out_at_once);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	/* one process: the crew and the count of fits are the process's */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
