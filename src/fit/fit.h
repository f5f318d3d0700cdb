/*
 * fit.h: fitting a gripper pad's solref to what a robot measured (issue #4): the
 * interface of the fit engine. The measurements: fit/input.h; their model: fit/model.h.
 *
 * The fit: parameters log(timeconst), log(dampratio) (plus the nuisance), residuals
 * (model - measured) / sigma, a log-spaced grid for the start (each trajectory's
 * release tried at a few phases of the step), then GSL's trust-region
 * Levenberg-Marquardt (gsl_multifit_nlinear) with a finite-difference Jacobian, the
 * releases first, then the physics, then all; then again from the local minima of fine
 * grids around the minima found (fit/search.h), for the lowest chi^2 over the searched
 * range. The model is evaluated with refsafe off,
 * i.e. exactly the spring the parameters name; a fitted timeconst below 2*timestep is
 * reported, since refsafe would replace it. The standard error of each log parameter
 * (and of their sum) is the largest of: the covariance's, (J'J)^-1 scaled by
 * chi^2/dof (by 1 when dof is 0); the profile likelihood's, the largest distance to an
 * end of the 1-, 2- or 3-sigma likelihood-ratio interval over k; and a parametric
 * bootstrap's, the root-mean-square deviation from the estimate of CALIB_BOOT_REPLICAS
 * refits of data made by the model at the estimate plus noise of the residual scale
 * (fixed seed: the same data give the same answer). With two to six samples in
 * contact at 5 ms chi^2 is a rough, curved valley where the covariance alone comes out
 * 10 to 70 times too small; the correlation is the bootstrap's (the covariance's when
 * there is no bootstrap: an exact fit). A direction whose singular value of the
 * column-scaled Jacobian is below CALIB_RANK_TOLERANCE of the largest is
 * unidentified: one parameter is then held and the rest refitted, and the fit says
 * which combination the data determine
 * (presses alone: only timeconst*dampratio, as the static deflection depends on
 * the stiffness 1/(timeconst*dampratio)^2 only). solimp is not fitted.
 *
 * The stages, one module each: the problem and its residuals (fit/problem.c), a
 * trajectory's first impact and release (fit/traj.c), the starting grid and the minima of
 * grids (fit/grid.c), the descents (fit/descent.c), the whole search (fit/search.c), the
 * standard errors (fit/uncertainty.c, the covariance's; fit/profile.c, the profile
 * likelihood's; fit/bootstrap.c, the bootstrap's), the confidence intervals
 * (fit/interval.c), and this entry
 * with the identification, the status and the notes (fit/fit.c). The answer's JSON and
 * MJCF are the service's (calib/result.h).
 *
 * Pure computation: no I/O, no global state; safe to call from many threads.
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
	FIT_OK,           /* timeconst and dampratio both determined: each one's 2-sigma
	                     interval bounded on both sides */
	FIT_PARTIAL,      /* one combination determined, one parameter held; or one
	                     pinned at an edge of the searched range (fit_result.pinned), or
	                     one whose 2-sigma interval is open (fit_result.open) */
	FIT_INSUFFICIENT, /* nothing determined: too few or uninformative measurements */
	FIT_FEW_DOF,      /* both fitted, but fewer than CALIB_MIN_DOF residual degrees of
	                     freedom: errors from the stated sigmas, unchecked */
	FIT_MISFIT,       /* chi^2 beyond its 1 - CALIB_MISFIT_P quantile (at 0 dof: of the
	                     truth's chi^2, n degrees of freedom): checked before few_dof */
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
	struct core_scene scene;      /* the setup with the fitted pad solref */
	double timeconst, dampratio; /* solref, standard form */
	double stiffness, damping;   /* solref_direct = [-stiffness, -damping] */
	int identified[2];           /* timeconst, dampratio determined by the data */
	int held[2];                 /* kept at its starting or phase-one value */
	/* At an edge of the searched range (-1 lower, +1 upper, 0 not): chi^2 is lowest there
	 * (flat or falling beyond it), so the data bound the parameter on the other side only;
	 * not identified, its intervals open at that edge, status partial (never misfit: a pad
	 * beyond the edge may reach the data). */
	int pinned[2];
	/* Fitted, but its 2-sigma interval is open on a side (within the searched range chi^2
	 * stays within the level out to an edge): not identified, its standard error NAN,
	 * status partial, a note says which side and what would close it (issue #29). */
	int open[2];
	double se_log[2]; /* standard error of log(timeconst), log(dampratio) */
	/* The 1- and 2-sigma confidence intervals of log(timeconst), log(dampratio):
	 * [parameter][k - 1][low, high], -inf or +inf where open (the data bound the
	 * parameter on one side only), NAN when the parameter is not identified.
	 * interval_basis says how they were found. */
	double interval_log[2][2][2];
	enum fit_interval_basis interval_basis;
	double correlation;     /* of the two logs, when both are fitted */
	int product_identified; /* timeconst*dampratio determined */
	double se_log_product;  /* standard error of log(timeconst*dampratio) */
	double chi2;            /* sum of squared weighted residuals */
	long dof;               /* residuals - fitted parameters */
	int se_scaled;          /* standard errors scaled by chi2/dof */
	int replicas;           /* bootstrap replicas behind se_log (0: none, exact) */
	int iterations;         /* trust-region iterations, all phases */
	size_t ndrops, npresses, ntrajectories, nsamples;
	double *drop_model;     /* model rebound of each drop (ndrops) */
	double *drop_residual;  /* measured - model rebound (ndrops) */
	double *press_model;    /* model deflection of each press (npresses) */
	double *press_residual; /* measured - model deflection (npresses) */
	struct fit_traj *traj;  /* ntrajectories */
	/* 2 * timestep; under discrete, where refsafe starts replacing the fitted spring's
	 * deepest row: timestep / (sqrt(solimp[1]) * dampratio) */
	double refsafe_min;
	int below_refsafe; /* timeconst < refsafe_min */
	double growth;          /* rest-spring growth per step (/v1/stability) */
	double chatter;         /* jitter (m) of a body placed on the pad, last 0.5 s */
	size_t nnotes;
	char notes[FIT_MAX_NOTES][FIT_NOTE_MAX];
};

/*
 * fit_solref: fit the pad's solref (setup->floor.solref is the starting value and
 * supplies the held parameter) to data. setup is a validated scene: the pad as
 * floor, the object as body and geom; its height and duration are ignored. Too
 * little data is not an error: the fit says so with FIT_INSUFFICIENT. Fails only
 * when out of memory (ERR_INTERNAL). On success *out is a new fit the caller frees
 * with fit_free().
 */
int fit_solref(const struct core_scene *setup, const struct calib_data *data,
    struct fit_result **out, struct err *err);

/*
 * fit_solref_within: fit_solref() that gives up when bound says so (NULL: never), failing
 * with ERR_UNAVAILABLE and a message that says why.
 */
int fit_solref_within(const struct core_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct fit_result **out, struct err *err);

/* Free a fit and everything it owns. NULL is a no-op. */
void fit_free(struct fit_result *fit);

#endif
