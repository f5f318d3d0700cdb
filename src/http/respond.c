/*
 * respond.c: the responders (respond.h): every answer's headers, its status and size for
 * the log line and the metrics, error bodies, and content negotiation.
 */
#include "http/respond.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/jtext.h"
#include "http/cors.h"
#include "http/server.h"
#include "http/status.h"
#include "service/service.h"

static struct exchange *exchange_of(struct http_request *req)
{
	return (struct exchange *)req;
}

enum MHD_Result http_respond(struct MHD_Connection *conn, struct http_request *req, unsigned status,
    struct MHD_Response *resp)
{
	struct exchange *x = exchange_of(req);

	enum MHD_Result ret;

	x->status = status;
	x->bytes = -1;
	/* the one place every answer gets its cross-origin headers */
	cors_headers(&x->srv->cfg.cors, x->req.url, x->origin, resp);
	if (x->deferring) {
		/* off the HTTP thread: MHD takes a response only from its own (offload.h) */
		x->deferred_resp = resp;
		x->deferred_status = status;
		return MHD_YES;
	}
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result http_respond_headed(struct MHD_Connection *conn, struct http_request *req,
    unsigned status, const char *content_type, struct MHD_Response *resp)
{
	struct exchange *x = exchange_of(req);

	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	if (x->cache != METRICS_CACHE_NONE)
		MHD_add_response_header(resp, "X-Cache", metrics_cache_name(x->cache));
	if (x->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, x->allow);
	for (int i = 0; i < x->nextra; i++)
		MHD_add_response_header(resp, x->extra[i].name, x->extra[i].value);
	/* While shutting down, do not invite the client to send another request here. */
	if (atomic_load(&x->srv->stopping))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	return http_respond(conn, &x->req, status, resp);
}

enum MHD_Result http_respond_buffer(struct MHD_Connection *conn, struct http_request *req,
    unsigned status, const char *content_type, const char *data, size_t len,
    enum MHD_ResponseMemoryMode mode)
{
	struct exchange *x = exchange_of(req);
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)data, mode);
	enum MHD_Result ret;

	if (!resp) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free((void *)data);
		return MHD_NO;
	}
	ret = http_respond_headed(conn, req, status, content_type, resp);
	x->bytes = (long long)len;
	return ret;
}

/* The answer when even an error body cannot be built (out of memory). */
static const char out_of_memory[] =
    "{\"error\":\"internal\",\"message\":\"out of memory\",\"path\":\"\"}\n";

void http_add_header(struct http_request *req, const char *name, const char *value)
{
	struct exchange *x = exchange_of(req);

	if (x->nextra >= HTTP_EXTRA_HEADERS)
		return;
	snprintf(x->extra[x->nextra].name, sizeof x->extra[0].name, "%s", name);
	snprintf(x->extra[x->nextra].value, sizeof x->extra[0].value, "%s", value);
	x->nextra++;
}

enum MHD_Result http_respond_json(
    struct MHD_Connection *conn, struct http_request *req, unsigned status, const json_t *value)
{
	char *text = jtext_line(value);

	if (!text)
		return http_respond_buffer(conn, req, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    HTTP_JSON_MEDIA, out_of_memory, sizeof out_of_memory - 1,
		    MHD_RESPMEM_PERSISTENT);
	return http_respond_buffer(
	    conn, req, status, HTTP_JSON_MEDIA, text, strlen(text), MHD_RESPMEM_MUST_FREE);
}

enum MHD_Result http_respond_error(
    struct MHD_Connection *conn, struct http_request *req, const struct err *e)
{
	unsigned status = (unsigned)err_status(e->code);
	json_t *body = err_to_json(e);
	enum MHD_Result ret;

	exchange_of(req)->code = e->code;
	if (!body) {
		/* jansson refuses text that is not UTF-8 (a message quoting the request's bytes):
		 * build the same body by hand from escaped copies, which cannot fail. */
		char text[ERR_TEXT_FALLBACK_MAX];
		size_t n = err_to_text_fallback(e, text, sizeof text);

		return http_respond_buffer(
		    conn, req, status, HTTP_JSON_MEDIA, text, n, MHD_RESPMEM_MUST_COPY);
	}
	ret = http_respond_json(conn, req, status, body);
	json_decref(body);
	return ret;
}

