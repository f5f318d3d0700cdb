/*
 * error.h: the one error type of contactd and the one place that maps it to HTTP.
 *
 * Functions that can fail take a `struct err *` owned by the caller, return -1
 * and fill it (code, message, JSON Pointer of the offending field); on success
 * they return 0 and leave it untouched.
 */
#ifndef CONTACTD_BASE_ERROR_H
#define CONTACTD_BASE_ERROR_H

#include <jansson.h>

enum err_code {
	ERR_NONE = 0,
	ERR_BAD_JSON,          /* 400 malformed JSON */
	ERR_BAD_TYPE,          /* 400 a field has the wrong JSON type */
	ERR_BAD_VALUE,         /* 422 out of range, non-finite, unknown enum value */
	ERR_UNKNOWN_FIELD,     /* 400 a field the contract does not know */
	ERR_MISSING_FIELD,     /* 400 a required field is absent */
	ERR_TOO_LARGE,         /* 413 body, sweep or batch over its limit */
	ERR_TOO_DEEP,          /* 400 JSON nested deeper than allowed */
	ERR_NOT_FOUND,         /* 404 unknown endpoint or resource */
	ERR_METHOD,            /* 405 wrong HTTP method */
	ERR_NOT_ACCEPTABLE,    /* 406 an Accept the endpoint cannot produce */
	ERR_UNSUPPORTED_MEDIA, /* 415 body is not JSON */
	ERR_UNAUTHORIZED,      /* 401 no or invalid bearer token */
	ERR_FORBIDDEN,         /* 403 valid token, wrong robot */
	ERR_CONFLICT,          /* 409 */
	ERR_TIMEOUT,           /* 408 client too slow */
	ERR_BAD_REQUEST,       /* 400 HTTP framing the daemon will not take (smuggling, codings) */
	ERR_UNAVAILABLE,       /* 503 store unavailable, shutting down, overloaded */
	ERR_INTERNAL,          /* 500 a bug; never caused by input */
};

#define ERR_MESSAGE_MAX 256
#define ERR_PATH_MAX 256

struct err {
	enum err_code code;
	char message[ERR_MESSAGE_MAX];
	char path[ERR_PATH_MAX]; /* JSON Pointer (RFC 6901) of the offending field, "" for the body
	                          */
};

/* Fill e and return -1, so callers can `return err_set(...)`. path may be NULL. */
int err_set(struct err *e, enum err_code code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reset e to "no error". */
void err_clear(struct err *e);

/* Stable machine name of a code, e.g. "bad_value". */
const char *err_name(enum err_code code);

/* The HTTP status of a code: the only error-to-HTTP mapping in contactd. */
int err_http_status(enum err_code code);

/* The contract's error body {"error", "message", "path"}. Caller owns the result. */
json_t *err_to_json(const struct err *e);

#endif
