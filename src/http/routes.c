/*
 * routes.c: the daemon's one route table (routes.h). A row's path is literal text and
 * holes: {endpoint} (the rest, a row of the service's endpoint table), {robot} (up to the
 * next '/', a robot name), {id} (a decimal id from 1), {page} (the rest, an embedded
 * page) and {rest} (anything: the row only claims a prefix). The first row whose path
 * matches answers: with its handler for the method, else 405 naming the methods it takes.
 * A row without handlers answers 404 under its name.
 */
#include "http/routes.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "http/admit.h"
#include "http/calib_stream.h"
#include "http/cors.h"
#include "http/framing.h"
#include "http/guard.h"
#include "http/http_calib.h"
#include "http/jobs.h"
#include "http/metrics.h"
#include "http/offload.h"
#include "http/openapi.h"
#include "http/respond.h"
#include "http/static.h"
#include "service/service.h"

/* What a route's path holes held. */
struct route_args {
	enum svc_endpoint ep;           /* {endpoint} */
	const struct static_file *page; /* {page} */
	struct http_calib_target calib; /* {robot}, {id} and a second {id} (sub) */
};

typedef enum MHD_Result (*route_fn)(
    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a);

struct route {
	const char *path;
	const char *name;    /* for the log and the metrics; NULL: the question's name */
	const char *allow;   /* the methods it takes, for a 405's Allow */
	const char *options; /* what OPTIONS answers it takes */
	int head;            /* its GET answers HEAD too */
	route_fn get, post, del;
};

/* GET /v1/health: liveness, versions and the store's state. */
static enum MHD_Result serve_health(
    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a)
{
	struct http_server *srv = x->srv;
	struct err e;
	int schema = store_schema_version(srv->store, &e);
	json_t *body, *calib;
	enum MHD_Result ret;

	(void)a;
	/* a store that answers reads but could not keep a write is not ok (deleted,
	 * replaced, read-only, full, locked) */
	if (schema >= 0 && store_health(srv->store, &e) != 0)
		schema = -1;
	body =
	    json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "status", "ok", "version", PACKAGE_VERSION,
	        "core_version", srv->cfg.core_version, "store", schema < 0 ? "unavailable" : "ok",
	        "mujoco", svc_mujoco_default(), "mujoco_supported", svc_mujoco_releases());
	if (!body)
		return http_reject(conn, &x->req, ERR_INTERNAL, "out of memory");
	if (schema >= 0)
		json_object_set_new(body, "schema_version", json_integer(schema));
	else
		json_object_set_new(body, "store_error", json_string(e.message));
	/* 200 either way: questions are answered without the calibration store */
	calib = calstream_health();
	if (!calib || json_object_set_new(body, "calibration_store", calib) != 0) {
		json_decref(body);
		return http_reject(conn, &x->req, ERR_INTERNAL, "out of memory");
	}
	ret = http_respond_json(conn, &x->req, MHD_HTTP_OK, body);
	json_decref(body);
	return ret;
}

/* GET /v1/openapi.json: the embedded API description. */
static enum MHD_Result serve_openapi(
    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a)
{
	(void)a;
	return http_respond_buffer(conn, &x->req, MHD_HTTP_OK, HTTP_JSON_MEDIA, openapi_json,
	    openapi_json_len, MHD_RESPMEM_PERSISTENT);
}

/* GET /metrics: Prometheus text format. */
static enum MHD_Result serve_metrics(
    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a)
{
	struct http_server *srv = x->srv;
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	struct metrics_gauges g = {
	    .in_flight = atomic_load(&srv->in_flight),
	    .connections = info ? info->num_connections : 0,
	    .computing = admit_running(srv->pool),
	    .queued = admit_queued(srv->pool),
	    .refused = admit_rejected(srv->pool),
	    .share_refused = admit_share_rejected(srv->pool),
	    .guard = guard_counts(srv->guard),
	    .body_bytes = atomic_load(&srv->body_bytes),
	};
	size_t len = 0;
	char *text = metrics_render(srv->metrics, &g, PACKAGE_VERSION, srv->cfg.core_version, &len);

	(void)a;
	if (!text)
		return http_reject(conn, &x->req, ERR_INTERNAL, "out of memory");
	return http_respond_buffer(conn, &x->req, MHD_HTTP_OK,
	    "text/plain; version=0.0.4; charset=utf-8", text, len, MHD_RESPMEM_MUST_FREE);
}

