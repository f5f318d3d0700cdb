/*
 * status.c: error codes to HTTP statuses and headers (status.h), one row per code.
 */
#include "http/status.h"

#include "tunables.h"

#define STATUS_TEXT(x) #x
#define STATUS_NUMBER(x) STATUS_TEXT(x) /* the value of a numeric define, as a string */

static const struct {
	int status;
	const char *header;      /* on the calibration routes, or NULL */
	const char *value;       /* its value */
	const char *value_given; /* its value when credentials came with the request */
} status_table[] = {
    [ERR_NONE] = {200, NULL, NULL, NULL},
    [ERR_BAD_JSON] = {400, NULL, NULL, NULL},
    [ERR_BAD_TYPE] = {400, NULL, NULL, NULL},
    [ERR_BAD_VALUE] = {422, NULL, NULL, NULL},
    [ERR_UNKNOWN_FIELD] = {400, NULL, NULL, NULL},
    [ERR_MISSING_FIELD] = {400, NULL, NULL, NULL},
    [ERR_TOO_LARGE] = {413, NULL, NULL, NULL},
    [ERR_TOO_DEEP] = {400, NULL, NULL, NULL},
    [ERR_NOT_FOUND] = {404, NULL, NULL, NULL},
    [ERR_METHOD] = {405, NULL, NULL, NULL},
    [ERR_NOT_ACCEPTABLE] = {406, NULL, NULL, NULL},
    [ERR_UNSUPPORTED_MEDIA] = {415, NULL, NULL, NULL},
    [ERR_UNAUTHORIZED] = {401, "WWW-Authenticate", "Bearer realm=\"contactd\"",
        "Bearer realm=\"contactd\", error=\"invalid_token\""},
    [ERR_FORBIDDEN] = {403, NULL, NULL, NULL},
    [ERR_CONFLICT] = {409, NULL, NULL, NULL},
    [ERR_TIMEOUT] = {408, NULL, NULL, NULL},
    [ERR_BAD_REQUEST] = {400, NULL, NULL, NULL},
    [ERR_UNAVAILABLE] = {503, "Retry-After", STATUS_NUMBER(CALIB_RETRY_AFTER_S),
        STATUS_NUMBER(CALIB_RETRY_AFTER_S)},
    [ERR_INTERNAL] = {500, NULL, NULL, NULL},
};

/* The row of code: ERR_INTERNAL's for a code the table does not know. */
static unsigned status_row(enum err_code code)
{
	return (unsigned)code < sizeof status_table / sizeof status_table[0] ? (unsigned)code
	                                                                     : ERR_INTERNAL;
}

int http_status_of(enum err_code code)
{
	return status_table[status_row(code)].status;
}

const char *http_status_header(enum err_code code, int credentials, const char **value)
{
	unsigned row = status_row(code);

	*value = credentials ? status_table[row].value_given : status_table[row].value;
	return status_table[row].header;
}
