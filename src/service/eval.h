/*
 * eval.h: POST /v1/eval, the seed lesson's functions by name, for autograders.
 *
 * One call {"function": NAME, "args": {...}} answers {"function": NAME,
 * "result": {...}}; a batch {"calls": [call, ...]} answers {"results":
 * [answer, ...]} in the same order. Arguments carry the lesson's names; those
 * with a default in the lesson (refsafe = true, integrator = "Euler") may be
 * omitted, the others are required:
 *
 *   impedance           {r, solimp}                          -> {value, derivative}
 *   solref_kb           {solref, dmax, h, refsafe}           -> {K, B, timeconst_used}
 *   contact_accel       {dist, vel, a0, solref, solimp, h, refsafe} -> {value}
 *   resting_penetration {a_u, solref, solimp, h, refsafe}    -> {value}
 *   step_growth         {k, c, h, integrator}                -> {value}
 *   error_reduction     {timeconst, dampratio, dt}           -> {value}
 *
 * A result that does not exist (no equilibrium, no time constant in the
 * direct form) is null; a non-finite one is null too, and the result then
 * carries "diverged": true.
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
