/*
 * http.c: contactd's HTTP front end on libmicrohttpd (http.h): the daemon's start and
 * stop, and MHD's callbacks, which hand a request to the framing checks (framing.h), the
 * route table (routes.h) and the compute jobs (jobs.h), and write one log line and the
 * metrics when it ends.
 */
#include "http/http.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "http/admit.h"
#include "http/calib_stream.h"
#include "http/framing.h"
#include "http/guard.h"
#include "http/jobs.h"
#include "http/log.h"
#include "http/metrics.h"
#include "http/offload.h"
#include "http/routes.h"
#include "http/server.h"
#include "http/stream.h"
#include "http/upkeep.h"
#include "service/eval.h"
#include "service/service.h"
#include "http/knobs.h"

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The request's one log line: time client method path status bytes ms cache [error] [end]. */
static void log_request(const struct exchange *x, double secs, enum MHD_RequestTerminationCode toe)
{
	static const char *const ends[] = {
	    [MHD_REQUEST_TERMINATED_WITH_ERROR] = "error",
	    [MHD_REQUEST_TERMINATED_TIMEOUT_REACHED] = "timeout",
	    [MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN] = "shutdown",
	    [MHD_REQUEST_TERMINATED_READ_ERROR] = "read-error",
	    [MHD_REQUEST_TERMINATED_CLIENT_ABORT] = "client-abort",
	};
	char when[32], method[32], path[300], status[12], bytes[24], unsent[24] = "";
	struct timespec now;
	struct tm tm;
	const char *end = "";
	int completed = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	http_log_safe(method, sizeof method, x->req.method);
	http_log_safe(path, sizeof path, x->req.url);
	/* A response that was queued but not delivered whole (the client went away, timed
	 * out, or shutdown cut it off) is logged as no response, with what it would have been. */
	strcpy(status, "-");
	strcpy(bytes, "-");
	if (x->status && completed) {
		snprintf(status, sizeof status, "%u", x->status);
		if (x->bytes >= 0)
			snprintf(bytes, sizeof bytes, "%lld", x->bytes);
	} else if (x->status) {
		snprintf(unsent, sizeof unsent, " unsent=%u", x->status);
	}
	if (!completed && (size_t)toe < sizeof ends / sizeof ends[0] && ends[toe])
		end = ends[toe];
	http_log("%s.%03ldZ %s %s %s %s %s %.3fms cache=%s%s%s%s%s%s%s%s", when,
	    now.tv_nsec / 1000000, x->client, method, path, status, bytes, secs * 1e3,
	    metrics_cache_name(x->cache), x->code ? " error=" : "",
	    x->code ? err_name(x->code) : "", *end ? " end=" : "", end, unsent,
	    x->stopped ? " stopped=" : "", x->stopped ? x->stopped : "");
}

/*
 * MHD_OPTION_URI_LOG_CALLBACK: the request line is in, its target still as sent. The
 * exchange starts here (MHD hands it to the request handler as its context), so that what
 * the decoded URL hides is known: a %00 would cut "/v1/calibrations/1%00" to calibration 1.
 */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct exchange *x = calloc(1, sizeof *x);

	(void)cls;
	(void)conn;
	if (x && uri)
		x->nul_in_target = strstr(uri, "%00") != NULL;
	return x;
}

/* The first call for a request: set up its exchange (x, from on_uri(), or a new one) from
 * the headers. */
