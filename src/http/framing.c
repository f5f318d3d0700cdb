/*
 * framing.c: framing checks and the body's limit (framing.h).
 */
#include "http/framing.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/guard.h"
#include "http/log.h"
#include "http/respond.h"
#include "base/knobs.h"
#include "http/knobs.h"

/* A header value with blanks trimmed, copied (http_framing_header()); x's list. */
struct framing_copy {
	struct framing_copy *next;
	char text[];
};

const char *http_framing_header(struct MHD_Connection *conn, struct exchange *x, const char *name)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
	struct framing_copy *c;
	size_t end;

	if (!v)
		return NULL;
	v += strspn(v, " \t"); /* libmicrohttpd 0.9.75 skips these itself; a later one may not */
	end = strlen(v);
	while (end > 0 && (v[end - 1] == ' ' || v[end - 1] == '\t'))
		end--;
	if (v[end] == '\0')
		return v;
	c = malloc(sizeof *c + end + 1);
	if (!c)
		return v; /* out of memory: the value as sent, blanks and all */
	memcpy(c->text, v, end);
	c->text[end] = '\0';
	c->next = x->copies;
	x->copies = c;
	return c->text;
}

/* Make x hold total bytes of the daemon's body memory in all (x->body_held, counted in
 * srv->body_bytes): 0, or -1 when that would take the daemon past --body-memory-mb. */
static int hold(struct exchange *x, size_t total)
{
	struct http_server *srv = x->srv;
	size_t max = srv->cfg.body_memory, more, held;

	if (total <= x->body_held)
		return 0;
	more = total - x->body_held;
	held = atomic_load(&srv->body_bytes);
	do {
		if (max && (held > max || more > max - held))
			return -1;
	} while (!atomic_compare_exchange_weak(&srv->body_bytes, &held, held + more));
	x->body_held = total;
	return 0;
}

/* Drop what x holds of its body, and give its memory back. */
static void give_up(struct exchange *x)
{
	free(x->body);
	x->body = NULL;
	x->body_len = x->body_cap = 0;
	if (x->body_held)
		atomic_fetch_sub(&x->srv->body_bytes, x->body_held);
	x->body_held = 0;
}

void http_framing_free(struct exchange *x)
{
	give_up(x);
	while (x->copies) {
		struct framing_copy *next = x->copies->next;

		free(x->copies);
		x->copies = next;
	}
}

/*
 * Append a chunk of body, or give the body up. Past the limit the rest is read and
 * dropped, and the 413 goes out when the upload ends: libmicrohttpd (0.9.75) refuses to
 * queue a response in the middle of an upload, and closing instead would leave the client
 * without the contract's error. A declared Content-Length over the limit is refused before
 * any of the body is read, and one more than DAEMON_DISCARD_BODY_MAX over it at once; a
 * chunked body declares nothing, so it is cut once it went that far over (-1). A body the
 * daemon has no room for (--body-memory-mb) is dropped likewise and answered 503.
 */
int http_framing_append(struct exchange *x, const char *data, size_t n)
{
	size_t limit = x->body_limit, need;
	char *grown;

	x->body_seen += n;
	if (x->body_seen > limit) {
		x->body_too_large = 1;
		x->body_no_room = 0; /* too large is the answer, room or not */
		give_up(x);
		return x->body_seen - limit > DAEMON_DISCARD_BODY_MAX ? -1 : 0;
	}
	if (x->body_too_large)
		return 0;
	need = x->body_len + n + 1;
	if (need > x->body_cap) {
		size_t cap = x->body_cap ? x->body_cap : BODY_CHUNK_BYTES;

		while (cap < need)
			cap *= 2;
		if (cap > limit + 1)
			cap = limit + 1;
		if (x->body_held >= need && cap > x->body_held)
			cap = x->body_held; /* a declared length, held whole at the head */
		if (hold(x, cap) < 0 || !(grown = realloc(x->body, cap))) {
			x->body_too_large = x->body_no_room = 1;
			give_up(x);
			return 0;
		}
		x->body = grown;
		x->body_cap = cap;
	}
	memcpy(x->body + x->body_len, data, n);
	x->body_len += n;
	x->body[x->body_len] = '\0';
	return 0;
}

/* What http_framing_check() learns from every header line of a request. */
struct framing {
	int lengths, codings; /* Content-Length and Transfer-Encoding lines */
	const char *length;   /* the last of each */
	const char *coding;
	const char *bad_name;            /* a header name with a blank in it (or empty) */
	int bad_length;                  /* a Content-Length that is not 1*DIGIT */
	int bad_coding;                  /* a Transfer-Encoding that is not exactly chunked */
	int hosts, authorizations, keys; /* Host, Authorization, Idempotency-Key lines */
	const char *bare_cr;             /* a header whose value holds a CR */
};

