/*
 * parallel.c: a fit's work shared over its threads (see parallel.h).
 */
#include "fit/parallel.h"

#include <pthread.h>
#include <stdatomic.h>

#include "tunables.h"

struct parallel_jobs {
	void (*run)(void *ctx, size_t job);
	void *ctx;
	size_t njobs;
	atomic_size_t next;
};

static void *parallel_run(void *arg)
{
	struct parallel_jobs *pj = arg;
	size_t j;

	while ((j = atomic_fetch_add(&pj->next, 1)) < pj->njobs)
		pj->run(pj->ctx, j);
	return NULL;
}

void parallel_for(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx)
{
	pthread_t helpers[CALIB_FIT_THREADS > 1 ? CALIB_FIT_THREADS - 1 : 1];
	struct parallel_jobs pj;
	int started = 0, k;

	pj.run = run;
	pj.ctx = ctx;
	pj.njobs = njobs;
	atomic_init(&pj.next, 0);
	for (k = 0; share && k + 1 < CALIB_FIT_THREADS && (size_t)k + 1 < njobs; k++)
		if (pthread_create(&helpers[started], NULL, parallel_run, &pj) == 0)
			started++;
	parallel_run(&pj);
	for (k = 0; k < started; k++)
		pthread_join(helpers[k], NULL);
}
