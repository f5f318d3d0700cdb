/*
 * answer.h: compute the rest, drop and stability answers with the core, and
 * list their fields in one fixed order (JSON objects and sweep columns alike).
 *
 * No answer field is ever a non-finite number: such a value becomes JSON null
 * and the answer's "diverged" field is true.
 */
#ifndef CONTACTD_SERVICE_ANSWER_H
#define CONTACTD_SERVICE_ANSWER_H

#include <stddef.h>
#include <jansson.h>

#include "core/growth.h"
#include "core/hold.h"
#include "core/scene.h"
#include "core/sim.h"
#include "service/hold.h"
#include "service/request.h"
#include "service/service.h"

/* One validated question: a scene (rest, drop), a stability or a hold request. */
struct ans_request {
	enum svc_endpoint query; /* SVC_REST, SVC_DROP, SVC_STABILITY or SVC_HOLD */
	union {
		struct req_scene scene;
		struct req_stability stability;
		struct hold_request hold;
	} u;
};

struct ans_result {
	enum svc_endpoint query;
	int mujoco;          /* the MuJoCo release whose rules were used (an mjver index) */
	int solref_fallback; /* a mixed-sign solref was replaced by MuJoCo's default */
	int direct;          /* solref in the direct form: no time constant */
	union {
		struct ctd_sim_rest rest;
		struct ctd_sim_drop drop;
		struct ctd_growth_report stability;
		struct ctd_hold_answer hold; /* crushed: every answer field null (hold_run's 422) */
	} u;
};

/* The canonical JSON of a validated request; NULL if out of memory. Caller owns it. */
json_t *ans_request_json(const struct ans_request *r);

/* Make the field ptr names exist in v, a canonical request of query, so a JSON
 * Pointer into it resolves (req_scene_expose() for scenes). */
int ans_request_expose(enum svc_endpoint query, json_t *v, const char *ptr, struct err *err);

/* Simulated steps of a validated request (0: no simulation). */
long ans_request_steps(const struct ans_request *r);

/* Answer one request. Pure computation: safe to call from many threads at once. */
void ans_compute(const struct ans_request *req, struct ans_result *out);

/* ans_compute(), a drop also recording its trajectory into trace (the caller's; NULL:
 * none) in the same loop that measures it. */
void ans_compute_traced(
    const struct ans_request *req, struct ans_result *out, struct ctd_sim_trace *trace);

enum ans_type { ANS_NULL, ANS_REAL, ANS_INTEGER, ANS_BOOL, ANS_STRING };

/* One field of an answer. */
struct ans_field {
	const char *name; /* static string */
	enum ans_type type;
	double real;
	long integer;     /* ANS_INTEGER, and ANS_BOOL as 0 or 1 */
	const char *text; /* ANS_STRING: a static string */
};

#define ANS_MAX_FIELDS 20

/* The answer fields of each query, in order, NULL-terminated (the endpoint table's). */
extern const char *const ans_rest_fields[];
extern const char *const ans_drop_fields[];
extern const char *const ans_stability_fields[];

/* The fields of a result in their documented order, then "solref_fallback",
 * "diverged", "mujoco" (the release whose rules were used) and "core_version";
 * a hold result's are hold_fields[] alone (service/hold.h); returns the count. */
size_t ans_fields(const struct ans_result *r, struct ans_field out[ANS_MAX_FIELDS]);

/* The JSON value of one field; NULL if out of memory. Caller owns it. */
json_t *ans_field_json(const struct ans_field *f);

/* The answer as a JSON object; NULL if out of memory. Caller owns it. */
json_t *ans_to_json(const struct ans_result *r);

/* Set obj's "mujoco" (the name of release mujoco, an mjver index) and "core_version",
 * as every answer carries them; the answers that are not one result's field list (eval,
 * find) call it. Returns obj, or NULL (obj released) if obj is NULL or out of memory. */
json_t *ans_with_release(json_t *obj, int mujoco);

#endif
