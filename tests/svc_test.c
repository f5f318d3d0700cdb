/*
 * svc_test.c: helpers shared by the service layer's Check tests.
 */
#include "svc_test.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tunables.h"

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
	char *text = svc_dump(canonical);

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
