/*
 * calib_stream.h: the calibration service's streams (event streams and waits), its life
 * cycle, and the routes of event streams, for contactd; the other calibration routes are
 * http_calib.h's, which builds on this module (never the other way round).
 *
 * Life cycle, all called by contactd:
 *   calstream_start()    once, after the store is open and before the daemon accepts;
 *   the handlers         (these and http_calib.h's) for every request the route table gives
 *                        them, on an HTTP pool thread, after the whole body has been read
 *                        (bounded by --max-body);
 *   calstream_stop()     once, on shutdown, after the daemon has stopped accepting and
 *                        before it waits for requests in flight: end every event stream
 *                        and resume every suspended connection, so that shutdown
 *                        can finish (MHD forbids stopping with suspended connections);
 *   calstream_close()    once, after every request has finished, before the store closes.
 *
 * The daemon runs MHD with MHD_ALLOW_SUSPEND_RESUME, so a stream may suspend its
 * connection (MHD_suspend_connection) while it has nothing to send, rather than
 * returning 0 from its content reader (which would busy-wait a pool thread).
 */
#ifndef CONTACTD_HTTP_CALIB_STREAM_H
#define CONTACTD_HTTP_CALIB_STREAM_H

#include <jansson.h>
#include <microhttpd.h>

#include "base/calstore.h"
#include "base/error.h"
#include "http/respond.h"

struct caltoken_principal;

/* The calibration store as the daemon's main opened it, and what /v1/health says of it. */
struct calstream_store {
	struct calstore *cs; /* the store, the caller's: it outlives the service */
	const char *engine;  /* its engine's name, a static string ("sqlite", "postgresql") */
	/* Does it answer? Cheap and never blocking on the network (called for /v1/health). */
	int (*reachable)(void *ctx);
	void *ctx;
	/* 1: a server not reached yet; calibration requests fail with ERR_UNAVAILABLE until it
	 * is, and the watch-URL key is loaded at the first watch URL */
	int deferred;
};

/* Prepare the calibration service over store (copied): (unless deferred) the watch-URL key,
 * its event sharing, the stream ticker and fit_workers fit workers (calwork_start()). -1
 * with err when one of them cannot be set up. */
int calstream_start(const struct calstream_store *store, int fit_workers, struct err *err);

/*
 * For /v1/health, once calstream_start() succeeded: the calibration store's state as a new
 * object {"engine": "sqlite" | "postgresql", "reachable": true | false} (never its URL,
 * which may hold a password), or NULL when out of memory.
 */
json_t *calstream_health(void);

/* The store calstream_start() was given (the caller's, not to be closed), for the routes. */
struct calstore *calstream_calstore(void);

/*
 * Answer req with the calibration error e (4xx/5xx, the status table's, with its
 * Retry-After or WWW-Authenticate): refusals and an unreachable store are logged, and an
 * unreachable store's own text (its host and port) is shown to the log only. Returns what
 * the MHD access handler must return.
 */
enum MHD_Result calstream_respond_error(
    struct MHD_Connection *conn, struct http_request *req, const struct err *e);

/* calstream_respond_error() of an error of code with message (a plain string, no path). */
enum MHD_Result calstream_respond_code(
    struct MHD_Connection *conn, struct http_request *req, enum err_code code, const char *message);

/* The principal of req's "Authorization: Bearer <id>.<secret>" into *p (0), or -1 with err:
 * ERR_UNAUTHORIZED when none, unknown, wrong, revoked or expired, or the store's error. */
int calstream_authenticate(struct http_request *req, struct caltoken_principal *p, struct err *err);

/*
 * Answer req (200, application/json) once the newest fit of calibration id, fit_id or
 * later, is settled, or after wait seconds (> 0, at most CALIB_MAX_WAIT_S), or when contactd
 * stops, whichever comes first; the connection is suspended meanwhile. The answer is ack
 * (owned from now on) with its "fit" the newest fit, or, with ack NULL, the calibration as
 * p (copied) sees it, for which fit_id is ignored: the wait is for the fit pending now.
 * preferred: the wait came from a Prefer header (answered with Preference-Applied).
 */
enum MHD_Result calstream_wait(struct MHD_Connection *conn, struct http_request *req,
    const struct caltoken_principal *p, long long id, long long fit_id, json_t *ack, double wait,
    int preferred);

/* GET /v1/calibrations/{id}/events: Server-Sent Events, every fit of calibration id, by a
 * bearer token or a watch URL's signature; a route table's handler (see http_calib.h). */
enum MHD_Result calstream_events(
    struct MHD_Connection *conn, struct http_request *req, long long id);
/* POST /v1/calibrations/{id}/watch: a signed, short-lived events URL of calibration id
 * (?expires_in=SECONDS); a route table's handler (see http_calib.h). */
enum MHD_Result calstream_watch(
    struct MHD_Connection *conn, struct http_request *req, long long id);

/* End every stream and resume every suspended connection; see the life cycle above. */
void calstream_stop(void);

/* After calstream_stop() and once no request runs any more: stop sharing events through
 * the store, which the caller then closes. */
void calstream_close(void);

#endif
