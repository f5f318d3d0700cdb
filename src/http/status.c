/*
 * status.c: the headers some errors carry on the calibration routes (status.h).
 */
#include "http/status.h"

#include "http/knobs.h"

#define STATUS_TEXT(x) #x
#define STATUS_NUMBER(x) STATUS_TEXT(x) /* the value of a numeric define, as a string */

/* The codes whose errors carry a header on the calibration routes. */
static const struct {
	const char *header;
	const char *value;       /* its value */
	const char *value_given; /* its value when credentials came with the request */
} status_table[] = {
    [ERR_UNAUTHORIZED] = {"WWW-Authenticate", "Bearer realm=\"contactd\"",
        "Bearer realm=\"contactd\", error=\"invalid_token\""},
    [ERR_UNAVAILABLE] = {"Retry-After", STATUS_NUMBER(CALIB_RETRY_AFTER_S),
        STATUS_NUMBER(CALIB_RETRY_AFTER_S)},
};

const char *http_status_header(enum err_code code, int credentials, const char **value)
{
	unsigned n = sizeof status_table / sizeof status_table[0];

	if ((unsigned)code >= n || !status_table[code].header) {
		*value = NULL;
		return NULL;
	}
	*value = credentials ? status_table[code].value_given : status_table[code].value;
	return status_table[code].header;
}
