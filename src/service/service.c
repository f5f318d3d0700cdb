/*
 * service.c: the request handlers shared by the `contact` CLI and the daemon:
 * body -> canonical request -> answer, and the one text form of JSON.
 */
#include "service/service.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/jtext.h"
#include "base/quiet.h"
#include "core/mjver.h"
#include "service/answer.h"
#include "base/body.h"
#include "service/eval.h"
#include "service/find.h"
#include "service/hold.h"
#include "service/request.h"
#include "service/sweep.h"
#include "tunables.h"

void svc_limits_default(struct svc_limits *l)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	quiet_gsl();
	l->max_sweep_points = LIMIT_MAX_SWEEP_POINTS;
	l->max_eval_calls = LIMIT_MAX_EVAL_CALLS;
	l->threads = cores < 1 ? 1 : (int)cores;
	l->max_body = LIMIT_MAX_BODY_BYTES;
}

int svc_endpoint_parse(const char *name, enum svc_endpoint *ep, struct err *err)
{
	int i;

	for (i = 0; i < SVC_ENDPOINT_COUNT; i++) {
		if (strcmp(name, svc_endpoints[i].name) == 0) {
			*ep = (enum svc_endpoint)i;
			return 0;
		}
	}
	return err_set(err, ERR_NOT_FOUND, "", "unknown endpoint \"%s\"", name);
}

const char *svc_endpoint_name(enum svc_endpoint ep)
{
	return (int)ep >= 0 && (int)ep < SVC_ENDPOINT_COUNT ? svc_endpoints[ep].name : "unknown";
}

/* ---- the rows: rest, drop and stability (one struct ans_request each) ---- */

static int rest_point(json_t *v, const char *path, struct ans_request *out, struct err *err)
{
	out->query = SVC_REST;
	return req_scene_parse(v, path, 0, &out->u.scene, err);
}

static int drop_point(json_t *v, const char *path, struct ans_request *out, struct err *err)
{
	out->query = SVC_DROP;
	return req_scene_parse(v, path, DEFAULT_HEIGHT, &out->u.scene, err);
}

static int stability_point(json_t *v, const char *path, struct ans_request *out, struct err *err)
{
	out->query = SVC_STABILITY;
	return req_stability_parse(v, path, &out->u.stability, err);
}

static int hold_point(json_t *v, const char *path, struct ans_request *out, struct err *err)
{
	out->query = SVC_HOLD;
	return hold_parse_at(v, path, &out->u.hold, err);
}

/* A single question's request: point() of its row, on the whole body. */
static int single_parse(int (*point)(json_t *, const char *, struct ans_request *, struct err *),
    json_t *body, void **request, struct err *err)
{
	struct ans_request *req = malloc(sizeof *req);

	if (!req)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	if (point(body, "", req, err) != 0) {
		free(req);
		return -1;
	}
	*request = req;
	return 0;
}

static int rest_parse(json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	(void)lim;
	return single_parse(rest_point, body, request, err);
}

static int stability_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	(void)lim;
	return single_parse(stability_point, body, request, err);
}

static json_t *single_canonical(const void *request)
{
	return ans_request_json(request);
}

static int single_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	struct ans_result result;

	(void)lim;
	ans_compute(request, &result);
	*answer = ans_to_json(&result);
	return *answer ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

/* A drop question: the scene, and whether to answer its trajectory too. The
 * request starts with its ans_request, so single_canonical() and single_answer()
 * would read it as one. */
struct drop_request {
	struct ans_request scene;
	int trajectory;
};

/*
 * POST /v1/drop: the scene, and its "trajectory" flag read from body and taken out of
 * a shallow copy, so the scene parser sees the scene alone. An absent or false flag
 * leaves the canonical request, its cache key and its answer exactly as before the
 * flag existed. body is only read.
 */
