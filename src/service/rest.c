/*
 * rest.c: POST /v1/rest and `contact rest`: a body resting on the plane, its
 * equilibrium and settled penetration. The endpoint's row and its kind.
 */
#include <string.h>

#include "core/scene.h"
#include "core/sim.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "service/request.h"

/* A rest answer: the core's, and how the solref was read. */
struct rest_result {
	int mujoco;          /* the MuJoCo release whose rules were used (an mjver index) */
	int solref_fallback; /* a mixed-sign solref was replaced by MuJoCo's default */
	int direct;          /* solref in the direct form: no time constant */
	struct core_sim_rest rest;
};

/* The answer's fields and their units (the API's descriptions name the same). */
static const struct svc_field rest_fields[] = {{"penetration", "m"}, {"settled_penetration", "m"},
    {"impedance", ""}, {"K", "1/s^2"}, {"B", "1/s"}, {"timeconst_used", "s"},
    {"refsafe_replaced", NULL}, {"contacts", NULL}, {"rows", NULL}, {"solref_fallback", NULL},
    {"diverged", NULL}, {"mujoco", NULL}, {"core_version", NULL}, {NULL, NULL}};

static int rest_point(json_t *v, const char *path, void *request, struct err *err)
{
	return req_scene_parse(v, path, 0, request, err);
}

static void rest_compute(const void *request, void *result)
{
	const struct core_scene *scene = &((const struct req_scene *)request)->scene;
	struct rest_result *out = result;
	struct core_scene_model model;

	memset(out, 0, sizeof *out);
	out->mujoco = scene->option.mujoco;
	core_scene_prepare(scene, &model);
	out->solref_fallback = model.gains.fell_back;
	out->direct = model.gains.direct;
	core_sim_rest(&model, scene->height, scene->duration, &out->rest);
}

static size_t rest_answer_fields(const void *result, struct ans_field out[ANS_MAX_FIELDS])
{
	const struct rest_result *r = result;
	const struct core_sim_rest *rest = &r->rest;
	struct ans_list l = {out, 0, 0};

	if (rest->has_equilibrium)
		ans_add_real(&l, "penetration", rest->penetration);
	else
		ans_add_null(&l, "penetration");
	ans_add_real(&l, "settled_penetration", rest->settled_penetration);
	if (rest->has_equilibrium)
		ans_add_real(&l, "impedance", rest->impedance);
	else
		ans_add_null(&l, "impedance");
	ans_add_real(&l, "K", rest->K);
	ans_add_real(&l, "B", rest->B);
	if (r->direct)
		ans_add_null(&l, "timeconst_used");
	else
		ans_add_real(&l, "timeconst_used", rest->timeconst_used);
	ans_add_integer(&l, "refsafe_replaced", rest->refsafe_replaced, ANS_BOOL);
	ans_add_integer(&l, "contacts", rest->contacts, ANS_INTEGER);
	ans_add_integer(&l, "rows", rest->rows, ANS_INTEGER);
	ans_add_tail(&l, r->solref_fallback, r->mujoco);
	return l.count;
}

static json_t *rest_canonical(const void *request)
{
	return req_scene_json(request);
}

static long rest_steps(const void *request)
{
	return req_scene_steps(request);
}

static struct req_scene *rest_scene(void *request)
{
	return request;
}

static const struct ans_kind rest_kind = {
    .request_size = sizeof(struct req_scene),
    .result_size = sizeof(struct rest_result),
    .point = rest_point,
    .canonical = rest_canonical,
    .expose = req_scene_expose,
    .steps = rest_steps,
    .compute = rest_compute,
    .fields = rest_answer_fields,
    .aliases = req_scene_aliases,
    .scene = rest_scene,
};

const struct svc_endpoint_def svc_ep_rest = {
    .name = "rest",
    .summary = "a body resting on the plane: equilibrium and settled penetration",
    .units = "penetrations m; K 1/s^2; B 1/s; timeconst_used s; impedance none",
    .fields = rest_fields,
    .kind = &rest_kind,
    .headline = "penetration",
};