void http_set_allow(struct http_request *req, const char *methods)
{
	exchange_of(req)->allow = methods;
}

enum MHD_Result http_vreject(struct MHD_Connection *conn, struct http_request *req,
    enum err_code code, const char *fmt, va_list ap)
{
	char message[ERR_MESSAGE_MAX];
	struct err e;

	vsnprintf(message, sizeof message, fmt, ap);
	err_set(&e, code, "", "%s", message);
	return http_respond_error(conn, req, &e);
}

enum MHD_Result http_reject(
    struct MHD_Connection *conn, struct http_request *req, enum err_code code, const char *fmt, ...)
{
	enum MHD_Result rc;
	va_list ap;

	va_start(ap, fmt);
	rc = http_vreject(conn, req, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- content negotiation ---- */

/* Length of s's leading media type (up to ';', ',' or the end), trailing blanks trimmed. */
static size_t media_type_len(const char *s)
{
	size_t n = strcspn(s, ";,");

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

/*
 * How well the media range [range, range + n) matches type: 3 exact, 2 "type/x",
 * 1 "x/x", 0 not at all.
 */
static int range_match(const char *range, size_t n, const char *type)
{
	const char *slash = strchr(type, '/');
	size_t major = (size_t)(slash - type);

	if (n == strlen(type) && strncasecmp(range, type, n) == 0)
		return 3;
	if (n == major + 2 && strncasecmp(range, type, major + 1) == 0 && range[major + 1] == '*')
		return 2;
	if (n == 3 && strncmp(range, "*/*", 3) == 0)
		return 1;
	return 0;
}

/* The q parameter of the media range whose parameters start at params (before ','). */
static double range_q(const char *params)
{
	const char *end = params + strcspn(params, ",");
	const char *q;

	for (q = params; q && q < end; q = strchr(q + 1, ';')) {
		q += strspn(q, "; \t");
		if (q < end && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=')
			return strtod(q + 2, NULL);
	}
	return 1.0;
}

int http_negotiate(const char *accept, const char *const offers[], int count)
{
	int best = -1, best_spec = 0, i;
	double best_q = 0;

	if (!accept || !*accept)
		return 0;
	for (i = 0; i < count; i++) {
		const char *range = accept;
		int spec = 0;
		double q = 0;

		/* The most specific range that matches this offer decides its q. */
		while (*range) {
			size_t n;
			int m;

			range += strspn(range, " \t,");
			n = media_type_len(range);
			m = n ? range_match(range, n, offers[i]) : 0;
			if (m > spec) {
				spec = m;
				q = range_q(range + n);
			}
			range += strcspn(range, ",");
		}
		if (spec && q > 0 && (q > best_q || (q == best_q && spec > best_spec))) {
			best = i;
			best_q = q;
			best_spec = spec;
		}
	}
	return best;
}

int http_body_is_json(const char *content_type)
{
	size_t n;

	if (!content_type)
		return 0;
	content_type += strspn(content_type, " \t");
	n = media_type_len(content_type);
	return (n == strlen(HTTP_JSON_MEDIA) &&
	           strncasecmp(content_type, HTTP_JSON_MEDIA, n) == 0) ||
	    (n > 5 && strncasecmp(content_type + n - 5, "+json", 5) == 0);
}

int http_body_is_xml(const char *content_type)
{
	size_t n;

	if (!content_type)
		return 0;
	content_type += strspn(content_type, " \t");
	n = media_type_len(content_type);
	return (n == 15 && strncasecmp(content_type, "application/xml", n) == 0) ||
	    (n == 8 && strncasecmp(content_type, "text/xml", n) == 0) ||
	    (n > 4 && strncasecmp(content_type + n - 4, "+xml", 4) == 0);
}

const char *http_content_type_shown(const char *content_type)
{
	return content_type ? content_type : "none (send Content-Type: application/json)";
}
