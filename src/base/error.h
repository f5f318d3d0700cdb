/*
 * error.h: the one error type of contactd: a code, a message and the field at fault.
 *
 * Functions that can fail take a `struct err *` owned by the caller, return -1
 * and fill it (code, message, JSON Pointer of the offending field); on success
 * they return 0 and leave it untouched. A code's status is the contract's, the same from
 * the daemon, the CLI and the library (err_status()); the headers an error carries are
 * the HTTP layer's (http/status.h), the exit codes the CLI's.
 */
#ifndef CONTACTD_BASE_ERROR_H
#define CONTACTD_BASE_ERROR_H

#include <jansson.h>

enum err_code {
	ERR_NONE = 0,
	ERR_BAD_JSON,          /* malformed JSON */
	ERR_BAD_TYPE,          /* a field has the wrong JSON type */
	ERR_BAD_VALUE,         /* out of range, non-finite, unknown enum value */
	ERR_UNKNOWN_FIELD,     /* a field the contract does not know */
	ERR_MISSING_FIELD,     /* a required field is absent */
	ERR_TOO_LARGE,         /* body, sweep or batch over its limit */
	ERR_TOO_DEEP,          /* JSON nested deeper than allowed */
	ERR_NOT_FOUND,         /* unknown endpoint or resource */
	ERR_METHOD,            /* wrong HTTP method */
	ERR_NOT_ACCEPTABLE,    /* an Accept the endpoint cannot produce */
	ERR_UNSUPPORTED_MEDIA, /* body is not JSON */
	ERR_UNAUTHORIZED,      /* no or invalid bearer token */
	ERR_FORBIDDEN,         /* valid token, wrong robot */
	ERR_CONFLICT,          /* the request contradicts what the store holds */
	ERR_TIMEOUT,           /* client too slow */
	ERR_BAD_REQUEST,       /* HTTP framing the daemon will not take (smuggling, codings) */
	ERR_UNAVAILABLE,       /* store unavailable, shutting down, overloaded */
	ERR_INTERNAL,          /* a bug; never caused by input */
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

/* The status (an HTTP status) the contract gives an error of code: 500 for a code this
 * table does not know. The same wherever the question is asked; thread-safe. */
int err_status(enum err_code code);

/* The contract's error body {"error", "message", "path"}. Caller owns the result. */
json_t *err_to_json(const struct err *e);

/*
 * ERR_TEXT_FALLBACK_MAX: a buffer that always holds err_to_text_fallback()'s body.
 * err_to_text_fallback: err_to_json()'s body written by hand, for when jansson refuses it
 * (a message quoting bytes that are not UTF-8): message and path copied as printable ASCII
 * with every other byte, '"' and '\\' as %XX, so the text is valid JSON and cannot fail;
 * newline-terminated, into out (caller-owned, size bytes, ERR_TEXT_FALLBACK_MAX for the
 * whole body). Returns its length.
 */
/* Copy s (NULL: "") into out (size > 4) as printable ASCII: every byte below ' ', from
 * 0x7f, or in also (a NUL-terminated set) written %XX, cut to fit; always NUL-terminated.
 * Text that can go inside a JSON string or a log line without escaping, and stays valid
 * UTF-8. */
void err_escape(char *out, size_t size, const char *s, const char *also);

#define ERR_TEXT_FALLBACK_MAX (3 * ERR_MESSAGE_MAX + 3 * ERR_PATH_MAX + 96)
size_t err_to_text_fallback(const struct err *e, char *out, size_t size);

#endif
