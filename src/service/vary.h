/*
 * vary.h: what sweep and find share: a rest, drop or stability request (the
 * query) with one field changed at a JSON Pointer, and the named aliases of the
 * pointers people vary most.
 *
 * Aliases (resolved per query; the answer names the resolved pointer):
 *   name        rest, drop           stability
 *   timeconst   /geom/solref/0       /solref/0
 *   dampratio   /geom/solref/1       /solref/1
 *   timestep    /option/timestep     /option/timestep
 *   d0 dwidth width midpoint power   /geom/solimp/0..4    /solimp/0..4
 *   impedance   -                    /impedance
 *   mass        /body/mass           -
 *   height      /height              -
 *   duration    /duration            -
 *   gravity     /option/gravity      -
 *   impratio    /option/impratio     -
 *   friction    /geom/friction/0     -
 *   margin      /geom/margin         -
 *   gap         /geom/gap            -
 */
#ifndef CONTACTD_SERVICE_VARY_H
#define CONTACTD_SERVICE_VARY_H

#include <jansson.h>

#include "service/answer.h"
#include "service/error.h"
#include "service/field.h"

/* The query's name: "rest", "drop", "stability" (a static string). */
const char *vary_query_name(enum ans_query query);

/* Read c[key] (required) as a query name. */
int vary_query(const struct field_ctx *c, const char *key, enum ans_query *out);

/* Validate v (at path) as a request of the query into *out; errors at their field. */
int vary_parse(
    enum ans_query query, json_t *v, const char *path, struct ans_request *out, struct err *err);

/* The canonical JSON of a validated request; NULL if out of memory. Caller owns it. */
json_t *vary_request_json(const struct ans_request *r);

/* Set ptr in the canonical request v to value (the caller keeps its reference): a
 * floor field the request left to the geom becomes the floor's own first. */
int vary_set(enum ans_query query, json_t *v, const char *ptr, json_t *value, const char *where,
    struct err *err);

/*
 * Resolve c[key], a JSON Pointer or an alias, for the query into ptr
 * (ERR_PATH_MAX bytes), and check that it names a field of the canonical
 * request base: bad_value for an unknown alias (listing the known ones) or the
 * whole request, unknown_field for a pointer that names nothing. *is_number
 * (may be NULL) says whether the field is a number in base. base is unchanged.
 */
int vary_pointer(enum ans_query query, json_t *base, const struct field_ctx *c, const char *key,
    char *ptr, int *is_number);

/* 1 when ptr points into the floor ("/floor/..."): such a field is set after the
 * others, so it follows the geom's values it does not set, whatever the order. */
int vary_is_floor(const char *ptr);

#endif
