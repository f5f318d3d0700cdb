/*
 * sceneset.h: set a few fields of a validated scene request directly, as a
 * sweep does for each point, instead of setting them in its canonical JSON and
 * validating the whole request again.
 *
 * Covered pointers (rest and drop requests): /geom/<f> and /floor/<f> for every
 * geom field f (an array's element: solref/0-1, solimp/0-4, friction/0-2; the
 * scalars condim, margin, gap, solmix, priority), /option/timestep,
 * /option/gravity, /option/impratio, /height and /duration. Anything else
 * (the body, a whole array, a string or boolean field) is not covered.
 *
 * The contract: when sceneset_apply() returns 0, the request equals, field for
 * field, what req_scene_parse() gives for the canonical JSON of the request with
 * the same values set by vary_set() (the /floor/ ones last). When it returns -1
 * the value is one the parser may reject, or whose effect this module does not
 * follow; the caller must then parse the full request, which also gives the
 * parser's own error. A new rule in req_scene_parse() on a covered field, or
 * across one, must be followed here too (tests/test_sceneset.c compares both).
 */
#ifndef CONTACTD_SERVICE_SCENESET_H
#define CONTACTD_SERVICE_SCENESET_H

#include <jansson.h>
#include <stddef.h>

#include "service/request.h"

/* A covered pointer, resolved once. */
struct sceneset_path {
	int target; /* enum in sceneset.c: a geom field or an option/scene member */
	int floor;  /* 1: the floor's geom, 0: the body's */
	int index;  /* the array element; -1 for a scalar */
};

/* 1 and *out filled when ptr (a JSON Pointer) is covered; 0 when it is not. */
int sceneset_path(const char *ptr, struct sceneset_path *out);

/*
 * Set value[i] (borrowed) at path[i], for i < n, on *r (a request parsed by
 * req_scene_parse() from a canonical request), the /floor/ paths after the
 * others, as the sweep's points are made. Returns 0 when *r is now the full
 * parse's request; -1 (*r in an unspecified state) when the caller must parse
 * the full request instead.
 */
int sceneset_apply(
    struct req_scene *r, const struct sceneset_path path[], json_t *const value[], size_t n);

#endif
