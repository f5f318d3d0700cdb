/*
 * framing.h: a request's framing and body, checked before it is routed: the header
 * lines a proxy in front could read differently (how requests are smuggled), codings
 * the daemon cannot undo, trailers, the header values as the daemon reads them, the
 * body's size limit (--max-body) and the memory all bodies hold (--body-memory-mb).
 */
#ifndef CONTACTD_HTTP_FRAMING_H
#define CONTACTD_HTTP_FRAMING_H

#include <stddef.h>
#include <microhttpd.h>

#include "http/server.h"

/*
 * The first call of a request, its headers in: MHD_YES to read on, or the result of the
 * one response it queued (a 400 closing the connection for framing it refuses, a 413 for
 * a declared oversized body it will not read, a 503 for a declared body there is no room
 * for). See framing.c for the rules.
 */
enum MHD_Result http_framing_check(struct MHD_Connection *conn, struct exchange *x);

/*
 * The value of request header name with the optional whitespace around it removed (RFC
 * 9110 5.5), NULL when absent: every header value the daemon reads is read through this.
 * The text is libmicrohttpd's when there is nothing to remove, else a copy that x owns;
 * either lives until http_framing_free(x).
 */
const char *http_framing_header(struct MHD_Connection *conn, struct exchange *x, const char *name);

/*
 * Append n bytes of body to x, or give the body up: once it is over its limit (the rest
 * is read and dropped, and the 413 goes out when the upload ends), or when the daemon
 * holds --body-memory-mb of bodies already (dropped likewise; a 503). 0, or -1 when the
 * body went DAEMON_DISCARD_BODY_MAX past its limit (a chunked one, which declared no
 * length): the request ends now, with http_framing_cut().
 */
int http_framing_append(struct exchange *x, const char *data, size_t n);

/* The answer to a body given up (x->body_too_large): 413 when it was over its limit, 503
 * with Retry-After when there was no room for it (x->body_no_room). */
enum MHD_Result http_framing_too_large(struct MHD_Connection *conn, struct exchange *x);

/*
 * End a request whose body http_framing_append() gave up for good, in the middle of the
 * upload, where libmicrohttpd (0.9.75) queues no response: the 413 is written on the
 * socket (the client reads it if it stops sending), the connection closed and logged.
 * Returns MHD_NO, what the request handler returns.
 */
enum MHD_Result http_framing_cut(struct MHD_Connection *conn, struct exchange *x);

/*
 * The last call of a request, its body in: 0 to serve it, or -1 with *r the result of the
 * 400 (and close) queued for a field in its trailer section (framing.c says why).
 */
int http_framing_trailers(struct MHD_Connection *conn, struct exchange *x, enum MHD_Result *r);

/* Free x's body and header copies and give the body's memory back to the daemon's count
 * (x itself stays the caller's). */
void http_framing_free(struct exchange *x);

#endif
