/*
 * http.h: contactd's HTTP front end on libmicrohttpd: routing, body reading with
 * limits, content negotiation, the answer cache, responses, logging and shutdown.
 *
 * MHD runs an epoll event loop in a pool of internal threads (one per core by
 * default); each request is handled start to finish on one pool thread, which
 * uses its own store connection (store.h, "Threading model").
 */
#ifndef CONTACTD_HTTP_HTTP_H
#define CONTACTD_HTTP_HTTP_H

#include <stddef.h>
#include <jansson.h>
#include <microhttpd.h>

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
 * A request as the handlers see it. Every pointer is owned by the HTTP layer and
 * valid until the request completes. Header values are NULL when absent.
 */
struct http_request {
	const char *method;
	const char *url; /* path only, without the query string */
	const char *accept;
	const char *authorization;
	const char *content_type;
	const char *body; /* the full body, NUL-terminated (for convenience; may hold NULs) */
	size_t body_len;
	struct store *store;
	/* Short route name for the log line and metrics, e.g. "drop"; handlers may set it. */
	const char *route;
};

/*
 * Start serving. st is owned by the caller and must outlive the server. On success
 * *out is a new server the caller ends with http_stop(). config is copied.
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

/*
 * Responders. Each queues the one response of req on conn, records its status and
 * size for the request's log line and the metrics, and returns what the MHD access
 * handler must return. Use exactly one per request.
 */

/* Queue resp (the caller keeps its own reference and destroys it) with status. */
enum MHD_Result http_respond(struct MHD_Connection *conn, struct http_request *req, unsigned status,
    struct MHD_Response *resp);

/* At most this many headers of http_add_header() per response. */
#define HTTP_EXTRA_HEADERS 4

/* Add header name: value (both copied, truncated to 31 and 159 bytes) to the one response
 * of req that http_respond_json() or http_respond_error() will queue; call before it. */
void http_add_header(struct http_request *req, const char *name, const char *value);

/* Queue value as canonical JSON text (svc_dump()). value stays the caller's. */
enum MHD_Result http_respond_json(
    struct MHD_Connection *conn, struct http_request *req, unsigned status, const json_t *value);

/* Queue the contract's JSON error body with the status err_http_status(e->code). */
enum MHD_Result http_respond_error(
    struct MHD_Connection *conn, struct http_request *req, const struct err *e);

/* The Allow header of req's 405 (a static string, e.g. "GET, POST"); call before responding. */
void http_set_allow(struct http_request *req, const char *methods);

/* Log one line of the server's state: requests in flight, connections, overload counts
 * (contactd's answer to SIGUSR1). */
void http_log_stats(struct http_server *srv);

/*
 * Write one line (a newline is added) to the log, whole, even from many threads. Lines
 * alike but for their digits (the same request again, the same error again) are written
 * at most DAEMON_LOG_SIMILAR_PER_WINDOW times in a window of DAEMON_LOG_WINDOW_S seconds,
 * and all lines at most DAEMON_LOG_LINES_PER_WINDOW times; the rest is counted, and one
 * line "log: suppressed N similar lines: EXAMPLE" follows once the window is over (see
 * http_log_flush()).
 */
void http_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write the summaries of suppressed lines whose window is over (called periodically, so
 * that a summary does not wait for the next line). */
void http_log_flush(void);

/* Is a request's Content-Type (NULL: none given) JSON, application/json or a +json
 * type? Every route that takes a body answers 415 otherwise. */
int http_body_is_json(const char *content_type);

#endif
