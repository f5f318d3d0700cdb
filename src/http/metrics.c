/*
 * metrics.c: lock-free request counters rendered in the Prometheus text format
 * (https://prometheus.io/docs/instrumenting/exposition_formats/).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/metrics.h"
#include "service/service.h"

/* Route labels after the question endpoints' (the endpoint table's names); anything
 * else is counted as the last one, "other". */
static const char *const other_routes[] = {
    "health",
    "openapi",
    "metrics",
    "calibration",
    "calibrations",
    "measurements",
    "fits",
    "events",
    "measurement",
    "upload",
    "watch",
    "evaluate",
    "options",
    "page",
    "other",
};
#define QUESTION_ROUTES SVC_ENDPOINT_COUNT /* the cached ones: always shown */
#define ROUTES (QUESTION_ROUTES + sizeof other_routes / sizeof other_routes[0])

/* The label of route index r. */
static const char *route_label(size_t r)
{
	return r < QUESTION_ROUTES ? svc_endpoints[r]->name : other_routes[r - QUESTION_ROUTES];
}

/* Highest status counted by its own number; HTTP statuses are three digits. */
#define STATUS_SLOTS 600

/* Latency bucket upper bounds in seconds: 100 us (a cache hit) to 30 s (a big sweep). */
static const double bucket_bounds[] = {
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1,
    2.5,
    5,
    10,
    30,
};
#define BUCKETS (sizeof bucket_bounds / sizeof bucket_bounds[0])

#define ERROR_CODES (ERR_INTERNAL + 1)

struct route_counters {
	atomic_ulong by_status[STATUS_SLOTS];
	atomic_ulong buckets[BUCKETS + 1]; /* per bucket, not cumulative; last is +Inf */
	atomic_ullong duration_ns;         /* sum of durations */
	atomic_ulong hits, misses;
};

struct metrics {
	struct route_counters route[ROUTES];
	atomic_ulong errors[ERROR_CODES];
	atomic_ulong cache_errors;
	atomic_ulong stopped[2];  /* questions stopped: [0] client gone, [1] over budget */
	atomic_ulong uncacheable; /* answers too large to cache (STORE_CACHE_MAX_ANSWER) */
	atomic_ulong cache_busy;  /* answers not cached: the store busy (STORE_CACHE_BUSY_MS) */
};

struct metrics *metrics_new(void)
{
	/* All-zero bytes are zero atomics on every platform we build for (lock-free ints). */
	return calloc(1, sizeof(struct metrics));
}

void metrics_free(struct metrics *m)
{
	free(m);
}

static size_t route_index(const char *route)
{
	size_t i;

	for (i = 0; route && i < ROUTES - 1; i++) {
		if (strcmp(route, route_label(i)) == 0)
			return i;
	}
	return ROUTES - 1;
}

void metrics_record(struct metrics *m, const char *route, unsigned status, double seconds,
    enum metrics_cache cache, enum err_code code)
{
	struct route_counters *r = &m->route[route_index(route)];
	size_t b = 0;

