/*
 * answer.c: the library's one JSON entry point (contactd.h: ctd_answer), a front end
 * over the service layer beside the `contact` CLI and the daemon: a question endpoint's
 * request in, the exact bytes POST /v1/ENDPOINT answers out, and the status with them;
 * and what it answers (ctd_endpoints), the endpoint table as JSON.
 */
#include "contactd.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/jtext.h"
#include "service/eval.h"
#include "service/service.h"

/* The contract's error body of e as the daemon writes it; NULL when out of memory. */
static char *error_text(const struct err *e)
{
	json_t *body = err_to_json(e);
	char *text;

	if (body) {
		text = jtext_line(body);
		json_decref(body);
		return text;
	}
	/* the daemon's fallback for a message jansson refuses, so the bytes stay its own */
	if (!(text = malloc(ERR_TEXT_FALLBACK_MAX)))
		return NULL;
	err_to_text_fallback(e, text, ERR_TEXT_FALLBACK_MAX);
	return text;
}

int ctd_answer(const char *endpoint, const char *request_json, size_t len, char **answer_json,
    size_t *answer_len)
{
	struct svc_limits limits;
	enum svc_endpoint ep;
	struct err err;
	char *text = NULL;
	int status = 200;

	err_clear(&err);
	svc_limits_default(&limits);
	if (!endpoint || svc_endpoint_parse(endpoint, &ep, &err) != 0)
		/* the daemon's words for a URL no row names */
		err_set(&err, ERR_NOT_FOUND, "", "no endpoint /v1/%s", endpoint ? endpoint : "");
	else if (svc_ask(ep, request_json ? request_json : "", request_json ? len : 0, &limits,
	             NULL, &text, NULL, &err) == 0)
		err.code = ERR_NONE;
	if (err.code != ERR_NONE) {
		status = err_status(err.code);
		text = error_text(&err);
	}
	if (!text)
		status = 500;
	*answer_json = text;
	if (answer_len)
		*answer_len = text ? strlen(text) : 0;
	return status;
}

void ctd_answer_free(char *answer_json)
{
	free(answer_json);
}

/* One row of the table as ctd_endpoints() lists it; NULL when out of memory. */
static json_t *endpoint_json(const struct svc_endpoint_def *row)
{
	json_t *out = json_pack("{s:s, s:s, s:b, s:b}", "name", row->name, "summary", row->summary,
	    "sweepable", row->kind != NULL, "csv", row->csv != 0);
	json_t *fields, *field;
	const struct svc_field *f;

	if (!out)
		return NULL;
	if (row->units && json_object_set_new(out, "units", json_string(row->units)) != 0)
		goto fail;
	if (row->headline && json_object_set_new(out, "headline", json_string(row->headline)) != 0)
		goto fail;
	if (!row->fields)
		return out;
	if (!(fields = json_array()) || json_object_set_new(out, "fields", fields) != 0)
		goto fail;
	for (f = row->fields; f->name; f++) {
		field = f->unit ? json_pack("{s:s, s:s}", "name", f->name, "unit", f->unit)
		                : json_pack("{s:s}", "name", f->name);
		if (json_array_append_new(fields, field) != 0)
			goto fail;
	}
	return out;
fail:
	json_decref(out);
	return NULL;
}

/* The table's text, made by the first call that has the memory for it; never freed. */
static pthread_mutex_t endpoints_lock = PTHREAD_MUTEX_INITIALIZER;
static char *endpoints_text;

const char *ctd_endpoints(void)
{
	json_t *doc, *list, *row;
	const char *text;
	int e;

	pthread_mutex_lock(&endpoints_lock);
	if (!endpoints_text && (doc = json_pack("{s:[]}", "endpoints")) != NULL) {
		list = json_object_get(doc, "endpoints");
		for (e = 0; e < SVC_ENDPOINT_COUNT; e++)
			if (!(row = endpoint_json(svc_endpoints[e])) ||
			    json_array_append_new(list, row) != 0)
				break;
		if (e == SVC_ENDPOINT_COUNT)
			endpoints_text = jtext_line(doc);
		json_decref(doc);
	}
	text = endpoints_text;
	pthread_mutex_unlock(&endpoints_lock);
	return text;
}
