/*
 * http_calib.h: the seam through which the calibration service (robots, tokens,
 * calibrations, measurements, event streams) plugs into contactd.
 *
 * http_calib.c implements these functions over the calibration layer's use cases
 * (src/calib/): it keeps the handlers, the event streams and waits; the policy, the store
 * and the fit workers are the layer's; the routes are rows of the daemon's route table
 * (routes.c), and the store's engine is the daemon's main's choice (engine.h).
 *
 * Life cycle, all called by contactd:
 *   http_calib_start()   once, after the store is open and before the daemon accepts;
 *   http_calib_*()       the handlers, for every request the route table gives them, on
 *                        an HTTP pool thread, after the whole body has been read (bounded
 *                        by --max-body);
 *   http_calib_stop()    once, on shutdown, after the daemon has stopped accepting and
 *                        before it waits for requests in flight: end every event stream
 *                        and resume every suspended connection, so that shutdown
 *                        can finish (MHD forbids stopping with suspended connections);
 *   http_calib_close()   once, after every request has finished, before the store closes.
 *
 * The daemon runs MHD with MHD_ALLOW_SUSPEND_RESUME, so a stream may suspend its
 * connection (MHD_suspend_connection) while it has nothing to send, rather than
 * returning 0 from its content reader (which would busy-wait a pool thread).
 */
#ifndef CONTACTD_HTTP_HTTP_CALIB_H
#define CONTACTD_HTTP_HTTP_CALIB_H

#include <jansson.h>
#include <microhttpd.h>

#include "base/calstore.h"
#include "base/error.h"
#include "http/respond.h"

/* The calibration store as the daemon's main opened it, and what /v1/health says of it. */
struct http_calib_store {
	struct calstore *cs; /* the store, the caller's: it outlives the service */
	const char *engine;  /* its engine's name, a static string ("sqlite", "postgresql") */
	/* Does it answer? Cheap and never blocking on the network (called for /v1/health). */
	int (*reachable)(void *ctx);
	void *ctx;
	/* 1: a server not reached yet; calibration requests fail with ERR_UNAVAILABLE until it
	 * is, and the watch-URL key is loaded at the first watch URL */
	int deferred;
};

/* Prepare the calibration service over store (copied). -1 with err when its watch-URL key,
 * its event sharing or its threads cannot be set up. */
int http_calib_start(const struct http_calib_store *store, struct err *err);

/*
 * For /v1/health, once http_calib_start() succeeded: the calibration store's state as a new
 * object {"engine": "sqlite" | "postgresql", "reachable": true | false} (never its URL,
 * which may hold a password), or NULL when out of memory.
 */
json_t *http_calib_health(void);

/* Where a calibration route's URL points: its robot, or its calibration (id) and a
 * measurement or an upload of it (sub). */
struct http_calib_target {
	char robot[CALSTORE_NAME_MAX];
	long long id, sub;
};

/* Is robot a robot name a URL may carry? Else the URL is no calibration route's (404). */
int http_calib_robot_ok(const char *robot);

/*
 * The handlers, one per route and method (the route table's rows). Each answers req with
 * exactly one response through the responders of respond.h (so the request is logged and
 * counted) and returns what the MHD access handler must return. Everything a handler needs
 * is in req (method, URL, Authorization and Accept headers, the full body) and t.
 */
typedef enum MHD_Result (*http_calib_fn)(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);

/* POST /v1/robots/{robot}/calibrations: start a calibration (201). */
enum MHD_Result http_calib_create(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* GET /v1/robots/{robot}/calibrations: the robot's history. */
enum MHD_Result http_calib_list(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* GET /v1/calibrations/{id}: setup, measurements, fit (?wait: once the fit is settled). */
enum MHD_Result http_calib_show(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* POST /v1/calibrations/{id}/measurements: an upload. */
enum MHD_Result http_calib_upload(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* GET /v1/calibrations/{id}/measurements: what landed, with ids. */
enum MHD_Result http_calib_measurements(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* DELETE /v1/calibrations/{id}/measurements/{sub}: remove one, refit. */
enum MHD_Result http_calib_delete_measurement(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* DELETE /v1/calibrations/{id}/uploads/{sub}: remove an upload, refit. */
enum MHD_Result http_calib_delete_upload(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* GET /v1/calibrations/{id}/events: Server-Sent Events, every fit. */
enum MHD_Result http_calib_events(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* POST /v1/calibrations/{id}/evaluate: the measurements at a given solref (calib/audit.h). */
enum MHD_Result http_calib_evaluate(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* POST /v1/calibrations/{id}/watch: a signed, short-lived events URL. */
enum MHD_Result http_calib_watch(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);

/* End every stream and resume every suspended connection; see the life cycle above. */
void http_calib_stop(void);

/* After http_calib_stop() and once no request runs any more: stop sharing events through
 * the store, which the caller then closes. */
void http_calib_close(void);

#endif
