/*
 * stream.c: a sweep sent row by row as the rows are computed (stream.h).
 *
 * The stream is shared by two owners: the pool job that computes into it (the
 * producer) and the libmicrohttpd response that reads from it (the reader). Each
 * holds one reference; the last to let go frees it. The reader never blocks an HTTP
 * thread: with nothing to send it suspends its connection and returns 0, and the
 * producer resumes the connection when it adds bytes or ends the stream.
 */
#include "http/stream.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "service/sweep.h"
#include "http/knobs.h"

struct http_stream {
	pthread_mutex_t lock; /* everything below but the producer's own part */
	int refs;             /* producer and reader */
	char *buf;            /* bytes not yet sent: buf[sent .. len) */
	size_t len, cap, sent;
	int ended;   /* the producer is done: after the buffer, the end */
	int failed;  /* end the response as failed (CSV: no error line to write) */
	int closed;  /* the reader is gone: the producer stops */
	int waiting; /* the connection is suspended until bytes arrive */
	struct MHD_Connection *conn;
	/* the producer's own */
	int ndjson;
	struct sweep_plan *plan;
	char *canonical; /* the cache key */
	char *whole;     /* the whole JSON answer, for the cache */
	size_t whole_len, whole_cap;
	size_t rows;
	int whole_failed; /* out of memory keeping it: not cached */
	/* every stream alive, for shutdown (registry_lock) */
	struct http_stream *reg_prev, *reg_next;
};

/*
 * Every stream alive, so that shutdown can wake the readers waiting for rows:
 * libmicrohttpd refuses to stop (it aborts) with a suspended connection. Lock order:
 * registry_lock, then a stream's lock. A stream leaves the registry only when freed, so
 * one seen under registry_lock is allocated.
 */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct http_stream *registry;
static atomic_bool shutting_down; /* set by http_stream_shutdown(): no reader waits again */

