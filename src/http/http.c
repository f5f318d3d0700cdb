/*
 * http.c: contactd's HTTP front end. Reads each request's body incrementally under
 * a size limit, routes it, answers questions through the service layer and the
 * answer cache, and writes one log line and the metrics when the request ends.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "http/admit.h"
#include "http/guard.h"
#include "http/http.h"
#include "http/http_calib.h"
#include "http/hotcache.h"
#include "http/metrics.h"
#include "http/upkeep.h"
#include "http/openapi.h"
#include "http/static.h"
#include "http/stream.h"
#include "service/service.h"
#include "tunables.h"

struct http_server {
	struct http_config cfg;
	struct store *store;
	struct store_cache cache; /* the store's answer cache, as svc_ask() takes it */
	struct cache guarded;     /* the same, through store_guard (what svc_ask() gets) */
	struct svc_limits limits;
	struct metrics *metrics;
	struct MHD_Daemon *daemon;
	unsigned port;
	atomic_long in_flight; /* requests between their headers and their completion */
	atomic_bool stopping;
	struct admit *pool; /* computes the questions that miss the caches */
	struct upkeep *upkeep;
	struct guard *guard; /* head deadline, body rate, per-address limit */
	/* Guards the list of computing requests and each one's computing/abandoned/orphan. */
	pthread_mutex_t jobs_lock;
	struct exchange *jobs;
	/* Workers read and write the store under its read lock, unless store_gone: shutdown
	 * left them running and the caller is closing the store. */
	pthread_rwlock_t store_guard;
	int store_gone;
};

/* One request, from its headers to its completion (MHD's per-request pointer). */
struct exchange {
	struct http_request req; /* first member: handlers get &x->req, responders cast back */
	struct http_server *srv;
	struct timespec start;
	char *body;
	size_t body_len, body_cap;
	int body_too_large;
	unsigned status; /* 0 until a response is queued */
	long long bytes; /* response body bytes, -1 when unknown (a stream) */
	enum metrics_cache cache;
	enum err_code code;
	const char *allow;            /* the Allow header of a 405 */
	const char *origin;           /* Origin header, NULL when absent */
	const char *preflight_method; /* Access-Control-Request-Method, NULL when absent */
	struct {
		char name[32], value[160];
	} extra[HTTP_EXTRA_HEADERS]; /* http_add_header() */
	int nextra;
	char client[64];
	/* A question computed in the pool while its connection is suspended. */
	struct MHD_Connection *conn;
	struct admit_job job;
	enum svc_endpoint endpoint;
	int format; /* index of the negotiated media type */
	unsigned char hot[HOT_KEY_BYTES];
	char *computed;             /* the answer text, or NULL with job_err */
	struct http_stream *stream; /* a streamed sweep's rows to come (stream.h), until answered */
	struct err job_err;
	int computing; /* queued or running in the pool (jobs_lock) */
	int resumed;   /* its job ended: on_request() answers it */
	int abandoned; /* shutdown answered it 503 while it still ran (jobs_lock) */
	int orphan;    /* the request ended while it ran: the job frees it (jobs_lock) */
	struct exchange *prev_job, *next_job;
};

struct route;
typedef enum MHD_Result (*route_fn)(
    struct MHD_Connection *conn, struct exchange *x, const struct route *r);

struct route {
	const char *path;
	const char *method; /* a GET route also answers HEAD */
	const char *name;   /* for the log and the metrics */
	route_fn serve;
};

#define QUESTION_PREFIX "/v1/" /* + an endpoint's name: its URL */

static const char json_media[] = "application/json";
static const char csv_media[] = "text/csv; charset=utf-8";

void http_config_default(struct http_config *c)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	c->bind = DAEMON_DEFAULT_BIND;
	c->port = DAEMON_DEFAULT_PORT;
	c->threads = cores > 0 ? (int)cores : 1;
	c->sweep_threads = c->threads;
	c->timeout_s = DAEMON_CONNECTION_TIMEOUT;
	c->max_connections = DAEMON_CONNECTION_LIMIT;
	c->max_per_ip = DAEMON_PER_IP_CONNECTION_LIMIT;
	c->head_timeout_s = DAEMON_HEAD_TIMEOUT;
	c->min_body_rate = DAEMON_MIN_BODY_RATE;
	c->compute_threads = c->threads;
	c->max_queued = DAEMON_COMPUTE_QUEUE;
	c->cache_max_bytes = (long long)DAEMON_CACHE_MAX_MB * 1024 * 1024;
	c->max_body = LIMIT_MAX_BODY_BYTES;
	c->max_sweep_points = LIMIT_MAX_SWEEP_POINTS;
	c->max_eval_calls = LIMIT_MAX_EVAL_CALLS;
	c->drain_s = DAEMON_DRAIN_TIMEOUT;
	c->core_version = CORE_VERSION;
	c->cors.origins = NULL;
	c->cors.count = 0;
}

/* ---- logging ---- */

/* One kind of log line (the line with its digits left out) and its current window. */
struct log_slot {
	unsigned long long shape; /* FNV-1a of the line's bytes but digits */
	long long window;         /* CLOCK_MONOTONIC window (DAEMON_LOG_WINDOW_S) of its counts */
	unsigned written;         /* lines written in that window */
	unsigned long suppressed; /* lines left out in that window */
	char example[120];        /* the first one left out */
};

