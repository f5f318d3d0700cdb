/*
 * jobs.h: the questions (POST /v1/NAME) that miss the thread's memory, and the other
 * computations a request starts (tasks, server.h: a calibration's audit), computed in the
 * compute pool (admit.h) on their client's share while their connection is suspended, and
 * answered when the job resumes it. Each runs under the question's CPU budget
 * (service/budget.h) and stops when its client leaves; both stops are counted in /metrics
 * and named in the log line. Shutdown answers the jobs still running 503
 * (http_jobs_abandon()), and they stop at their next step batch (their budget sees the
 * client gone).
 *
 * Every request a job holds is on the server's list under srv->jobs_lock (server.h).
 */
#ifndef CONTACTD_HTTP_JOBS_H
#define CONTACTD_HTTP_JOBS_H

#include <microhttpd.h>

#include "http/server.h"
#include "service/service.h"

/* The answer cache the jobs give svc_ask(): srv's store's, an answer over
 * STORE_CACHE_MAX_ANSWER served but not kept (counted). Shutdown joins every job before the
 * store is closed (http_stop()). */
struct cache http_jobs_cache(struct http_server *srv);

/*
 * Answer x, a POST of question ep at path: from this thread's memory (the same request
 * bytes asked before), else submitted to the pool with the connection suspended, to be
 * answered by http_jobs_finish() once resumed. 415 for a body not JSON, 406 for an Accept
 * the endpoint cannot produce, 503 with Retry-After when the pool or the client's share is
 * full.
 */
enum MHD_Result http_jobs_ask(
    struct MHD_Connection *conn, struct exchange *x, enum svc_endpoint ep, const char *path);

/*
 * Answer req (an exchange's, as every handler's) with task's answer, computed in the pool on
 * client's share (admit.h; NULL: none) as a question is: 200 with its JSON text, or its
 * error through task->respond_error. 503 with Retry-After when the pool or the client's
 * share is full. task is copied; its ctx is the job's from here on, freed with free_ctx
 * whatever happens.
 */
enum MHD_Result http_jobs_run(struct MHD_Connection *conn, struct http_request *req,
    const char *client, const struct http_task *task);

/* Resumed after its job: answer x's question (its text, its stream, or its error). */
enum MHD_Result http_jobs_finish(struct MHD_Connection *conn, struct exchange *x);

/* The request x ended: 1 when its job still holds it (the job frees it, with what it
 * computed), 0 when x is the caller's to free. */
int http_jobs_release(struct exchange *x);

/* Past the drain timeout: cancel the queued jobs and resume the connection of every
 * question still queued or computing, to be answered 503, and of every streamed sweep
 * waiting for rows, to be cut (http_stream_shutdown()), so that MHD can stop. */
void http_jobs_abandon(struct http_server *srv);

#endif