/* POST /v1/NAME. */
static enum MHD_Result serve_question(
    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a)
{
	/* http_jobs_ask() checks the type too; a missing one is named here */
	if (!x->req.content_type)
		return http_reject(conn, &x->req, ERR_UNSUPPORTED_MEDIA,
		    "the body must be %s, not %s", HTTP_JSON_MEDIA,
		    http_content_type_shown(x->req.content_type));
	return http_jobs_ask(conn, x, a->ep, x->req.url);
}

/* GET of an embedded page. */
static enum MHD_Result serve_page(
    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a)
{
	return static_serve(conn, &x->req, a->page);
}

/* The calibration handlers (http_calib.h) as rows' handlers, run in the store pool
 * (offload.h): they wait for the store, which no HTTP thread may. */
#define CALIB_HANDLER(fn)                                                                          \
	static enum MHD_Result calib_##fn(                                                         \
	    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a)           \
	{                                                                                          \
		return http_offload_run(conn, x, http_calib_##fn, &a->calib);                      \
	}
CALIB_HANDLER(create)
CALIB_HANDLER(list)
CALIB_HANDLER(show)
CALIB_HANDLER(upload)
CALIB_HANDLER(measurements)
CALIB_HANDLER(fits)
CALIB_HANDLER(delete_measurement)
CALIB_HANDLER(delete_upload)

/* The audit computes: the compute pool's, not the store pool's. */
static enum MHD_Result calib_evaluate(
    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a)
{
	return http_calib_evaluate(conn, &x->req, &a->calib);
}

/* The routes of event streams (calib_stream.h), of a calibration's id, as calibration
 * handlers, and those as rows' handlers (in the store pool too). */
#define CALSTREAM_HANDLER(fn)                                                                      \
	static enum MHD_Result stream_##fn(                                                        \
	    struct MHD_Connection *conn, struct http_request *req,                                 \
	    const struct http_calib_target *t)                                                     \
	{                                                                                          \
		return calstream_##fn(conn, req, t->id);                                           \
	}                                                                                          \
	static enum MHD_Result calib_##fn(                                                         \
	    struct MHD_Connection *conn, struct exchange *x, const struct route_args *a)           \
	{                                                                                          \
		return http_offload_run(conn, x, stream_##fn, &a->calib);                          \
	}
CALSTREAM_HANDLER(events)
CALSTREAM_HANDLER(watch)

/* What OPTIONS names for every calibration URL; each route answers 405 for the others. */
#define CALIB_METHODS "GET, POST, DELETE"

static const struct route routes[] = {
    {"/v1/{endpoint}", NULL, "POST", "POST", 0, NULL, serve_question, NULL},
    {"/v1/health", "health", "GET, HEAD", "GET, HEAD", 1, serve_health, NULL, NULL},
    {"/v1/openapi.json", "openapi", "GET, HEAD", "GET, HEAD", 1, serve_openapi, NULL, NULL},
    {"/metrics", "metrics", "GET, HEAD", "GET, HEAD", 1, serve_metrics, NULL, NULL},
    {"/v1/robots/{robot}/calibrations", "calibrations", "GET, POST", CALIB_METHODS, 0, calib_list,
        calib_create, NULL},
    {"/v1/calibrations/{id}", "calibration", "GET", CALIB_METHODS, 0, calib_show, NULL, NULL},
    {"/v1/calibrations/{id}/measurements", "measurements", "GET, POST", CALIB_METHODS, 0,
        calib_measurements, calib_upload, NULL},
    {"/v1/calibrations/{id}/fits", "fits", "GET", CALIB_METHODS, 0, calib_fits, NULL, NULL},
    {"/v1/calibrations/{id}/measurements/{id}", "measurement", "DELETE", CALIB_METHODS, 0, NULL,
        NULL, calib_delete_measurement},
    {"/v1/calibrations/{id}/uploads/{id}", "upload", "DELETE", CALIB_METHODS, 0, NULL, NULL,
        calib_delete_upload},
    {"/v1/calibrations/{id}/events", "events", "GET", CALIB_METHODS, 0, calib_events, NULL, NULL},
    {"/v1/calibrations/{id}/watch", "watch", "POST", CALIB_METHODS, 0, NULL, calib_watch, NULL},
    {"/v1/calibrations/{id}/evaluate", "evaluate", "POST", CALIB_METHODS, 0, NULL, calib_evaluate,
        NULL},
    {"{page}", "page", "GET, HEAD", "GET, HEAD", 1, serve_page, NULL, NULL},
    /* no calibration route of these prefixes: 404, counted as the calibration's */
    {"/v1/robots/{rest}", "calibration", NULL, CALIB_METHODS, 0, NULL, NULL, NULL},
    {"/v1/calibrations/{rest}", "calibration", NULL, CALIB_METHODS, 0, NULL, NULL, NULL},
};

/* Parse a decimal id (1.. LLONG_MAX) ending at the end or at '/'. */
static int parse_id(const char *s, long long *id, const char **rest)
{
	char *end;

	if (*s < '1' || *s > '9')
		return -1;
	errno = 0;
	*id = strtoll(s, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != '/'))
		return -1;
	*rest = end;
	return 0;
}