static int drop_parse(json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	json_t *flag = json_is_object(body) ? json_object_get(body, "trajectory") : NULL;
	struct drop_request *req;
	json_t *scene;
	int rc;

	(void)lim;
	if (flag && !json_is_boolean(flag))
		return err_set(err, ERR_BAD_TYPE, "/trajectory", "must be true or false");
	req = malloc(sizeof *req);
	scene = flag ? json_copy(body) : json_incref(body);
	if (!req || !scene) {
		free(req);
		json_decref(scene);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	if (flag)
		json_object_del(scene, "trajectory");
	req->trajectory = json_is_true(flag);
	rc = drop_point(scene, "", &req->scene, err);
	json_decref(scene);
	if (rc != 0) {
		free(req);
		return -1;
	}
	*request = req;
	return 0;
}

static json_t *drop_canonical(const void *request)
{
	const struct drop_request *req = request;
	json_t *out = ans_request_json(&req->scene);

	if (out && req->trajectory && json_object_set_new(out, "trajectory", json_true()) != 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* {"t": [...], "z": [...]} of a trace; a non-finite height (a diverged drop) is null. */
static json_t *trace_json(const struct ctd_sim_trace *tr)
{
	json_t *t = json_array(), *z = json_array(), *obj;
	size_t i;

	for (i = 0; t && z && i < tr->count; i++) {
		json_array_append_new(t, json_real(tr->t[i]));
		json_array_append_new(z, isfinite(tr->z[i]) ? json_real(tr->z[i]) : json_null());
	}
	obj = t && z ? json_pack("{s:o, s:o}", "t", t, "z", z) : NULL;
	if (!obj) {
		json_decref(t);
		json_decref(z);
	}
	return obj;
}

/* The drop's answer; with the flag, the trajectory from the loop that measured it. */
static int drop_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	const struct drop_request *req = request;
	double *buf;
	struct ctd_sim_trace trace;
	struct ans_result result;
	json_t *out, *path;

	if (!req->trajectory)
		return single_answer(&req->scene, lim, answer, err);
	buf = malloc(2 * LIMIT_TRAJECTORY_POINTS * sizeof *buf);
	if (!buf)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	trace =
	    (struct ctd_sim_trace){buf, buf + LIMIT_TRAJECTORY_POINTS, LIMIT_TRAJECTORY_POINTS, 0};
	ans_compute_traced(&req->scene, &result, &trace);
	out = ans_to_json(&result);
	path = out ? trace_json(&trace) : NULL;
	free(buf);
	if (!path || json_object_set_new(out, "trajectory", path) != 0) {
		json_decref(out);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	*answer = out;
	return 0;
}

/* ---- the rows: sweep (a struct sweep_plan) ---- */

static int sweep_row_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	return sweep_parse_threads(
	    body, lim->max_sweep_points, lim->threads, (struct sweep_plan **)request, err);
}

static json_t *sweep_row_canonical(const void *request)
{
	return sweep_plan_json(request);
}

static int sweep_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	return sweep_run(request, lim->threads, answer, err);
}

static void sweep_row_release(void *request)
{
	sweep_plan_free(request);
}

/* ---- the rows: eval (a struct eval_request) ---- */

static int eval_row_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	return eval_parse(body, lim->max_eval_calls, (struct eval_request **)request, err);
}

static json_t *eval_row_canonical(const void *request)
{
	return eval_request_json(request);
}

static int eval_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	(void)lim;
	return eval_run(request, answer, err);
}

static void eval_row_release(void *request)
{
	eval_request_free(request);
}

/* ---- the rows: find (a struct find_search) ---- */

static int find_row_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	(void)lim;
	return find_parse(body, (struct find_search **)request, err);
}

static json_t *find_row_canonical(const void *request)
{
	return find_search_json(request);
}

static int find_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	(void)lim;
	return find_run(request, answer, err);
}

static void find_row_release(void *request)
{
	find_search_free(request);
}

/* ---- the rows: hold (a struct hold_request) ---- */

static int hold_row_parse(
    json_t *body, const struct svc_limits *lim, void **request, struct err *err)
{
	(void)lim;
	return hold_parse(body, (struct hold_request **)request, err);
}

static json_t *hold_row_canonical(const void *request)
{
	return hold_request_json(request);
}

static int hold_row_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	(void)lim;
	return hold_run(request, answer, err);
}

static void hold_row_release(void *request)
{
	hold_request_free(request);
}

/* The endpoint table. A new question endpoint is a value of enum svc_endpoint and a
 * row here (README.md, "Adding an endpoint"). */
