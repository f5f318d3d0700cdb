/*
 * respond.h: a request as the handlers see it, the responders that answer it, and
 * content negotiation.
 *
 * Every handler (the routes, the calibration routes, the pages) answers through these,
 * so that each request gets its one log line, its metrics and its cross-origin headers.
 * This header names no module above it: handlers include it, never http.h.
 */
#ifndef CONTACTD_HTTP_RESPOND_H
#define CONTACTD_HTTP_RESPOND_H

#include <stddef.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdarg.h>

#include "base/jtext.h"
#include "base/error.h"
#include "http/request.h"

/* The media types the daemon answers in. */
#define HTTP_JSON_MEDIA "application/json"
#define HTTP_CSV_MEDIA "text/csv; charset=utf-8"

/*
 * Responders. Each queues the one response of req on conn, records its status and
 * size for the request's log line and the metrics, and returns what the MHD access
 * handler must return. Use exactly one per request.
 */

/* Queue resp with status, releasing the caller's reference to resp. In the store pool
 * (offload.h) the response is kept instead, and queued when the connection resumes. */
enum MHD_Result http_respond(struct MHD_Connection *conn, struct http_request *req, unsigned status,
    struct MHD_Response *resp);

/* Queue resp with status and the daemon's headers (Content-Type content_type, X-Cache,
 * Allow, those of http_add_header(), Connection: close while stopping), releasing the
 * caller's reference to resp. */
enum MHD_Result http_respond_headed(struct MHD_Connection *conn, struct http_request *req,
    unsigned status, const char *content_type, struct MHD_Response *resp);

/* Queue len bytes of data (mode as in MHD: MUST_FREE hands data over, freed even on
 * failure) as a response of content_type with the daemon's headers. */
enum MHD_Result http_respond_buffer(struct MHD_Connection *conn, struct http_request *req,
    unsigned status, const char *content_type, const char *data, size_t len,
    enum MHD_ResponseMemoryMode mode);

/* Add header name: value (both copied, truncated to 31 and 159 bytes) to the one response
 * of req that http_respond_json() or http_respond_error() will queue; call before it. */
void http_add_header(struct http_request *req, const char *name, const char *value);

/* Queue value as canonical JSON text (jtext_line()). value stays the caller's. */
enum MHD_Result http_respond_json(
    struct MHD_Connection *conn, struct http_request *req, unsigned status, const json_t *value);

/* Queue the contract's JSON error body with the status err_status(e->code). */
enum MHD_Result http_respond_error(
    struct MHD_Connection *conn, struct http_request *req, const struct err *e);

/* http_respond_error() of an error code and a message as printf (path ""). */
enum MHD_Result http_reject(struct MHD_Connection *conn, struct http_request *req,
    enum err_code code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* http_reject() with its arguments as a va_list. */
enum MHD_Result http_vreject(struct MHD_Connection *conn, struct http_request *req,
    enum err_code code, const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

/* The Allow header of req's 405 (a static string, e.g. "GET, POST"); call before responding. */
void http_set_allow(struct http_request *req, const char *methods);

/*
 * RFC 9110 content negotiation: the index of the offer (count media types) the Accept
 * header prefers (highest q, then the most specific range that named it, then the
 * earlier offer), or -1 when it accepts none. No header (NULL or "") accepts the first.
 */
int http_negotiate(const char *accept, const char *const offers[], int count);

/* Is a request's Content-Type JSON, application/json or a +json type? None given (NULL)
 * is not: a browser sends a body without one cross-site with no CORS preflight, so a
 * route that took it would let any web page run questions. Every route that takes a
 * body answers 415 otherwise. */
int http_body_is_json(const char *content_type);

/* Is a request's Content-Type XML: application/xml, text/xml or a +xml type (none of
 * them a CORS-safelisted type, so a cross-site page cannot send one without a
 * preflight)? POST /v1/model takes such a body as its one MJCF file. */
int http_body_is_xml(const char *content_type);

/* A request's Content-Type for an error message: the header as sent, or "none (send
 * Content-Type: application/json)" when none was (NULL). Static or the caller's. */
const char *http_content_type_shown(const char *content_type);

#endif
