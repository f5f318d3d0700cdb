/*
 * http.h: contactd's HTTP front end on libmicrohttpd, as the daemon's main sees it: its
 * configuration, start, state line and shutdown. The rest is the front end's own modules:
 * log.h (the log), respond.h (requests and responders), status.h (errors to statuses),
 * framing.h, routes.h, jobs.h; none of them includes this header back but server.h.
 *
 * MHD runs an epoll event loop in a pool of internal threads (one per core by
 * default); each request is handled start to finish on one pool thread, which
 * uses its own store connection (store.h, "Threading model").
 */
#ifndef CONTACTD_HTTP_HTTP_H
#define CONTACTD_HTTP_HTTP_H

#include <stddef.h>

#include "base/error.h"
#include "http/cors.h"
#include "store/store.h"

/* What the daemon is started with (contactd's command line). */
struct http_config {
	const char *bind;         /* numeric IPv4 or IPv6 address to listen on */
	unsigned port;            /* 0: any free port (see http_port()) */
	int threads;              /* MHD pool threads, >= 1 */
	int sweep_threads;        /* worker threads of one sweep, >= 1 */
	unsigned timeout_s;       /* idle seconds before a connection is closed */
	unsigned max_connections; /* open connections at once */
	unsigned max_per_ip;      /* open connections from one address; 0: no limit */
	unsigned head_timeout_s;  /* a request head's deadline, a body's grace; 0: none */
	unsigned min_body_rate;   /* bytes/s a body averages after its grace; 0: none */
	int compute_threads;      /* threads computing questions that miss the caches, >= 1 */
	long max_queued;          /* questions waiting for a compute thread; 503 beyond */
	long long cache_max_bytes; /* answer bytes the store's cache keeps; 0: no bound */
	size_t max_body;          /* request body bytes; 413 beyond */
	long max_sweep_points;    /* points in one sweep; 413 beyond */
	long max_eval_calls;      /* calls in one eval batch; 413 beyond */
	unsigned drain_s;         /* seconds shutdown waits for requests in flight */
	const char *core_version; /* part of every cache key; CORE_VERSION but for tests */
	struct cors_config cors;  /* --cors-origin: who may call from another origin */
};

/* Fill c with the defaults of tunables.h. */
void http_config_default(struct http_config *c);

struct http_server;

/*
 * Start serving. st is owned by the caller and must outlive the server; the calibration
 * routes must be started (http_calib_start()). On success *out is a new server the caller
 * ends with http_stop(). config is copied. It also sets the status eval's batches give a
 * failed call (eval_set_status(), the HTTP status of status.h).
 */
int http_start(
    const struct http_config *config, struct store *st, struct http_server **out, struct err *err);

/* The port the server listens on (the chosen one when config.port was 0). */
unsigned http_port(const struct http_server *srv);

/*
 * Graceful shutdown: stop accepting, let requests in flight finish (at most
 * config.drain_s seconds), stop every thread and free srv. The store is left open.
 */
void http_stop(struct http_server *srv);

/* Log one line of the server's state: requests in flight, connections, overload counts
 * (contactd's answer to SIGUSR1). */
void http_log_stats(struct http_server *srv);

#endif
