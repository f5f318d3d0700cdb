/*
 * shard.h: a sweep split into N interleaved parts, and the parts joined again.
 *
 * Shard K of N (1 <= K <= N, 1-based like a Slurm array's task id) holds the points
 * whose index i in the whole sweep's order has i % N == K - 1. Its answer is the
 * whole answer's with only those rows, plus a "part" member that says what a merge
 * needs: {"count": N, "index": K, "points": P (the whole sweep's), "request": the
 * canonical sweep request without its shard}. A CSV part starts with one line
 * "#part " + that member's compact JSON. shard_merge() checks that the parts belong
 * together and lays their rows out in the whole sweep's order: byte for byte the
 * answer one process gives.
 */
#ifndef CONTACTD_SERVICE_SHARD_H
#define CONTACTD_SERVICE_SHARD_H

#include <stddef.h>
#include <jansson.h>

#include "base/error.h"
#include "base/field.h"

/* Which part of a sweep to compute: first = K - 1, count = N; sharded 0: the whole. */
struct shard_spec {
	int sharded;
	size_t first, count;
};

/* The whole sweep: every point ({0, 0, 1}). */
void shard_whole(struct shard_spec *s);

/*
 * Read c[key] (absent: the whole sweep) as {"index": K, "count": N}: integers with
 * 1 <= N <= LIMIT_MAX_SWEEP_SHARDS and 1 <= K <= N. Errors name the member
 * (/shard/index, /shard/count) or the object.
 */
int shard_parse(const struct field_ctx *c, const char *key, struct shard_spec *out);

/* The canonical {"count", "index"} of a sharded spec; NULL if out of memory. Caller owns it. */
json_t *shard_json(const struct shard_spec *s);

/* How many of npoints points the part holds (0 when N exceeds the points). */
size_t shard_rows(const struct shard_spec *s, size_t npoints);

/* The sweep's point index of the part's row-th row. */
size_t shard_point(const struct shard_spec *s, size_t row);

/* The part's row of point (a point of the part). */
size_t shard_row(const struct shard_spec *s, size_t point);

/* The "part" member of a sharded answer: request is the canonical sweep without its
 * shard (borrowed). NULL if out of memory. Caller owns it. */
json_t *shard_part(const struct shard_spec *s, size_t npoints, json_t *request);

/* A CSV part's first line for part ("#part {...}\n"); NULL if out of memory. Caller frees. */
char *shard_csv_line(const json_t *part);

/* One part to merge: a file's name (for messages) and its bytes. */
struct shard_input {
	const char *name;
	const char *text;
	size_t len;
};

/*
 * Merge n >= 1 parts, in any order, of one sharded sweep: JSON answers (compact or
 * indented), NDJSON streams (the API's application/x-ndjson) or CSV answers, all of
 * one kind. Refused (bad_value, the message naming the parts): a text that is no
 * sweep part, parts of different requests or counts, a shard given twice or missing,
 * a part whose rows or columns are not its shard's. JSON and NDJSON parts give
 * *answer (the whole sweep's JSON answer, caller owns; *csv NULL); CSV parts give
 * *csv (the whole CSV answer, caller frees; *answer NULL).
 */
int shard_merge(
    const struct shard_input *parts, size_t n, json_t **answer, char **csv, struct err *err);

#endif