const struct svc_endpoint_def svc_endpoints[SVC_ENDPOINT_COUNT] = {
    [SVC_REST] = {.name = "rest",
        .summary = "a body resting on the plane: equilibrium and settled penetration",
        .units = "penetrations m; K 1/s^2; B 1/s; timeconst_used s; impedance none",
        .parse = rest_parse,
        .canonical = single_canonical,
        .answer = single_answer,
        .release = free,
        .fields = ans_rest_fields,
        .point = rest_point},
    [SVC_DROP] = {.name = "drop",
        .summary = "a body dropped on the plane: peak penetration, rebound, jitter",
        .units = "peak_penetration, rebound, max_height, jitter, final_penetration m",
        .parse = drop_parse,
        .canonical = drop_canonical,
        .answer = drop_answer,
        .release = free,
        .fields = ans_drop_fields,
        .point = drop_point},
    [SVC_STABILITY] = {.name = "stability",
        .summary = "the contact spring's growth per step under an integrator",
        .units = "K 1/s^2; B 1/s; timeconst_used s; growth (per step), h_omega none",
        .parse = stability_parse,
        .canonical = single_canonical,
        .answer = single_answer,
        .release = free,
        .fields = ans_stability_fields,
        .point = stability_point},
    [SVC_SWEEP] = {.name = "sweep",
        .summary = "one question over a line or grid of values at JSON Pointers",
        .units = "the query's units",
        .parse = sweep_row_parse,
        .canonical = sweep_row_canonical,
        .answer = sweep_row_answer,
        .release = sweep_row_release,
        .csv = 1},
    [SVC_EVAL] = {.name = "eval",
        .summary = "the lesson's functions by name, one call or a batch",
        .units = "SI, as the lesson's: K 1/s^2, B 1/s, accelerations m/s^2, r m",
        .parse = eval_row_parse,
        .canonical = eval_row_canonical,
        .answer = eval_row_answer,
        .release = eval_row_release},
    [SVC_FIND] = {.name = "find",
        .summary = "where one answer field crosses a value as one request field varies",
        .units = "value in the varied field's unit, field_value in the answer field's",
        .parse = find_row_parse,
        .canonical = find_row_canonical,
        .answer = find_row_answer,
        .release = find_row_release},
    [SVC_HOLD] = {.name = "hold",
        .summary = "a sphere pinched between two pads: its creep and slip under gravity",
        .units = "creep_velocity m/s; slip, penetration m; forces N; times s",
        .parse = hold_row_parse,
        .canonical = hold_row_canonical,
        .answer = hold_row_answer,
        .release = hold_row_release,
        .fields = hold_fields,
        .point = hold_point},
};

/* ---- the pipeline ---- */

/* The row of ep, or NULL with err. */
static const struct svc_endpoint_def *row_of(enum svc_endpoint ep, struct err *err)
{
	if ((int)ep < 0 || (int)ep >= SVC_ENDPOINT_COUNT) {
		err_set(err, ERR_NOT_FOUND, "", "unknown endpoint");
		return NULL;
	}
	return &svc_endpoints[ep];
}

/* Parse the body text of len bytes as a request of row: *request for row->release(). */
static int parse_body(const struct svc_endpoint_def *row, const char *body, size_t len,
    const struct svc_limits *lim, void **request, struct err *err)
{
	json_t *root = NULL;
	int rc;

	if (len > lim->max_body)
		return err_set(err, ERR_TOO_LARGE, "",
		    "request body of %zu bytes is over the limit of %zu", len, lim->max_body);
	if (body_parse(body, len, &root, err) != 0)
		return -1;
	rc = row->parse(root, lim, request, err);
	json_decref(root);
	return rc;
}

/* lim, or the defaults in *defaults when lim is NULL. */
static const struct svc_limits *limits_or_default(
    const struct svc_limits *lim, struct svc_limits *defaults)
{
	quiet_gsl();
	if (lim)
		return lim;
	svc_limits_default(defaults);
	return defaults;
}

