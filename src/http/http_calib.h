/*
 * http_calib.h: the seam through which the calibration service (robots, tokens,
 * calibrations, measurements) plugs into contactd.
 *
 * http_calib.c implements these functions over the calibration layer's use cases
 * (src/calib/): it keeps the handlers; the streams are calib_stream.c's; the policy, the store
 * and the fit workers are the layer's; the routes are rows of the daemon's route table
 * (routes.c), and the store's engine is the daemon's main's choice (engine.h).
 *
 * The handlers run for every request the route table gives them, on an HTTP pool thread,
 * after the whole body has been read (bounded by --max-body), between calstream_start()
 * and calstream_stop() (calib_stream.h: the service's life cycle, its streams, the routes
 * of event streams and the helpers these handlers share with them).
 */
#ifndef CONTACTD_HTTP_HTTP_CALIB_H
#define CONTACTD_HTTP_HTTP_CALIB_H

#include <microhttpd.h>

#include "base/calstore.h"
#include "base/error.h"
#include "http/respond.h"

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
/* GET /v1/calibrations/{id}/fits: every done fit, oldest first. */
enum MHD_Result http_calib_fits(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* DELETE /v1/calibrations/{id}/measurements/{sub}: remove one, refit. */
enum MHD_Result http_calib_delete_measurement(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* DELETE /v1/calibrations/{id}/uploads/{sub}: remove an upload, refit. */
enum MHD_Result http_calib_delete_upload(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);
/* POST /v1/calibrations/{id}/evaluate: the measurements at a given solref (calib/audit.h). */
enum MHD_Result http_calib_evaluate(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t);

#endif
