/*
 * service.c: the pipeline shared by the `contact` CLI and the daemon: body ->
 * canonical request -> answer through a row of the endpoint table, and the one
 * text form of JSON. It names no endpoint but the sweep's streaming entry points.
 */
#include "service/service.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/jtext.h"
#include "base/quiet.h"
#include "core/mjver.h"
#include "base/body.h"
#include "service/budget.h"
#include "service/sweep.h"
#include "service/knobs.h"

void svc_limits_default(struct svc_limits *l)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	quiet_gsl();
	l->max_sweep_points = LIMIT_MAX_SWEEP_POINTS;
	l->max_eval_calls = LIMIT_MAX_EVAL_CALLS;
	l->threads = cores < 1 ? 1 : (int)cores;
	l->max_body = LIMIT_MAX_BODY_BYTES;
	l->max_cpu_seconds = 0; /* no budget: the daemon sets one (--max-cpu-seconds) */
}

/* ---- the pipeline ---- */

/* The row of ep, or NULL with err. */
static const struct svc_endpoint_def *row_of(enum svc_endpoint ep, struct err *err)
{
	if ((int)ep < 0 || (int)ep >= SVC_ENDPOINT_COUNT) {
		err_set(err, ERR_NOT_FOUND, "", "unknown endpoint");
		return NULL;
	}
	return svc_endpoints[ep];
}

/* A row's functions, each the kind's where the row leaves it NULL (endpoint.h). */
static int row_parse(const struct svc_endpoint_def *row, json_t *body, const struct svc_limits *lim,
    void **request, struct err *err)
{
	return row->parse ? row->parse(body, lim, request, err)
	                  : ans_parse(row->kind, body, request, err);
}

static json_t *row_canonical(const struct svc_endpoint_def *row, const void *request)
{
	return row->canonical ? row->canonical(request) : row->kind->canonical(request);
}

static int row_answer(const struct svc_endpoint_def *row, const void *request,
    const struct svc_limits *lim, json_t **answer, struct err *err)
{
	return row->answer ? row->answer(request, lim, answer, err)
	                   : ans_answer(row->kind, request, answer, err);
}

static void row_release(const struct svc_endpoint_def *row, void *request)
{
	if (row->release)
		row->release(request);
	else
		free(request);
}

/* Refuse a parsed request of row whose steps estimate is over lim's compute budget
 * (service/budget.h); the rows without a kind estimate their own (sweep). */
static int row_budget(const struct svc_endpoint_def *row, const void *request,
    const struct svc_limits *lim, struct err *err)
{
	if (!row->kind || !(lim->max_cpu_seconds > 0))
		return 0;
	return budget_refuse((double)row->kind->steps(request), budget_step_ns(row->kind, request),
	    lim->max_cpu_seconds, "/duration", row->name, err);
}

size_t svc_body_limit(enum svc_endpoint ep, const struct svc_limits *lim)
{
	size_t batch;

	if ((int)ep < 0 || (int)ep >= SVC_ENDPOINT_COUNT || !svc_endpoints[ep]->batch ||
	    lim->max_eval_calls <= 0)
		return lim->max_body;
	batch = (size_t)lim->max_eval_calls * LIMIT_EVAL_CALL_BYTES;
	return batch > lim->max_body ? batch : lim->max_body;
}

int svc_body_refuse(enum svc_endpoint ep, const struct svc_limits *lim, struct err *err)
{
	size_t limit = svc_body_limit(ep, lim);

	if ((int)ep >= 0 && (int)ep < SVC_ENDPOINT_COUNT && svc_endpoints[ep]->batch)
		return err_set(err, ERR_TOO_LARGE, "",
		    "the body is over %zu bytes: split the calls into batches of at most %ld calls "
		    "and %zu bytes each",
		    limit, lim->max_eval_calls, limit);
	return err_set(err, ERR_TOO_LARGE, "", "the body is over %zu bytes", limit);
}

/* Parse the body text of len bytes as a request of row: *request for row->release(). */
static int parse_body(const struct svc_endpoint_def *row, const char *body, size_t len,
    const struct svc_limits *lim, void **request, struct err *err)
{
	json_t *root = NULL;
	enum svc_endpoint ep;
	int rc;

	for (ep = 0; ep < SVC_ENDPOINT_COUNT && svc_endpoints[ep] != row; ep++)
		;
	if (len > svc_body_limit(ep, lim))
		return svc_body_refuse(ep, lim, err);
	if (body_parse(body, len, &root, err) != 0)
		return -1;
	rc = row_parse(row, root, lim, request, err);
	json_decref(root);
	if (rc == 0 && row_budget(row, *request, lim, err) != 0) {
		row_release(row, *request);
		*request = NULL;
		return -1;
	}
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

/* Compute the answer of a parsed request as text (jtext_line()). */
static int answer_text(const struct svc_endpoint_def *row, const void *request,
    const struct svc_limits *lim, char **text, struct err *err)
{
	json_t *answer = NULL;
	int rc = row_answer(row, request, lim, &answer, err);

	/* stopped by its budget or its client: what it computed (an answer, or an error
	 * about a value cut short) is not the answer */
	if (budget_error(err) != 0) {
		json_decref(answer);
		return -1;
	}
	if (rc != 0)
		return -1;
	*text = jtext_line(answer);
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
		canonical = row_canonical(row, request);
		canonical_text = canonical ? jtext_line(canonical) : NULL;
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
	row_release(row, request);
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
	*canonical = row_canonical(row, request);
	row_release(row, request);
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
	if (row_parse(row, (json_t *)canonical, lim, &request, err) != 0)
		return -1;
	if (row_budget(row, request, lim, err) != 0) {
		row_release(row, request);
		return -1;
	}
	rc = row_answer(row, request, lim, answer, err);
	if (budget_error(err) != 0) {
		if (rc == 0)
			json_decref(*answer);
		*answer = NULL;
		rc = -1;
	}
	row_release(row, request);
	return rc;
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
	return core_mjver_name(core_mjver_default());
}

json_t *svc_mujoco_releases(void)
{
	json_t *list = json_array();
	int i;

	for (i = 0; list && i < core_mjver_count(); i++) {
		if (json_array_append_new(list, json_string(core_mjver_name(i))) != 0) {
			json_decref(list);
			return NULL;
		}
	}
	return list;
}
