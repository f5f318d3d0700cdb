/*
 * status.h: the headers an error carries beyond its status on the calibration routes
 * (the status itself is the contract's, base/error.h's err_status(), which the CLI and
 * the library read too).
 */
#ifndef CONTACTD_HTTP_STATUS_H
#define CONTACTD_HTTP_STATUS_H

#include "base/error.h"

/*
 * The header an error of code carries on the calibration routes beyond its status, or
 * NULL for none; then *value is its value. credentials: the request carried an
 * Authorization header. Both strings are static. A 401 names the scheme it wants and,
 * when a token was given, that it was bad (RFC 6750: WWW-Authenticate); a 503 (the
 * calibration store unreachable: nothing was done) says when to try again (Retry-After).
 */
const char *http_status_header(enum err_code code, int credentials, const char **value);

#endif
