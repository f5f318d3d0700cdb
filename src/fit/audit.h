/*
 * audit.h: a calibration's measurements evaluated at a pad of the caller's choice (issue
 * #29's audit): each measurement's model value, residual, sigma and contribution to chi^2,
 * exactly as the fit (fit/fit.h) weighs them, so that a lab can check a fit, or compare it
 * with a pad it knows, in the fit's own model.
 *
 * The model is the fit's (fit/model.h, refsafe off: the spring the solref names), the
 * sigmas the fit's (a measurement's own, else fit/knobs.h's noise scale), and chi^2 the sum
 * of squared weighted residuals, each capped at RESIDUAL_CAP as the fit caps them. A
 * trajectory's samples from its second impact on are left out as the fit leaves them out,
 * and its release time and height (nuisance parameters) are fitted at the asked pad:
 * Levenberg-Marquardt from its free fall and, when given, from a stored fit's releases,
 * the lower chi^2 kept (at the fit's own pad, from the fit's releases, that is the fit's
 * chi^2).
 *
 * Pure computation: no I/O, no global state; safe to call from many threads.
 */
#ifndef CONTACTD_FIT_AUDIT_H
#define CONTACTD_FIT_AUDIT_H

#include <stddef.h>

#include "base/error.h"
#include "core/scene.h"
#include "fit/input.h"

/* One drop's or press's evaluation. */
struct audit_point {
	double model;        /* m: the rebound or deflection at the pad; NAN if it diverged */
	double residual;     /* m: measured - model (NAN with model) */
	double sigma;        /* m: the one standard deviation the fit uses */
	double contribution; /* ((model - measured) / sigma)^2, capped as the fit caps it */
};

/* One trajectory's evaluation. */
struct audit_traj {
	size_t fitted;                       /* samples weighed (before the second impact) */
	double release_time, release_height; /* s, m: fitted at the pad */
	double sigma;                        /* m, per sample */
	double rms, max_abs;                 /* m, of measured - model over the fitted samples */
	double contribution;                 /* its samples' share of chi^2 */
};

/* An evaluation. Owned by whoever called audit_solref(); release with audit_free(). */
struct audit_result {
	double timeconst, dampratio; /* the pad asked */
	size_t ndrops, npresses, ntrajectories;
	struct audit_point *drops, *presses; /* ndrops, npresses */
	struct audit_traj *traj;             /* ntrajectories */
	size_t n;                            /* weighed residuals: drops + presses + samples */
	double chi2;
};

/*
 * audit_solref: data evaluated on setup (a validated scene: the pad as floor, the object as
 * body and geom) with the pad's solref [timeconst, dampratio] (s, and a ratio: both finite and
 * positive, the caller's checks). releases (NULL: none) holds 2 * data->ntrajectories starting
 * values, (release time, release height) of each trajectory in turn, e.g. a stored fit's; a
 * non-finite pair is not tried. Fails only when out of memory (ERR_INTERNAL). On success *out
 * is a new evaluation the caller frees with audit_free().
 */
int audit_solref(const struct core_scene *setup, const struct calib_data *data, double timeconst,
    double dampratio, const double *releases, struct audit_result **out, struct err *err);

/* Free an evaluation. NULL is a no-op. */
void audit_free(struct audit_result *a);

#endif
