/*
 * offload.h: the calibration routes, run off the HTTP threads in the store pool.
 *
 * A calibration request reads and writes the calibration store: an upload commits durably
 * (an fsync), a bearer token's use is written down now and then, and every write waits for
 * the other writers (a fit's result, another robot's upload) up to the store's busy
 * timeout. On an HTTP thread such a wait holds every connection that thread serves: with
 * robots uploading, questions stalled 0.2 to 2 s behind another commit's fsync
 * (docs/performance.md, "Questions while robots upload"). So these routes run here, on
 * threads of their own, with their connection suspended (no HTTP thread waits for the
 * disk); the handler's one response is kept (respond.h) and queued once the connection
 * resumes.
 *
 * A handler run here may read its request (req, t, the connection's headers and
 * arguments, which MHD leaves alone while the connection is suspended) and must answer
 * through the responders of respond.h; it must not suspend or resume the connection.
 */
#ifndef CONTACTD_HTTP_OFFLOAD_H
#define CONTACTD_HTTP_OFFLOAD_H

#include <microhttpd.h>

#include "http/http_calib.h"
#include "http/server.h"

/*
 * Answer x with fn(conn, &x->req, t) run in srv->store_pool (t copied): the connection is
 * suspended now and resumed when fn returns, and http_offload_finish() then queues its
 * response. 503 with Retry-After when the pool is full.
 */
enum MHD_Result http_offload_run(struct MHD_Connection *conn, struct exchange *x, http_calib_fn fn,
    const struct http_calib_target *t);

/* 1 when x's handler has returned and its connection resumed: on_request() then calls
 * http_offload_finish(). */
int http_offload_done(const struct exchange *x);

/* Resumed after its handler: queue the response it kept (MHD_NO, closing the connection,
 * when it kept none), and free the run. */
enum MHD_Result http_offload_finish(struct MHD_Connection *conn, struct exchange *x);

/* Free x's run and the response it kept, if any (the request ended unanswered). */
void http_offload_free(struct exchange *x);

/* Wait until no calibration route runs or waits in srv's store pool (each ends within the
 * store's busy timeout), so that MHD may stop: it refuses to with suspended connections. */
void http_offload_drain(struct http_server *srv);

#endif
