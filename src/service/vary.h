/*
 * vary.h: what sweep and find share: a rest, drop, stability or hold request (the
 * query) with one field changed at a JSON Pointer, and the named aliases of the
 * pointers people vary most.
 *
 * Aliases (resolved per query; the answer names the resolved pointer):
 *   name        rest, drop           stability          hold
 *   timeconst   /geom/solref/0       /solref/0          /pad/solref/0
 *   dampratio   /geom/solref/1       /solref/1          /pad/solref/1
 *   timestep    /option/timestep     /option/timestep   /option/timestep
 *   d0 dwidth width midpoint power   /geom/solimp/0..4    /solimp/0..4   /pad/solimp/0..4
 *   impedance   -                    /impedance         -
 *   mass        /body/mass           -                  /object/mass
 *   height      /height              -                  -
 *   duration    /duration            -                  /duration
 *   gravity     /option/gravity      -                  /option/gravity
 *   impratio    /option/impratio     -                  /option/impratio
 *   friction    /geom/friction/0     -                  /pad/friction/0
 *   margin      /geom/margin         -                  -
 *   gap         /geom/gap            -                  -
 *   grip_force  -                    -                  /grip_force
 *   cone        -                    -                  /option/cone
 *   size        -                    -                  /object/size
 *   pad_mass    -                    -                  /pad/mass
 *   slip_limit  -                    -                  /slip_limit
 */
#ifndef CONTACTD_SERVICE_VARY_H
#define CONTACTD_SERVICE_VARY_H

#include <stddef.h>

#include <jansson.h>

#include "base/error.h"
#include "service/answer.h"
#include "base/field.h"
#include "service/service.h"

/* Read c[key] (required) as the name of a sweepable endpoint (a row with a point()). */
int vary_query(const struct field_ctx *c, const char *key, enum svc_endpoint *out);

/* Set ptr in the canonical request v of query to value (the caller keeps its
 * reference): a floor field the request left to the geom becomes the floor's own first. */
int vary_set(enum svc_endpoint query, json_t *v, const char *ptr, json_t *value, const char *where,
    struct err *err);

/*
 * Resolve c[key], a JSON Pointer or an alias, for the query into ptr
 * (ERR_PATH_MAX bytes), and check that it names a field of the canonical
 * request base: bad_type unless a string, bad_value for an unknown alias
 * (listing the query's) or the whole request, unknown_field for a pointer that
 * names nothing. *is_number (may be NULL) says whether the field is a number in
 * base. base is unchanged. Errors go to c->err.
 */
int vary_pointer(enum svc_endpoint query, json_t *base, const struct field_ctx *c, const char *key,
    char *ptr, int *is_number);

/*
 * The index-th alias of the table above (from 0): its name, and its pointer in a rest or
 * drop, a stability and a hold request (NULL where that query has none; any out-argument
 * may be NULL). Static strings. 0, or -1 past the last alias. man/contact.1 lists each
 * (tests/test_find.c holds them equal).
 */
int vary_alias(
    size_t index, const char **name, const char **scene, const char **stability, const char **hold);

/* 1 when ptr points into the floor ("/floor/..."): such a field is set after the
 * others, so it follows the geom's values it does not set, whatever the order. */
int vary_is_floor(const char *ptr);

#endif
