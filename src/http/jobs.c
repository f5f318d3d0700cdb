/*
 * jobs.c: the questions computed in the compute pool (jobs.h): a job parses, looks up,
 * computes and stores, then resumes its connection; a streamed sweep's job goes on
 * computing its rows after resuming it.
 */
#include "http/jobs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "calib/token.h"
#include "http/admit.h"
#include "http/calib_stream.h"
#include "http/framing.h"
#include "http/hotcache.h"
#include "http/log.h"
#include "http/respond.h"
#include "http/stream.h"
#include "service/budget.h"
#include "store/knobs.h"
#include "http/knobs.h"

/* Log and count what went wrong with the cache while answering (the answer stands). */
static void note_cache_failures(struct http_server *srv, const struct svc_outcome *o)
{
	if (o->cache_read_err.code != ERR_NONE) {
		metrics_cache_error(srv->metrics);
		http_log("cache read failed: %s", o->cache_read_err.message);
	}
	if (o->cache_write_err.code != ERR_NONE) {
		metrics_cache_error(srv->metrics);
		http_log("cache write failed: %s", o->cache_write_err.message);
	}
}

/* The store's cache as the jobs use it. */
static int cache_get(void *ctx, const char *endpoint, const char *canonical, char **answer,
    size_t *len, struct err *err)
{
	struct http_server *srv = ctx;

	return srv->cache.cache.get(srv->cache.cache.ctx, endpoint, canonical, answer, len, err);
}

static int cache_put(void *ctx, const char *endpoint, const char *canonical, const char *answer,
    size_t len, struct err *err)
{
	struct http_server *srv = ctx;

	if (len > (size_t)STORE_CACHE_MAX_ANSWER) {
		/* served, not cached (the store would skip it too): counted */
		metrics_uncacheable(srv->metrics);
		return 0;
	}
	int rc = srv->cache.cache.put(srv->cache.cache.ctx, endpoint, canonical, answer, len, err);

	if (rc == 1)
		metrics_cache_busy(srv->metrics); /* served, not cached: the store was busy */
	return rc;
}

/* The answer text in the negotiated format (JSON, or CSV for a sweep). */
static enum MHD_Result respond_answer(
    struct MHD_Connection *conn, struct exchange *x, const char *text, size_t len)
{
	enum MHD_Result ret;
	char *csv = NULL;
	struct err e;

	if (x->format == 0)
		return http_respond_buffer(
		    conn, &x->req, MHD_HTTP_OK, HTTP_JSON_MEDIA, text, len, MHD_RESPMEM_MUST_COPY);
	csv = x->format == 1 ? (svc_text_csv(text, &csv, &e) < 0 ? NULL : csv)
	                     : http_stream_ndjson(text, &e);
	if (!csv)
		return http_respond_error(conn, &x->req, &e);
	ret = http_respond_buffer(conn, &x->req, MHD_HTTP_OK,
	    x->format == 1 ? HTTP_CSV_MEDIA : HTTP_STREAM_NDJSON, csv, strlen(csv),
	    MHD_RESPMEM_MUST_COPY);
	free(csv);
	return ret;
}

/*
 * Whether the client of x, a question whose connection is suspended, has left: shutdown
 * answered it, or its socket reads end-of-file (a close; data a pipelining client sent
 * ahead is only peeked at, never taken from MHD). The budget's gone() while it computes.
 */
