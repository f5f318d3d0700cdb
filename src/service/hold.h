/*
 * hold.h: POST /v1/hold and `contact hold` (issue 21): will the gripper hold it?
 *
 * The request is the scene of the issue, with issue 48's shapes and drives:
 *   {"object": {"shape": "sphere" | "capsule" | "box", "size": r | [r] | [r, half_length]
 *               | [hx, hy, hz], "mass": M, <geom fields>},
 *    "pad": {"size": [HX, HY, HZ], "mass": MP, <geom fields>,
 *            "joint": {"damping", "armature", "frictionloss"},
 *            "actuator": {"type": "motor"} | {"type": "position", "kp", "kv", "squeeze",
 *                         "forcerange": [lo, hi]}},
 *    "grip_force": F (a motor's only),
 *    "option": {"timestep", "cone", "impratio", "noslip_iterations", "gravity", "refsafe",
 *               "integrator", "mujoco"},
 *    "duration": T, "slip_limit": L}
 * The pads' omitted geom fields are the Menagerie SO-101 gripper class (solref 0.01 1,
 * condim 6, friction 1 5e-3 5e-4, priority 1), the object's MuJoCo's defaults; the
 * joint's 0, the actuator a motor; the other defaults are the measured scene
 * (core/knobs.h). The answer is the core's (core/hold.h), fields in the order of the
 * row's (svc_ep_hold.fields).
 */
#ifndef CONTACTD_SERVICE_HOLD_H
#define CONTACTD_SERVICE_HOLD_H

#include <jansson.h>

#include "base/error.h"
#include "core/hold.h"

/* A validated hold request. */
struct hold_request {
	struct core_hold scene;
};

/* Validate body into a new *out the caller frees with hold_request_free(). A scene the
 * core does not reproduce (core_hold_supported(): RK4, noslip with a capsule, ...) is a
 * 422 (bad_value) with the core's sentence, at the first field whose return to the
 * plain scene (Euler, no noslip, a plain joint, a motor, a sphere) lifts it. */
int hold_parse(json_t *body, struct hold_request **out, struct err *err);

/* hold_parse() into the caller's *r, errors under JSON Pointer path (a sweep's or a
 * find's point: "/base", or "" for the request itself). */
int hold_parse_at(json_t *body, const char *path, struct hold_request *r, struct err *err);

/* The canonical JSON of a request (every default filled, but a plain joint, a motor and
 * a servo's grip_force left out, as before issue 48); NULL when out of memory. */
json_t *hold_request_json(const struct hold_request *r);

/* Answer a request into a new *answer the caller owns (the row's fields, the same list
 * a hold sweep's rows have). A scene whose pads reach the object's centre is a 422 at
 * /grip_force (MuJoCo's pinch is no longer two contacts); in a sweep that point's
 * row has every answer field null. */
int hold_run(const struct hold_request *r, json_t **answer, struct err *err);

void hold_request_free(struct hold_request *r);

#endif
