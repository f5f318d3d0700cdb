/*
 * eval.h: POST /v1/eval, the seed lesson's functions by name, for autograders.
 *
 * One call {"function": NAME, "args": {...}, "id": ID} answers {"function": NAME,
 * "result": {...}, "id": ID}; "id" (a string or a number) is optional and
 * echoed. A single call that is invalid is rejected (4xx) as any request.
 *
 * A batch {"calls": [call, ...]} answers {"results": [entry, ...], "failed": N}
 * in the same order, each entry the call's answer or, for a call that is
 * invalid, its error {"error", "message", "path", "status", "id", "function"}
 * with path a JSON Pointer into the whole body ("/calls/3/args/solimp/2") and
 * status the HTTP status the call would have had alone. Only a malformed
 * envelope (not an object, unknown members, "calls" not an array, over the
 * call or step limits) rejects a batch.
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

/* Validate an eval request (at most max_calls calls in a batch); *canonical is
 * a new reference the caller owns, every argument filled. */
int eval_canonical(json_t *body, long max_calls, json_t **canonical, struct err *err);

/* Answer a (canonical) eval request; *answer is a new reference the caller owns. */
int eval_answer(json_t *canonical, long max_calls, json_t **answer, struct err *err);

#endif