	atomic_fetch_add_explicit(
	    &r->by_status[status < STATUS_SLOTS ? status : 0], 1, memory_order_relaxed);
	while (b < BUCKETS && seconds > bucket_bounds[b])
		b++;
	atomic_fetch_add_explicit(&r->buckets[b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(
	    &r->duration_ns, (unsigned long long)(seconds * 1e9), memory_order_relaxed);
	if (cache == METRICS_CACHE_HIT)
		atomic_fetch_add_explicit(&r->hits, 1, memory_order_relaxed);
	else if (cache == METRICS_CACHE_MISS)
		atomic_fetch_add_explicit(&r->misses, 1, memory_order_relaxed);
	if (code > ERR_NONE && code < ERROR_CODES)
		atomic_fetch_add_explicit(&m->errors[code], 1, memory_order_relaxed);
}

const char *metrics_cache_name(enum metrics_cache c)
{
	return c == METRICS_CACHE_HIT ? "hit" : c == METRICS_CACHE_MISS ? "miss" : "-";
}

void metrics_cache_error(struct metrics *m)
{
	atomic_fetch_add_explicit(&m->cache_errors, 1, memory_order_relaxed);
}

void metrics_question_stopped(struct metrics *m, int over_budget)
{
	atomic_fetch_add_explicit(&m->stopped[over_budget ? 1 : 0], 1, memory_order_relaxed);
}

void metrics_uncacheable(struct metrics *m)
{
	atomic_fetch_add_explicit(&m->uncacheable, 1, memory_order_relaxed);
}

void metrics_cache_busy(struct metrics *m)
{
	atomic_fetch_add_explicit(&m->cache_busy, 1, memory_order_relaxed);
}

static unsigned long load(atomic_ulong *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

/* A label value with \, " and newline escaped, as the format requires. */
static void put_label(FILE *out, const char *value)
{
	for (; *value; value++) {
		if (*value == '\\' || *value == '"')
			fprintf(out, "\\%c", *value);
		else if (*value == '\n')
			fputs("\\n", out);
		else
			fputc(*value, out);
	}
}

static void render_requests(FILE *out, struct metrics *m)
{
	size_t r, s;

	fputs("# HELP contactd_http_requests_total HTTP requests by route and status"
	      " (code 0: no response, the client went away or timed out).\n"
	      "# TYPE contactd_http_requests_total counter\n",
	    out);
	for (r = 0; r < ROUTES; r++) {
		for (s = 0; s < STATUS_SLOTS; s++) {
			unsigned long n = load(&m->route[r].by_status[s]);

			if (n)
				fprintf(out,
				    "contactd_http_requests_total{route=\"%s\",code=\"%zu\"} %lu\n",
				    route_label(r), s, n);
		}
	}
}

static void render_latency(FILE *out, struct metrics *m)
{
	size_t r, b;

	fputs("# HELP contactd_http_request_duration_seconds Time from the request's headers to"
	      " its completion.\n"
	      "# TYPE contactd_http_request_duration_seconds histogram\n",
	    out);
	for (r = 0; r < ROUTES; r++) {
		struct route_counters *c = &m->route[r];
		unsigned long cumulative = 0;

		for (b = 0; b <= BUCKETS; b++)
			cumulative += load(&c->buckets[b]);
		if (!cumulative)
			continue;
		cumulative = 0;
		for (b = 0; b < BUCKETS; b++) {
			cumulative += load(&c->buckets[b]);
			fprintf(out,
			    "contactd_http_request_duration_seconds_bucket{route=\"%s\","
			    "le=\"%g\"} %lu\n",
			    route_label(r), bucket_bounds[b], cumulative);
		}
		cumulative += load(&c->buckets[BUCKETS]);
		fprintf(out,
		    "contactd_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %lu\n",
		    route_label(r), cumulative);
		fprintf(out, "contactd_http_request_duration_seconds_sum{route=\"%s\"} %.9f\n",
		    route_label(r),
		    (double)atomic_load_explicit(&c->duration_ns, memory_order_relaxed) / 1e9);
		fprintf(out, "contactd_http_request_duration_seconds_count{route=\"%s\"} %lu\n",
		    route_label(r), cumulative);
	}
}

static void render_cache(FILE *out, struct metrics *m)
{
	static const char *const kinds[] = {"hits", "misses"};
	size_t r, k;

	for (k = 0; k < 2; k++) {
		fprintf(out,
		    "# HELP contactd_cache_%s_total Answers %s the answer cache.\n"
		    "# TYPE contactd_cache_%s_total counter\n",
		    kinds[k], k ? "computed and stored in" : "served from", kinds[k]);
		for (r = 0; r < ROUTES; r++) {
			struct route_counters *c = &m->route[r];
			unsigned long n = load(k ? &c->misses : &c->hits);

			if (n || r < QUESTION_ROUTES)
				fprintf(out, "contactd_cache_%s_total{route=\"%s\"} %lu\n",
				    kinds[k], route_label(r), n);
		}
	}
	fprintf(out,
	    "# HELP contactd_cache_errors_total Cache reads or writes that failed.\n"
	    "# TYPE contactd_cache_errors_total counter\n"
	    "contactd_cache_errors_total %lu\n",
	    load(&m->cache_errors));
	fprintf(out,
	    "# HELP contactd_cache_uncached_total Answers served but not cached: larger than "
	    "the cache's per-answer cap.\n"
	    "# TYPE contactd_cache_uncached_total counter\n"
	    "contactd_cache_uncached_total %lu\n",
	    load(&m->uncacheable));
	fprintf(out,
	    "# HELP contactd_cache_busy_total Answers served but not cached: another writer "
	    "held the store longer than a question waits to keep its answer.\n"
	    "# TYPE contactd_cache_busy_total counter\n"
	    "contactd_cache_busy_total %lu\n",
	    load(&m->cache_busy));
	fprintf(out,
	    "# HELP contactd_questions_stopped_total Questions (and audits) stopped while "
	    "computing: their client left, or they ran out of their compute budget "
	    "(--max-cpu-seconds).\n"
	    "# TYPE contactd_questions_stopped_total counter\n"
	    "contactd_questions_stopped_total{reason=\"client_gone\"} %lu\n"
	    "contactd_questions_stopped_total{reason=\"over_budget\"} %lu\n",
	    load(&m->stopped[0]), load(&m->stopped[1]));
}

char *metrics_render(struct metrics *m, const struct metrics_gauges *g, const char *version,
    const char *core_version, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	int code;

	if (!out)
		return NULL;
	fputs("# HELP contactd_build_info The running contactd and its core's version.\n"
	      "# TYPE contactd_build_info gauge\n"
	      "contactd_build_info{version=\"",
	    out);
	put_label(out, version);
	fputs("\",core_version=\"", out);
	put_label(out, core_version);
	fputs("\"} 1\n", out);
	render_requests(out, m);
	render_latency(out, m);
	render_cache(out, m);
	fputs("# HELP contactd_errors_total Rejected requests by contract error code.\n"
	      "# TYPE contactd_errors_total counter\n",
	    out);
	for (code = ERR_NONE + 1; code < ERROR_CODES; code++)
		fprintf(out, "contactd_errors_total{code=\"%s\"} %lu\n", err_name(code),
		    load(&m->errors[code]));
	fprintf(out,
	    "# HELP contactd_http_requests_in_flight Requests being handled now.\n"
	    "# TYPE contactd_http_requests_in_flight gauge\n"
	    "contactd_http_requests_in_flight %ld\n"
	    "# HELP contactd_http_connections Open client connections.\n"
	    "# TYPE contactd_http_connections gauge\n"
	    "contactd_http_connections %u\n"
	    "# HELP contactd_compute_running Questions being computed now.\n"
	    "# TYPE contactd_compute_running gauge\n"
	    "contactd_compute_running %ld\n"
	    "# HELP contactd_compute_queued Questions waiting for a compute thread.\n"
	    "# TYPE contactd_compute_queued gauge\n"
	    "contactd_compute_queued %ld\n"
	    "# HELP contactd_compute_refused_total Questions answered 503 (Retry-After) because"
	    " every compute slot was taken.\n"
	    "# TYPE contactd_compute_refused_total counter\n"
	    "contactd_compute_refused_total %lu\n"
	    "# HELP contactd_compute_share_refused_total Questions and audits answered 503"
	    " (Retry-After) because their client (bearer token, else address) held its share of"
	    " the compute pool.\n"
	    "# TYPE contactd_compute_share_refused_total counter\n"
	    "contactd_compute_share_refused_total %lu\n"
	    "# HELP contactd_http_connections_refused_total Connections over"
	    " --max-connections-per-ip, answered 503 (Retry-After) and closed.\n"
	    "# TYPE contactd_http_connections_refused_total counter\n"
	    "contactd_http_connections_refused_total %lu\n"
	    "# HELP contactd_http_head_timeouts_total Request heads not in within"
	    " --head-timeout, answered 408 and closed.\n"
	    "# TYPE contactd_http_head_timeouts_total counter\n"
	    "contactd_http_head_timeouts_total %lu\n"
	    "# HELP contactd_http_slow_bodies_total Request bodies slower than"
	    " --min-body-rate, answered 408 and closed.\n"
	    "# TYPE contactd_http_slow_bodies_total counter\n"
	    "contactd_http_slow_bodies_total %lu\n"
	    "# HELP contactd_http_request_timeouts_total Requests not in whole within"
	    " --request-timeout, answered 408 and closed.\n"
	    "# TYPE contactd_http_request_timeouts_total counter\n"
	    "contactd_http_request_timeouts_total %lu\n"
	    "# HELP contactd_http_body_bytes Request body bytes held now (at most"
	    " --body-memory-mb).\n"
	    "# TYPE contactd_http_body_bytes gauge\n"
	    "contactd_http_body_bytes %zu\n",
	    g->in_flight, g->connections, g->computing, g->queued, g->refused, g->share_refused,
	    g->guard.refused, g->guard.head_timeouts, g->guard.slow_bodies, g->guard.lifetimes,
	    g->body_bytes);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