/* Is s, blanks around it aside, a plain decimal number (no sign, no list)? */
static int is_digits(const char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strspn(s, "0123456789");
	return n > 0 && s[n + strspn(s + n, " \t")] == '\0';
}

/* Does name start with prefix (any case) and go on after it? */
static int has_longer_prefix(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncasecmp(name, prefix, n) == 0 && name[n] != '\0';
}

/* MHD_KeyValueIterator over the request's headers: every line, repeats included. */
static enum MHD_Result framing_line(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct framing *f = cls;

	(void)kind;
	/* libmicrohttpd 0.9.75 appends a folded line (obs-fold) to the header's name:
	 * "Transfer-Encoding:\r\n chunked" arrives as "Transfer-Encodingchunked". */
	if (!key || !*key || key[strcspn(key, " \t")] != '\0' ||
	    has_longer_prefix(key, MHD_HTTP_HEADER_CONTENT_LENGTH) ||
	    has_longer_prefix(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		f->bad_name = key ? key : "";
		return MHD_YES;
	}
	if (!value)
		value = "";
	if (strchr(value, '\r') && !f->bare_cr)
		f->bare_cr = key; /* a CR ends the line for some readers, not for others */
	f->hosts += strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0;
	f->authorizations += strcasecmp(key, MHD_HTTP_HEADER_AUTHORIZATION) == 0;
	f->keys += strcasecmp(key, "Idempotency-Key") == 0;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
		f->lengths++;
		f->length = value;
		f->bad_length |= !is_digits(value);
	} else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
		f->codings++;
		f->coding = value;
		/* libmicrohttpd skips the blanks before a value, not those after it: it reads
		 * "chunked " as no coding it knows, and the rest of the connection as the body */
		f->bad_coding |= strcasecmp(value, "chunked") != 0;
	}
	return MHD_YES;
}

/* Refuse framing with one 400 and close the connection: what follows the head cannot be
 * trusted to be where this request's body ends. */
