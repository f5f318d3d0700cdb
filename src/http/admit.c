/*
 * admit.c: the compute pool behind admit.h: a mutex, a condition variable, a FIFO of
 * jobs and a count of admitted ones.
 */
#include "http/admit.h"

#include <pthread.h>
#include <stdlib.h>

struct admit {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct admit_job *head, *tail;
	long capacity;
	long admitted; /* reserved, queued or running */
	long running;
	long queued;
	unsigned long rejected;
	int stopping, closed;
	int workers;
	pthread_t *threads;
};

static void *worker(void *p)
{
	struct admit *a = p;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct admit_job *job = a->head;

		if (!job) {
			if (a->stopping)
				break;
			pthread_cond_wait(&a->work, &a->lock);
			continue;
		}
		a->head = job->next;
		if (!a->head)
			a->tail = NULL;
		a->queued--;
		a->running++;
		pthread_mutex_unlock(&a->lock);
		job->run(job->arg, 0);
		pthread_mutex_lock(&a->lock);
		a->running--;
		a->admitted--;
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int admit_new(int workers, long capacity, struct admit **out, struct err *err)
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

int admit_reserve(struct admit *a)
{
	int ok;

	pthread_mutex_lock(&a->lock);
	ok = !a->closed && a->admitted < a->capacity;
	if (ok)
		a->admitted++;
	else
		a->rejected++;
	pthread_mutex_unlock(&a->lock);
	return ok ? 0 : -1;
}

void admit_submit(struct admit *a, struct admit_job *job)
{
	pthread_mutex_lock(&a->lock);
	job->next = NULL;
	if (a->tail)
		a->tail->next = job;
	else
		a->head = job;
	a->tail = job;
	a->queued++;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
}

void admit_cancel_queued(struct admit *a)
{
	struct admit_job *job, *next;

	pthread_mutex_lock(&a->lock);
	a->closed = 1;
	job = a->head;
	a->head = a->tail = NULL;
	for (next = job; next; next = next->next) {
		a->queued--;
		a->admitted--;
	}
	pthread_mutex_unlock(&a->lock);
	/* Outside the lock: run() may take other locks (the request's). */
	for (; job; job = next) {
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

unsigned long admit_rejected(struct admit *a)
{
	unsigned long n;

	pthread_mutex_lock(&a->lock);
	n = a->rejected;
	pthread_mutex_unlock(&a->lock);
	return n;
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
	free(a->threads);
	free(a);
	return running;
}
