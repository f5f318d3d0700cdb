/*
 * field.c: typed member reads with the contract's errors and paths.
 */
#include "base/field.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/jsonptr.h"
#include "base/jtext.h"

/* JSON type names for messages */
static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

void field_path(const struct field_ctx *c, const char *key, char *buf)
{
	jptr_append_key(buf, ERR_PATH_MAX, c->path, key);
}

int field_fail(const struct field_ctx *c, const char *key, long index, enum err_code code,
    const char *fmt, ...)
{
	char path[ERR_PATH_MAX], message[ERR_MESSAGE_MAX];
	va_list ap;

	field_path(c, key, path);
	if (index >= 0)
		jptr_append_index(path, sizeof path, path, (size_t)index);
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	return err_set(c->err, code, path, "%s", message);
}

int field_non_negative(const struct field_ctx *c, const char *key, long index, double value)
{
	if (value >= 0)
		return 0;
	return field_fail(c, key, index, ERR_BAD_VALUE, "must be >= 0, not %s", JTEXT_NUM(value));
}

int field_positive_within(
    const struct field_ctx *c, const char *key, long index, double value, double limit)
{
	if (value > 0 && value <= limit)
		return 0;
	return field_fail(
	    c, key, index, ERR_BAD_VALUE, "must be > 0 and <= %g, not %s", limit, JTEXT_NUM(value));
}

int field_root(struct field_ctx *c, json_t *v, const char *path, struct err *err)
{
	c->obj = v;
	c->err = err;
	snprintf(c->path, sizeof c->path, "%s", path);
	if (!json_is_object(v))
		return err_set(err, ERR_BAD_TYPE, path, "must be an object, not %s",
		    v ? type_name(v) : "nothing");
	return 0;
}

int field_object(const struct field_ctx *c, const char *key, struct field_ctx *child)
{
	json_t *v = c->obj ? json_object_get(c->obj, key) : NULL;

	child->obj = v;
	child->err = c->err;
	field_path(c, key, child->path);
	if (v && !json_is_object(v))
		return field_fail(
		    c, key, -1, ERR_BAD_TYPE, "must be an object, not %s", type_name(v));
	return 0;
}

/* Write known[] as "\"a\", \"b\" or \"c\"" into out (size > 4), "..." when it does not fit. */
static void list_names(char *out, size_t size, const char *const known[])
{
	size_t n = 0, i;

	out[0] = '\0';
	for (i = 0; known[i]; i++) {
		const char *sep = i == 0 ? "" : known[i + 1] ? ", " : " or ";
		int w = snprintf(out + n, size - n, "%s\"%s\"", sep, known[i]);

		if (w < 0 || (size_t)w >= size - n) {
			snprintf(out + (n < size - 4 ? n : size - 4), 4, "...");
			return;
		}
		n += (size_t)w;
	}
}

int field_known(const struct field_ctx *c, const char *const known[])
{
	char expected[ERR_MESSAGE_MAX - 64];
	const char *key;
	json_t *member;
	size_t i;

	if (!c->obj)
		return 0;
	json_object_foreach (c->obj, key, member) {
		for (i = 0; known[i]; i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (known[i])
			continue;
		/* say what would have been right at this level, not just what is wrong */
		list_names(expected, sizeof expected, known);
		return field_fail(c, key, -1, ERR_UNKNOWN_FIELD,
		    "unknown field \"%s\"; the fields here are %s", key, expected);
	}
	return 0;
}

int field_require(const struct field_ctx *c, const char *key)
{
	if (c->obj && json_object_get(c->obj, key))
		return 0;
	return field_fail(c, key, -1, ERR_MISSING_FIELD, "required field \"%s\" is missing", key);
}

/* Read v as a finite number; failures name element index (-1: the member itself). */
static int as_number(
    const struct field_ctx *c, const char *key, long index, const json_t *v, double *out)
{
	double x;

	if (!json_is_number(v))
		return field_fail(
		    c, key, index, ERR_BAD_TYPE, "must be a number, not %s", type_name(v));
	x = json_number_value(v);
	/* jansson cannot hold a non-finite number; this guards the invariant all the same */
	if (!isfinite(x))
		return field_fail(c, key, index, ERR_BAD_VALUE, "must be finite");
	/* -0 is 0: one request (one cache key), and no -0 carried into an answer */
	*out = x == 0 ? 0.0 : x;
	return 0;
}

int field_number(const struct field_ctx *c, const char *key, double *out)
{
	json_t *v = c->obj ? json_object_get(c->obj, key) : NULL;

	return v ? as_number(c, key, -1, v, out) : 0;
}

int field_numbers(const struct field_ctx *c, const char *key, size_t n, double *out)
{
	json_t *v = c->obj ? json_object_get(c->obj, key) : NULL;
	double values[8];
	size_t i;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return field_fail(c, key, -1, ERR_BAD_TYPE,
		    "must be an array of %zu numbers, not %s", n, type_name(v));
	if (json_array_size(v) != n || n > sizeof values / sizeof values[0])
		return field_fail(c, key, -1, ERR_BAD_VALUE, "must have %zu numbers, not %zu", n,
		    json_array_size(v));
	/* read all before writing any, so a failure leaves *out as it was */
	for (i = 0; i < n; i++)
		if (as_number(c, key, (long)i, json_array_get(v, i), &values[i]) != 0)
			return -1;
	memcpy(out, values, n * sizeof *out);
	return 0;
}

int field_int(const struct field_ctx *c, const char *key, int *out)
{
	json_t *v = c->obj ? json_object_get(c->obj, key) : NULL;
	double x;

	if (!v)
		return 0;
	if (as_number(c, key, -1, v, &x) != 0)
		return -1;
	if (x != floor(x) || x < INT_MIN || x > INT_MAX)
		return field_fail(c, key, -1, ERR_BAD_VALUE, "must be an integer");
	*out = (int)x;
	return 0;
}

int field_bool(const struct field_ctx *c, const char *key, int *out)
{
	json_t *v = c->obj ? json_object_get(c->obj, key) : NULL;

	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return field_fail(
		    c, key, -1, ERR_BAD_TYPE, "must be true or false, not %s", type_name(v));
	*out = json_is_true(v);
	return 0;
}

int field_choice(
    const struct field_ctx *c, const char *key, const char *const names[], int count, int *out)
{
	json_t *v = c->obj ? json_object_get(c->obj, key) : NULL;
	/* every choice, whole: the message names them all (checked below, never cut) */
	char choices[ERR_MESSAGE_MAX - 64] = "";
	size_t used = 0, need;
	int i;

	if (!v)
		return 0;
	if (!json_is_string(v))
		return field_fail(
		    c, key, -1, ERR_BAD_TYPE, "must be a string, not %s", type_name(v));
	for (i = 0; i < count; i++) {
		if (strcmp(json_string_value(v), names[i]) == 0) {
			*out = i;
			return 0;
		}
		need = strlen(names[i]) + 4; /* ", " and the quotes */
		if (used + need >= sizeof choices)
			return field_fail(c, key, -1, ERR_INTERNAL, "too many choices to list");
		used += (size_t)snprintf(
		    choices + used, sizeof choices - used, "%s\"%s\"", i ? ", " : "", names[i]);
	}
	return field_fail(c, key, -1, ERR_BAD_VALUE, "must be one of %s", choices);
}

json_t *field_reals(const double *values, size_t n)
{
	json_t *array = json_array();
	size_t i;

	for (i = 0; array && i < n; i++) {
		if (json_array_append_new(array, json_real(values[i])) != 0) {
			json_decref(array);
			return NULL;
		}
	}
	return array;
}
