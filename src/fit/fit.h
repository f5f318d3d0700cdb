/*
 * fit.h: fitting a gripper pad's solref to what a robot measured (issue #4); the measurements:
 * below, their model: fit/model.h, the pipeline: fit/fit.c. Fitted: log(timeconst),
 * log(dampratio) over a box (one timestep to 0.5 s, 0.05 to 4) and each trajectory's release
 * time and height (nuisance); residuals (model - measured) / sigma, the model stepped with
 * refsafe off (the spring named). Presses alone fix only timeconst*dampratio. A standard error
 * is half its 1-sigma likelihood-ratio interval's width, the correlation what the spreads of
 * the two logs and their sum imply; the releases' are the covariance's. solimp is not fitted.
 * JSON, MJCF: calib/result.h. Pure computation: no I/O, no global state; thread-safe.
 */
#ifndef CONTACTD_FIT_FIT_H
#define CONTACTD_FIT_FIT_H

#include "base/error.h"
#include "fit/types.h"

/* Fit the pad's solref to data. setup: a validated scene, the pad as floor (its solref the start
 * and a held parameter's value), the object as body and geom (height, duration ignored). Too
 * little data: FIT_INSUFFICIENT. Fails when out of memory (ERR_INTERNAL), or when bound (NULL:
 * never) stops it (ERR_UNAVAILABLE, saying why); the caller frees *out with fit_free(). */
int fit_solref(const struct core_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct fit_result **out, struct err *err);

/* Free a fit and everything it owns. NULL is a no-op. */
void fit_free(struct fit_result *fit);

#endif
