/*
 * offload.c: the calibration routes in the store pool (offload.h).
 */
#include "http/offload.h"

#include <stdlib.h>
#include <time.h>

#include "http/admit.h"
#include "http/respond.h"
#include "http/knobs.h"

/* One route's run: its handler, the path's holes, and how it ended. */
struct offload_call {
	struct admit_job job;
	struct exchange *x;
	struct MHD_Connection *conn;
	http_calib_fn fn;
	struct http_calib_target target;
	int done; /* the handler returned and the connection was resumed */
	enum MHD_Result ret;
};

/* The store pool's job: run the handler with its response kept, then resume. */
static void run_route(void *arg, int cancelled)
{
	struct offload_call *c = arg;
	struct exchange *x = c->x;

	x->deferring = 1;
	if (cancelled)
		c->ret = http_reject(c->conn, &x->req, ERR_UNAVAILABLE,
		    "shutting down: the request was still queued");
	else
		c->ret = c->fn(c->conn, &x->req, &c->target);
	x->deferring = 0;
	/* the connection stays suspended until here: nothing of MHD's touches x meanwhile */
	c->done = 1;
	MHD_resume_connection(c->conn);
}

enum MHD_Result http_offload_run(struct MHD_Connection *conn, struct exchange *x, http_calib_fn fn,
    const struct http_calib_target *t)
{
	struct http_server *srv = x->srv;
	struct offload_call *c = calloc(1, sizeof *c);

	if (!c)
		return http_reject(conn, &x->req, ERR_INTERNAL, "out of memory");
	*c = (struct offload_call){
	    .job = {.run = run_route, .arg = c}, .x = x, .conn = conn, .fn = fn, .target = *t};
	if (admit_reserve(srv->store_pool, NULL, &c->job) != ADMIT_OK) {
		free(c);
		http_add_header(&x->req, MHD_HTTP_HEADER_RETRY_AFTER, DAEMON_RETRY_AFTER);
		return http_reject(conn, &x->req, ERR_UNAVAILABLE,
		    "busy: %ld calibration requests are running or waiting; retry later",
		    admit_running(srv->store_pool) + admit_queued(srv->store_pool));
	}
	x->offload = c;
	MHD_suspend_connection(conn);
	admit_submit(srv->store_pool, &c->job);
	return MHD_YES;
}

int http_offload_done(const struct exchange *x)
{
	return x->offload && x->offload->done;
}

enum MHD_Result http_offload_finish(struct MHD_Connection *conn, struct exchange *x)
{
	struct MHD_Response *resp = x->deferred_resp;
	enum MHD_Result ret = x->offload->ret;

	x->deferred_resp = NULL; /* ours now */
	http_offload_free(x);
	if (!resp)
		return MHD_NO;
	if (MHD_queue_response(conn, x->deferred_status, resp) != MHD_YES)
		ret = MHD_NO;
	MHD_destroy_response(resp);
	return ret;
}

void http_offload_free(struct exchange *x)
{
	free(x->offload);
	x->offload = NULL;
	if (x->deferred_resp) /* kept, never queued */
		MHD_destroy_response(x->deferred_resp);
	x->deferred_resp = NULL;
}

void http_offload_drain(struct http_server *srv)
{
	while (admit_running(srv->store_pool) + admit_queued(srv->store_pool) > 0)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
}
