/*
 * drop.c: POST /v1/drop and `contact drop`: a body dropped on the plane, its peak
 * penetration, rebound and jitter, and on request its trajectory. The endpoint's
 * row and its kind, whose sweeps step several drops per SIMD vector (core/lanes.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/field.h"
#include "core/lanes.h"
#include "core/scene.h"
#include "core/sim.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "service/request.h"
#include "service/knobs.h"

/* A drop answer: the core's, and how the solref was read. */
struct drop_result {
	int mujoco;          /* the MuJoCo release whose rules were used (an mjver index) */
	int solref_fallback; /* a mixed-sign solref was replaced by MuJoCo's default */
	int direct;          /* solref in the direct form: no time constant */
	struct core_sim_drop drop;
};

/* The answer's fields and their units (the API's descriptions name the same). */
static const struct svc_field drop_fields[] = {{"peak_penetration", "m"}, {"rebound", "m"},
    {"max_height", "m"}, {"jitter", "m"}, {"final_penetration", "m"}, {"energy_gain", NULL},
    {"steps", NULL}, {"solref_fallback", NULL}, {"diverged", NULL}, {"mujoco", NULL},
    {"core_version", NULL}, {"first_rebound", "m"}, {NULL, NULL}};

static int drop_point(json_t *v, const char *path, void *request, struct err *err)
{
	return req_scene_parse(v, path, DEFAULT_HEIGHT, request, err);
}

/* The result's fields but the drop itself, from the prepared model. */
static void drop_begin(
    const struct core_scene *scene, struct core_scene_model *model, struct drop_result *out)
{
	memset(out, 0, sizeof *out);
	out->mujoco = scene->option.mujoco;
	core_scene_prepare(scene, model);
	out->solref_fallback = model->gains.fell_back;
	out->direct = model->gains.direct;
}

/* The drop, also recording its trajectory into trace (NULL: none) in the same loop. */
static void drop_compute_traced(
    const struct req_scene *req, struct drop_result *out, struct core_sim_trace *trace)
{
	struct core_scene_model model;

	drop_begin(&req->scene, &model, out);
	core_sim_drop_trace(&model, req->scene.height, req->scene.duration, &out->drop, trace);
}

static void drop_compute(const void *request, void *result)
{
	drop_compute_traced(request, result, NULL);
}

static size_t drop_answer_fields(const void *result, struct ans_field out[ANS_MAX_FIELDS])
{
	const struct drop_result *r = result;
	const struct core_sim_drop *drop = &r->drop;
	struct ans_list l = {out, 0, 0};

	ans_add_real(&l, "peak_penetration", drop->peak_penetration);
	ans_add_real(&l, "rebound", drop->rebound);
	ans_add_real(&l, "max_height", drop->max_height);
	ans_add_real(&l, "jitter", drop->jitter);
	ans_add_real(&l, "final_penetration", drop->final_penetration);
	ans_add_integer(&l, "energy_gain", drop->energy_gain, ANS_BOOL);
	ans_add_integer(&l, "steps", drop->steps, ANS_INTEGER);
	ans_add_tail(&l, r->solref_fallback, r->mujoco);
	/* issue #29, last so that the fields before keep their order (sweep columns) */
	ans_add_real(&l, "first_rebound", drop->first_rebound);
	return l.count;
}

/* The lanes' feed: the runner's points, each prepared as drop_compute() would. The
 * lanes follow the pyramidal cone's arithmetic (scene.c's); any other cone is dropped
 * one point at a time by the scalar core. */
static long lanes_next(void *ctx, struct core_scene_model *model, double *height, double *duration)
{
	const struct ans_batch *b = ctx;
	const void *request;
	const struct core_scene *scene;
	struct drop_result *out;
	long i;

	for (;;) {
		i = b->next(b->ctx, &request);
		if (i < 0)
			return -1;
		scene = &((const struct req_scene *)request)->scene;
		if (scene->option.cone == CORE_CONE_PYRAMIDAL)
			break;
		out = b->take(b->ctx, i);
		if (!out)
			return -1;
		drop_compute(request, out);
		b->done(b->ctx, i);
	}
	out = b->take(b->ctx, i);
	if (!out)
		return -1;
	drop_begin(scene, model, out);
	*height = scene->height;
	*duration = scene->duration;
	return i;
}

static void lanes_done(void *ctx, long index, const struct core_sim_drop *drop)
{
	const struct ans_batch *b = ctx;
	struct drop_result *out = b->result(b->ctx, index);

	out->drop = *drop;
	b->done(b->ctx, index);
}

static void drop_batch(const struct ans_batch *batch)
{
	struct core_lanes_feed feed = {.next = lanes_next, .done = lanes_done, .ctx = (void *)batch};

	core_lanes_drop(&feed);
}

static json_t *drop_kind_canonical(const void *request)
{
	return req_scene_json(request);
}

static long drop_steps(const void *request)
{
	return req_scene_steps(request);
}

static struct req_scene *drop_scene(void *request)
{
	return request;
}

static const struct ans_kind drop_kind = {
    .request_size = sizeof(struct req_scene),
    .result_size = sizeof(struct drop_result),
    .point = drop_point,
    .canonical = drop_kind_canonical,
    .expose = req_scene_expose,
    .steps = drop_steps,
    .compute = drop_compute,
    .fields = drop_answer_fields,
    .aliases = req_scene_aliases,
    .scene = drop_scene,
    .batch = drop_batch,
};

/* A drop question: the scene, and whether to answer its trajectory too. */
struct drop_request {
	struct req_scene scene;
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
	/* the scene's fields and the flag: an unknown field's error lists them all */
	static const char *const known[] = {
	    "body", "geom", "floor", "option", "height", "duration", "trajectory", NULL};
	json_t *flag = json_is_object(body) ? json_object_get(body, "trajectory") : NULL;
	struct drop_request *req;
	struct field_ctx c;
	json_t *scene;
	int rc;

	(void)lim;
	if (flag && !json_is_boolean(flag))
		return err_set(err, ERR_BAD_TYPE, "/trajectory", "must be true or false");
	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0)
		return -1;
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
	json_t *out = req_scene_json(&req->scene);

	if (out && req->trajectory && json_object_set_new(out, "trajectory", json_true()) != 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* {"t": [...], "z": [...]} of a trace; a non-finite height (a diverged drop) is null. */
static json_t *trace_json(const struct core_sim_trace *tr)
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
	struct core_sim_trace trace;
	struct drop_result result;
	json_t *out, *path;

	(void)lim;
	if (!req->trajectory)
		return ans_answer(&drop_kind, &req->scene, answer, err);
	buf = malloc(2 * LIMIT_TRAJECTORY_POINTS * sizeof *buf);
	if (!buf)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	trace =
	    (struct core_sim_trace){buf, buf + LIMIT_TRAJECTORY_POINTS, LIMIT_TRAJECTORY_POINTS, 0};
	drop_compute_traced(&req->scene, &result, &trace);
	out = ans_to_json(&drop_kind, &result);
	path = out ? trace_json(&trace) : NULL;
	free(buf);
	if (!path || json_object_set_new(out, "trajectory", path) != 0) {
		json_decref(out);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	*answer = out;
	return 0;
}

const struct svc_endpoint_def svc_ep_drop = {
    .name = "drop",
    .summary = "a body dropped on the plane: peak penetration, rebound, jitter",
    .units = "peak_penetration, rebound, max_height, jitter, final_penetration m",
    .parse = drop_parse,
    .canonical = drop_canonical,
    .answer = drop_answer,
    .release = free,
    .fields = drop_fields,
    .kind = &drop_kind,
    .headline = "rebound",
};
