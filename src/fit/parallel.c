/*
 * parallel.c: a fit's work shared over its threads (see parallel.h).
 *
 * Each thread that shares work keeps its crew of helpers from its first parallel_for() until
 * it exits. A fit calls parallel_for() hundreds of times, and a thread started and joined
 * for each call cost a clone, the page faults of a fresh stack and, at its exit, the
 * madvise() that hands the stack back (a TLB shootdown on every core), while the caller
 * waited for it: a quarter of a drop fit's wall time on a 2-core machine. The helpers are
 * started with default attributes: they inherit their creator's scheduling policy and, on
 * Linux, its nice value.
 */
#include "fit/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "fit/knobs.h"

enum { HELPERS = CALIB_FIT_THREADS > 1 ? CALIB_FIT_THREADS - 1 : 1 };

/* One call's jobs: each thread that takes part takes the next until none is left. */
struct jobs {
	void (*run)(void *ctx, size_t job);
	void *ctx;
	size_t njobs;
	atomic_size_t next;
};

/* One thread's helpers, waiting for its next call's jobs. */
struct crew {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a call has seats for helpers, or quit */
	pthread_cond_t idle; /* the call's last helper is done */
	struct jobs *jobs;   /* the current call's */
	int seats;           /* helpers the current call may still take */
	int busy;            /* of its seats, those not done yet */
	int quit;
	int started;
	pthread_t helpers[HELPERS];
};

/* Fits running now (parallel_fit_begin() to parallel_fit_end()), over every thread. */
static atomic_int fits_running;

static pthread_key_t crew_key;
static pthread_once_t crew_once = PTHREAD_ONCE_INIT;
static int crew_keyed; /* the key exists (else every call runs alone) */

/* Set while this thread runs a job: a fit takes at most CALIB_FIT_THREADS threads in all. */
static _Thread_local int in_job;

static void run_jobs(struct jobs *js)
{
	int outer = in_job;
	size_t j;

	in_job = 1;
	while ((j = atomic_fetch_add(&js->next, 1)) < js->njobs)
		js->run(js->ctx, j);
	in_job = outer;
}

static void *helper_main(void *arg)
{
	struct crew *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct jobs *js;

		while (!c->quit && c->seats == 0)
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->quit)
			break;
		/* a helper that takes a second seat of one call finds no job left */
		c->seats--;
		js = c->jobs;
		pthread_mutex_unlock(&c->lock);
		run_jobs(js);
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
	while (c->started < CALIB_FIT_THREADS - 1 &&
	    pthread_create(&c->helpers[c->started], NULL, helper_main, c) == 0)
		c->started++;
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

/* Helpers this call may take: the threads CALIB_FIT_THREADS leaves beside the fits running
 * (each on its own thread; a caller outside a fit counts as one), at most c's. */
static int helpers_free(const struct crew *c)
{
	int running = atomic_load(&fits_running);
	int free_threads = CALIB_FIT_THREADS - (running > 0 ? running : 1);

	return free_threads < c->started ? (free_threads > 0 ? free_threads : 0) : c->started;
}

void parallel_for(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx)
{
	/* a job that shares again runs alone: every thread of the fit is busy already */
	struct crew *c =
	    share && CALIB_FIT_THREADS > 1 && njobs > 1 && !in_job ? crew_mine() : NULL;
	int wanted = c ? helpers_free(c) : 0;
	struct jobs js = {run, ctx, njobs, 0};

	if (wanted > 0) {
		pthread_mutex_lock(&c->lock);
		c->jobs = &js;
		c->seats = c->busy = wanted;
		pthread_cond_broadcast(&c->wake);
		pthread_mutex_unlock(&c->lock);
	}
	run_jobs(&js);
	if (wanted > 0) {
		/* js lives on this stack: no helper may still hold it */
		pthread_mutex_lock(&c->lock);
		while (c->busy > 0)
			pthread_cond_wait(&c->idle, &c->lock);
		c->jobs = NULL;
		pthread_mutex_unlock(&c->lock);
	}
}
