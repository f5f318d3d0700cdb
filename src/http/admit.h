/*
 * admit.h: admission control and the compute pool of contactd.
 *
 * Questions that must be computed run here, off the HTTP threads, so that a long
 * sweep never stalls the other connections of its HTTP thread (which libmicrohttpd
 * would then time out without an answer). At most `capacity` jobs are admitted at once
 * (running on `workers` threads or queued); beyond that the caller answers 503 with
 * Retry-After at once: overload is answered, never silent.
 *
 * The pool is fair between clients (a client is a key the caller names: a bearer token,
 * an address): each may hold at most `share_running` running jobs and `share_queued`
 * more waiting, and the queue serves the clients with waiting jobs in turn, one job each
 * (each client's own jobs in the order they came). So a client's short question waits
 * behind at most one job of each other client, never behind one client's whole backlog.
 *
 * Use: admit_reserve() a slot (or answer 503), then admit_submit() the job into it.
 * Every function is safe from any thread.
 */
#ifndef CONTACTD_HTTP_ADMIT_H
#define CONTACTD_HTTP_ADMIT_H

#include "base/error.h"

/* Bytes of a client's key, its NUL included; a longer key is cut (still one client). */
#define ADMIT_KEY_MAX 96

struct admit_client;

/*
 * One job, owned by the caller (embed it in the request) until run() is called.
 * run(arg, cancelled) is called exactly once: on a worker thread with cancelled 0, or,
 * cancelled 1, by admit_cancel_queued() for a job that never started.
 */
struct admit_job {
	void (*run)(void *arg, int cancelled);
	void *arg;
	struct admit_job *next;      /* its client's queue */
	struct admit_client *client; /* whose share it holds (admit_reserve()) */
};

struct admit;

/* What admit_reserve() answers. */
enum admit_verdict {
	ADMIT_OK = 0,
	ADMIT_FULL = -1,  /* the pool is full or stopping */
	ADMIT_SHARE = -2, /* the client holds its share already */
};

/* A pool of workers (>= 1) admitting capacity (>= workers) jobs at once, at most
 * share_running running and share_queued waiting of any one client (each at least 1). On
 * success *out is a new pool the caller ends with admit_stop(). */
int admit_new(int workers, long capacity, long share_running, long share_queued, struct admit **out,
    struct err *err);

/* Take one admission slot for job, on client's share (NULL: work of no client the caller
 * can tell apart, held to no share): ADMIT_OK when taken (submit job into it next), else
 * the refusal, counted. */
enum admit_verdict admit_reserve(struct admit *a, const char *client, struct admit_job *job);

/* Queue job into the slot admit_reserve() took for it; never fails, never blocks. */
void admit_submit(struct admit *a, struct admit_job *job);

/* Call run(arg, 1) for every queued job that has not started (shutdown past its drain
 * timeout) and refuse new reservations. */
void admit_cancel_queued(struct admit *a);

/* Jobs running now, jobs queued; reservations refused since the start because the pool
 * was full (ADMIT_FULL), and because the client held its share (ADMIT_SHARE). */
long admit_running(struct admit *a);
long admit_queued(struct admit *a);
unsigned long admit_rejected(struct admit *a);
unsigned long admit_share_rejected(struct admit *a);

/* The share of one client: running jobs, and waiting ones besides. */
void admit_share(const struct admit *a, long *running, long *queued);

/*
 * Stop the pool: workers finish their job and exit; joined, a is freed. Returns how many
 * jobs were running when it was called: it waits for them, so the caller tells them to stop
 * first (a question's budget sees its client gone, jobs.h), and nothing a job uses may be
 * freed before this returns.
 */
long admit_stop(struct admit *a);

#endif
