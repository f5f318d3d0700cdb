/*
 * service.c: the request handlers shared by the `contact` CLI and the daemon:
 * body -> canonical request -> answer, and the one text form of JSON.
 */
#include "service/service.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "service/answer.h"
#include "service/body.h"
#include "service/eval.h"
#include "service/request.h"
#include "service/sweep.h"
#include "tunables.h"

static const char *const endpoint_names[] = {
    [SVC_REST] = "rest",
    [SVC_DROP] = "drop",
    [SVC_STABILITY] = "stability",
    [SVC_SWEEP] = "sweep",
    [SVC_EVAL] = "eval",
};

#define NENDPOINTS ((int)(sizeof endpoint_names / sizeof endpoint_names[0]))

static pthread_once_t gsl_once = PTHREAD_ONCE_INIT;

static void turn_gsl_handler_off(void)
{
	gsl_set_error_handler_off();
}

void svc_quiet_gsl(void)
{
	pthread_once(&gsl_once, turn_gsl_handler_off);
}

void svc_limits_default(struct svc_limits *l)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	svc_quiet_gsl();
	l->max_sweep_points = LIMIT_MAX_SWEEP_POINTS;
	l->max_eval_calls = LIMIT_MAX_EVAL_CALLS;
	l->threads = cores < 1 ? 1 : (int)cores;
}

int svc_endpoint_parse(const char *name, enum svc_endpoint *ep, struct err *err)
{
	int i;

	for (i = 0; i < NENDPOINTS; i++) {
		if (strcmp(name, endpoint_names[i]) == 0) {
			*ep = (enum svc_endpoint)i;
			return 0;
		}
	}
	return err_set(err, ERR_NOT_FOUND, "", "unknown endpoint \"%s\"", name);
}

const char *svc_endpoint_name(enum svc_endpoint ep)
{
	return (int)ep >= 0 && (int)ep < NENDPOINTS ? endpoint_names[ep] : "unknown";
}

/*
 * A drop's "trajectory" flag: take it out of body (a request the caller owns) so the
 * scene parser sees the scene alone. An absent or false flag leaves the canonical
 * request, its cache key and its answer exactly as before the flag existed.
 */
static int take_trajectory(json_t *body, int *trajectory, struct err *err)
{
	json_t *flag = json_is_object(body) ? json_object_get(body, "trajectory") : NULL;

	*trajectory = 0;
	if (!flag)
		return 0;
	if (!json_is_boolean(flag))
		return err_set(err, ERR_BAD_TYPE, "/trajectory", "must be true or false");
	*trajectory = json_is_true(flag);
	json_object_del(body, "trajectory");
	return 0;
}

/* {"t": [...], "z": [...]} of a trace; a non-finite height (a diverged drop) is null. */
static json_t *trace_json(const struct sim_trace *tr)
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

/* Answer a drop whose canonical request asks for its trajectory. */
static int drop_traced(json_t *request, json_t **answer, struct err *err)
{
	double *buf = malloc(2 * LIMIT_TRAJECTORY_POINTS * sizeof *buf);
	struct sim_trace trace = {buf, buf + LIMIT_TRAJECTORY_POINTS, LIMIT_TRAJECTORY_POINTS, 0};
	struct ans_request req;
	struct ans_result result;
	json_t *out = NULL, *path;
	int rc = -1;

	if (!buf)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	req.query = ANS_DROP;
	if (req_scene_parse(request, "", DEFAULT_HEIGHT, &req.u.scene, err) != 0)
		goto out;
	ans_compute_traced(&req, &result, &trace);
	out = ans_to_json(&result);
	path = out ? trace_json(&trace) : NULL;
	if (!path || json_object_set_new(out, "trajectory", path) != 0) {
		json_decref(out);
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	*answer = out;
	rc = 0;
out:
	free(buf);
	return rc;
}

/* Validate a rest, drop or stability request into *req. */
static int parse_single(
    enum svc_endpoint ep, json_t *body, struct ans_request *req, struct err *err)
{
	switch (ep) {
	case SVC_REST:
		req->query = ANS_REST;
		return req_scene_parse(body, "", 0, &req->u.scene, err);
	case SVC_DROP:
		req->query = ANS_DROP;
		return req_scene_parse(body, "", DEFAULT_HEIGHT, &req->u.scene, err);
	default:
		req->query = ANS_STABILITY;
		return req_stability_parse(body, "", &req->u.stability, err);
	}
}

int svc_canonical(enum svc_endpoint ep, const char *body, size_t len, const struct svc_limits *lim,
    json_t **canonical, struct err *err)
{
	struct svc_limits defaults;
	struct ans_request req;
	json_t *root = NULL, *out = NULL;
	int rc = -1, trajectory = 0;

	svc_quiet_gsl();
	if (!lim) {
		svc_limits_default(&defaults);
		lim = &defaults;
	}
	if (body_parse(body, len, &root, err) != 0)
		goto out;
	switch (ep) {
	case SVC_SWEEP:
		rc = sweep_canonical(root, lim->max_sweep_points, canonical, err);
		goto out;
	case SVC_EVAL:
		rc = eval_canonical(root, lim->max_eval_calls, canonical, err);
		goto out;
	case SVC_REST:
	case SVC_DROP:
	case SVC_STABILITY:
		break;
	default:
		err_set(err, ERR_NOT_FOUND, "", "unknown endpoint");
		goto out;
	}
	if ((ep == SVC_DROP && take_trajectory(root, &trajectory, err) != 0) ||
	    parse_single(ep, root, &req, err) != 0)
		goto out;
	out = req.query == ANS_STABILITY ? req_stability_json(&req.u.stability)
	                                 : req_scene_json(&req.u.scene);
	if (out && trajectory && json_object_set_new(out, "trajectory", json_true()) != 0) {
		json_decref(out);
		out = NULL;
	}
	if (!out) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	*canonical = out;
	rc = 0;
out:
	json_decref(root);
	return rc;
}

int svc_answer(enum svc_endpoint ep, const json_t *canonical, const struct svc_limits *lim,
    json_t **answer, struct err *err)
{
	/* the handlers only read the request; jansson's getters are not const-correct */
	json_t *request = (json_t *)canonical;
	struct svc_limits defaults;
	struct ans_request req;
	struct ans_result result;
	json_t *out;

	svc_quiet_gsl();
	if (!lim) {
		svc_limits_default(&defaults);
		lim = &defaults;
	}
	switch (ep) {
	case SVC_SWEEP:
		return sweep_answer(request, lim->max_sweep_points, lim->threads, answer, err);
	case SVC_EVAL:
		return eval_answer(request, lim->max_eval_calls, answer, err);
	case SVC_REST:
	case SVC_DROP:
	case SVC_STABILITY:
		break;
	default:
		return err_set(err, ERR_NOT_FOUND, "", "unknown endpoint");
	}
	if (ep == SVC_DROP && json_is_true(json_object_get(request, "trajectory"))) {
		json_t *scene = json_copy(request); /* shallow: the scene without the flag */
		int rc;

		if (!scene)
			return err_set(err, ERR_INTERNAL, "", "out of memory");
		json_object_del(scene, "trajectory");
		rc = drop_traced(scene, answer, err);
		json_decref(scene);
		return rc;
	}
	if (parse_single(ep, request, &req, err) != 0)
		return -1;
	ans_compute(&req, &result);
	out = ans_to_json(&result);
	if (!out)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	*answer = out;
	return 0;
}

char *svc_dump(const json_t *value)
{
	char *text = json_dumps(
	    value, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
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
