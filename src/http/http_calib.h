/*
 * http_calib.h: the seam through which the calibration service (robots, tokens,
 * calibrations, measurements, event streams) plugs into contactd.
 *
 * http_calib.c implements these four functions over the calibration layer's use cases
 * (src/calib/): it keeps the routes, the event streams and waits; the policy, the store
 * and the fit workers are the layer's.
 *
 * Life cycle, all called by contactd:
 *   http_calib_start()   once, after the store is open and before the daemon accepts;
 *   http_calib_route()   for every request whose URL starts with /v1/robots/ or
 *                        /v1/calibrations/, on an HTTP pool thread, after the whole
 *                        body has been read (bounded by --max-body);
 *   http_calib_stop()    once, on shutdown, after the daemon has stopped accepting and
 *                        before it waits for requests in flight: end every event stream
 *                        and resume every suspended connection, so that shutdown
 *                        can finish (MHD forbids stopping with suspended connections);
 *   http_calib_close()   once, after every request has finished: close the store;
 *   http_calib_token_command() instead of the daemon, for `contactd token ...`.
 *
 * The daemon runs MHD with MHD_ALLOW_SUSPEND_RESUME, so a stream may suspend its
 * connection (MHD_suspend_connection) while it has nothing to send, rather than
 * returning 0 from its content reader (which would busy-wait a pool thread).
 */
#ifndef CONTACTD_HTTP_HTTP_CALIB_H
#define CONTACTD_HTTP_HTTP_CALIB_H

#include <jansson.h>
#include <microhttpd.h>

#include "http/http.h"
#include "base/error.h"
#include "store/store.h"

/*
 * Prepare the calibration service. Its store is store_url: NULL for st (the --db database,
 * owned by the caller, outlives the service), "sqlite:PATH" for another SQLite file, or a
 * PostgreSQL connection URI ("postgresql://..."), shared with the other nodes: then fit
 * events reach every node's streams (LISTEN/NOTIFY) and fits of dead nodes are taken over.
 */
int http_calib_start(struct store *st, const char *store_url, struct err *err);

/* 0 when url is a --store contactd can open (sqlite:PATH, postgresql://...), else -1. */
int http_calib_store_url_check(const char *url);

/*
 * For /v1/health, once http_calib_start() succeeded: the calibration store's state as a new
 * object {"engine": "sqlite" | "postgresql", "reachable": true | false} (never its URL,
 * which may hold a password), or NULL when out of memory. Cheap and never blocking on the
 * network: PostgreSQL's is the last known state (pgstore_reachable()); SQLite's is whether
 * the file answers a read of its schema version.
 */
json_t *http_calib_health(void);

/*
 * Handle req if its URL is one of the calibration service's. Returns 1 when it
 * handled the request: it has queued exactly one response on conn with one of the
 * http_respond*() functions of http.h (so the request is logged and counted) and
 * set *result to what the MHD access handler must return. Returns 0, touching
 * nothing, when the URL is not the service's; contactd then answers 404.
 * Everything the handler needs is in req: method, URL, Authorization and Accept
 * headers, the full body, the store; http_log() writes other log lines.
 */
int http_calib_route(
    struct MHD_Connection *conn, struct http_request *req, enum MHD_Result *result);

/* End every stream and resume every suspended connection; see the life cycle above. */
void http_calib_stop(void);

/* After http_calib_stop() and once no request runs any more: close the store that
 * http_calib_start() opened for its store_url. */
void http_calib_close(void);

/*
 * `contactd token create|revoke|list ...`: argv[0] is "token". The store is store_url as
 * for http_calib_start(), or with NULL the database the daemon would use (--db). Returns
 * the process exit status.
 */
int http_calib_token_command(int argc, char **argv, const char *db_path, const char *store_url);

#endif