static enum MHD_Result refuse_framing(struct MHD_Connection *conn, struct exchange *x,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static enum MHD_Result refuse_framing(
    struct MHD_Connection *conn, struct exchange *x, const char *fmt, ...)
{
	enum MHD_Result rc;
	va_list ap;

	http_add_header(&x->req, MHD_HTTP_HEADER_CONNECTION, "close");
	va_start(ap, fmt);
	rc = http_vreject(conn, &x->req, ERR_BAD_REQUEST, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * The first call of a request, its headers in: refuse framing a proxy in front could
 * read differently (RFC 9112 6.1, 6.3: Content-Length with Transfer-Encoding, either of
 * them repeated, a Content-Length that is not a plain number, a header name with a blank
 * before its colon, a folded framing header: how requests are smuggled; Transfer-Encoding in
 * HTTP/1.0), codings MHD cannot undo (it would wait for a body it cannot delimit, or read
 * the connection to its end), a declared oversized body, and a declared body the daemon has
 * no room for (503; read and dropped like an oversized one but for "100 Continue"). Every
 * header line is read, not only the first of each name. The oversized body
 * is refused at once when the client waits for "100 Continue" or the body is too large to be worth
 * reading; otherwise the body is read and dropped, so that the client, still sending, then reads
 * its 413 rather than a reset connection.
 */
enum MHD_Result http_framing_check(struct MHD_Connection *conn, struct exchange *x)
{
	const char *expect = http_framing_header(conn, x, MHD_HTTP_HEADER_EXPECT);
	struct framing f = {0};
	char shown[64];
	unsigned long long declared;

	MHD_get_connection_values(conn, MHD_HEADER_KIND, framing_line, &f);
	if (f.bad_name) {
		http_log_safe(shown, sizeof shown, f.bad_name);
		return refuse_framing(conn, x,
		    "header name '%s' is malformed (a blank before the colon, or a folded line)",
		    shown);
	}
	if (x->nul_in_target)
		return refuse_framing(conn, x, "the request target has %%00: no NUL byte in a URL");
	if (f.bare_cr) {
		http_log_safe(shown, sizeof shown, f.bare_cr);
		return refuse_framing(
		    conn, x, "header %s has a bare CR in its value; end lines with CRLF", shown);
	}
	/* HTTP/1.1 requires one Host (RFC 9112 3.2); a second one, or a second credential or
	 * key, would be read as the first by one reader and the last by another */
	if (f.hosts > 1 || f.authorizations > 1 || f.keys > 1)
		return refuse_framing(conn, x, "%s given %d times; send it once",
		    f.hosts > 1                ? "Host"
		        : f.authorizations > 1 ? "Authorization"
		                               : "Idempotency-Key",
		    f.hosts > 1                ? f.hosts
		        : f.authorizations > 1 ? f.authorizations
		                               : f.keys);
	if (!f.hosts && x->version && strcmp(x->version, MHD_HTTP_VERSION_1_1) == 0)
		return refuse_framing(conn, x, "an HTTP/1.1 request needs a Host header");
	if (f.lengths > 1 || f.codings > 1)
		return refuse_framing(conn, x, "%s given %d times; send it once",
		    f.lengths > 1 ? "Content-Length" : "Transfer-Encoding",
		    f.lengths > 1 ? f.lengths : f.codings);
	if (f.codings && f.lengths)
		return refuse_framing(
		    conn, x, "Content-Length and Transfer-Encoding together; send one of them");
	if (f.bad_coding) {
		http_log_safe(shown, sizeof shown, f.coding);
		return refuse_framing(conn, x,
		    "Transfer-Encoding '%s' is not supported; send chunked (nothing after it) or "
		    "Content-Length",
		    shown);
	}
	/* RFC 9112 6.1: an HTTP/1.0 message with Transfer-Encoding is faulty; a 1.0 reader
	 * in front would take the chunks, and what follows them, for something else */
	if (f.codings && x->version && strcmp(x->version, MHD_HTTP_VERSION_1_0) == 0)
		return refuse_framing(conn, x,
		    "Transfer-Encoding in an HTTP/1.0 request is faulty framing (RFC 9112 6.1); "
		    "send Content-Length");
	if (f.bad_length) {
		http_log_safe(shown, sizeof shown, f.length);
		return refuse_framing(conn, x, "Content-Length %s is not a decimal number", shown);
	}
	if (!f.lengths)
		return MHD_YES;
	declared = strtoull(f.length, NULL, 10);
	if (declared <= x->body_limit) {
		/* the whole declared body is held now, so that no room is known before any of it
		 * is read; without room it is read and dropped, as an oversized one is */
		if (declared == 0 || hold(x, (size_t)declared + 1) == 0)
			return MHD_YES;
		x->body_too_large = x->body_no_room = 1;
		return expect ? http_framing_too_large(conn, x) : MHD_YES;
	}
	x->body_too_large = 1;
	if (expect || declared > (unsigned long long)x->body_limit + DAEMON_DISCARD_BODY_MAX)
		return http_framing_too_large(conn, x);
	return MHD_YES;
}

enum MHD_Result http_framing_too_large(struct MHD_Connection *conn, struct exchange *x)
{
	struct err e;

	if (x->body_no_room) {
		http_add_header(&x->req, MHD_HTTP_HEADER_RETRY_AFTER, DAEMON_RETRY_AFTER);
		return http_reject(conn, &x->req, ERR_UNAVAILABLE,
		    "busy: request bodies held now leave no room for this one's %zu bytes "
		    "(--body-memory-mb %zu); retry later",
		    x->body_seen > x->body_held ? x->body_seen : x->body_held,
		    x->srv->cfg.body_memory >> 20);
	}
	/* the service's words, as `contact` and the library say them */
	svc_body_refuse(x->body_endpoint, &x->srv->limits, &e);
	return http_respond_error(conn, &x->req, &e);
}

enum MHD_Result http_framing_cut(struct MHD_Connection *conn, struct exchange *x)
{
	struct err e;

	svc_body_refuse(x->body_endpoint, &x->srv->limits, &e);
	/* logged first: once the 413 is out, the client may look for this line */
	http_log("framing: %s: a chunked body went %d bytes past its %zu-byte limit; 413 on the "
	         "socket, closed",
	    x->client, DAEMON_DISCARD_BODY_MAX, x->body_limit);
	guard_cut(conn, "413 Content Too Large", err_name(e.code), e.message);
	x->status = MHD_HTTP_CONTENT_TOO_LARGE; /* logged unsent=413: it may not have been read */
	x->code = e.code;
	return MHD_NO;
}

/* MHD_KeyValueIterator: the first field's name into *cls, and stop. */
static enum MHD_Result first_name(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	(void)kind;
	(void)value;
	*(const char **)cls = key ? key : "";
	return MHD_NO;
}

/*
 * A chunked body's trailer section must be empty. The daemon reads no trailer field, and
 * one that a reader of trailers would act on (Content-Length, Transfer-Encoding, Host,
 * Authorization: RFC 9110 6.5.1 forbids them there) is how a request means one thing to
 * that reader and another to the rest; a field that is allowed there, the daemon ignores
 * anyway, so every one is refused rather than some listed.
 */
int http_framing_trailers(struct MHD_Connection *conn, struct exchange *x, enum MHD_Result *r)
{
	const char *name = NULL;
	char shown[64];

	MHD_get_connection_values(conn, MHD_FOOTER_KIND, first_name, (void *)&name);
	if (!name)
		return 0;
	http_log_safe(shown, sizeof shown, name);
	*r = refuse_framing(conn, x,
	    "trailer field %s after the chunked body: the daemon reads no trailers; send every "
	    "field in the head",
	    shown);
	return -1;
}