/* Does url match the path of a row? Fills a with its holes. */
static int match(const char *path, const char *url, struct route_args *a)
{
	struct err ignored;
	int ids = 0;

	while (*path) {
		if (strncmp(path, "{endpoint}", 10) == 0) {
			if (svc_endpoint_parse(url, &a->ep, &ignored) != 0)
				return 0;
			url += strlen(url);
			path += 10;
		} else if (strncmp(path, "{page}", 6) == 0) {
			if (!(a->page = static_find(url)))
				return 0;
			url += strlen(url);
			path += 6;
		} else if (strncmp(path, "{rest}", 6) == 0) {
			return 1;
		} else if (strncmp(path, "{id}", 4) == 0) {
			if (parse_id(url, ids++ ? &a->calib.sub : &a->calib.id, &url) != 0)
				return 0;
			path += 4;
		} else if (strncmp(path, "{robot}", 7) == 0) {
			const char *slash = strchr(url, '/');

			if (!slash || (size_t)(slash - url) >= sizeof a->calib.robot)
				return 0;
			memcpy(a->calib.robot, url, (size_t)(slash - url));
			a->calib.robot[slash - url] = '\0';
			if (!http_calib_robot_ok(a->calib.robot))
				return 0;
			url = slash;
			path += 7;
		} else if (*path++ != *url++) {
			return 0;
		}
	}
	return *url == '\0';
}

/* The first row url matches (a its holes), or NULL. */
static const struct route *route_of(const char *url, struct route_args *a)
{
	size_t i;

	for (i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		memset(a, 0, sizeof *a);
		if (match(routes[i].path, url, a))
			return &routes[i];
	}
	return NULL;
}

/* OPTIONS: the methods a route takes, or a CORS preflight's answer (cors.h). */
static enum MHD_Result serve_options(struct MHD_Connection *conn, struct exchange *x)
{
	struct route_args args;
	const struct route *r = route_of(x->req.url, &args);
	struct MHD_Response *resp;
	enum MHD_Result ret;
	int refused;

	x->req.route = "options";
	if (!r)
		return http_reject(conn, &x->req, ERR_NOT_FOUND, "no endpoint %s", x->req.url);
	resp = cors_options(
	    &x->srv->cfg.cors, x->req.url, x->origin, x->preflight_method, r->options, &refused);
	if (refused)
		return http_reject(conn, &x->req, ERR_FORBIDDEN,
		    "origin %s may not call %s (see contactd --cors-origin)", x->origin,
		    x->req.url);
	if (!resp)
		return MHD_NO;
	ret = http_respond(conn, &x->req, MHD_HTTP_NO_CONTENT, resp);
	x->bytes = 0;
	return ret;
}

enum MHD_Result http_routes_dispatch(struct MHD_Connection *conn, struct exchange *x)
{
	const char *method = x->req.method;
	struct route_args args;
	const struct route *r;
	route_fn serve = NULL;

	if (x->body_too_large)
		return http_framing_too_large(conn, x);
	if (strcmp(method, "OPTIONS") == 0)
		return serve_options(conn, x);
	r = route_of(x->req.url, &args);
	if (!r)
		return http_reject(conn, &x->req, ERR_NOT_FOUND, "no endpoint %s", x->req.url);
	x->req.route = r->name ? r->name : svc_endpoints[args.ep]->name;
	if (!r->get && !r->post && !r->del)
		return http_reject(conn, &x->req, ERR_NOT_FOUND, "no endpoint %s", x->req.url);
	if (strcmp(method, MHD_HTTP_METHOD_GET) == 0 || (r->head && strcmp(method, "HEAD") == 0))
		serve = r->get;
	else if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
		serve = r->post;
	else if (strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
		serve = r->del;
	if (serve)
		return serve(conn, x, &args);
	/* A 405 must name the methods that would work. */
	x->allow = r->allow;
	return http_reject(
	    conn, &x->req, ERR_METHOD, "%s takes %s, not %s", x->req.url, x->allow, method);
}
