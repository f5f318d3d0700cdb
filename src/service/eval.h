/*
 * eval.h: POST /v1/eval, the seed lesson's functions by name, for autograders.
 *
 * One call {"function": NAME, "args": {...}, "id": ID, "mujoco": RELEASE} answers
 * {"function": NAME, "result": {...}, "id": ID, "mujoco": RELEASE, "core_version":
 * CORE_VERSION}; "id" (a string or a number) is optional and echoed; "mujoco" (a
 * release of mjver.h, default DEFAULT_MUJOCO) selects the release whose rules the
 * functions follow (its power shortcut). A single call that is invalid is rejected
 * (4xx) as any request.
 *
 * A batch {"calls": [call, ...], "mujoco": RELEASE} answers {"results": [entry,
 * ...], "failed": N, "mujoco": RELEASE, "core_version": CORE_VERSION} in the same
 * order, each entry the call's answer alone or, for a call that is invalid, its
 * error {"error", "message", "path", "status", "id", "function"} with path a JSON
 * Pointer into the whole body ("/calls/3/args/solimp/2") and status the HTTP status
 * the call would have had alone. The batch's "mujoco" applies to every call that
 * names none. Only a malformed envelope (not an object, unknown members, "calls"
 * not an array, an unknown release, over the call or step limits) rejects a batch.
 *
 * Arguments carry the lesson's names; those with a default in the lesson
 * (refsafe = true, integrator = "Euler") may be omitted, the others are required:
 *
 *   impedance           {r, solimp}                          -> {value, derivative}
 *   solref_kb           {solref, dmax, h, refsafe}           -> {K, B, timeconst_used}
 *   solref_to_spring    {timeconst, dampratio, d, d_w}       -> {b, k}
 *   a_ref               {dist, vel, solref, solimp, h, refsafe} -> {value}
 *   contact_accel       {dist, vel, a0, solref, solimp, h, refsafe} -> {value}
 *   resting_penetration {a_u, solref, solimp, h, refsafe}    -> {value}
 *   semi_implicit_euler {x0, v0, h, steps, accel}            -> {x, v}
 *   step_growth         {k, c, h, integrator}                -> {value}
 *   error_reduction     {timeconst, dampratio, dt}           -> {value}
 *
 * semi_implicit_euler's accel is {"function": "contact_accel", "args": {a0,
 * solref, solimp, refsafe}} (dist = x, vel = v, the step's h) or {"function":
 * "spring", "args": {k, c}} (a = -c*v - k*x); x and v are arrays of steps + 1
 * values, the start and after each step.
 *
 * A result that does not exist (no equilibrium, no time constant in the
 * direct form, no a_ref while dist >= 0) is null; a non-finite one is null
 * too, and the result then carries "diverged": true.
 */
#ifndef CONTACTD_SERVICE_EVAL_H
#define CONTACTD_SERVICE_EVAL_H

#include <jansson.h>

#include "base/error.h"

struct eval_request;

/* Validate an eval request (at most max_calls calls in a batch) into *request, which
 * the caller frees with eval_request_free(). A batch's invalid calls are kept, each
 * with its error; only its envelope fails it. */
int eval_parse(json_t *body, long max_calls, struct eval_request **request, struct err *err);

/* The canonical form of a parsed request, every argument and every release filled;
 * NULL if out of memory. Caller owns it. */
json_t *eval_request_json(const struct eval_request *request);

/* Answer a parsed request; *answer is a new reference the caller owns. */
int eval_run(const struct eval_request *request, json_t **answer, struct err *err);

/* A failed call of a batch, raw as written: the contract's error body of e, the status
 * it would have alone (err_status()), and whatever of raw's id and function name is
 * readable; NULL if out of memory. Caller owns it. */
json_t *eval_failure_json(const json_t *raw, const struct err *e);

/* Free a request of eval_parse(); NULL is a no-op. */
void eval_request_free(struct eval_request *request);

#endif
