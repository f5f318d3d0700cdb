/*
 * vary.h: what sweep and find share: a rest, drop, stability or hold request (the
 * query) with one field changed at a JSON Pointer, and the named aliases of the
 * pointers people vary most.
 *
 * Aliases are resolved per query: each kind lists its own (struct ans_kind's
 * aliases, in the kind's file; man/contact.1's ALIASES lists them all, and
 * tests/test_find.c holds the page and the kinds equal). A name one kind has and
 * another lacks is "not an alias" for the other.
 */
#ifndef CONTACTD_SERVICE_VARY_H
#define CONTACTD_SERVICE_VARY_H

#include <stddef.h>

#include <jansson.h>

#include "base/error.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "base/field.h"

/* Read c[key] (required) as the name of a sweepable endpoint (a row with a kind):
 * *out is its row, in the endpoint table. */
int vary_query(const struct field_ctx *c, const char *key, const struct svc_endpoint_def **out);

/* Set ptr in the canonical request v of kind to value (the caller keeps its
 * reference): a floor field the request left to the geom becomes the floor's own first. */
int vary_set(const struct ans_kind *kind, json_t *v, const char *ptr, json_t *value,
    const char *where, struct err *err);

/*
 * Resolve c[key], a JSON Pointer or an alias, for the query into ptr
 * (ERR_PATH_MAX bytes), and check that it names a field of the canonical
 * request base: bad_type unless a string, bad_value for an unknown alias
 * (listing the query's) or the whole request, unknown_field for a pointer that
 * names nothing. *is_number (may be NULL) says whether the field is a number in
 * base. base is unchanged. Errors go to c->err.
 */
int vary_pointer(const struct svc_endpoint_def *query, json_t *base, const struct field_ctx *c,
    const char *key, char *ptr, int *is_number);

/* The pointer alias name stands for in kind's requests (a static string), or NULL
 * when kind has no such alias. */
const char *vary_alias(const struct ans_kind *kind, const char *name);

/* 1 when ptr points into the floor ("/floor/..."): such a field is set after the
 * others, so it follows the geom's values it does not set, whatever the order. */
int vary_is_floor(const char *ptr);

#endif
