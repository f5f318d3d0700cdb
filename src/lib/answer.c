/*
 * answer.c: the library's one JSON entry point (contactd.h: ctd_answer), a front end
 * over the service layer beside the `contact` CLI and the daemon: a question endpoint's
 * request in, the exact bytes POST /v1/ENDPOINT answers out, and the status with them.
 */
#include "base/jtext.h"
#include "contactd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
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