/* Append n bytes to a growing buffer; -1 when out of memory. */
static int grow_add(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t want = 2 * (*len + n + 1);
		char *bigger = realloc(*buf, want);
		if (!bigger)
			return -1;
		*buf = bigger;
		*cap = want;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

static void stream_free(struct http_stream *s)
{
	pthread_mutex_lock(&registry_lock);
	if (s->reg_prev)
		s->reg_prev->reg_next = s->reg_next;
	else if (registry == s)
		registry = s->reg_next;
	if (s->reg_next)
		s->reg_next->reg_prev = s->reg_prev;
	pthread_mutex_unlock(&registry_lock);
	pthread_mutex_destroy(&s->lock);
	free(s->buf);
	free(s->canonical);
	free(s->whole);
	sweep_plan_free(s->plan);
	free(s);
}

/* Let go of one reference (the lock held); frees s with the last. */
static void release_locked(struct http_stream *s)
{
	int last = --s->refs == 0;

	pthread_mutex_unlock(&s->lock);
	if (last)
		stream_free(s);
}

/* Wake the reader (the lock held). */
static void wake_locked(struct http_stream *s)
{
	if (s->waiting) {
		s->waiting = 0;
		MHD_resume_connection(s->conn);
	}
}

/* Send bytes to the client; -1 (err) when the client is gone or out of memory. */
static int send_bytes(struct http_stream *s, const char *data, size_t n, struct err *err)
{
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	if (s->closed)
		rc = err_set(err, ERR_INTERNAL, "", "the client went away");
	else if (grow_add(&s->buf, &s->len, &s->cap, data, n) != 0)
		rc = err_set(err, ERR_INTERNAL, "", "out of memory");
	else
		wake_locked(s);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Keep n bytes of the whole JSON answer (the producer's). */
static void keep(struct http_stream *s, const char *data, size_t n)
{
	if (!s->whole_failed && grow_add(&s->whole, &s->whole_len, &s->whole_cap, data, n) != 0)
		s->whole_failed = 1;
}

static int on_head(void *ctx, const json_t *head, const char *csv_header, struct err *err)
{
	struct http_stream *s = ctx;
	char *text = jtext_dump(head, 0);
	size_t n;
	int rc;

	if (!text)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	n = strlen(text);
	/* the whole answer: the head without its closing brace ("rows" sorts last) */
	keep(s, text, n - 1);
	keep(s, ",\"rows\":[", 9);
	if (s->ndjson) {
		text[n] = '\n'; /* over the NUL: the line is the n + 1 bytes */
		rc = send_bytes(s, text, n + 1, err);
	} else {
		rc = send_bytes(s, csv_header, strlen(csv_header), err);
	}
	free(text);
	return rc;
}

static int on_row(void *ctx, const char *text, size_t len, const char *json, struct err *err)
{
	struct http_stream *s = ctx;
	int rc;

	if (s->rows++ > 0)
		keep(s, ",", 1);
	keep(s, json, strlen(json));
	if (!s->ndjson)
		return send_bytes(s, text, len, err);
	pthread_mutex_lock(&s->lock);
	if (s->closed) {
		rc = err_set(err, ERR_INTERNAL, "", "the client went away");
	} else if (grow_add(&s->buf, &s->len, &s->cap, text, len) != 0 ||
	    grow_add(&s->buf, &s->len, &s->cap, "\n", 1) != 0) {
		rc = err_set(err, ERR_INTERNAL, "", "out of memory");
	} else {
		rc = 0;
		wake_locked(s);
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int http_stream_open(const char *body, size_t len, const struct svc_limits *lim,
    const struct cache *cache, int ndjson, struct http_stream **stream, char **cached,
    struct svc_outcome *outcome, struct err *err)
{
	struct sweep_plan *plan = NULL;
	struct http_stream *s;
	json_t *canonical;
	char *key, *answer = NULL;
	size_t answer_len;

	*stream = NULL;
	*cached = NULL;
	if (svc_sweep_open(body, len, lim, &plan, err) != 0)
		return -1;
	canonical = sweep_plan_json(plan);
	key = canonical ? jtext_line(canonical) : NULL;
	json_decref(canonical);
	if (!key) {
		sweep_plan_free(plan);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	if (cache &&
	    cache->get(cache->ctx, "sweep", key, &answer, &answer_len, &outcome->cache_read_err) ==
	        1) {
		outcome->cached = 1;
		*cached = answer;
		free(key);
		sweep_plan_free(plan);
		return 0;
	}
	s = calloc(1, sizeof *s);
	if (!s || pthread_mutex_init(&s->lock, NULL) != 0) {
		free(s);
		free(key);
		sweep_plan_free(plan);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	s->refs = 2;
	s->ndjson = ndjson;
	s->plan = plan;
	s->canonical = key;
	pthread_mutex_lock(&registry_lock);
	s->reg_next = registry;
	if (registry)
		registry->reg_prev = s;
	registry = s;
	pthread_mutex_unlock(&registry_lock);
	*stream = s;
	return 0;
}

void http_stream_shutdown(void)
{
	struct http_stream *s;

	pthread_mutex_lock(&registry_lock);
	/* before the waiting readers are woken: a reader that looks after this never waits */
	atomic_store(&shutting_down, 1);
	for (s = registry; s; s = s->reg_next) {
		pthread_mutex_lock(&s->lock);
		wake_locked(s);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&registry_lock);
}

/* libmicrohttpd's reader: what is buffered, the end, or a pause until the producer
 * wakes the connection. */
static ssize_t read_stream(void *cls, uint64_t pos, char *out, size_t max)
{
	struct http_stream *s = cls;
	ssize_t n;

	(void)pos;
	pthread_mutex_lock(&s->lock);
	if (s->sent < s->len) {
		n = (ssize_t)(s->len - s->sent < max ? s->len - s->sent : max);
		memcpy(out, s->buf + s->sent, (size_t)n);
		s->sent += (size_t)n;
		if (s->sent == s->len)
			s->sent = s->len = 0; /* reuse the buffer from its start */
	} else if (s->ended || atomic_load(&shutting_down)) {
		n = s->failed || !s->ended ? MHD_CONTENT_READER_END_WITH_ERROR
		                           : MHD_CONTENT_READER_END_OF_STREAM;
	} else {
		s->waiting = 1;
		MHD_suspend_connection(s->conn);
		n = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return n;
}

int http_stream_closed(struct http_stream *s)
{
	int closed;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	closed = s->closed;
	pthread_mutex_unlock(&s->lock);
	return closed;
}

void http_stream_close(struct http_stream *s)
{
	pthread_mutex_lock(&s->lock);
	s->closed = 1;
	s->waiting = 0;
	release_locked(s);
}

static void reader_gone(void *cls)
{
	http_stream_close(cls);
}

struct MHD_Response *http_stream_response(struct http_stream *s, struct MHD_Connection *conn)
{
	struct MHD_Response *resp;

	s->conn = conn;
	resp = MHD_create_response_from_callback(
	    MHD_SIZE_UNKNOWN, STREAM_CHUNK_BYTES, read_stream, s, reader_gone);
	if (!resp)
		http_stream_close(s);
	return resp;
}

void http_stream_run(
    struct http_stream *s, int threads, const struct cache *cache, struct svc_outcome *outcome)
{
	struct sweep_sink sink = {s->ndjson ? SWEEP_JSON : SWEEP_CSV, 1, on_head, on_row, s};
	struct err err;
	char line[64];
	int rc;

	err_clear(&err);
	rc = sweep_stream(s->plan, threads, &sink, &err);
	/* cached before the stream's last bytes are released: a client that asks again as
	 * soon as its answer ends finds it cached (the rows are all in; nothing else adds) */
	if (rc == 0 && cache && !s->whole_failed) {
		keep(s, "]}\n", 3);
		if (!s->whole_failed)
			cache->put(cache->ctx, "sweep", s->canonical, s->whole, s->whole_len,
			    &outcome->cache_write_err);
	}
	pthread_mutex_lock(&s->lock);
	if (rc == 0 && s->ndjson) {
		int n = snprintf(line, sizeof line, "{\"done\":true,\"count\":%zu}\n", s->rows);
		if (grow_add(&s->buf, &s->len, &s->cap, line, (size_t)n) != 0)
			s->failed = 1;
	} else if (rc != 0 && s->ndjson) {
		json_t *error = err_to_json(&err), *wrapped = json_pack("{s:o}", "error", error);
		char *text = wrapped ? jtext_line(wrapped) : NULL;

		/* jtext_line ends the line */
		if (!text || grow_add(&s->buf, &s->len, &s->cap, text, strlen(text)) != 0)
			s->failed = 1;
		free(text);
		json_decref(wrapped);
	} else if (rc != 0) {
		s->failed = 1;
	}
	s->ended = 1;
	if (!s->closed)
		wake_locked(s);
	release_locked(s);
}

void http_stream_abandon(struct http_stream *s)
{
	stream_free(s);
}

char *http_stream_ndjson(const char *text, struct err *err)
{
	json_error_t jerr;
	json_t *answer = json_loads(text, 0, &jerr), *rows, *row;
	char *out = NULL, *line;
	size_t len = 0, cap = 0, i;
	int failed = 0;
	char done[64];

	rows = answer ? json_object_get(answer, "rows") : NULL;
	if (!json_is_array(rows)) {
		json_decref(answer);
		err_set(err, ERR_INTERNAL, "", "not a sweep answer");
		return NULL;
	}
	json_incref(rows);
	json_object_del(answer, "rows");
	line = jtext_line(answer);
	failed |= !line || grow_add(&out, &len, &cap, line, strlen(line)) != 0;
	free(line);
	json_array_foreach (rows, i, row) {
		line = failed ? NULL : jtext_line(row);
		failed |= !line || grow_add(&out, &len, &cap, line, strlen(line)) != 0;
		free(line);
	}
	snprintf(done, sizeof done, "{\"done\":true,\"count\":%zu}\n", json_array_size(rows));
	failed |= grow_add(&out, &len, &cap, done, strlen(done)) != 0;
	json_decref(rows);
	json_decref(answer);
	if (failed) {
		free(out);
		err_set(err, ERR_INTERNAL, "", "out of memory");
		return NULL;
	}
	return out;
}
