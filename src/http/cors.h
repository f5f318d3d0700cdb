/*
 * cors.h: Cross-Origin Resource Sharing for contactd, applied in one place: every
 * response goes through http_respond(), which calls cors_headers(), and every OPTIONS
 * request is answered by cors_options().
 *
 * Rules (docs/operations.md "Calling contactd from a web page", contactd(8)):
 *   - Nothing is shared cross-origin unless the daemon is started with --cors-origin.
 *   - An origin given by name (e.g. https://lab.example:8443) is echoed back in
 *     Access-Control-Allow-Origin, with Access-Control-Allow-Credentials: true, on every
 *     /v1/ route; the calibration routes still demand their own bearer token.
 *   - "*" opens only the open routes (the questions, /v1/health, /v1/openapi.json) to
 *     every origin, never with credentials; the calibration routes stay closed to an
 *     origin that is not named.
 *   - When any origin is named, every /v1/ answer carries Vary: Origin, so a cache in
 *     front (nginx) never serves one origin's headers to another.
 *   - The dashboard pages, /metrics and everything outside /v1/ are never shared.
 */
#ifndef CONTACTD_HTTP_CORS_H
#define CONTACTD_HTTP_CORS_H

#include <stddef.h>
#include <microhttpd.h>

#include "base/error.h"

/* The allowed origins: names as given on the command line, "*" for any. */
struct cors_config {
	const char *const *origins; /* owned by the caller, outlive the server */
	size_t count;
};

/*
 * Is origin something --cors-origin accepts: "*", or scheme://host[:port] with the
 * scheme http or https and nothing after the host and port (an origin has no path)?
 * Returns 0, or -1 with err naming what is wrong.
 */
int cors_origin_check(const char *origin, struct err *err);

/*
 * Add the CORS response headers for a request to url from origin (the Origin header,
 * NULL when absent) to resp. Changes nothing when cfg names no origin.
 */
void cors_headers(
    const struct cors_config *cfg, const char *url, const char *origin, struct MHD_Response *resp);

/*
 * The answer to an OPTIONS request for a url whose route takes the methods allow
 * (e.g. "GET, HEAD"): a preflight (Origin and Access-Control-Request-Method present)
 * from an allowed origin gets 204 with the allowed methods and request headers; one
 * from an origin that is not allowed gets 403 (*refused set, the caller answers the
 * contract's error); a plain OPTIONS gets 204 with Allow. Returns a new response the
 * caller queues with http_respond() (which adds the origin headers and takes it), or
 * NULL when out of memory.
 */
struct MHD_Response *cors_options(const struct cors_config *cfg, const char *url,
    const char *origin, const char *request_method, const char *allow, int *refused);

#endif
