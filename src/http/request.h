/*
 * request.h: a request as the handlers see it (the responders of respond.h answer it).
 */
#ifndef CONTACTD_HTTP_REQUEST_H
#define CONTACTD_HTTP_REQUEST_H

#include <stddef.h>

#include "store/store.h"

/*
 * A request as the handlers see it. Every pointer is owned by the HTTP layer and
 * valid until the request completes. Header values are NULL when absent, and without
 * the blanks around them (RFC 9110 5.5).
 */
struct http_request {
	const char *method;
	const char *url; /* path only, without the query string */
	const char *accept;
	const char *authorization;
	const char *content_type;
	const char *prefer, *idempotency_key;
	const char *body; /* the full body, NUL-terminated (for convenience; may hold NULs) */
	size_t body_len;
	struct store *store;
	/* Short route name for the log line and metrics, e.g. "drop"; handlers may set it. */
	const char *route;
};

/* At most this many headers of http_add_header() (respond.h) per response. */
#define HTTP_EXTRA_HEADERS 4

#endif
