/*
 * fit.h: fitting a gripper pad's solref to what a robot measured (issue #4): the
 * interface of the fit engine. The measurements: fit/input.h; their model: fit/model.h.
 *
 * The fit: parameters log(timeconst), log(dampratio) over a searched box (one timestep to
 * 0.5 s, 0.05 to 4), plus each trajectory's release time and height (nuisance parameters);
 * residuals (model - measured) / sigma. The model is evaluated with refsafe off, i.e. exactly
 * the spring the parameters name; a fitted timeconst below 2*timestep is reported, since
 * refsafe would replace it. The fit is a pipeline (fit/fit.c): the problem (fit/problem.h);
 * one chi-square map of the box, the releases profiled at each point and the grid refined
 * where a valley could hold the minimum or bound an interval (fit/map.h); GSL's
 * Levenberg-Marquardt from the map's lowest distinct minima, the lowest end the answer
 * (fit/descent.h); the flat directions at the answer (a parameter held, the combination the
 * data determine named: presses alone fix only timeconst*dampratio) and the 1- and 2-sigma
 * likelihood-ratio intervals read off the map (fit/interval.h); the status and the notes
 * (fit/status.h). Each standard error is half its 1-sigma interval's width, and the
 * correlation the one the two logs' and their sum's spreads imply; the releases' are the
 * covariance's. solimp is not fitted. The answer's JSON and MJCF are the service's
 * (calib/result.h).
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
	                     freedom: intervals from the stated sigmas, unchecked */
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
	double se_log[2]; /* standard error of log(timeconst), log(dampratio): half the 1-sigma
	                     interval's width */
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
	int se_scaled;          /* levels and errors scaled by chi2/dof */
	int iterations;         /* trust-region iterations of the descents */
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
