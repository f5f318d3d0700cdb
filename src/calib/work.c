/*
 * work.c: the fit workers (see work.h).
 */
#include "calib/work.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "calib/events.h"
#include "calib/log.h"
#include "calib/setup.h"
#include "fit/fit.h"
#include "calib/result.h"
#include "calib/calreq.h"
#include "base/jtext.h"
#include "base/calstore.h"
#include "base/knobs.h"
#include "fit/knobs.h"
#include "calib/knobs.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct calstore *cs;
	long long *queue; /* calibrations with a pending fit, oldest first, no repeats */
	size_t nqueue, cap;
	long long busy[CALIB_FIT_WORKERS_MAX]; /* what each worker fits, 0: nothing */
	pthread_t threads[CALIB_FIT_WORKERS_MAX];
	int nthreads, stopping;
	pthread_t adopter; /* a shared store's: fits of dead nodes, and unclaimed ones */
	int adopting;
	atomic_int cancel;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER};

/* Is id being fitted? The caller holds pool.lock. */
static int busy_locked(long long id)
{
	int i;

	for (i = 0; i < pool.nthreads; i++)
		if (pool.busy[i] == id)
			return 1;
	return 0;
}

int calwork_busy(long long id)
{
	int b;

	pthread_mutex_lock(&pool.lock);
	b = busy_locked(id);
	pthread_mutex_unlock(&pool.lock);
	return b;
}

void calwork_queue(long long id)
{
	size_t i;

	pthread_mutex_lock(&pool.lock);
	for (i = 0; i < pool.nqueue && pool.queue[i] != id; i++)
		;
	if (!pool.stopping && pool.nthreads > 0 && i == pool.nqueue) {
		if (pool.nqueue == pool.cap) {
			size_t cap = pool.cap ? 2 * pool.cap : 64;
			long long *grown = realloc(pool.queue, cap * sizeof *grown);

			if (!grown) {
				/* the fit stays pending; the next start computes it */
				pthread_mutex_unlock(&pool.lock);
				callog("calibration %lld: cannot queue its fit: out of memory", id);
				return;
			}
			pool.queue = grown;
			pool.cap = cap;
		}
		pool.queue[pool.nqueue++] = id;
		pthread_cond_broadcast(&pool.work);
	}
	pthread_mutex_unlock(&pool.lock);
}

/* The oldest queued calibration nobody is fitting, taken off the queue; 0 if none. The
 * caller holds pool.lock. */
static long long take_locked(void)
{
	size_t i;
	long long id;

	for (i = 0; i < pool.nqueue; i++) {
		if (busy_locked(pool.queue[i]))
			continue;
		id = pool.queue[i];
		memmove(
		    pool.queue + i, pool.queue + i + 1, (pool.nqueue - i - 1) * sizeof *pool.queue);
		pool.nqueue--;
		return id;
	}
	return 0;
}

/* The fit of every measurement of calibration id as canonical text into *text, and how many
 * measurements it used. */
static int refit(struct calstore *cs, long long id, const json_t *all, const atomic_int *cancel,
    char **text, long long *count, struct err *err)
{
	struct calib_bound bound = {cancel, CALIB_FIT_SECONDS};
	struct calreq_setup setup;
	struct calreq_data data;
	struct fit_result *f = NULL;
	json_t *fj = NULL;
	int rc = -1;

	memset(&data, 0, sizeof data);
	if (calsetup_get(cs, id, &setup, NULL, err) != 0 || calreq_data(all, &data, err) != 0 ||
	    fit_solref(&setup.scene, &data.data, &bound, &f, err) != 0)
		goto out;
	fj = calresult_json(f, setup.mjcf_class, setup.mjcf_attributes);
	*text = fj ? jtext_line(fj) : NULL;
	if (!*text) {
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
		goto out;
	}
	*count = (long long)(data.data.ndrops + data.data.npresses + data.data.ntrajectories);
	rc = 0;
out:
	json_decref(fj);
	fit_free(f);
	calreq_data_free(&data);
	return rc;
}

int calwork_run(struct calstore *cs, long long id, const atomic_int *cancel)
{
	int recorded = 0;

	for (;;) {
		struct err err;
		struct calstore_claim claim;
		char *text = NULL;
		json_t *e;
		long long count = 0;
		int claimed, ok;

		err_clear(&err);
		/* the setup is calsetup_get()'s, parsed once */
		claimed = cs->fit_claim(cs->ctx, id, &claim, &err);
		if (claimed <= 0) {
			calstore_claim_clear(&claim);
			if (claimed < 0)
				callog(
				    "calibration %lld: cannot start its fit: %s", id, err.message);
			return recorded;
		}
		ok = refit(cs, id, claim.all, cancel, &text, &count, &err) == 0;
		if (!ok && cancel && atomic_load(cancel)) {
			/* shutdown: left running, resumed at the next start */
			calstore_claim_clear(&claim);
			return recorded;
		}
		if (!ok) {
			e = err_to_json(&err);
			text = e ? jtext_line(e) : NULL;
			json_decref(e);
			callog(
			    "calibration %lld: fit %lld failed: %s", id, claim.fit_id, err.message);
		}
		err_clear(&err);
		if (!text || cs->fit_finish(cs->ctx, claim.fit_id, ok, text, count, &err) != 0)
			callog("calibration %lld: cannot record fit %lld: %s", id, claim.fit_id,
			    text ? err.message : "out of memory");
		else
			recorded++;
		free(text);
		calstore_claim_clear(&claim);
		calevents_fit(id);
	}
}

