/*
 * stream.h: POST /v1/sweep answered row by row as the rows are computed, in chunks:
 * application/x-ndjson (a head line, one line per row, a last line) or text/csv (the
 * same bytes as the whole CSV answer).
 *
 * A compute-pool job opens the stream (parses the sweep and looks in the answer
 * cache), hands it to its connection, then runs it: rows go into the stream's buffer
 * as they are ready and libmicrohttpd pulls them out (the connection is suspended
 * while the buffer is empty, and resumed when rows arrive). When the last row is out
 * the whole JSON answer goes into the cache, so a streamed sweep fills the cache as a
 * whole one does; a cached answer is sent whole, in the asked format.
 */
#ifndef CONTACTD_HTTP_STREAM_H
#define CONTACTD_HTTP_STREAM_H

#include <microhttpd.h>

#include "base/cache.h"
#include "base/error.h"
#include "service/service.h"

/* The media types of the streamed formats. */
#define HTTP_STREAM_NDJSON "application/x-ndjson"

struct http_stream;

/*
 * In the pool: validate the sweep body (errors as svc_ask's: -1 with err) and look
 * up its answer in cache (NULL: none). A hit fills *cached (the whole JSON answer
 * text, caller frees) and leaves *stream NULL; a miss makes *stream, which the caller
 * either gives to its connection (http_stream_response()) and then runs
 * (http_stream_run()), or drops (http_stream_abandon()). outcome (cached, cache
 * errors) as svc_ask() fills it.
 */
int http_stream_open(const char *body, size_t len, const struct svc_limits *lim,
    const struct cache *cache, int ndjson, struct http_stream **stream, char **cached,
    struct svc_outcome *outcome, struct err *err);

/* The response that sends s to conn (chunked, size unknown), holding the reader's
 * reference; NULL when out of memory, the reader's reference then closed
 * (http_stream_close()). */
struct MHD_Response *http_stream_response(struct http_stream *s, struct MHD_Connection *conn);

/* The reader's side is gone (the connection ended before any response took it):
 * the producer stops at its next row. Lets go of the reader's reference. */
void http_stream_close(struct http_stream *s);

/*
 * Compute the sweep into s with `threads` threads, then end the stream: NDJSON with
 * {"done":true,"count":N}, or after a failure {"error":{...}} (the API's error object);
 * CSV by ending the response (with an error: the connection is cut). Stops early when
 * the client is gone. The whole answer goes into cache on success; outcome gets the
 * cache's write error. Frees s once the response is done with it too.
 */
void http_stream_run(
    struct http_stream *s, int threads, const struct cache *cache, struct svc_outcome *outcome);

/* Drop a stream that was never given to a connection, without running it. */
void http_stream_abandon(struct http_stream *s);

/* A whole JSON sweep answer (a cached one) as NDJSON lines: head, rows, done. Caller
 * frees; NULL with err when text is not a sweep answer or out of memory. */
char *http_stream_ndjson(const char *text, struct err *err);

/*
 * Shutdown past its drain timeout: every reader waiting for rows is woken and every stream
 * not yet ended is cut (the response ends with an error once its buffered bytes are out),
 * so that libmicrohttpd can stop, which it refuses to with a suspended connection; the
 * producers stop once their connection is closed. For the rest of the process. Any thread.
 */
void http_stream_shutdown(void);

/* Whether s's reader (the client's response) is gone; 0 for NULL. Any thread. */
int http_stream_closed(struct http_stream *s);

#endif
