/*
 * parallel.c: a fit's work shared over its threads (see parallel.h).
 *
 * Each thread that shares work keeps its crew of helpers from its first parallel_for() until
 * it exits. A fit calls parallel_for() hundreds of times, and a thread started and joined
 * for each call cost a clone, the page faults of a fresh stack and, at its exit, the
 * madvise() that hands the stack back (a TLB shootdown on every core), while the caller
 * waited for it: a quarter of a drop fit's wall time on a 2-core machine.
 */
#include "fit/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "tunables.h"

enum { HELPERS = CALIB_FIT_THREADS > 1 ? CALIB_FIT_THREADS - 1 : 1 };

struct parallel_jobs {
	void (*run)(void *ctx, size_t job);
	void *ctx;
	size_t njobs;
	atomic_size_t next;
};

struct crew;

/* A helper's place in its crew: helper `index` joins a round only when the round wants more
 * than `index` helpers. */
struct crew_seat {
	struct crew *crew;
	int index;
};

/* One thread's helpers, waiting for its next call's jobs. */
struct crew {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a new round, or quit */
	pthread_cond_t idle; /* the round's last helper is done */
	struct parallel_jobs *jobs;
	unsigned long round; /* one per call that shares; each helper sees each round once */
	int wanted;          /* helpers that join this round: the first `wanted` seats */
	int busy;            /* helpers still in this round */
	int quit;
	int started;
	pthread_t helpers[HELPERS];
	struct crew_seat seats[HELPERS];
};

/* Fits running now (parallel_fit_begin() to parallel_fit_end()), over every thread. */
static atomic_int fits_running;

static pthread_key_t crew_key;
static pthread_once_t crew_once = PTHREAD_ONCE_INIT;
static int crew_keyed; /* the key exists (else every call runs alone) */

/* Set while this thread runs a job: a fit takes at most CALIB_FIT_THREADS threads in all. */
static _Thread_local int in_job;

static void parallel_run(struct parallel_jobs *pj)
{
	int outer = in_job;
	size_t j;

	in_job = 1;
	while ((j = atomic_fetch_add(&pj->next, 1)) < pj->njobs)
		pj->run(pj->ctx, j);
	in_job = outer;
}

static void *crew_helper(void *arg)
{
	const struct crew_seat *seat = arg;
	struct crew *c = seat->crew;
	unsigned long seen = 0;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct parallel_jobs *pj;

		while (!c->quit && c->round == seen)
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->quit)
			break;
		seen = c->round;
		if (seat->index >= c->wanted)
			continue; /* not this round's: the fits have their threads (parallel.h) */
		pj = c->jobs;
		pthread_mutex_unlock(&c->lock);
		parallel_run(pj);
		pthread_mutex_lock(&c->lock);
		if (--c->busy == 0)
			pthread_cond_signal(&c->idle);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The key's destructor: the owning thread is exiting, between calls. */
static void crew_stop(void *arg)
{
	struct crew *c = arg;
	int k;

	pthread_mutex_lock(&c->lock);
	c->quit = 1;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
	for (k = 0; k < c->started; k++)
		pthread_join(c->helpers[k], NULL);
	pthread_cond_destroy(&c->wake);
	pthread_cond_destroy(&c->idle);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* In a child of fork() the forking thread's helpers do not exist: it starts a new crew (the
 * old one's memory is left; a child that forks mid-fit does not come back for it). */
static void crew_forget(void)
{
	if (crew_keyed)
		pthread_setspecific(crew_key, NULL);
}

static void crew_init(void)
{
	crew_keyed = pthread_key_create(&crew_key, crew_stop) == 0;
	if (crew_keyed)
		pthread_atfork(NULL, NULL, crew_forget);
}

/* The calling thread's crew, started on first use; NULL when none can be had. */
static struct crew *crew_mine(void)
{
	struct crew *c;

	pthread_once(&crew_once, crew_init);
	if (!crew_keyed)
		return NULL;
	c = pthread_getspecific(crew_key);
	if (c)
		return c;
	c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	pthread_cond_init(&c->idle, NULL);
	while (c->started < CALIB_FIT_THREADS - 1) {
		c->seats[c->started].crew = c;
		c->seats[c->started].index = c->started;
		if (pthread_create(
		        &c->helpers[c->started], NULL, crew_helper, &c->seats[c->started]) != 0)
			break;
		c->started++;
	}
	if (c->started == 0 || pthread_setspecific(crew_key, c) != 0) {
		crew_stop(c);
		return NULL;
	}
	return c;
}

void parallel_fit_begin(void)
{
	atomic_fetch_add(&fits_running, 1);
}

void parallel_fit_end(void)
{
	atomic_fetch_sub(&fits_running, 1);
}

/* Helpers this call may wake: the threads CALIB_FIT_THREADS leaves beside the fits running
 * (each on its own thread; a caller outside a fit counts as one), at most c's. */
static int helpers_free(const struct crew *c)
{
	int running = atomic_load(&fits_running), free_threads;

	free_threads = CALIB_FIT_THREADS - (running > 0 ? running : 1);
	return free_threads < c->started ? (free_threads > 0 ? free_threads : 0) : c->started;
}

void parallel_for(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx)
{
	/* a job that shares again runs alone: every thread of the fit is busy already */
	struct crew *c =
	    share && CALIB_FIT_THREADS > 1 && njobs > 1 && !in_job ? crew_mine() : NULL;
	struct parallel_jobs pj;
	int wanted = c ? helpers_free(c) : 0;

	if (wanted == 0)
		c = NULL; /* nobody to wake: the fits running have every thread */

	pj.run = run;
	pj.ctx = ctx;
	pj.njobs = njobs;
	atomic_init(&pj.next, 0);
	if (c) {
		pthread_mutex_lock(&c->lock);
		c->jobs = &pj;
		c->wanted = wanted;
		c->busy = wanted;
		c->round++;
		pthread_cond_broadcast(&c->wake);
		pthread_mutex_unlock(&c->lock);
	}
	parallel_run(&pj);
	if (c) {
		/* pj lives on this stack: no helper may still hold it */
		pthread_mutex_lock(&c->lock);
		while (c->busy > 0)
			pthread_cond_wait(&c->idle, &c->lock);
		c->jobs = NULL;
		pthread_mutex_unlock(&c->lock);
	}
}
