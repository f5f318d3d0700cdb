/*
 * metrics.h: contactd's request counters, in Prometheus text format.
 *
 * Recording is lock-free (C11 atomics), so every HTTP thread records its own
 * requests without contention; rendering reads a consistent-enough snapshot.
 */
#ifndef CONTACTD_HTTP_METRICS_H
#define CONTACTD_HTTP_METRICS_H

#include <stddef.h>

#include "base/error.h"
#include "http/guard.h"

struct metrics;

/* Where an answer came from, for the cache counters. */
enum metrics_cache { METRICS_CACHE_NONE, METRICS_CACHE_HIT, METRICS_CACHE_MISS };

/* "hit", "miss" or "-" (a static string): the log line's cache= and the X-Cache header. */
const char *metrics_cache_name(enum metrics_cache c);

/* A new, zeroed set of counters; NULL when out of memory. Free with metrics_free(). */
struct metrics *metrics_new(void);

void metrics_free(struct metrics *m);

/*
 * Count one finished request. route is the request's route name ("drop", "health",
 * ...; others are counted as "other"); status 0 means no response was sent (the
 * client went away or timed out); code is the error of a rejected request, ERR_NONE
 * otherwise.
 */
void metrics_record(struct metrics *m, const char *route, unsigned status, double seconds,
    enum metrics_cache cache, enum err_code code);

/* Count a cache read or write that failed (the request is answered without the cache). */
void metrics_cache_error(struct metrics *m);

/* Count a question (or an audit: a job of the compute pool) stopped while computing: its
 * client left (over_budget 0) or it ran out of its compute budget (1). */
void metrics_question_stopped(struct metrics *m, int over_budget);

/* Count an answer served but not cached, being over the cache's per-answer cap. */
void metrics_uncacheable(struct metrics *m);

/* Count an answer served but not cached, the store busy with another writer for longer than
 * a question waits (store_cache_put()'s 1). */
void metrics_cache_busy(struct metrics *m);

/* The values the caller keeps, rendered with the counters. */
struct metrics_gauges {
	long in_flight;        /* requests between their headers and their completion */
	unsigned connections;  /* open client connections */
	long computing;        /* questions running in the compute pool */
	long queued;           /* questions waiting for a compute thread */
	unsigned long refused; /* questions answered 503 because the pool was full (a counter) */
	unsigned long share_refused; /* answered 503: their client held its share (a counter) */
	struct guard_counts guard;   /* connections refused or cut by the guard (counters) */
	size_t body_bytes;           /* request body memory held now (--body-memory-mb) */
};

/*
 * The Prometheus text exposition of every counter, plus the caller's gauges and the
 * build labels. Caller frees the result with free(); NULL when out of memory.
 */
char *metrics_render(struct metrics *m, const struct metrics_gauges *g, const char *version,
    const char *core_version, size_t *len);

#endif
