/*
 * fit.h: fitting a gripper pad's solref to what a robot measured (issue #4); the measurements:
 * fit/input.h, their model: fit/model.h, the pipeline: fit/fit.c. Fitted: log(timeconst),
 * log(dampratio) over a box (one timestep to 0.5 s, 0.05 to 4) and each trajectory's release
 * time and height (nuisance); residuals (model - measured) / sigma, the model stepped with
 * refsafe off (the spring named). Presses alone fix only timeconst*dampratio. A standard error
 * is half its 1-sigma likelihood-ratio interval's width, the correlation what the spreads of
 * the two logs and their sum imply; the releases' are the covariance's. solimp is not fitted.
 * JSON, MJCF: calib/result.h. Pure computation: no I/O, no global state; thread-safe.
 */
#ifndef CONTACTD_FIT_FIT_H
#define CONTACTD_FIT_FIT_H

#include <stddef.h>

#include "base/error.h"
#include "core/scene.h"
#include "fit/input.h"

#define FIT_MAX_NOTES 8
#define FIT_NOTE_MAX 480

/* Where timeconst and dampratio are in the two-element arrays of struct fit_result. */
enum { FIT_TC, FIT_DR };

enum fit_status {
	FIT_OK,           /* both determined: each 2-sigma interval bounded on both sides */
	FIT_PARTIAL,      /* a combination determined, one parameter held, pinned or open */
	FIT_INSUFFICIENT, /* nothing determined: too few or uninformative measurements */
	FIT_FEW_DOF,      /* both, but under CALIB_MIN_DOF dof: the stated sigmas unchecked */
	FIT_MISFIT, /* chi^2 beyond its 1 - CALIB_MISFIT_P quantile (status.c); before few_dof */
};

/* How the confidence intervals were found (see fit/interval.h). */
enum fit_interval_basis {
	FIT_INTERVAL_LIKELIHOOD_RATIO, /* chi^2 - chi^2_min <= k^2 s^2 */
	FIT_INTERVAL_CHI2_TEST,        /* also chi^2 <= its n-dof quantile: few dof */
};

/* What a trajectory's nuisance parameters came out as. */
struct fit_traj {
	double release_time, release_height; /* s, m */
	double se_release_time, se_release_height;
	double rms, max_abs; /* m, of measured - model over its samples */
};

/* A fit. Owned by whoever called fit_solref(); release with fit_free(). */
struct fit_result {
	enum fit_status status;
	struct core_scene scene;     /* the setup with the fitted pad solref */
	double timeconst, dampratio; /* solref, standard form */
	double stiffness, damping;   /* solref_direct = [-stiffness, -damping] */
	int identified[2];           /* timeconst, dampratio determined by the data */
	int held[2];                 /* kept at its starting or phase-one value */
	/* Not identified: pinned at an edge of the box, chi^2 lowest there (-1 lower, +1 upper;
	 * never misfit: a pad beyond may fit), or open: its 2-sigma interval, se NAN (issue #29).
	 */
	int pinned[2], open[2];
	double se_log[2]; /* of log(timeconst), log(dampratio): half the 1-sigma width */
	/* 1- and 2-sigma intervals of the logs, [parameter][k - 1][low, high]: +-inf where open,
	 * NAN when not identified. */
	double interval_log[2][2][2];
	enum fit_interval_basis interval_basis;
	double correlation;     /* of the two logs, when both are fitted */
	int product_identified; /* timeconst*dampratio determined */
	double se_log_product;  /* standard error of log(timeconst*dampratio) */
	double chi2;            /* sum of squared weighted residuals */
	long dof;               /* residuals - fitted parameters */
	int se_scaled;          /* levels and errors scaled by chi2/dof */
	int iterations;         /* trust-region iterations of the descents */
	size_t ndrops, npresses, ntrajectories, nsamples;
	double *drop_model;     /* model rebound of each drop (ndrops) */
	double *drop_residual;  /* measured - model rebound (ndrops) */
	double *press_model;    /* model deflection of each press (npresses) */
	double *press_residual; /* measured - model deflection (npresses) */
	struct fit_traj *traj;  /* ntrajectories */
	/* 2 * timestep; discrete: timestep / (sqrt(solimp[1]) * dampratio), where refsafe
	 * starts replacing the fitted spring's deepest row */
	double refsafe_min;
	int below_refsafe; /* timeconst < refsafe_min */
	double growth;     /* rest-spring growth per step (/v1/stability) */
	double chatter;    /* jitter (m) of a body placed on the pad, last 0.5 s */
	size_t nnotes;
	char notes[FIT_MAX_NOTES][FIT_NOTE_MAX];
};

/* Fit the pad's solref to data. setup: a validated scene, the pad as floor (its solref the start
 * and a held parameter's value), the object as body and geom (height, duration ignored). Too
 * little data: FIT_INSUFFICIENT. Fails only when out of memory (ERR_INTERNAL); the caller frees
 * *out with fit_free(). */
int fit_solref(const struct core_scene *setup, const struct calib_data *data,
    struct fit_result **out, struct err *err);

/* fit_solref() that gives up when bound says so (NULL: never): ERR_UNAVAILABLE, saying why. */
int fit_solref_within(const struct core_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct fit_result **out, struct err *err);

/* Free a fit and everything it owns. NULL is a no-op. */
void fit_free(struct fit_result *fit);

#endif
