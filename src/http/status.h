/*
 * status.h: the one mapping of contactd's error codes (base/error.h) to HTTP: each code's
 * status, and the header an error carries beyond it on the calibration routes.
 *
 * A leaf: it includes only base/error.h, so the calibration routes, the responders and
 * the `contact` CLI (for eval's per-call "status", the contract's HTTP status of a failed
 * call) read the same table without including the router.
 */
#ifndef CONTACTD_HTTP_STATUS_H
#define CONTACTD_HTTP_STATUS_H

#include "base/error.h"

/* The HTTP status of an error code (500 for a code the table does not know). Thread-safe;
 * the signature is eval_status_fn's (service/eval.h). */
int http_status_of(enum err_code code);

/*
 * The header an error of code carries on the calibration routes beyond its status, or
 * NULL for none; then *value is its value. credentials: the request carried an
 * Authorization header. Both strings are static. A 401 names the scheme it wants and,
 * when a token was given, that it was bad (RFC 6750: WWW-Authenticate); a 503 (the
 * calibration store unreachable: nothing was done) says when to try again (Retry-After).
 */
const char *http_status_header(enum err_code code, int credentials, const char **value);

#endif
