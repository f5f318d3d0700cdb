/*
 * audit.h: a calibration's measurements at a pad of the caller's choice (issue #29), weighed
 * exactly as the fit (fit/fit.h) weighs them, so that a lab can check a fit or compare it with
 * a pad it knows. A trajectory's release is profiled at the pad as the fit's map profiles it,
 * also from a stored fit's (at the fit's pad: the fit's). Pure computation; thread-safe.
 */
#ifndef CONTACTD_FIT_AUDIT_H
#define CONTACTD_FIT_AUDIT_H

#include "base/error.h"
#include "fit/types.h"

/* One drop's or press's evaluation. */
struct audit_point {
	double model;        /* m: the rebound or deflection at the pad; NAN if it diverged */
	double residual;     /* m: measured - model (NAN with model) */
	double sigma;        /* m: the one standard deviation the fit uses */
	double contribution; /* ((model - measured) / sigma)^2, capped as the fit caps it */
};

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

/* data evaluated on setup (as fit_solref()'s) at solref [timeconst, dampratio], finite and > 0.
 * releases (NULL: none): a (time, height) start of each trajectory in turn, a non-finite pair
 * not tried. Fails only when out of memory (ERR_INTERNAL); the caller frees *out (audit_free()).
 * Its loops poll the calling thread's budget (core/budget.h): once it stopped, *out is partial,
 * for the caller to discard. */
int audit_solref(const struct core_scene *setup, const struct calib_data *data, double timeconst,
    double dampratio, const double *releases, struct audit_result **out, struct err *err);

/* Free an evaluation. NULL is a no-op. */
void audit_free(struct audit_result *a);

#endif
