/*
 * cors.c: which origins may read which answers, and the headers that say so (cors.h).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http/cors.h"
#include "http/knobs.h"

/* Who may read a path's answers cross-origin. */
enum cors_scope {
	CORS_NONE,    /* never shared: pages, /metrics */
	CORS_OPEN,    /* "*" or a named origin */
	CORS_PRIVATE, /* a named origin only (calibration routes: bearer tokens) */
};

static enum cors_scope scope_of(const char *url)
{
	if (strncmp(url, "/v1/robots/", 11) == 0 || strncmp(url, "/v1/calibrations/", 17) == 0)
		return CORS_PRIVATE;
	if (strncmp(url, "/v1/", 4) == 0)
		return CORS_OPEN;
	return CORS_NONE;
}

int cors_origin_check(const char *origin, struct err *err)
{
	const char *host, *end;
	size_t n;

	if (strcmp(origin, "*") == 0)
		return 0;
	if (strncmp(origin, "http://", 7) == 0)
		host = origin + 7;
	else if (strncmp(origin, "https://", 8) == 0)
		host = origin + 8;
	else
		return err_set(err, ERR_BAD_VALUE, NULL,
		    "'%s' is not an origin: give scheme://host[:port] with http or https, or *",
		    origin);
	n = strcspn(host, "/?#");
	end = host + n;
	if (n == 0 || *end)
		return err_set(err, ERR_BAD_VALUE, NULL,
		    "'%s' is not an origin: a host and an optional port, with no path", origin);
	for (; host < end; host++)
		if ((unsigned char)*host <= ' ' || (unsigned char)*host >= 0x7f)
			return err_set(
			    err, ERR_BAD_VALUE, NULL, "'%s' has a blank or non-ASCII byte", origin);
	return 0;
}

/* Is any origin named (not "*")? Answers then depend on Origin. */
static int names_origins(const struct cors_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->count; i++)
		if (strcmp(cfg->origins[i], "*") != 0)
			return 1;
	return 0;
}

/* What Access-Control-Allow-Origin says for origin on a path of scope: the named
 * origin (*named = 1), "*", or NULL for nothing. Origins compare case-insensitively
 * (scheme and host are), which also covers the port. */
static const char *allowed_origin(
    const struct cors_config *cfg, enum cors_scope scope, const char *origin, int *named)
{
	int any = 0;
	size_t i;

	*named = 0;
	if (scope == CORS_NONE || !origin || !*origin)
		return NULL;
	for (i = 0; i < cfg->count; i++) {
		if (strcmp(cfg->origins[i], "*") == 0)
			any = 1;
		else if (strcasecmp(cfg->origins[i], origin) == 0) {
			*named = 1;
			return origin;
		}
	}
	return any && scope == CORS_OPEN ? "*" : NULL;
}

void cors_headers(
    const struct cors_config *cfg, const char *url, const char *origin, struct MHD_Response *resp)
{
	enum cors_scope scope = scope_of(url);
	const char *allow;
	int named;

	if (!cfg->count || scope == CORS_NONE)
		return;
	if (names_origins(cfg))
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
	allow = allowed_origin(cfg, scope, origin, &named);
	if (!allow)
		return;
	MHD_add_response_header(resp, "Access-Control-Allow-Origin", allow);
	MHD_add_response_header(resp, "Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
	/* credentials (cookies, TLS client certificates, proxy auth) only for a named origin */
	if (named)
		MHD_add_response_header(resp, "Access-Control-Allow-Credentials", "true");
}

struct MHD_Response *cors_options(const struct cors_config *cfg, const char *url,
    const char *origin, const char *request_method, const char *allow, int *refused)
{
	struct MHD_Response *resp;
	char methods[64];
	int named;

	*refused = 0;
	if (origin && request_method && !allowed_origin(cfg, scope_of(url), origin, &named)) {
		*refused = 1;
		return NULL;
	}
	resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return NULL;
	snprintf(methods, sizeof methods, "%s, OPTIONS", allow);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, methods);
	if (origin && request_method) {
		char age[16];

		snprintf(age, sizeof age, "%d", CORS_MAX_AGE);
		MHD_add_response_header(resp, "Access-Control-Allow-Methods", methods);
		MHD_add_response_header(resp, "Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
		MHD_add_response_header(resp, "Access-Control-Max-Age", age);
	}
	return resp;
}