static int job_gone(void *ctx)
{
	struct exchange *x = ctx;
	struct http_server *srv = x->srv;
	char byte;
	ssize_t n;
	int over;

	pthread_mutex_lock(&srv->jobs_lock);
	over = x->abandoned || x->orphan;
	pthread_mutex_unlock(&srv->jobs_lock);
	if (over)
		return 1;
	if (x->fd < 0)
		return 0;
	n = recv(x->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* A streamed sweep's client is gone once its response was freed (stream.h). */
static int stream_gone(void *ctx)
{
	return http_stream_closed(ctx);
}

/* Count and name how a question that its budget stopped ended (x's log line). */
static void note_stopped(struct http_server *srv, struct exchange *x, int why)
{
	if (why == BUDGET_GONE) {
		metrics_question_stopped(srv->metrics, 0);
		if (x)
			x->stopped = "client-gone";
	} else if (why == BUDGET_SPENT) {
		metrics_question_stopped(srv->metrics, 1);
		if (x)
			x->stopped = "over-budget";
	}
}

/* A request's task (server.h) on its compute thread, under its budget: its answer, or its
 * error (the budget's when the budget stopped it). */
static void run_task(struct exchange *x)
{
	if (x->task.compute(x->task.ctx, &x->computed, &x->job_err) < 0)
		x->computed = NULL;
	if (budget_error(&x->job_err) < 0) {
		free(x->computed); /* stopped part-way: meaningless */
		x->computed = NULL;
	}
}

/* The task's context is done with once its job ran, or never will. */
static void task_done(struct exchange *x)
{
	if (x->task.free_ctx)
		x->task.free_ctx(x->task.ctx);
	x->task.free_ctx = NULL;
	x->task.ctx = NULL;
}

/* The pool's job of a question (or of a task): parse, look up, compute, store; then wake
 * its connection. */
static void compute_question(void *arg, int cancelled)
{
	struct exchange *x = arg;
	struct http_server *srv = x->srv;
	struct svc_outcome outcome;
	struct http_stream *stream = NULL;
	struct budget budget;
	struct core_budget *was;
	int resumed = 0, why;

	err_clear(&x->job_err);
	/* the question's CPU budget and its client's presence, polled by the core's loops */
	budget_init(&budget, srv->limits.max_cpu_seconds, job_gone, x);
	was = budget_enter(&budget.core);
	if (!cancelled && job_gone(x)) {
		/* it left while the question waited for a thread: nothing to compute */
		atomic_store(&budget.core.stop, BUDGET_GONE);
		budget_error(&x->job_err);
		x->computed = NULL;
	} else if (cancelled) {
		err_set(&x->job_err, ERR_UNAVAILABLE, NULL,
		    "shutting down: the question was still queued at --drain-timeout");
	} else if (x->task.compute) {
		run_task(x);
	} else {
		struct svc_limits lim = srv->limits;
		const char *body = x->req.body;
		size_t body_len = x->req.body_len;
		char *json = NULL;
		/* a model's MJCF is made its JSON request here, in the pool, not on the HTTP
		 * thread; it was held to the body limit as sent: its JSON form may be longer */
		if (x->xml_body) {
			if (svc_model_xml(
			        body, body_len, x->mujoco, &json, &body_len, &x->job_err) != 0)
				body = NULL;
			else
				body = json;
			if (lim.max_body < body_len)
				lim.max_body = body_len;
		}
		memset(&outcome, 0, sizeof outcome);
		/* CSV and NDJSON sweeps stream: the connection resumes with the rows to come,
		 * and this job computes them after resuming it (below) */
		if (!body ||
		    (x->format != 0 && x->endpoint == SVC_SWEEP
		            ? http_stream_open(body, body_len, &srv->limits, &srv->guarded,
		                  x->format == 2, &stream, &x->computed, &outcome, &x->job_err) < 0
		            : svc_ask(x->endpoint, body, body_len, &lim, &srv->guarded,
		                  &x->computed, &outcome, &x->job_err) < 0))
			x->computed = NULL;
		else
			x->cache = outcome.cached ? METRICS_CACHE_HIT : METRICS_CACHE_MISS;
		free(json);
		note_cache_failures(srv, &outcome);
	}
	why = core_budget_stopped();
	task_done(x);
	pthread_mutex_lock(&srv->jobs_lock);
	note_stopped(srv, x, why);
	/* a stream computes on after x is the connection's: its client's presence is the
	 * stream's from here on */
	budget.gone = stream_gone;
	budget.gone_ctx = stream;
	x->computing = 0;
	if (x->prev_job)
		x->prev_job->next_job = x->next_job;
	else
		srv->jobs = x->next_job;
	if (x->next_job)
		x->next_job->prev_job = x->prev_job;
	if (x->orphan) {
		pthread_mutex_unlock(&srv->jobs_lock);
		free(x->computed);
		http_framing_free(x);
		free(x->mujoco);
		free(x);
		if (stream)
			http_stream_abandon(stream);
		budget_enter(was);
		return;
	}
	if (!x->abandoned) {
		x->stream = stream;
		x->resumed = resumed = 1;
		MHD_resume_connection(x->conn);
	}
	pthread_mutex_unlock(&srv->jobs_lock);
	if (!stream) {
		budget_enter(was);
		return;
	}
	/* x is the connection's from here on: the job keeps only the stream */
	if (!resumed) {
		http_stream_abandon(stream);
		budget_enter(was);
		return;
	}
	memset(&outcome, 0, sizeof outcome);
	http_stream_run(stream, srv->limits.threads, &srv->guarded, &outcome);
	note_cache_failures(srv, &outcome);
	note_stopped(srv, NULL, why ? 0 : core_budget_stopped());
	budget_enter(was);
}

enum MHD_Result http_jobs_finish(struct MHD_Connection *conn, struct exchange *x)
{
	if (x->stream) {
		struct MHD_Response *resp = http_stream_response(x->stream, conn);
		x->stream = NULL; /* the response's now, or closed */
		if (!resp)
			return MHD_NO;
		x->cache = METRICS_CACHE_MISS;
		return http_respond_headed(conn, &x->req, MHD_HTTP_OK,
		    x->format == 1 ? HTTP_CSV_MEDIA : HTTP_STREAM_NDJSON, resp);
	}
	if (!x->computed)
		return x->task.respond_error ? x->task.respond_error(conn, &x->req, &x->job_err)
		                             : http_respond_error(conn, &x->req, &x->job_err);
	if (!x->task.compute) /* a task's answer is its caller's alone (a token's view) */
		hot_put(x->hot, x->computed, strlen(x->computed));
	return respond_answer(conn, x, x->computed, strlen(x->computed));
}

/*
 * Whose share of the compute pool question x takes (admit.h): its bearer token's when it
 * carries one that authenticates (one store read; questions need none, so an unchecked one
 * would be a free share), else its address's; NULL, no share, when the daemon does not tell
 * addresses apart (--max-connections-per-ip 0: behind a proxy, every client is the proxy).
 */
static const char *question_client(struct exchange *x, char *key, size_t size)
{
	struct caltoken_principal p;
	struct err ignored;

	if (x->req.authorization && calstream_calstore() &&
	    calstream_authenticate(&x->req, &p, &ignored) == 0) {
		snprintf(key, size, "token %s", p.token_id);
		return key;
	}
	if (x->srv->cfg.max_per_ip == 0)
		return NULL;
	snprintf(key, size, "address %s", x->client);
	return key;
}

/*
 * Admit x's job (its endpoint or its task set) on client's share, suspend its connection
 * and queue it; or answer 503 with Retry-After, saying whether the pool or the client's
 * share is full.
 */
static enum MHD_Result submit(struct MHD_Connection *conn, struct exchange *x, const char *client)
{
	struct http_server *srv = x->srv;
	const union MHD_ConnectionInfo *info;
	enum admit_verdict v = admit_reserve(srv->pool, client, &x->job);

	if (v != ADMIT_OK) {
		long running, queued;

		task_done(x);
		http_add_header(&x->req, MHD_HTTP_HEADER_RETRY_AFTER, DAEMON_RETRY_AFTER);
		if (v == ADMIT_FULL)
			return http_reject(conn, &x->req, ERR_UNAVAILABLE,
			    "busy: %ld questions are being computed or wait for it; retry later",
			    admit_running(srv->pool) + admit_queued(srv->pool));
		admit_share(srv->pool, &running, &queued);
		return http_reject(conn, &x->req, ERR_UNAVAILABLE,
		    "busy: this client (%s) has its share of the compute pool, %ld computing "
		    "and %ld waiting; retry once one is answered",
		    client, running, queued);
	}
	x->conn = conn;
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	x->fd = info ? info->connect_fd : -1;
	x->job.run = compute_question;
	x->job.arg = x;
	pthread_mutex_lock(&srv->jobs_lock);
	x->computing = 1;
	x->next_job = srv->jobs;
	if (srv->jobs)
		srv->jobs->prev_job = x;
	srv->jobs = x;
	pthread_mutex_unlock(&srv->jobs_lock);
	/* Suspended, the connection is neither read nor timed out until the job resumes it. */
	MHD_suspend_connection(conn);
	admit_submit(srv->pool, &x->job);
	return MHD_YES;
}

enum MHD_Result http_jobs_run(struct MHD_Connection *conn, struct http_request *req,
    const char *client, const struct http_task *task)
{
	struct exchange *x = (struct exchange *)req; /* the first member (server.h) */

	x->task = *task;
	x->format = 0;
	return submit(conn, x, client);
}

/*
 * POST /v1/NAME for every row of the service's endpoint table. The answer's text
 * comes from this thread's memory (the same request bytes asked before), else, in the
 * compute pool with the connection suspended, from svc_ask(): the store (an equal
 * canonical request), else the core. A full pool or client's share answers 503 with
 * Retry-After.
 */
enum MHD_Result http_jobs_ask(
    struct MHD_Connection *conn, struct exchange *x, enum svc_endpoint ep, const char *path)
{
	/* a CSV answer (the sweep's) also streams as NDJSON (stream.h) */
	static const char *const offers[] = {HTTP_JSON_MEDIA, "text/csv", HTTP_STREAM_NDJSON};
	const struct svc_endpoint_def *row = svc_endpoints[ep];
	int offer_count = row->csv ? 3 : 1;
	char client[ADMIT_KEY_MAX];
	const char *text;
	size_t len;

	if (ep == SVC_MODEL && http_body_is_xml(x->req.content_type)) {
		/* the raw MJCF as the one file of the JSON request, the release from ?mujoco=:
		 * made and read by the job (compute_question()), never on this thread */
		const char *mujoco =
		    MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "mujoco");
		if (mujoco && !(x->mujoco = strdup(mujoco)))
			return http_reject(conn, &x->req, ERR_INTERNAL, "out of memory");
		x->xml_body = 1;
	} else if (!http_body_is_json(x->req.content_type)) {
		return http_reject(conn, &x->req, ERR_UNSUPPORTED_MEDIA,
		    "the body must be %s%s, not %s", HTTP_JSON_MEDIA,
		    ep == SVC_MODEL ? " or application/xml" : "", x->req.content_type);
	}
	x->format = http_negotiate(x->req.accept, offers, offer_count);
	if (x->format < 0)
		return http_reject(conn, &x->req, ERR_NOT_ACCEPTABLE, "%s answers %s%s", path,
		    HTTP_JSON_MEDIA, offer_count > 1 ? ", text/csv or " HTTP_STREAM_NDJSON : "");
	if (x->xml_body)
		hot_key_qualified(row->name, x->mujoco, x->req.body, x->req.body_len, x->hot);
	else
		hot_key(row->name, x->req.body, x->req.body_len, x->hot);
	text = hot_get(x->hot, &len);
	if (text) {
		x->cache = METRICS_CACHE_HIT;
		return respond_answer(conn, x, text, len);
	}
	x->endpoint = ep;
	return submit(conn, x, question_client(x, client, sizeof client));
}

struct cache http_jobs_cache(struct http_server *srv)
{
	return (struct cache){.ctx = srv, .get = cache_get, .put = cache_put};
}

int http_jobs_release(struct exchange *x)
{
	struct http_server *srv = x->srv;

	pthread_mutex_lock(&srv->jobs_lock);
	if (x->computing) {
		x->orphan = 1; /* its job still holds it and frees it */
		pthread_mutex_unlock(&srv->jobs_lock);
		return 1;
	}
	pthread_mutex_unlock(&srv->jobs_lock);
	return 0;
}

void http_jobs_abandon(struct http_server *srv)
{
	struct exchange *x;

	admit_cancel_queued(srv->pool);
	/* a streamed sweep's connection is not a job's: woken, and cut, by its stream */
	http_stream_shutdown();
	pthread_mutex_lock(&srv->jobs_lock);
	for (x = srv->jobs; x; x = x->next_job) {
		if (!x->abandoned) {
			x->abandoned = 1;
			MHD_resume_connection(x->conn);
		}
	}
	pthread_mutex_unlock(&srv->jobs_lock);
}