static struct {
	pthread_mutex_t lock;
	struct log_slot slot[DAEMON_LOG_SLOTS];
	long long window; /* of written_total */
	unsigned written_total;
} log_limit = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* One write(2) per line, so lines from different threads never interleave. */
static void log_write(const char *line, size_t n)
{
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

static long long log_window(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec / DAEMON_LOG_WINDOW_S;
}

/* The summary of slot's suppressed lines into out (log_limit.lock held); its length, 0 if
 * none, and the slot's count reset. */
static size_t log_summary(struct log_slot *slot, char *out, size_t size)
{
	int n;

	if (!slot->suppressed)
		return 0;
	n = snprintf(
	    out, size, "log: suppressed %lu similar lines: %s\n", slot->suppressed, slot->example);
	slot->suppressed = 0;
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

void http_log_flush(void)
{
	long long now = log_window();
	char summary[256];

	for (size_t i = 0; i < DAEMON_LOG_SLOTS; i++) {
		size_t n = 0;

		pthread_mutex_lock(&log_limit.lock);
		if (log_limit.slot[i].window != now)
			n = log_summary(&log_limit.slot[i], summary, sizeof summary);
		pthread_mutex_unlock(&log_limit.lock);
		if (n)
			log_write(summary, n);
	}
}

void http_log(const char *fmt, ...)
{
	char line[DAEMON_LOG_LINE_MAX], summary[256];
	unsigned long long shape = 14695981039346656037ULL;
	long long now = log_window();
	struct log_slot *slot;
	size_t summary_len;
	va_list ap;
	int n, keep;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = sizeof line - 2;
	for (int i = 0; i < n; i++) {
		if (line[i] < '0' || line[i] > '9')
			shape = (shape ^ (unsigned char)line[i]) * 1099511628211ULL;
	}
	slot = &log_limit.slot[shape % DAEMON_LOG_SLOTS];
	pthread_mutex_lock(&log_limit.lock);
	summary_len = 0;
	if (slot->shape != shape || slot->window != now) {
		summary_len = log_summary(slot, summary, sizeof summary);
		slot->shape = shape;
		slot->window = now;
		slot->written = 0;
	}
	if (log_limit.window != now) {
		log_limit.window = now;
		log_limit.written_total = 0;
	}
	keep = slot->written < DAEMON_LOG_SIMILAR_PER_WINDOW &&
	    log_limit.written_total < DAEMON_LOG_LINES_PER_WINDOW;
	if (keep) {
		slot->written++;
		log_limit.written_total++;
	} else if (slot->suppressed++ == 0) {
		snprintf(slot->example, sizeof slot->example, "%.*s", n, line);
	}
	pthread_mutex_unlock(&log_limit.lock);
	if (summary_len)
		log_write(summary, summary_len);
	if (!keep)
		return;
	line[n++] = '\n';
	log_write(line, (size_t)n);
}

/* Copy s into out (size > 4) with every byte that could forge a log field escaped as %XX. */
static void log_safe(char *out, size_t size, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; s && *s && n + 4 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c >= 0x7f || c == '%' || c == '"') {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		} else {
			out[n++] = (char)c;
		}
	}
	out[n] = '\0';
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static const char *cache_name(enum metrics_cache c)
{
	return c == METRICS_CACHE_HIT ? "hit" : c == METRICS_CACHE_MISS ? "miss" : "-";
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
	log_safe(method, sizeof method, x->req.method);
	log_safe(path, sizeof path, x->req.url);
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
	http_log("%s.%03ldZ %s %s %s %s %s %.3fms cache=%s%s%s%s%s%s", when, now.tv_nsec / 1000000,
	    x->client, method, path, status, bytes, secs * 1e3, cache_name(x->cache),
	    x->code ? " error=" : "", x->code ? err_name(x->code) : "", *end ? " end=" : "", end,
	    unsent);
}

/* ---- responders ---- */

static struct exchange *exchange_of(struct http_request *req)
{
	return (struct exchange *)req;
}

enum MHD_Result http_respond(struct MHD_Connection *conn, struct http_request *req, unsigned status,
    struct MHD_Response *resp)
{
	struct exchange *x = exchange_of(req);

	x->status = status;
	x->bytes = -1;
	/* the one place every answer gets its cross-origin headers */
	cors_headers(&x->srv->cfg.cors, x->req.url, x->origin, resp);
	return MHD_queue_response(conn, status, resp);
}

/* Queue resp with our headers (and release our reference to it). */
static enum MHD_Result queue_with_headers(struct MHD_Connection *conn, struct exchange *x,
    unsigned status, const char *content_type, struct MHD_Response *resp)
{
	enum MHD_Result ret;

	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	if (x->cache != METRICS_CACHE_NONE)
		MHD_add_response_header(resp, "X-Cache", cache_name(x->cache));
	if (x->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, x->allow);
	for (int i = 0; i < x->nextra; i++)
		MHD_add_response_header(resp, x->extra[i].name, x->extra[i].value);
	/* While shutting down, do not invite the client to send another request here. */
	if (atomic_load(&x->srv->stopping))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = http_respond(conn, &x->req, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* Queue a buffer response (mode as in MHD) with our headers; frees data on failure if owned. */
static enum MHD_Result respond_buffer(struct MHD_Connection *conn, struct exchange *x,
    unsigned status, const char *content_type, const char *data, size_t len,
    enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)data, mode);
	enum MHD_Result ret;

	if (!resp) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free((void *)data);
		return MHD_NO;
	}
	ret = queue_with_headers(conn, x, status, content_type, resp);
	x->bytes = (long long)len;
	return ret;
}