static struct exchange *exchange_new(struct http_server *srv, struct MHD_Connection *conn,
    const char *url, const char *method, const char *version, struct exchange *x)
{
	const union MHD_ConnectionInfo *info;

	if (!x && !(x = calloc(1, sizeof *x)))
		return NULL;
	x->started = 1;
	x->version = version;
	clock_gettime(CLOCK_MONOTONIC, &x->start);
	x->srv = srv;
	x->req.method = method;
	x->req.url = url;
	/* the body limit of the route: a question's (a batch's is larger), else --max-body */
	x->body_endpoint = SVC_ENDPOINT_COUNT;
	if (strncmp(url, "/v1/", 4) == 0) {
		struct err ignored;
		enum svc_endpoint ep;

		if (svc_endpoint_parse(url + 4, &ep, &ignored) == 0)
			x->body_endpoint = ep;
	}
	x->body_limit = svc_body_limit(x->body_endpoint, &srv->limits);
	/* every header a handler reads, its blanks trimmed (http_framing_header()) */
	x->req.accept = http_framing_header(conn, x, MHD_HTTP_HEADER_ACCEPT);
	x->req.authorization = http_framing_header(conn, x, MHD_HTTP_HEADER_AUTHORIZATION);
	x->req.content_type = http_framing_header(conn, x, MHD_HTTP_HEADER_CONTENT_TYPE);
	x->req.prefer = http_framing_header(conn, x, "Prefer");
	x->req.idempotency_key = http_framing_header(conn, x, "Idempotency-Key");
	x->origin = http_framing_header(conn, x, "Origin");
	x->preflight_method = http_framing_header(conn, x, "Access-Control-Request-Method");
	x->req.body = "";
	x->req.store = srv->store;
	x->req.route = "other";
	x->bytes = -1;
	strcpy(x->client, "-");
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (info && info->client_addr)
		getnameinfo(info->client_addr,
		    info->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
		                                             : sizeof(struct sockaddr_in),
		    x->client, sizeof x->client, NULL, 0, NI_NUMERICHOST);
	atomic_fetch_add(&srv->in_flight, 1);
	return x;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data, size_t *upload_data_size,
    void **con_cls)
{
	struct http_server *srv = cls;
	struct exchange *x = *con_cls;

	if (!x || !x->started) {
		x = exchange_new(srv, conn, url, method, version, x);
		if (!x)
			return MHD_NO;
		*con_cls = x;
		if (guard_head_in(conn) < 0)
			return MHD_NO; /* the guard cut it (a 408 went out) */
		return http_framing_check(conn, x);
	}
	if (http_offload_done(x))
		return http_offload_finish(conn, x);
	if (x->abandoned)
		return http_reject(conn, &x->req, ERR_UNAVAILABLE,
		    "shutting down: the computation was cut off at --drain-timeout");
	if (x->resumed)
		return http_jobs_finish(conn, x);
	if (*upload_data_size) {
		guard_body_in(conn, *upload_data_size);
		if (http_framing_append(x, upload_data, *upload_data_size) < 0)
			return http_framing_cut(conn, x);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (guard_request_in(conn) < 0)
		return MHD_NO;
	{
		enum MHD_Result refused;

		if (http_framing_trailers(conn, x, &refused) < 0)
			return refused;
	}
	if (x->body)
		x->req.body = x->body;
	x->req.body_len = x->body_len;
	return http_routes_dispatch(conn, x);
}

static void on_completed(
    void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct http_server *srv = cls;
	struct exchange *x = *con_cls;
	double secs;

	guard_request_done(conn);
	if (!x)
		return;
	*con_cls = NULL;
	if (!x->started) { /* MHD answered the head itself (on_uri() only) */
		free(x);
		return;
	}
	secs = seconds_since(&x->start);
	metrics_record(srv->metrics, x->req.route,
	    toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? x->status : 0, secs, x->cache, x->code);
	log_request(x, secs, toe);
	atomic_fetch_sub(&srv->in_flight, 1);
	if (http_jobs_release(x))
		return; /* its job still holds it and frees it */
	if (x->stream)  /* resumed, but never answered: its job stops */
		http_stream_close(x->stream);
	http_offload_free(x); /* a calibration route's, never answered */
	free(x->computed);
	http_framing_free(x);
	free(x->mujoco);
	free(x);
}

/* MHD's accept policy: every connection while serving, none once shutdown began. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct http_server *srv = cls;

	(void)addr;
	(void)addrlen;
	return atomic_load(&srv->stopping) ? MHD_NO : MHD_YES;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char message[512];
	size_t n;

	(void)cls;
	vsnprintf(message, sizeof message, fmt, ap);
	n = strlen(message);
	while (n > 0 && message[n - 1] == '\n')
		message[--n] = '\0';
	http_log("mhd: %s", message);
}

/* ---- start and stop ---- */

/* The socket address of config's bind address and port. */
static int listen_address(
    const struct http_config *c, struct sockaddr_storage *addr, struct err *err)
{
	struct addrinfo hints = {
	    .ai_flags = AI_NUMERICHOST | AI_PASSIVE, .ai_socktype = SOCK_STREAM};
	struct addrinfo *found = NULL;
	char port[16];
	int rc;

	snprintf(port, sizeof port, "%u", c->port);
	rc = getaddrinfo(c->bind, port, &hints, &found);
	if (rc != 0)
		return err_set(
		    err, ERR_BAD_VALUE, NULL, "bind address %s: %s", c->bind, gai_strerror(rc));
	memcpy(addr, found->ai_addr, found->ai_addrlen);
	freeaddrinfo(found);
	return 0;
}

int http_start(
    const struct http_config *config, struct store *st, struct http_server **out, struct err *err)
{
	struct http_server *srv = calloc(1, sizeof *srv);
	struct sockaddr_storage addr;
	const union MHD_DaemonInfo *info;
	unsigned flags =
	    MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;

	if (!srv || !(srv->metrics = metrics_new())) {
		free(srv);
		return err_set(err, ERR_UNAVAILABLE, NULL, "out of memory");
	}
	srv->cfg = *config;
	srv->store = st;
	/* a batch's failed call carries the status it would have had alone */
	store_cache_bind(&srv->cache, st, srv->cfg.core_version);
	srv->guarded = http_jobs_cache(srv);
	pthread_mutex_init(&srv->jobs_lock, NULL);
	if (upkeep_start(st, config->cache_max_bytes, &srv->upkeep, err) < 0) {
		metrics_free(srv->metrics);
		free(srv);
		return -1;
	}
	if (admit_new(config->compute_threads, config->compute_threads + config->max_queued,
	        config->compute_threads / DAEMON_CLIENT_RUNNING_PART,
	        config->max_queued / DAEMON_CLIENT_QUEUE_PART, &srv->pool, err) < 0) {
		upkeep_stop(srv->upkeep);
		metrics_free(srv->metrics);
		free(srv);
		return -1;
	}
	/* no client's share there: a store wait is short, and fair in the store's own queue */
	if (admit_new(DAEMON_STORE_THREADS, DAEMON_STORE_THREADS + DAEMON_STORE_QUEUE,
	        DAEMON_STORE_THREADS, DAEMON_STORE_QUEUE, &srv->store_pool, err) < 0) {
		admit_stop(srv->pool);
		upkeep_stop(srv->upkeep);
		metrics_free(srv->metrics);
		free(srv);
		return -1;
	}
	svc_limits_default(&srv->limits);
	srv->limits.max_sweep_points = config->max_sweep_points;
	srv->limits.max_eval_calls = config->max_eval_calls;
	srv->limits.threads = config->sweep_threads;
	srv->limits.max_body = config->max_body;
	srv->limits.max_cpu_seconds = config->max_cpu_seconds;
	if (listen_address(config, &addr, err) < 0 ||
	    guard_start(&(struct guard_config){.max_connections = config->max_connections,
	                    .max_per_ip = config->max_per_ip,
	                    .head_timeout_s = config->head_timeout_s,
	                    .request_s = config->request_s,
	                    .min_body_rate = config->min_body_rate},
	        &srv->guard, err) < 0)
		goto fail;
	if (addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	srv->daemon = MHD_start_daemon(flags, (uint16_t)config->port, on_accept, srv, on_request,
	    srv, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv, /* first, so it logs the rest */
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE,
	    (unsigned)config->threads, MHD_OPTION_CONNECTION_TIMEOUT, config->timeout_s,
	    /* the guard refuses past max_connections; MHD takes the refusals too (guard.h) */
	    MHD_OPTION_CONNECTION_LIMIT, config->max_connections + DAEMON_REFUSAL_SLOTS,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)DAEMON_CONNECTION_MEMORY,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv, MHD_OPTION_URI_LOG_CALLBACK, on_uri,
	    srv,
	    /* the per-address limit is the guard's: it answers 503 where MHD would only close */
	    MHD_OPTION_NOTIFY_CONNECTION, guard_notify, srv->guard, MHD_OPTION_END);
	if (!srv->daemon) {
		err_set(err, ERR_UNAVAILABLE, NULL, "cannot listen on %s port %u: %s", config->bind,
		    config->port, strerror(errno));
		goto fail;
	}
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : config->port;
	*out = srv;
	return 0;
fail:
	guard_stop(srv->guard);
	admit_stop(srv->store_pool);
	admit_stop(srv->pool);
	upkeep_stop(srv->upkeep);
	metrics_free(srv->metrics);
	free(srv);
	return -1;
}

void http_log_stats(struct http_server *srv)
{
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	http_log("stats: %ld requests in flight, %u connections, %ld questions computing, %ld "
	         "queued, %lu refused as overload",
	    atomic_load(&srv->in_flight), info ? info->num_connections : 0,
	    admit_running(srv->pool), admit_queued(srv->pool), admit_rejected(srv->pool));
}

unsigned http_port(const struct http_server *srv)
{
	return srv->port;
}

/*
 * Past the drain timeout: answer every question still queued or computing with 503, so
 * that MHD can stop (it refuses to with suspended connections), and give the answers
 * a moment (a second at most) to go out.
 */
static void abandon_jobs(struct http_server *srv)
{
	struct timespec start;

	http_jobs_abandon(srv);
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* an abandoned computation stops at its next step batch (its budget sees it
	 * abandoned); whatever still runs after the second is joined below */
	while ((atomic_load(&srv->in_flight) > 0 || admit_running(srv->pool) > 0) &&
	    seconds_since(&start) < 1)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
}

void http_stop(struct http_server *srv)
{
	struct timespec start;
	int quiet = 0;
	long running;

	if (!srv)
		return;
	/* From now on on_accept() turns new connections away. (Not MHD_quiesce_daemon():
	 * with epoll worker threads it races the workers for the listening socket's
	 * removal from their epoll sets, and libmicrohttpd aborts the loser.) */
	atomic_store(&srv->stopping, 1);
	http_log("shutdown: turning new connections away, finishing requests in flight");
	calstream_stop();
	/*
	 * Wait for the requests being handled. A thread that finishes one goes straight
	 * on to the next request waiting on its connections, so the count is taken as
	 * zero only when seen twice, 10 ms apart.
	 */
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (quiet < 2 && seconds_since(&start) < srv->cfg.drain_s) {
		quiet = atomic_load(&srv->in_flight) == 0 ? quiet + 1 : 0;
		if (quiet < 2)
			nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	if (quiet < 2) {
		http_log(
		    "shutdown: requests still running after %us, closing them", srv->cfg.drain_s);
		abandon_jobs(srv);
	}
	/* Every connection closed: each question's job finds its client gone (its request an
	 * orphan, or its stream's response freed) and stops at its next step batch
	 * (service/budget.h); the pool waits for that, so that no computation outlives the
	 * store and the cache, which the caller closes next. */
	/* a calibration route in the store pool ends within the store's busy timeout and
	 * resumes its connection: MHD may stop once none is left suspended */
	http_offload_drain(srv);
	MHD_stop_daemon(srv->daemon);
	admit_stop(srv->store_pool);
	guard_stop(srv->guard);
	upkeep_stop(srv->upkeep);
	running = admit_running(srv->pool);
	if (running)
		http_log("shutdown: stopping %ld computations", running);
	running = admit_stop(srv->pool);
	if (running)
		http_log("shutdown: %ld computations stopped", running);
	pthread_mutex_destroy(&srv->jobs_lock);
	metrics_free(srv->metrics);
	free(srv);
}
