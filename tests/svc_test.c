/*
 * svc_test.c: helpers shared by the service layer's Check tests.
 */
#include "svc_test.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "base/jsonptr.h"

struct svc_limits tsvc_limits(int threads)
{
	struct svc_limits lim;

	svc_limits_default(&lim);
	lim.threads = threads;
	return lim;
}

json_t *tsvc_canonical(enum svc_endpoint ep, const char *body)
{
	struct svc_limits lim = tsvc_limits(1);
	struct err err;
	json_t *canonical = NULL;

	err_clear(&err);
	ck_assert_msg(svc_canonical(ep, body, strlen(body), &lim, &canonical, &err) == 0,
	    "%s rejected: %s at \"%s\": %s", body, err_name(err.code), err.path, err.message);
	ck_assert_ptr_nonnull(canonical);
	return canonical;
}

char *tsvc_canonical_text(enum svc_endpoint ep, const char *body)
{
	json_t *canonical = tsvc_canonical(ep, body);
	char *text = jtext_line(canonical);

	ck_assert_ptr_nonnull(text);
	json_decref(canonical);
	return text;
}

void tsvc_assert_same_question(enum svc_endpoint ep, const char *one, const char *two, int same)
{
	char *a = tsvc_canonical_text(ep, one), *b = tsvc_canonical_text(ep, two);

	ck_assert_msg((strcmp(a, b) == 0) == (same != 0), "%s and %s are %s questions", one, two,
	    same ? "two" : "one");
	free(a);
	free(b);
}

json_t *tsvc_answer(enum svc_endpoint ep, const char *body, const struct svc_limits *lim)
{
	struct svc_limits one = tsvc_limits(1);
	struct err err;
	json_t *canonical = NULL, *answer = NULL;

	if (!lim)
		lim = &one;
	err_clear(&err);
	ck_assert_msg(svc_canonical(ep, body, strlen(body), lim, &canonical, &err) == 0,
	    "%s rejected: %s at \"%s\": %s", body, err_name(err.code), err.path, err.message);
	ck_assert_msg(svc_answer(ep, canonical, lim, &answer, &err) == 0,
	    "%s not answered: %s at \"%s\": %s", body, err_name(err.code), err.path, err.message);
	ck_assert_ptr_nonnull(answer);
	json_decref(canonical);
	return answer;
}

void tsvc_expect_error(enum svc_endpoint ep, const char *body, size_t len,
    const struct svc_limits *lim, enum err_code code, const char *path)
{
	struct svc_limits defaults = tsvc_limits(1);
	struct err err;
	json_t *canonical = NULL, *body_json;

	err_clear(&err);
	ck_assert_msg(svc_canonical(ep, body, len, lim ? lim : &defaults, &canonical, &err) == -1,
	    "%.200s was accepted", body);
	ck_assert_ptr_null(canonical);
	ck_assert_msg(err.code == code && strcmp(err.path, path) == 0,
	    "%.200s: expected %s at \"%s\", got %s at \"%s\" (%s)", body, err_name(code), path,
	    err_name(err.code), err.path, err.message);
	ck_assert_msg(err.message[0] != '\0', "%.200s: error without a message", body);
	/* the contract's error body must always be representable */
	body_json = err_to_json(&err);
	ck_assert_ptr_nonnull(body_json);
	json_decref(body_json);
}

char *tsvc_error_message(
    enum svc_endpoint ep, const char *body, enum err_code code, const char *path)
{
	struct err err;
	json_t *canonical = NULL;
	char *message;

	err_clear(&err);
	ck_assert_msg(svc_canonical(ep, body, strlen(body), NULL, &canonical, &err) == -1,
	    "%.200s was accepted", body);
	ck_assert_msg(err.code == code && strcmp(err.path, path) == 0,
	    "%.200s: expected %s at \"%s\", got %s at \"%s\" (%s)", body, err_name(code), path,
	    err_name(err.code), err.path, err.message);
	message = strdup(err.message);
	ck_assert_ptr_nonnull(message);
	return message;
}

double tsvc_real(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	ck_assert_msg(json_is_number(v), "field %s is not a number", key);
	return json_number_value(v);
}

void tsvc_assert_printed(double value, double printed, int decimals, const char *what)
{
	double unit = pow(10, -decimals);

	ck_assert_msg(fabs(value - printed) <= 0.5 * unit,
	    "%s: %.*f (%.17g) does not print as the lesson's %.*f", what, decimals, value, value,
	    decimals, printed);
}

/* A growing text buffer for a streamed answer. */
struct text {
	char *s;
	size_t len, cap;
	size_t rows;
	enum sweep_format format;
	struct text *json_rows; /* with_json: the JSON rows, concatenated */
};

static void text_add(struct text *t, const char *s, size_t len)
{
	if (t->len + len + 1 > t->cap) {
		t->cap = 2 * (t->len + len + 1);
		t->s = realloc(t->s, t->cap);
		ck_assert_ptr_nonnull(t->s);
	}
	memcpy(t->s + t->len, s, len);
	t->len += len;
	t->s[t->len] = '\0';
}