/* The answer when even an error body cannot be built (out of memory). */
static const char out_of_memory[] =
    "{\"error\":\"internal\",\"message\":\"out of memory\",\"path\":\"\"}\n";

void http_add_header(struct http_request *req, const char *name, const char *value)
{
	struct exchange *x = exchange_of(req);

	if (x->nextra >= HTTP_EXTRA_HEADERS)
		return;
	snprintf(x->extra[x->nextra].name, sizeof x->extra[0].name, "%s", name);
	snprintf(x->extra[x->nextra].value, sizeof x->extra[0].value, "%s", value);
	x->nextra++;
}

enum MHD_Result http_respond_json(
    struct MHD_Connection *conn, struct http_request *req, unsigned status, const json_t *value)
{
	char *text = svc_dump(value);

	if (!text)
		return respond_buffer(conn, exchange_of(req), MHD_HTTP_INTERNAL_SERVER_ERROR,
		    json_media, out_of_memory, sizeof out_of_memory - 1, MHD_RESPMEM_PERSISTENT);
	return respond_buffer(
	    conn, exchange_of(req), status, json_media, text, strlen(text), MHD_RESPMEM_MUST_FREE);
}

/* Copy s into out (size > 4) as JSON string content: printable ASCII but '"' and '\\'
 * kept, every other byte %XX, so that the copy is valid UTF-8 and needs no escaping. */
static void json_safe(char *out, size_t size, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *s && n + 4 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < ' ' || c >= 0x7f || c == '"' || c == '\\') {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		} else {
			out[n++] = (char)c;
		}
	}
	out[n] = '\0';
}

enum MHD_Result http_respond_error(
    struct MHD_Connection *conn, struct http_request *req, const struct err *e)
{
	unsigned status = (unsigned)err_http_status(e->code);
	json_t *body = err_to_json(e);
	enum MHD_Result ret;