/* Compute the answer of a parsed request as text (svc_dump()). */
static int answer_text(const struct svc_endpoint_def *row, const void *request,
    const struct svc_limits *lim, char **text, struct err *err)
{
	json_t *answer = NULL;

	if (row->answer(request, lim, &answer, err) != 0)
		return -1;
	*text = svc_dump(answer);
	json_decref(answer);
	return *text ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

int svc_ask(enum svc_endpoint ep, const char *body, size_t len, const struct svc_limits *lim,
    const struct cache *cache, char **text, struct svc_outcome *outcome, struct err *err)
{
	const struct svc_endpoint_def *row = row_of(ep, err);
	struct svc_limits defaults;
	struct svc_outcome ignored;
	void *request = NULL;
	json_t *canonical = NULL;
	char *canonical_text = NULL;
	size_t answer_len;
	int rc = -1, hit = 0;

	if (!outcome)
		outcome = &ignored;
	memset(outcome, 0, sizeof *outcome);
	if (!row)
		return -1;
	lim = limits_or_default(lim, &defaults);
	if (parse_body(row, body, len, lim, &request, err) != 0)
		return -1;
	if (cache) {
		canonical = row->canonical(request);
		canonical_text = canonical ? svc_dump(canonical) : NULL;
		if (!canonical_text) {
			err_set(err, ERR_INTERNAL, "", "out of memory");
			goto out;
		}
		hit = cache->get(cache->ctx, row->name, canonical_text, text, &answer_len,
		    &outcome->cache_read_err);
	}
	if (hit == 1) {
		outcome->cached = 1;
		rc = 0;
		goto out;
	}
	if (answer_text(row, request, lim, text, err) != 0)
		goto out;
	rc = 0;
	if (cache)
		cache->put(cache->ctx, row->name, canonical_text, *text, strlen(*text),
		    &outcome->cache_write_err);
out:
	free(canonical_text);
	json_decref(canonical);
	row->release(request);
	return rc;
}

int svc_sweep_open(const char *body, size_t len, const struct svc_limits *lim,
    struct sweep_plan **plan, struct err *err)
{
	const struct svc_endpoint_def *row = row_of(SVC_SWEEP, err);
	struct svc_limits defaults;

	if (!row)
		return -1;
	lim = limits_or_default(lim, &defaults);
	return parse_body(row, body, len, lim, (void **)plan, err);
}

int svc_sweep_stream(const char *body, size_t len, const struct svc_limits *lim,
    const struct sweep_sink *sink, struct err *err)
{
	struct svc_limits defaults;
	struct sweep_plan *plan = NULL;
	int rc;

	lim = limits_or_default(lim, &defaults);
	if (svc_sweep_open(body, len, lim, &plan, err) != 0)
		return -1;
	rc = sweep_stream(plan, lim->threads, sink, err);
	sweep_plan_free(plan);
	return rc;
}

int svc_canonical(enum svc_endpoint ep, const char *body, size_t len, const struct svc_limits *lim,
    json_t **canonical, struct err *err)
{
	const struct svc_endpoint_def *row = row_of(ep, err);
	struct svc_limits defaults;
	void *request = NULL;

	if (!row)
		return -1;
	lim = limits_or_default(lim, &defaults);
	if (parse_body(row, body, len, lim, &request, err) != 0)
		return -1;
	*canonical = row->canonical(request);
	row->release(request);
	return *canonical ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

int svc_answer(enum svc_endpoint ep, const json_t *canonical, const struct svc_limits *lim,
    json_t **answer, struct err *err)
{
	const struct svc_endpoint_def *row = row_of(ep, err);
	struct svc_limits defaults;
	void *request = NULL;
	int rc;

	if (!row)
		return -1;
	lim = limits_or_default(lim, &defaults);
	/* the parsers only read the request; jansson's getters are not const-correct */
	if (row->parse((json_t *)canonical, lim, &request, err) != 0)
		return -1;
	rc = row->answer(request, lim, answer, err);
	row->release(request);
	return rc;
}

char *svc_dump(const json_t *value)
{
	char *text = jtext_dump(value, 0);
	size_t len;
	char *line;

	if (!text)
		return NULL;
	len = strlen(text);
	line = realloc(text, len + 2);
	if (!line) {
		free(text);
		return NULL;
	}
	line[len] = '\n';
	line[len + 1] = '\0';
	return line;
}

int svc_sweep_csv(const json_t *answer, char **csv, struct err *err)
{
	return sweep_csv(answer, csv, err);
}

int svc_text_csv(const char *text, char **csv, struct err *err)
{
	json_error_t jerr;
	json_t *answer = json_loads(text, 0, &jerr);
	int rc;

	if (!answer)
		return err_set(err, ERR_INTERNAL, "", "the answer is not JSON: %s", jerr.text);
	rc = sweep_csv(answer, csv, err);
	json_decref(answer);
	return rc;
}

const char *svc_mujoco_default(void)
{
	return ctd_mjver_name(ctd_mjver_default());
}

json_t *svc_mujoco_releases(void)
{
	json_t *list = json_array();
	int i;

	for (i = 0; list && i < ctd_mjver_count(); i++) {
		if (json_array_append_new(list, json_string(ctd_mjver_name(i))) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}
