/*
 * admit.c: the compute pool behind admit.h: a mutex, a condition variable, the clients
 * that hold admitted jobs (a hash table of them), each with its queue, and a ring of the
 * clients whose queue is not empty, served in turn.
 */
#include "http/admit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hash buckets of the clients: there are at most `capacity` of them (each holds a job). */
#define ADMIT_BUCKETS 256

struct admit_client {
	char key[ADMIT_KEY_MAX];
	int limited;   /* held to the share (0: the caller's NULL client) */
	long admitted; /* reserved, queued or running; freed at 0 */
	long running;
	struct admit_job *head, *tail;              /* its queue */
	struct admit_client *ring_prev, *ring_next; /* in the ring while its queue is not empty */
	struct admit_client *next;                  /* its bucket's */
};

struct admit {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct admit_client *buckets[ADMIT_BUCKETS];
	struct admit_client *ring; /* the client served next, NULL when no job waits */
	long capacity;
	long share_running, share_queued;
	long admitted; /* reserved, queued or running */
	long running;
	long queued;
	unsigned long rejected, share_rejected;
	int stopping, closed;
	int workers;
	pthread_t *threads;
};

static unsigned bucket_of(const char *key)
{
	unsigned h = 2166136261u; /* FNV-1a */

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h % ADMIT_BUCKETS;
}

/* The client of key (NULL: the unlimited one), made if new; NULL when out of memory.
 * The caller holds the lock. */
static struct admit_client *client_get(struct admit *a, const char *key)
{
	char k[ADMIT_KEY_MAX];
	unsigned b;
	struct admit_client *c;

	snprintf(k, sizeof k, "%s", key ? key : ""); /* cut as it is kept */
	b = bucket_of(k);
	for (c = a->buckets[b]; c; c = c->next)
		if (c->limited == (key != NULL) && strcmp(c->key, k) == 0)
			return c;
	c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	memcpy(c->key, k, sizeof k);
	c->limited = key != NULL;
	c->next = a->buckets[b];
	a->buckets[b] = c;
	return c;
}

/* One admitted job of c is over (ran or cancelled): c freed once it holds none. The caller
 * holds the lock. */
static void client_release(struct admit *a, struct admit_client *c)
{
	struct admit_client **p;

	a->admitted--;
	if (--c->admitted > 0)
		return;
	for (p = &a->buckets[bucket_of(c->key)]; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			break;
		}
	}
	free(c);
}

static void ring_insert(struct admit *a, struct admit_client *c)
{
	if (!a->ring) {
		a->ring = c->ring_prev = c->ring_next = c;
		return;
	}
	/* last in the turn: before the client served next */
	c->ring_next = a->ring;
	c->ring_prev = a->ring->ring_prev;
	c->ring_prev->ring_next = c;
	a->ring->ring_prev = c;
}

static void ring_remove(struct admit *a, struct admit_client *c)
{
	if (c->ring_next == c) {
		a->ring = NULL;
	} else {
		c->ring_prev->ring_next = c->ring_next;
		c->ring_next->ring_prev = c->ring_prev;
		if (a->ring == c)
			a->ring = c->ring_next;
	}
	c->ring_prev = c->ring_next = NULL;
}

/* The next job to run: the first client in turn below its running share gives its oldest;
 * the turn passes to the client after it. NULL when none may run. The caller holds the
 * lock. */
static struct admit_job *next_job(struct admit *a)
{
	struct admit_client *c = a->ring, *first = a->ring;
	struct admit_job *job;

	if (!c)
		return NULL;
	do {
		if (!c->limited || c->running < a->share_running) {
			job = c->head;
			c->head = job->next;
			if (!c->head)
				c->tail = NULL;
			c->running++;
			a->ring = c->ring_next;
			if (!c->head)
				ring_remove(a, c);
			return job;
		}
		c = c->ring_next;
	} while (c != first);
	return NULL;
}