	exchange_of(req)->code = e->code;
	if (!body) {
		/* jansson refuses text that is not UTF-8 (a message quoting the request's bytes):
		 * build the same body by hand from escaped copies, which cannot fail. */
		char message[3 * ERR_MESSAGE_MAX], path[3 * ERR_PATH_MAX],
		    text[sizeof message + sizeof path + 96];
		int n;

		json_safe(message, sizeof message, e->message);
		json_safe(path, sizeof path, e->path);
		n = snprintf(text, sizeof text,
		    "{\"error\":\"%s\",\"message\":\"%s\",\"path\":\"%s\"}\n", err_name(e->code),
		    message, path);
		return respond_buffer(conn, exchange_of(req), status, json_media, text,
		    (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, MHD_RESPMEM_MUST_COPY);
	}
	ret = http_respond_json(conn, req, status, body);
	json_decref(body);
	return ret;
}

void http_set_allow(struct http_request *req, const char *methods)
{
	exchange_of(req)->allow = methods;
}

/* Reject the request with code; message as printf. */
static enum MHD_Result reject(struct MHD_Connection *conn, struct exchange *x, enum err_code code,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum MHD_Result reject(
    struct MHD_Connection *conn, struct exchange *x, enum err_code code, const char *fmt, ...)
{
	char message[ERR_MESSAGE_MAX];
	struct err e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	err_set(&e, code, "", "%s", message);
	return http_respond_error(conn, &x->req, &e);
}

/* ---- content negotiation ---- */

/* Length of s's leading media type (up to ';', ',' or the end), trailing blanks trimmed. */
static size_t media_type_len(const char *s)
{
	size_t n = strcspn(s, ";,");

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

/*
 * How well the media range [range, range + n) matches type: 3 exact, 2 "type/x",
 * 1 "x/x", 0 not at all.
 */
static int range_match(const char *range, size_t n, const char *type)
{
	const char *slash = strchr(type, '/');
	size_t major = (size_t)(slash - type);

	if (n == strlen(type) && strncasecmp(range, type, n) == 0)
		return 3;
	if (n == major + 2 && strncasecmp(range, type, major + 1) == 0 && range[major + 1] == '*')
		return 2;
	if (n == 3 && strncmp(range, "*/*", 3) == 0)
		return 1;
	return 0;
}

/* The q parameter of the media range whose parameters start at params (before ','). */
static double range_q(const char *params)
{
	const char *end = params + strcspn(params, ",");
	const char *q;

	for (q = params; q && q < end; q = strchr(q + 1, ';')) {
		q += strspn(q, "; \t");
		if (q < end && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=')
			return strtod(q + 2, NULL);
	}
	return 1.0;
}

/*
 * RFC 9110 content negotiation: the index of the offer the Accept header prefers
 * (highest q, then the most specific range that named it, then the earlier offer),
 * or -1 when it accepts none. No header accepts the first offer.
 */
static int negotiate(const char *accept, const char *const offers[], int count)
{
	int best = -1, best_spec = 0, i;
	double best_q = 0;

	if (!accept || !*accept)
		return 0;
	for (i = 0; i < count; i++) {
		const char *range = accept;
		int spec = 0;
		double q = 0;

		/* The most specific range that matches this offer decides its q. */
		while (*range) {
			size_t n;
			int m;

			range += strspn(range, " \t,");
			n = media_type_len(range);
			m = n ? range_match(range, n, offers[i]) : 0;
			if (m > spec) {
				spec = m;
				q = range_q(range + n);
			}
			range += strcspn(range, ",");
		}
		if (spec && q > 0 && (q > best_q || (q == best_q && spec > best_spec))) {
			best = i;
			best_q = q;
			best_spec = spec;
		}
	}
	return best;
}

int http_body_is_json(const char *content_type)
{
	size_t n;

	if (!content_type)
		return 1;
	content_type += strspn(content_type, " \t");
	n = media_type_len(content_type);
	return (n == strlen(json_media) && strncasecmp(content_type, json_media, n) == 0) ||
	    (n > 5 && strncasecmp(content_type + n - 5, "+json", 5) == 0);
}

/* ---- handlers ---- */

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

/* The store's cache under store_guard's read lock: a compute job that shutdown left
 * running finds no store (a miss, nothing kept) once the store is being closed. */
static int guarded_get(void *ctx, const char *endpoint, const char *canonical, char **answer,
    size_t *len, struct err *err)
{
	struct http_server *srv = ctx;
	int rc = 0;

	pthread_rwlock_rdlock(&srv->store_guard);
	if (!srv->store_gone)
		rc = srv->cache.cache.get(
		    srv->cache.cache.ctx, endpoint, canonical, answer, len, err);
	pthread_rwlock_unlock(&srv->store_guard);
	return rc;
}

static int guarded_put(void *ctx, const char *endpoint, const char *canonical, const char *answer,
    size_t len, struct err *err)
{
	struct http_server *srv = ctx;
	int rc = 0;

	pthread_rwlock_rdlock(&srv->store_guard);
	if (!srv->store_gone)
		rc = srv->cache.cache.put(
		    srv->cache.cache.ctx, endpoint, canonical, answer, len, err);
	pthread_rwlock_unlock(&srv->store_guard);
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
		return respond_buffer(
		    conn, x, MHD_HTTP_OK, json_media, text, len, MHD_RESPMEM_MUST_COPY);
	csv = x->format == 1 ? (svc_text_csv(text, &csv, &e) < 0 ? NULL : csv)
	                     : http_stream_ndjson(text, &e);
	if (!csv)
		return http_respond_error(conn, &x->req, &e);
	ret = respond_buffer(conn, x, MHD_HTTP_OK, x->format == 1 ? csv_media : HTTP_STREAM_NDJSON,
	    csv, strlen(csv), MHD_RESPMEM_MUST_COPY);
	free(csv);
	return ret;
}

/* The pool's job of a question: parse, look up, compute, store; then wake its connection. */
static void compute_question(void *arg, int cancelled)
{
	struct exchange *x = arg;
	struct http_server *srv = x->srv;
	struct svc_outcome outcome;
	struct http_stream *stream = NULL;
	int resumed = 0;

	err_clear(&x->job_err);
	if (cancelled) {
		err_set(&x->job_err, ERR_UNAVAILABLE, NULL,
		    "shutting down: the question was still queued at --drain-timeout");
	} else {
		memset(&outcome, 0, sizeof outcome);
		/* CSV and NDJSON sweeps stream: the connection resumes with the rows to come,
		 * and this job computes them after resuming it (below) */
		if (x->format != 0 && x->endpoint == SVC_SWEEP
		        ? http_stream_open(x->req.body, x->req.body_len, &srv->limits,
		              &srv->guarded, x->format == 2, &stream, &x->computed, &outcome,
		              &x->job_err) < 0
		        : svc_ask(x->endpoint, x->req.body, x->req.body_len, &srv->limits,
		              &srv->guarded, &x->computed, &outcome, &x->job_err) < 0)
			x->computed = NULL;
		else
			x->cache = outcome.cached ? METRICS_CACHE_HIT : METRICS_CACHE_MISS;
		note_cache_failures(srv, &outcome);
	}
	pthread_mutex_lock(&srv->jobs_lock);
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
		free(x->body);
		free(x);
		if (stream)
			http_stream_abandon(stream);
		return;
	}
	if (!x->abandoned) {
		x->stream = stream;
		x->resumed = resumed = 1;
		MHD_resume_connection(x->conn);
	}
	pthread_mutex_unlock(&srv->jobs_lock);
	if (!stream)
		return;
	/* x is the connection's from here on: the job keeps only the stream */
	if (!resumed) {
		http_stream_abandon(stream);
		return;
	}
	memset(&outcome, 0, sizeof outcome);
	http_stream_run(stream, srv->limits.threads, &srv->guarded, &outcome);
	note_cache_failures(srv, &outcome);
}

/* Resumed after its job: answer the question. */
static enum MHD_Result finish_question(struct MHD_Connection *conn, struct exchange *x)
{
	if (x->stream) {
		struct MHD_Response *resp = http_stream_response(x->stream, conn);
		x->stream = NULL; /* the response's now, or closed */
		if (!resp)
			return MHD_NO;
		x->cache = METRICS_CACHE_MISS;
		return queue_with_headers(
		    conn, x, MHD_HTTP_OK, x->format == 1 ? csv_media : HTTP_STREAM_NDJSON, resp);
	}
	if (!x->computed)
		return http_respond_error(conn, &x->req, &x->job_err);
	hot_put(x->hot, x->computed, strlen(x->computed));
	return respond_answer(conn, x, x->computed, strlen(x->computed));
}

/*
 * POST /v1/NAME for every row of the service's endpoint table. The answer's text
 * comes from this thread's memory (the same request bytes asked before), else, in the
 * compute pool with the connection suspended, from svc_ask(): the store (an equal
 * canonical request), else the core. A full pool answers 503 with Retry-After.
 */
static enum MHD_Result serve_question(
    struct MHD_Connection *conn, struct exchange *x, enum svc_endpoint ep, const char *path)
{
	/* a CSV answer (the sweep's) also streams as NDJSON (stream.h) */
	static const char *const offers[] = {json_media, "text/csv", HTTP_STREAM_NDJSON};
	const struct svc_endpoint_def *row = svc_endpoints[ep];
	int offer_count = row->csv ? 3 : 1;
	struct http_server *srv = x->srv;
	const char *text;
	size_t len;

	if (!http_body_is_json(x->req.content_type))
		return reject(conn, x, ERR_UNSUPPORTED_MEDIA, "the body must be %s, not %s",
		    json_media, x->req.content_type);
	x->format = negotiate(x->req.accept, offers, offer_count);
	if (x->format < 0)
		return reject(conn, x, ERR_NOT_ACCEPTABLE, "%s answers %s%s", path, json_media,
		    offer_count > 1 ? ", text/csv or " HTTP_STREAM_NDJSON : "");
	hot_key(row->name, x->req.body, x->req.body_len, x->hot);
	text = hot_get(x->hot, &len);
	if (text) {
		x->cache = METRICS_CACHE_HIT;
		return respond_answer(conn, x, text, len);
	}
	if (admit_reserve(srv->pool) < 0) {
		http_add_header(&x->req, MHD_HTTP_HEADER_RETRY_AFTER, DAEMON_RETRY_AFTER);
		return reject(conn, x, ERR_UNAVAILABLE,
		    "busy: %ld questions are being computed or wait for it; retry later",
		    admit_running(srv->pool) + admit_queued(srv->pool));
	}
	x->endpoint = ep;
	x->conn = conn;
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

/* GET /v1/health: liveness, versions and the store's state. */
static enum MHD_Result serve_health(
    struct MHD_Connection *conn, struct exchange *x, const struct route *r)
{
	struct http_server *srv = x->srv;
	struct err e;
	int schema = store_schema_version(srv->store, &e);
	json_t *body, *calib;
	enum MHD_Result ret;

	(void)r;
	body =
	    json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "status", "ok", "version", PACKAGE_VERSION,
	        "core_version", srv->cfg.core_version, "store", schema < 0 ? "unavailable" : "ok",
	        "mujoco", svc_mujoco_default(), "mujoco_supported", svc_mujoco_releases());
	if (!body)
		return reject(conn, x, ERR_INTERNAL, "out of memory");
	if (schema >= 0)
		json_object_set_new(body, "schema_version", json_integer(schema));
	else
		json_object_set_new(body, "store_error", json_string(e.message));
	/* 200 either way: questions are answered without the calibration store */
	calib = http_calib_health();
	if (!calib || json_object_set_new(body, "calibration_store", calib) != 0) {
		json_decref(body);
		return reject(conn, x, ERR_INTERNAL, "out of memory");
	}
	ret = http_respond_json(conn, &x->req, MHD_HTTP_OK, body);
	json_decref(body);
	return ret;
}

/* GET /v1/openapi.json: the embedded API description. */
static enum MHD_Result serve_openapi(
    struct MHD_Connection *conn, struct exchange *x, const struct route *r)
{
	(void)r;
	return respond_buffer(conn, x, MHD_HTTP_OK, json_media, openapi_json, openapi_json_len,
	    MHD_RESPMEM_PERSISTENT);
}

/* GET /metrics: Prometheus text format. */
static enum MHD_Result serve_metrics(
    struct MHD_Connection *conn, struct exchange *x, const struct route *r)
{
	struct http_server *srv = x->srv;
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	struct metrics_gauges g = {
	    .in_flight = atomic_load(&srv->in_flight),
	    .connections = info ? info->num_connections : 0,
	    .computing = admit_running(srv->pool),
	    .queued = admit_queued(srv->pool),
	    .refused = admit_rejected(srv->pool),
	    .guard = guard_counts(srv->guard),
	};
	size_t len = 0;
	char *text = metrics_render(srv->metrics, &g, PACKAGE_VERSION, srv->cfg.core_version, &len);

	(void)r;
	if (!text)
		return reject(conn, x, ERR_INTERNAL, "out of memory");
	return respond_buffer(conn, x, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
	    text, len, MHD_RESPMEM_MUST_FREE);
}

/* The routes besides the questions, which are the rows of svc_endpoints[]. */
static const struct route routes[] = {
    {"/v1/health", MHD_HTTP_METHOD_GET, "health", serve_health},
    {"/v1/openapi.json", MHD_HTTP_METHOD_GET, "openapi", serve_openapi},
    {"/metrics", MHD_HTTP_METHOD_GET, "metrics", serve_metrics},
};

/* The question endpoint of a URL: /v1/NAME for a row NAME of the endpoint table. */
static int question_of(const char *url, enum svc_endpoint *ep)
{
	struct err ignored;

	return strncmp(url, QUESTION_PREFIX, strlen(QUESTION_PREFIX)) == 0 &&
	    svc_endpoint_parse(url + strlen(QUESTION_PREFIX), ep, &ignored) == 0;
}

static int is_calibration_url(const char *url)
{
	return strncmp(url, "/v1/robots/", 11) == 0 || strncmp(url, "/v1/calibrations/", 17) == 0;
}

/* The methods url takes (for Allow and preflights), or NULL when no route has it. */
static const char *methods_of(const char *url)
{
	enum svc_endpoint ep;
	size_t i;

	if (question_of(url, &ep))
		return MHD_HTTP_METHOD_POST;
	for (i = 0; i < sizeof routes / sizeof routes[0]; i++)
		if (strcmp(url, routes[i].path) == 0)
			return strcmp(routes[i].method, MHD_HTTP_METHOD_GET) == 0
			    ? "GET, HEAD"
			    : routes[i].method;
	/* the calibration routes' own methods; each route answers 405 for the others */
	if (is_calibration_url(url))
		return "GET, POST, DELETE";
	if (static_find(url))
		return "GET, HEAD";
	return NULL;
}

/* OPTIONS: the methods a route takes, or a CORS preflight's answer (cors.h). */
static enum MHD_Result serve_options(struct MHD_Connection *conn, struct exchange *x)
{
	const char *allow = methods_of(x->req.url);
	struct MHD_Response *resp;
	enum MHD_Result ret;
	int refused;

	x->req.route = "options";
	if (!allow)
		return reject(conn, x, ERR_NOT_FOUND, "no endpoint %s", x->req.url);
	resp = cors_options(
	    &x->srv->cfg.cors, x->req.url, x->origin, x->preflight_method, allow, &refused);
	if (refused)
		return reject(conn, x, ERR_FORBIDDEN,
		    "origin %s may not call %s (see contactd --cors-origin)", x->origin,
		    x->req.url);
	if (!resp)
		return MHD_NO;
	ret = http_respond(conn, &x->req, MHD_HTTP_NO_CONTENT, resp);
	x->bytes = 0;
	MHD_destroy_response(resp);
	return ret;
}

/* The whole request is in: find its route and answer it. */
static enum MHD_Result dispatch(struct MHD_Connection *conn, struct exchange *x)
{
	const char *method = x->req.method;
	enum MHD_Result result;
	const struct static_file *page;
	enum svc_endpoint ep;
	size_t i;

	if (x->body_too_large)
		return reject(
		    conn, x, ERR_TOO_LARGE, "the body is over %zu bytes", x->srv->cfg.max_body);
	if (strcmp(method, "OPTIONS") == 0)
		return serve_options(conn, x);
	if (question_of(x->req.url, &ep)) {
		x->req.route = svc_endpoints[ep]->name;
		if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
			return serve_question(conn, x, ep, x->req.url);
		x->allow = MHD_HTTP_METHOD_POST;
		return reject(
		    conn, x, ERR_METHOD, "%s takes %s, not %s", x->req.url, x->allow, method);
	}
	for (i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		const struct route *r = &routes[i];
		int get = strcmp(r->method, MHD_HTTP_METHOD_GET) == 0;

		if (strcmp(x->req.url, r->path) != 0)
			continue;
		x->req.route = r->name;
		if (strcmp(method, r->method) == 0 || (get && strcmp(method, "HEAD") == 0))
			return r->serve(conn, x, r);
		/* A 405 must name the methods that would work. */
		x->allow = get ? "GET, HEAD" : r->method;
		return reject(
		    conn, x, ERR_METHOD, "%s takes %s, not %s", r->path, x->allow, method);
	}
	if (is_calibration_url(x->req.url)) {
		x->req.route = "calibration";
		if (http_calib_route(conn, &x->req, &result))
			return result;
	}
	page = static_find(x->req.url);
	if (page) {
		x->req.route = "page";
		if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
			return static_serve(conn, &x->req, page);
		x->allow = "GET, HEAD";
		return reject(
		    conn, x, ERR_METHOD, "%s takes GET, HEAD, not %s", x->req.url, method);
	}
	return reject(conn, x, ERR_NOT_FOUND, "no endpoint %s", x->req.url);
}

/* The first call for a request: set up its exchange from the headers. */
static struct exchange *exchange_new(
    struct http_server *srv, struct MHD_Connection *conn, const char *url, const char *method)
{
	struct exchange *x = calloc(1, sizeof *x);
	const union MHD_ConnectionInfo *info;

	if (!x)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &x->start);
	x->srv = srv;
	x->req.method = method;
	x->req.url = url;
	x->req.accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	x->req.authorization =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	x->req.content_type =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	x->origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	x->preflight_method =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Access-Control-Request-Method");
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

/*
 * Append a chunk of body, or give the body up once it is over the limit. Past the
 * limit the rest is read and dropped, and the 413 goes out when the upload ends:
 * libmicrohttpd (0.9.75) refuses to queue a response in the middle of an upload, and
 * closing instead would leave the client without the contract's error. A declared
 * Content-Length over the limit is refused before any of the body is read.
 */
static void body_append(struct exchange *x, const char *data, size_t n)
{
	size_t limit = x->srv->cfg.max_body;

	if (x->body_too_large)
		return;
	if (n > limit - x->body_len) {
		x->body_too_large = 1;
		free(x->body);
		x->body = NULL;
		x->body_len = 0;
		return;
	}
	if (x->body_len + n + 1 > x->body_cap) {
		size_t cap = x->body_cap ? x->body_cap : BODY_CHUNK_BYTES;
		char *grown;

		while (cap < x->body_len + n + 1)
			cap *= 2;
		if (cap > limit + 1)
			cap = limit + 1;
		grown = realloc(x->body, cap);
		if (!grown) {
			x->body_too_large = 1; /* cannot hold it: answer as if too large */
			return;
		}
		x->body = grown;
		x->body_cap = cap;
	}
	memcpy(x->body + x->body_len, data, n);
	x->body_len += n;
	x->body[x->body_len] = '\0';
}

/* What check_framing() learns from every header line of a request. */
struct framing {
	int lengths, codings; /* Content-Length and Transfer-Encoding lines */
	const char *length;   /* the last of each */
	const char *coding;
	const char *bad_name; /* a header name with a blank in it (or empty) */
	int bad_length;       /* a Content-Length that is not 1*DIGIT */
	int bad_coding;       /* a Transfer-Encoding that is not exactly chunked */
};

/* Is s, blanks around it aside, exactly word (any case)? */
static int is_word(const char *s, const char *word)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(word);
	if (strncasecmp(s, word, n) != 0)
		return 0;
	s += n;
	return s[strspn(s, " \t")] == '\0';
}

/* Is s, blanks around it aside, a plain decimal number (no sign, no list)? */
static int is_digits(const char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strspn(s, "0123456789");
	return n > 0 && s[n + strspn(s + n, " \t")] == '\0';
}

/* Does name start with prefix (any case) and go on after it? */
static int has_longer_prefix(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncasecmp(name, prefix, n) == 0 && name[n] != '\0';
}

/* MHD_KeyValueIterator over the request's headers: every line, repeats included. */
static enum MHD_Result framing_line(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct framing *f = cls;

	(void)kind;
	/* libmicrohttpd 0.9.75 appends a folded line (obs-fold) to the header's name:
	 * "Transfer-Encoding:\r\n chunked" arrives as "Transfer-Encodingchunked". */
	if (!key || !*key || key[strcspn(key, " \t")] != '\0' ||
	    has_longer_prefix(key, MHD_HTTP_HEADER_CONTENT_LENGTH) ||
	    has_longer_prefix(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		f->bad_name = key ? key : "";
		return MHD_YES;
	}
	if (!value)
		value = "";
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
		f->lengths++;
		f->length = value;
		f->bad_length |= !is_digits(value);
	} else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
		f->codings++;
		f->coding = value;
		f->bad_coding |= !is_word(value, "chunked");
	}
	return MHD_YES;
}

/* Refuse framing with one 400 and close the connection: what follows the head cannot be
 * trusted to be where this request's body ends. */
static enum MHD_Result refuse_framing(struct MHD_Connection *conn, struct exchange *x,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static enum MHD_Result refuse_framing(
    struct MHD_Connection *conn, struct exchange *x, const char *fmt, ...)
{
	char message[ERR_MESSAGE_MAX];
	struct err e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	err_set(&e, ERR_BAD_REQUEST, "", "%s", message);
	http_add_header(&x->req, MHD_HTTP_HEADER_CONNECTION, "close");
	return http_respond_error(conn, &x->req, &e);
}

/*
 * The first call of a request, its headers in: refuse framing a proxy in front could
 * read differently (RFC 9112 6.1, 6.3: Content-Length with Transfer-Encoding, either of
 * them repeated, a Content-Length that is not a plain number, a header name with a blank
 * before its colon, a folded framing header: how requests are smuggled), codings MHD cannot undo
 * (it would wait for a body it cannot delimit), and a declared oversized body. Every header line is
 * read, not only the first of each name. The oversized body is refused at once when the
 * client waits for "100 Continue" or the body is too large to be worth reading;
 * otherwise the body is read and dropped, so that the client, still sending, then reads
 * its 413 rather than a reset connection.
 */
static enum MHD_Result check_framing(struct MHD_Connection *conn, struct exchange *x)
{
	const char *expect =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
	struct framing f = {0};
	char shown[64];
	unsigned long long declared;

	MHD_get_connection_values(conn, MHD_HEADER_KIND, framing_line, &f);
	if (f.bad_name) {
		log_safe(shown, sizeof shown, f.bad_name);
		return refuse_framing(conn, x,
		    "header name '%s' is malformed (a blank before the colon, or a folded line)",
		    shown);
	}
	if (f.lengths > 1 || f.codings > 1)
		return refuse_framing(conn, x, "%s given %d times; send it once",
		    f.lengths > 1 ? "Content-Length" : "Transfer-Encoding",
		    f.lengths > 1 ? f.lengths : f.codings);
	if (f.codings && f.lengths)
		return refuse_framing(
		    conn, x, "Content-Length and Transfer-Encoding together; send one of them");
	if (f.bad_coding) {
		log_safe(shown, sizeof shown, f.coding);
		return refuse_framing(conn, x,
		    "Transfer-Encoding %s is not supported; send chunked or Content-Length", shown);
	}
	if (f.bad_length) {
		log_safe(shown, sizeof shown, f.length);
		return refuse_framing(conn, x, "Content-Length %s is not a decimal number", shown);
	}
	if (!f.lengths)
		return MHD_YES;
	declared = strtoull(f.length, NULL, 10);
	if (declared <= x->srv->cfg.max_body)
		return MHD_YES;
	x->body_too_large = 1;
	if (expect || declared > (unsigned long long)x->srv->cfg.max_body + DAEMON_DISCARD_BODY_MAX)
		return dispatch(conn, x);
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data, size_t *upload_data_size,
    void **con_cls)
{
	struct http_server *srv = cls;
	struct exchange *x = *con_cls;

	(void)version;
	if (!x) {
		x = exchange_new(srv, conn, url, method);
		if (!x)
			return MHD_NO;
		*con_cls = x;
		if (guard_head_in(conn) < 0)
			return MHD_NO; /* the guard cut it (a 408 went out) */
		return check_framing(conn, x);
	}
	if (x->abandoned)
		return reject(conn, x, ERR_UNAVAILABLE,
		    "shutting down: the computation was cut off at --drain-timeout");
	if (x->resumed)
		return finish_question(conn, x);
	if (*upload_data_size) {
		guard_body_in(conn, *upload_data_size);
		body_append(x, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (guard_request_in(conn) < 0)
		return MHD_NO;
	if (x->body)
		x->req.body = x->body;
	x->req.body_len = x->body_len;
	return dispatch(conn, x);
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
	secs = seconds_since(&x->start);
	metrics_record(srv->metrics, x->req.route,
	    toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? x->status : 0, secs, x->cache, x->code);
	log_request(x, secs, toe);
	atomic_fetch_sub(&srv->in_flight, 1);
	pthread_mutex_lock(&srv->jobs_lock);
	if (x->computing) {
		x->orphan = 1; /* its job still holds it and frees it */
		pthread_mutex_unlock(&srv->jobs_lock);
		return;
	}
	pthread_mutex_unlock(&srv->jobs_lock);
	if (x->stream) /* resumed, but never answered: its job stops */
		http_stream_close(x->stream);
	free(x->computed);
	free(x->body);
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
	store_cache_bind(&srv->cache, st, srv->cfg.core_version);
	srv->guarded = (struct cache){.ctx = srv, .get = guarded_get, .put = guarded_put};
	pthread_mutex_init(&srv->jobs_lock, NULL);
	pthread_rwlock_init(&srv->store_guard, NULL);
	if (upkeep_start(st, config->cache_max_bytes, &srv->upkeep, err) < 0) {
		metrics_free(srv->metrics);
		free(srv);
		return -1;
	}
	if (admit_new(config->compute_threads, config->compute_threads + config->max_queued,
	        &srv->pool, err) < 0) {
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
	if (listen_address(config, &addr, err) < 0 ||
	    guard_start(&(struct guard_config){.max_per_ip = config->max_per_ip,
	                    .head_timeout_s = config->head_timeout_s,
	                    .min_body_rate = config->min_body_rate},
	        &srv->guard, err) < 0)
		goto fail;
	if (addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	srv->daemon = MHD_start_daemon(flags, (uint16_t)config->port, on_accept, srv, on_request,
	    srv, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv, /* first, so it logs the rest */
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE,
	    (unsigned)config->threads, MHD_OPTION_CONNECTION_TIMEOUT, config->timeout_s,
	    MHD_OPTION_CONNECTION_LIMIT, config->max_connections,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)DAEMON_CONNECTION_MEMORY,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
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
	struct exchange *x;

	admit_cancel_queued(srv->pool);
	pthread_mutex_lock(&srv->jobs_lock);
	for (x = srv->jobs; x; x = x->next_job) {
		if (!x->abandoned) {
			x->abandoned = 1;
			MHD_resume_connection(x->conn);
		}
	}
	pthread_mutex_unlock(&srv->jobs_lock);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (atomic_load(&srv->in_flight) > 0 && seconds_since(&start) < 1)
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
	http_calib_stop();
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
	MHD_stop_daemon(srv->daemon);
	guard_stop(srv->guard);
	upkeep_stop(srv->upkeep);
	running = admit_stop(srv->pool);
	if (running) {
		/* They finish unseen: no store, and srv stays for them until the process exits. */
		pthread_rwlock_wrlock(&srv->store_guard);
		srv->store_gone = 1;
		pthread_rwlock_unlock(&srv->store_guard);
		http_log("shutdown: %ld computations abandoned", running);
		return;
	}
	pthread_rwlock_destroy(&srv->store_guard);
	pthread_mutex_destroy(&srv->jobs_lock);
	metrics_free(srv->metrics);
	free(srv);
}
