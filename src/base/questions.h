/*
 * questions.h: the questions layer as the calibration layer sees it, an interface, so
 * that neither includes the other: a calibration's setup is read as a scene request,
 * and a fit's hold verdict is the hold question of the fitted pad. The service
 * implements it (service/calask.h, calask_questions); the front end that runs calibrations
 * binds that implementation once at start-up (questions_bind()), as it binds a store
 * engine to the calibration store.
 *
 * The scenes are the core's structs, only declared here (base includes nothing of the
 * core): the caller and the implementation include core/hold.h.
 */
#ifndef CONTACTD_BASE_QUESTIONS_H
#define CONTACTD_BASE_QUESTIONS_H

#include <jansson.h>

#include "base/error.h"

struct core_scene;
struct core_hold;

struct questions {
	/* Validate the scene request v (a rest or drop body, the floor the geom it faces)
	 * into *scene; *canonical (when not NULL) its canonical JSON, a new reference the
	 * caller owns. Errors carry the offending field's JSON Pointer under "". */
	int (*scene_parse)(json_t *v, struct core_scene *scene, json_t **canonical, struct err *err);
	/* Validate the hold request v (POST /v1/hold's body; {} for every default) into *h,
	 * errors under "". */
	int (*hold_parse)(json_t *v, struct core_hold *h, struct err *err);
	/* The canonical JSON of a validated hold scene; NULL when out of memory. Caller owns
	 * it. */
	json_t *(*hold_json)(const struct core_hold *h);
	/* The answer POST /v1/hold gives for h, a new reference in *answer the caller owns;
	 * -1 with err as the hold question refuses (bad_value) or fails (internal). */
	int (*hold_answer)(const struct core_hold *h, json_t **answer, struct err *err);
};

/* Make q (static, every member set) the questions the calibration layer asks. Call it
 * once, before any calibration is parsed or fitted and before the threads that do so
 * start; not thread-safe against questions_bound(). */
void questions_bind(const struct questions *q);

/* The questions bound, or NULL with err (internal) when no front end bound any. */
const struct questions *questions_bound(struct err *err);

#endif