static void *worker(void *p)
{
	struct admit *a = p;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct admit_job *job = next_job(a);
		struct admit_client *c;

		if (!job) {
			/* queued jobs of clients at their running share wait for those to end,
			 * which a worker running one of them serves */
			if (a->stopping)
				break;
			pthread_cond_wait(&a->work, &a->lock);
			continue;
		}
		c = job->client; /* job may be freed by run() */
		a->queued--;
		a->running++;
		pthread_mutex_unlock(&a->lock);
		job->run(job->arg, 0);
		pthread_mutex_lock(&a->lock);
		a->running--;
		c->running--;
		client_release(a, c);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int admit_new(int workers, long capacity, long share_running, long share_queued, struct admit **out,
    struct err *err)
{
	struct admit *a = calloc(1, sizeof *a);
	int i;

	if (!a || !(a->threads = calloc((size_t)workers, sizeof *a->threads))) {
		free(a);
		return err_set(err, ERR_UNAVAILABLE, NULL, "out of memory");
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->work, NULL);
	a->capacity = capacity < workers ? workers : capacity;
	a->share_running = share_running < 1 ? 1 : share_running;
	a->share_queued = share_queued < 1 ? 1 : share_queued;
	for (i = 0; i < workers; i++) {
		if (pthread_create(&a->threads[i], NULL, worker, a) != 0) {
			a->workers = i;
			admit_stop(a);
			return err_set(err, ERR_UNAVAILABLE, NULL, "cannot start compute threads");
		}
	}
	a->workers = workers;
	*out = a;
	return 0;
}

enum admit_verdict admit_reserve(struct admit *a, const char *client, struct admit_job *job)
{
	enum admit_verdict v = ADMIT_OK;
	struct admit_client *c = NULL;

	pthread_mutex_lock(&a->lock);
	if (a->closed || a->admitted >= a->capacity || !(c = client_get(a, client)))
		v = ADMIT_FULL;
	else if (c->limited && c->admitted >= a->share_running + a->share_queued)
		v = ADMIT_SHARE;
	if (v == ADMIT_OK) {
		c->admitted++;
		a->admitted++;
		job->client = c;
	} else if (v == ADMIT_SHARE) {
		a->share_rejected++;
	} else {
		a->rejected++;
	}
	pthread_mutex_unlock(&a->lock);
	return v;
}

void admit_submit(struct admit *a, struct admit_job *job)
{
	struct admit_client *c = job->client;

	pthread_mutex_lock(&a->lock);
	job->next = NULL;
	if (c->tail) {
		c->tail->next = job;
	} else {
		c->head = job;
		ring_insert(a, c);
	}
	c->tail = job;
	a->queued++;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
}

void admit_cancel_queued(struct admit *a)
{
	struct admit_job *cancelled = NULL, *job, *next;

	pthread_mutex_lock(&a->lock);
	a->closed = 1;
	while (a->ring) {
		struct admit_client *c = a->ring;

		ring_remove(a, c);
		for (job = c->head; job; job = next) {
			next = job->next;
			job->next = cancelled;
			cancelled = job;
			a->queued--;
			client_release(a, c); /* c may be freed with the last */
		}
	}
	pthread_mutex_unlock(&a->lock);
	/* Outside the lock: run() may take other locks (the request's). */
	for (job = cancelled; job; job = next) {
		next = job->next;
		job->run(job->arg, 1);
	}
}

static long load(struct admit *a, const long *v)
{
	long n;

	pthread_mutex_lock(&a->lock);
	n = *v;
	pthread_mutex_unlock(&a->lock);
	return n;
}

long admit_running(struct admit *a)
{
	return load(a, &a->running);
}

long admit_queued(struct admit *a)
{
	return load(a, &a->queued);
}

static unsigned long load_count(struct admit *a, const unsigned long *v)
{
	unsigned long n;

	pthread_mutex_lock(&a->lock);
	n = *v;
	pthread_mutex_unlock(&a->lock);
	return n;
}

unsigned long admit_rejected(struct admit *a)
{
	return load_count(a, &a->rejected);
}

unsigned long admit_share_rejected(struct admit *a)
{
	return load_count(a, &a->share_rejected);
}

void admit_share(const struct admit *a, long *running, long *queued)
{
	/* set once by admit_new() */
	*running = a->share_running;
	*queued = a->share_queued;
}

long admit_stop(struct admit *a)
{
	long running;
	int i;

	if (!a)
		return 0;
	pthread_mutex_lock(&a->lock);
	a->stopping = a->closed = 1;
	running = a->running;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	/* Joined, never left to run on: a worker that outlived the caller's store_close()
	 * would find the store freed (its connection slot, its cache). */
	for (i = 0; i < a->workers; i++)
		pthread_join(a->threads[i], NULL);
	pthread_cond_destroy(&a->work);
	pthread_mutex_destroy(&a->lock);
	for (i = 0; i < ADMIT_BUCKETS; i++) {
		while (a->buckets[i]) {
			struct admit_client *c = a->buckets[i];

			a->buckets[i] = c->next;
			free(c);
		}
	}
	free(a->threads);
	free(a);
	return running;
}
