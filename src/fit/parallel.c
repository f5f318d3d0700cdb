/* parallel.c: a fit's work shared over its threads (see parallel.h). A sharing call starts its
 * helpers and joins them before it returns: a fit makes a few dozen (a batch of map points each),
 * so a thread's start, tens of microseconds, is nothing beside one; on Linux a thread inherits
 * its creator's scheduling class and nice value. */
#include "fit/parallel.h"

#include <pthread.h>
#include <stdatomic.h>

#include "fit/knobs.h"

/* Fits running now (parallel_fit_begin() to parallel_fit_end()), over every thread. */
static atomic_int fits_running;

/* Set while this thread runs a job: a job's own calls stay on its thread. */
static _Thread_local int in_job;

struct parallel_jobs {
	void (*run)(void *ctx, size_t job);
	void *ctx;
	size_t njobs;
	atomic_size_t next;
};

void parallel_fit_begin(void)
{
	atomic_fetch_add(&fits_running, 1);
}

void parallel_fit_end(void)
{
	atomic_fetch_sub(&fits_running, 1);
}

static void *take_jobs(void *arg)
{
	struct parallel_jobs *pj = arg;
	int outer = in_job;
	size_t j;

	in_job = 1;
	while ((j = atomic_fetch_add(&pj->next, 1)) < pj->njobs)
		pj->run(pj->ctx, j);
	in_job = outer;
	return NULL;
}

void parallel_for(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx)
{
	struct parallel_jobs pj = {run, ctx, njobs, 0};
	pthread_t helper[CALIB_FIT_THREADS];
	int free_threads = CALIB_FIT_THREADS - atomic_load(&fits_running), n = 0, i;

	/* the threads CALIB_FIT_THREADS leaves beside the fits running, each running one */
	if (share && njobs >= 2 && !in_job)
		for (; n < free_threads && n < CALIB_FIT_THREADS - 1 && (size_t)n + 1 < njobs; n++)
			if (pthread_create(&helper[n], NULL, take_jobs, &pj) != 0)
				break;
	take_jobs(&pj);
	for (i = 0; i < n; i++)
		pthread_join(helper[i], NULL);
}
