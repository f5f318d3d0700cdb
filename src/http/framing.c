/*
 * framing.c: framing checks and the body's limit (framing.h).
 */
#include "http/framing.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/log.h"
#include "http/respond.h"
#include "base/knobs.h"
#include "http/knobs.h"

/*
 * Append a chunk of body, or give the body up once it is over the limit. Past the
 * limit the rest is read and dropped, and the 413 goes out when the upload ends:
 * libmicrohttpd (0.9.75) refuses to queue a response in the middle of an upload, and
 * closing instead would leave the client without the contract's error. A declared
 * Content-Length over the limit is refused before any of the body is read.
 */
void http_framing_append(struct exchange *x, const char *data, size_t n)
{
	size_t limit = x->body_limit;

	if (x->body_too_large)
		return;
	if (n > limit - x->body_len) {
		x->body_too_large = 1;
		free(x->body);
		x->body = NULL;
		x->body_len = 0;
		return;
	}
	if (x->body_len + n + 1 > x->body_cap) {
		size_t cap = x->body_cap ? x->body_cap : BODY_CHUNK_BYTES;
		char *grown;

		while (cap < x->body_len + n + 1)
			cap *= 2;
		if (cap > limit + 1)
			cap = limit + 1;
		grown = realloc(x->body, cap);
		if (!grown) {
			x->body_too_large = 1; /* cannot hold it: answer as if too large */
			return;
		}
		x->body = grown;
		x->body_cap = cap;
	}
	memcpy(x->body + x->body_len, data, n);
	x->body_len += n;
	x->body[x->body_len] = '\0';
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

/* Is s, blanks around it aside, exactly word (any case)? */
static int is_word(const char *s, const char *word)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(word);
	if (strncasecmp(s, word, n) != 0)
		return 0;
	s += n;
	return s[strspn(s, " \t")] == '\0';
}

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
		f->bad_coding |= !is_word(value, "chunked");
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
 * before its colon, a folded framing header: how requests are smuggled), codings MHD cannot undo
 * (it would wait for a body it cannot delimit), and a declared oversized body. Every header line is
 * read, not only the first of each name. The oversized body is refused at once when the
 * client waits for "100 Continue" or the body is too large to be worth reading;
 * otherwise the body is read and dropped, so that the client, still sending, then reads
 * its 413 rather than a reset connection.
 */
enum MHD_Result http_framing_check(struct MHD_Connection *conn, struct exchange *x)
{
	const char *expect =
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
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
		    "Transfer-Encoding %s is not supported; send chunked or Content-Length", shown);
	}
	if (f.bad_length) {
		http_log_safe(shown, sizeof shown, f.length);
		return refuse_framing(conn, x, "Content-Length %s is not a decimal number", shown);
	}
	if (!f.lengths)
		return MHD_YES;
	declared = strtoull(f.length, NULL, 10);
	if (declared <= x->body_limit)
		return MHD_YES;
	x->body_too_large = 1;
	if (expect || declared > (unsigned long long)x->body_limit + DAEMON_DISCARD_BODY_MAX)
		return http_framing_too_large(conn, x);
	return MHD_YES;
}

enum MHD_Result http_framing_too_large(struct MHD_Connection *conn, struct exchange *x)
{
	struct err e;

	/* the service's words, as `contact` and the library say them */
	svc_body_refuse(x->body_endpoint, &x->srv->limits, &e);
	return http_respond_error(conn, &x->req, &e);
}
