/*
 * field.h: typed, validated reads of the members of one JSON object of a
 * request, and the canonical JSON of numbers.
 *
 * A struct field_ctx is one object of the request and its JSON Pointer. Every
 * reader leaves *out untouched when the member is absent, so callers fill the
 * defaults first; on a present member of the wrong type or value it fails
 * with the member's path. A context whose obj is NULL (an omitted object)
 * reads every member as absent.
 */
#ifndef CONTACTD_BASE_FIELD_H
#define CONTACTD_BASE_FIELD_H

#include <stddef.h>
#include <jansson.h>

#include "base/error.h"

struct field_ctx {
	json_t *obj;             /* borrowed; NULL when the object was omitted */
	char path[ERR_PATH_MAX]; /* JSON Pointer of obj in the request */
	struct err *err;         /* where failures are reported */
};

/* A context for the object v at path; bad_type unless v is an object. */
int field_root(struct field_ctx *c, json_t *v, const char *path, struct err *err);

/* The nested object c[key]: child->obj is NULL when absent; bad_type unless an object. */
int field_object(const struct field_ctx *c, const char *key, struct field_ctx *child);

/* unknown_field for the first member whose name is not in known (NULL-terminated). */
int field_known(const struct field_ctx *c, const char *const known[]);

/* missing_field unless c has member key. */
int field_require(const struct field_ctx *c, const char *key);

/* A finite JSON number. */
int field_number(const struct field_ctx *c, const char *key, double *out);

/* An array of exactly n finite numbers. */
int field_numbers(const struct field_ctx *c, const char *key, size_t n, double *out);

/* A number with an integral value that fits an int (3 and 3.0 alike). */
int field_int(const struct field_ctx *c, const char *key, int *out);

/* A JSON boolean, as 0 or 1. */
int field_bool(const struct field_ctx *c, const char *key, int *out);

/* A string equal to one of names[0..count-1]; *out is its index. */
int field_choice(
    const struct field_ctx *c, const char *key, const char *const names[], int count, int *out);

/* bad_value at c[key] (element index, -1 for the member) unless value >= 0; returns 0
 * or -1. */
int field_non_negative(const struct field_ctx *c, const char *key, long index, double value);

/* bad_value at c[key] (element index, -1 for the member) unless 0 < value <= limit;
 * returns 0 or -1. */
int field_positive_within(
    const struct field_ctx *c, const char *key, long index, double value, double limit);

/* Fail with code at c's member key (index >= 0: that element of it); returns -1. */
int field_fail(const struct field_ctx *c, const char *key, long index, enum err_code code,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The JSON Pointer of c's member key, into buf of ERR_PATH_MAX bytes. */
void field_path(const struct field_ctx *c, const char *key, char *buf);

/* A JSON array of n reals; NULL if out of memory. Caller owns it. */
json_t *field_reals(const double *values, size_t n);

#endif