static void *worker(void *arg)
{
	int slot = (int)(long)arg;
	long long id;

	/* below the HTTP threads: a question never waits for a fit's CPU. SCHED_BATCH: the
	 * scheduler takes a fit for the CPU-bound work it is and never lets its wakeups
	 * preempt a question (Linux's sched(7)); and a nice value above theirs. */
	struct sched_param batch = {0};
	int base;

	if (pthread_setschedparam(pthread_self(), SCHED_BATCH, &batch) != 0)
		callog("fit worker: cannot take the batch scheduling policy");
	/* CALIB_FIT_NICE above the HTTP threads' own (a daemon started under nice), at most 19 */
	errno = 0;
	base = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	if (errno != 0)
		base = 0;
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid),
	        base + CALIB_FIT_NICE < 19 ? base + CALIB_FIT_NICE : 19) != 0)
		callog("fit worker: cannot lower its priority");
	pthread_mutex_lock(&pool.lock);
	while (!pool.stopping) {
		id = take_locked();
		if (id == 0) {
			pthread_cond_wait(&pool.work, &pool.lock);
			continue;
		}
		pool.busy[slot] = id;
		pthread_mutex_unlock(&pool.lock);
		calwork_run(pool.cs, id, &pool.cancel);
		pthread_mutex_lock(&pool.lock);
		pool.busy[slot] = 0;
		/* a calibration queued while this one was busy may be taken now */
		pthread_cond_broadcast(&pool.work);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* With a store several nodes share: every CALIB_FIT_ADOPT_S, queue the calibrations whose
 * fit is pending or was left running by a node whose lease lapsed. */
static void *adopter(void *arg)
{
	struct timespec until;
	struct err err;
	json_t *ids, *v;
	size_t i;

	(void)arg;
	pthread_mutex_lock(&pool.lock);
	while (!pool.stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += CALIB_FIT_ADOPT_S;
		pthread_cond_timedwait(&pool.work, &pool.lock, &until);
		if (pool.stopping)
			break;
		pthread_mutex_unlock(&pool.lock);
		err_clear(&err);
		ids = NULL;
		if (pool.cs->fit_adopt(pool.cs->ctx, &ids, &err) == 0)
			json_array_foreach (ids, i, v)
				calwork_queue((long long)json_integer_value(v));
		json_decref(ids);
		pthread_mutex_lock(&pool.lock);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

int calwork_start(struct calstore *cs, int workers, struct err *err)
{
	json_t *ids = NULL, *v;
	size_t i;

	if (workers < 0 || workers > CALIB_FIT_WORKERS_MAX)
		return err_set(err, ERR_BAD_VALUE, NULL, "fit workers: %d is not within 0 to %d",
		    workers, CALIB_FIT_WORKERS_MAX);

	pool.cs = cs;
	pool.stopping = 0;
	atomic_store(&pool.cancel, 0);
	if (cs->fit_recover(cs->ctx, &ids, err) != 0) {
		/* A shared store not reached yet (a node started before PostgreSQL): the
		 * adopter finds its pending fits once it is. */
		if (!cs->fit_adopt || err->code != ERR_UNAVAILABLE)
			return -1;
		err_clear(err);
		ids = NULL;
	}
	if (workers == 0) {
		/* the pending fits wait for a node that fits: nothing to queue or adopt here */
		json_decref(ids);
		return 0;
	}
	pthread_mutex_lock(&pool.lock);
	for (pool.nthreads = 0; pool.nthreads < workers; pool.nthreads++)
		if (pthread_create(&pool.threads[pool.nthreads], NULL, worker,
		        (void *)(long)pool.nthreads) != 0)
			break;
	pthread_mutex_unlock(&pool.lock);
	if (pool.nthreads == 0) {
		json_decref(ids);
		return err_set(err, ERR_INTERNAL, NULL, "cannot start a fit worker");
	}
	json_array_foreach (ids, i, v)
		calwork_queue((long long)json_integer_value(v));
	json_decref(ids);
	if (cs->fit_adopt && pthread_create(&pool.adopter, NULL, adopter, NULL) == 0)
		pool.adopting = 1;
	return 0;
}

void calwork_stop(void)
{
	int i;

	pthread_mutex_lock(&pool.lock);
	pool.stopping = 1;
	atomic_store(&pool.cancel, 1);
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < pool.nthreads; i++)
		pthread_join(pool.threads[i], NULL);
	if (pool.adopting)
		pthread_join(pool.adopter, NULL);
	pool.adopting = 0;
	pthread_mutex_lock(&pool.lock);
	pool.nthreads = 0;
	free(pool.queue);
	pool.queue = NULL;
	pool.nqueue = pool.cap = 0;
	pthread_mutex_unlock(&pool.lock);
}
