/*
 * admit.h: admission control and the compute pool of contactd.
 *
 * Questions that must be computed run here, off the HTTP threads, so that a long
 * sweep never stalls the other connections of its HTTP thread (which libmicrohttpd
 * would then time out without an answer). At most `capacity` questions are admitted
 * at once (running on `workers` threads or queued); beyond that the caller answers
 * 503 with Retry-After at once: overload is answered, never silent.
 *
 * Use: admit_reserve() a slot (or answer 503), then admit_submit() the job into it.
 * Every function is safe from any thread.
 */
#ifndef CONTACTD_HTTP_ADMIT_H
#define CONTACTD_HTTP_ADMIT_H

#include "base/error.h"

/*
 * One job, owned by the caller (embed it in the request) until run() is called.
 * run(arg, cancelled) is called exactly once: on a worker thread with cancelled 0, or,
 * cancelled 1, by admit_cancel_queued() for a job that never started.
 */
struct admit_job {
	void (*run)(void *arg, int cancelled);
	void *arg;
	struct admit_job *next; /* the pool's queue */
};

struct admit;

/* A pool of workers (>= 1) admitting capacity (>= workers) jobs at once. On success *out
 * is a new pool the caller ends with admit_stop(). */
int admit_new(int workers, long capacity, struct admit **out, struct err *err);

/* Take one admission slot: 0 when taken (submit a job into it next), -1 when the pool
 * is full or stopping (counted as rejected). */
int admit_reserve(struct admit *a);

/* Queue job into a slot taken with admit_reserve(); never fails, never blocks. */
void admit_submit(struct admit *a, struct admit_job *job);

/* Call run(arg, 1) for every queued job that has not started (shutdown past its drain
 * timeout) and refuse new reservations. */
void admit_cancel_queued(struct admit *a);

/* Jobs running now, jobs queued, reservations refused since the start. */
long admit_running(struct admit *a);
long admit_queued(struct admit *a);
unsigned long admit_rejected(struct admit *a);

/*
 * Stop the pool: workers finish their job and exit; joined, a is freed. Returns how many
 * jobs were running when it was called: it waits for them, so the caller tells them to stop
 * first (a question's budget sees its client gone, jobs.h), and nothing a job uses may be
 * freed before this returns.
 */
long admit_stop(struct admit *a);

#endif
