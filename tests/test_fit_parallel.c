/*
 * test_fit_parallel.c: the bound on the threads all fits take together (fit/parallel.h,
 * issue #29: fit workers must not crowd out the questions). While as many fits run as
 * CALIB_FIT_THREADS allows threads, parallel_for() shares with no helper; with one fit
 * running, its helper joins; every job runs exactly once either way.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
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

int main(void)
{
	Suite *s = suite_create("fit_parallel");
	TCase *tc = tcase_create("bound");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, one_fit_takes_a_helper);
	tcase_add_test(tc, fits_at_the_bound_share_with_none);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	/* one process: the crew and the count of fits are the process's */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
