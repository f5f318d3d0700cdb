/*
 * framing.h: a request's framing and body, checked before it is routed: the header
 * lines a proxy in front could read differently (how requests are smuggled), codings
 * the daemon cannot undo, and the body's size limit (--max-body).
 */
#ifndef CONTACTD_HTTP_FRAMING_H
#define CONTACTD_HTTP_FRAMING_H

#include <stddef.h>
#include <microhttpd.h>

#include "http/server.h"

/*
 * The first call of a request, its headers in: MHD_YES to read on, or the result of the
 * one response it queued (a 400 closing the connection for framing it refuses, a 413 for
 * a declared oversized body it will not read). See framing.c for the rules.
 */
enum MHD_Result http_framing_check(struct MHD_Connection *conn, struct exchange *x);

/*
 * Append n bytes of body to x, or give the body up once it is over the limit: the rest
 * is read and dropped, and the 413 goes out when the upload ends (http_framing_too_large()).
 */
void http_framing_append(struct exchange *x, const char *data, size_t n);

/* The 413 of a body over the limit (x->body_too_large). */
enum MHD_Result http_framing_too_large(struct MHD_Connection *conn, struct exchange *x);

#endif