static int on_head(void *ctx, const json_t *head, const char *csv_header, struct err *err)
{
	struct text *t = ctx;
	char *h;

	(void)err;
	if (t->format == SWEEP_CSV) {
		text_add(t, csv_header, strlen(csv_header));
		return 0;
	}
	h = jtext_dump(head, 0);
	ck_assert_ptr_nonnull(h);
	text_add(t, h, strlen(h) - 1); /* without its closing brace */
	text_add(t, ",\"rows\":[", 9);
	free(h);
	return 0;
}

static int on_row(void *ctx, const char *row, size_t len, const char *json, struct err *err)
{
	struct text *t = ctx;

	(void)err;
	/* the JSON text that comes along with a CSV row is the JSON row itself */
	if (t->json_rows && json) {
		if (t->json_rows->len > 0)
			text_add(t->json_rows, ",", 1);
		text_add(t->json_rows, json, strlen(json));
	}
	if (t->format == SWEEP_JSON && t->rows > 0)
		text_add(t, ",", 1);
	text_add(t, row, len);
	t->rows++;
	return 0;
}

char *tsvc_sweep_streamed(const char *body, enum sweep_format format, int with_json,
    const struct svc_limits *lim, const char *whole)
{
	struct text t = {NULL, 0, 0, 0, format, NULL}, json = {NULL, 0, 0, 0, SWEEP_JSON, NULL};
	struct sweep_sink sink = {format, with_json, on_head, on_row, &t};
	struct err err;

	err_clear(&err);
	t.json_rows = format == SWEEP_CSV && with_json ? &json : NULL;
	ck_assert_msg(svc_sweep_stream(body, strlen(body), lim, &sink, &err) == 0, "%s: %s",
	    err.path, err.message);
	if (format == SWEEP_JSON)
		text_add(&t, "]}\n", 3);
	if (t.json_rows) {
		/* the JSON rows that came with the CSV rows are the whole answer's rows */
		ck_assert_ptr_nonnull(json.s);
		ck_assert_ptr_nonnull(strstr(whole, json.s));
		free(json.s);
	}
	return t.s;
}

char *tsvc_row_text(const json_t *const *cells, size_t n)
{
	struct text t = {NULL, 0, 0, 0, SWEEP_JSON, NULL};
	size_t i;

	for (i = 0; i < n; i++) {
		char *s = jtext_dump(cells[i], 0);
		ck_assert_ptr_nonnull(s);
		text_add(&t, i == 0 ? "[" : ",", 1);
		text_add(&t, s, strlen(s));
		free(s);
	}
	text_add(&t, "]", 1);
	return t.s;
}

char *tsvc_single_row(
    const json_t *columns, const json_t *v0, const json_t *v1, const json_t *single)
{
	const json_t *cells[32];
	const json_t *column;
	size_t i;

	ck_assert_uint_le(json_array_size(columns), sizeof cells / sizeof cells[0]);
	json_array_foreach (columns, i, column) {
		cells[i] = i == 0 ? v0
		    : i == 1      ? v1
		                  : json_object_get(single, json_string_value(column));
		ck_assert_msg(
		    cells[i] != NULL, "no %s in the single answer", json_string_value(column));
	}
	return tsvc_row_text(cells, json_array_size(columns));
}

void tsvc_assert_row(const struct tsvc_grid *grid, size_t row, const json_t *v0, const json_t *v1,
    const struct tsvc_row_builder *builder)
{
	json_t *single_request = json_deep_copy(grid->base), *single = NULL;
	char *single_body, *single_text = NULL, *row_text, *want;
	struct err err;
	json_error_t jerr;

	ck_assert_ptr_nonnull(single_request);
	err_clear(&err);
	/* jptr_set takes its own reference to the value */
	ck_assert_int_eq(jptr_set(single_request, grid->ptrs[0], (json_t *)v0, "", &err), 0);
	ck_assert_int_eq(jptr_set(single_request, grid->ptrs[1], (json_t *)v1, "", &err), 0);
	single_body = jtext_line(single_request);
	ck_assert_ptr_nonnull(single_body);
	if (svc_ask(grid->ep, single_body, strlen(single_body), grid->lim, NULL, &single_text, NULL,
	        &err) == 0) {
		single = json_loads(single_text, 0, &jerr);
		ck_assert_ptr_nonnull(single);
	}
	want = builder->build(builder->ctx, json_object_get(grid->answer, "columns"), v0, v1,
	    single, single ? NULL : &err, single_body);
	row_text = jtext_dump(json_array_get(json_object_get(grid->answer, "rows"), row), 0);
	ck_assert_ptr_nonnull(row_text);
	ck_assert_msg(strstr(grid->whole, want) != NULL && strcmp(row_text, want) == 0,
	    "row %zu of %s\n  sweep  %s\n  single %s", row, grid->body, row_text, want);
	free(row_text);
	free(want);
	json_decref(single);
	free(single_text);
	free(single_body);
	json_decref(single_request);
}
