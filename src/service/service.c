/*
 * service.c: the request handlers shared by the `contact` CLI and the daemon:
 * body -> canonical request -> answer, and the one text form of JSON.
 */
#include "service/service.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "core/mjver.h"
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
	int rc = -1;

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
	if (parse_single(ep, root, &req, err) != 0)
		goto out;
	out = req.query == ANS_STABILITY ? req_stability_json(&req.u.stability)
	                                 : req_scene_json(&req.u.scene);
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

const char *svc_mujoco_default(void)
{
	return mjver_name(mjver_default());
}

json_t *svc_mujoco_releases(void)
{
	json_t *list = json_array();
	int i;

	for (i = 0; list && i < mjver_count(); i++) {
		if (json_array_append_new(list, json_string(mjver_name(i))) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}
