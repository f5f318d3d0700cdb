/*
 * calib.h: fitting a gripper pad's solref to what a robot measured (issue #4).
 *
 * The model is the contact core itself: the pad is the plane ("floor") of a
 * struct scene and the test object its body, so a fitted solref reproduces the
 * measurements in MuJoCo 2.2.2 step for step. Three kinds of measurement:
 *
 *   drop        the object released at rest with its bottom `height` above the pad;
 *               `rebound` is the apex of its first bounce: the highest bottom after
 *               the first step in which it penetrates, up to the first step after it
 *               has left the pad (bottom above max(0, includemargin)) in which it
 *               moves down again, or CALIB_DROP_SETTLE s after the first contact if it
 *               never leaves; never below 0. For any contact that dissipates energy
 *               this is /v1/drop's rebound, whose later bounces are lower.
 *   press       the object at rest under a total normal force `force` (N, its weight
 *               included); `deflection` is its penetration (m): sim_equilibrium().
 *   trajectory  the object's bottom height z[i] at times t[i] around an impact, with
 *               release time and height unknown: both are fitted per trajectory as
 *               nuisance parameters. The object rests at the release height until the
 *               release time, then falls; the simulated bottom (recorded after each
 *               step, as mj_step would) is interpolated at t[i] by Catmull-Rom splines.
 *               Only the samples before the second impact are fitted (a later impact
 *               begins within a step and MuJoCo's damping impulse jumps with the
 *               parameters; the fit's notes say how many were left out).
 *
 * The fit: parameters log(timeconst), log(dampratio) (plus the nuisance), residuals
 * (model - measured) / sigma, a log-spaced grid for the start (each trajectory's
 * release tried at a few phases of the step), then GSL's trust-region
 * Levenberg-Marquardt (gsl_multifit_nlinear) with a finite-difference Jacobian, the
 * releases first, then the physics, then all. The model is evaluated with refsafe off,
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
 * Pure computation: no I/O, no global state; safe to call from many threads.
 */
#ifndef CONTACTD_SERVICE_CALIB_H
#define CONTACTD_SERVICE_CALIB_H

#include <stdatomic.h>
#include <stddef.h>
#include <jansson.h>

#include "core/scene.h"
#include "base/error.h"

#define CALIB_MAX_NOTES 8
#define CALIB_NOTE_MAX 320

struct calib_drop {
	double height;  /* m, bottom above the pad at release, > 0 */
	double rebound; /* m, 0 <= rebound <= height */
	double sigma;   /* m, one standard deviation of rebound; 0: CALIB_SIGMA_REBOUND */
};

struct calib_press {
	double force;      /* N, total normal force at rest, >= 0 */
	double deflection; /* m, penetration at rest */
	double sigma;      /* m; 0: hypot(CALIB_SIGMA_DEFLECTION_ABS, _REL * |deflection|) */
};

struct calib_trajectory {
	const double *t; /* s, strictly increasing; n values, owned by the caller */
	const double *z; /* m, bottom height at t[i]; n values, owned by the caller */
	size_t n;        /* >= 3, with at least 2 samples before the lowest one */
	double sigma;    /* m, per sample; 0: CALIB_SIGMA_TRAJECTORY */
};

/* Every measurement of one calibration; the arrays are owned by the caller. */
struct calib_data {
	const struct calib_drop *drops;
	size_t ndrops;
	const struct calib_press *presses;
	size_t npresses;
	const struct calib_trajectory *trajectories;
	size_t ntrajectories;
};

enum calib_status {
	CALIB_OK,           /* timeconst and dampratio both determined */
	CALIB_PARTIAL,      /* one combination determined, one parameter held */
	CALIB_INSUFFICIENT, /* nothing determined: too few or uninformative measurements */
	CALIB_FEW_DOF,      /* both fitted, but fewer than CALIB_MIN_DOF residual degrees of
	                       freedom: errors from the stated sigmas, unchecked */
	CALIB_MISFIT,       /* both fitted, chi^2 beyond its 1 - CALIB_MISFIT_P quantile */
};

/* What a trajectory's nuisance parameters came out as. */
struct calib_traj_fit {
	double release_time, release_height; /* s, m */
	double se_release_time, se_release_height;
	double rms, max_abs; /* m, of measured - model over its samples */
};

/* A fit. Owned by whoever called calib_fit(); release with calib_fit_free(). */
struct calib_fit {
	enum calib_status status;
	struct scene scene;          /* the setup with the fitted pad solref */
	double timeconst, dampratio; /* solref, standard form */
	double stiffness, damping;   /* solref_direct = [-stiffness, -damping] */
	int identified[2];           /* timeconst, dampratio determined by the data */
	int held[2];                 /* kept at its starting or phase-one value */
	double se_log[2];            /* standard error of log(timeconst), log(dampratio) */
	double correlation;          /* of the two logs, when both are fitted */
	int product_identified;      /* timeconst*dampratio determined */
	double se_log_product;       /* standard error of log(timeconst*dampratio) */
	double chi2;                 /* sum of squared weighted residuals */
	long dof;                    /* residuals - fitted parameters */
	int se_scaled;               /* standard errors scaled by chi2/dof */
	int replicas;                /* bootstrap replicas behind se_log (0: none, exact) */
	int iterations;              /* trust-region iterations, all phases */
	size_t ndrops, npresses, ntrajectories, nsamples;
	double *drop_model;          /* model rebound of each drop (ndrops) */
	double *drop_residual;       /* measured - model rebound (ndrops) */
	double *press_model;         /* model deflection of each press (npresses) */
	double *press_residual;      /* measured - model deflection (npresses) */
	struct calib_traj_fit *traj; /* ntrajectories */
	double refsafe_min;          /* 2 * timestep */
	int below_refsafe;           /* timeconst < refsafe_min */
	double growth;               /* rest-spring growth per step (/v1/stability) */
	double chatter;              /* jitter (m) of a body placed on the pad, last 0.5 s */
	size_t nnotes;
	char notes[CALIB_MAX_NOTES][CALIB_NOTE_MAX];
};

/*
 * calib_fit: fit the pad's solref (setup->floor.solref is the starting value and
 * supplies the held parameter) to data. setup is a validated scene: the pad as
 * floor, the object as body and geom; its height and duration are ignored. Too
 * little data is not an error: the fit says so with CALIB_INSUFFICIENT. Fails only
 * when out of memory (ERR_INTERNAL). On success *out is a new fit the caller frees
 * with calib_fit_free().
 */
int calib_fit(const struct scene *setup, const struct calib_data *data, struct calib_fit **out,
    struct err *err);

/* What may stop a fit before it ends. */
struct calib_bound {
	const atomic_int *cancel; /* stop when it becomes non-zero (NULL: never) */
	double seconds;           /* stop after this long (0: never) */
};

/*
 * calib_fit_within: calib_fit() that gives up when bound says so (NULL: never), failing
 * with ERR_UNAVAILABLE and a message that says why.
 */
int calib_fit_within(const struct scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct calib_fit **out, struct err *err);

/* Free a fit and everything it owns. NULL is a no-op. */
void calib_fit_free(struct calib_fit *fit);

/*
 * calib_fit_json: the fit as the answer's "fit" object (solref in both forms, solimp,
 * standard errors, residuals, identification, notes, and the MJCF <default> of class
 * mjcf_class to paste: the pad geom whole, its other attributes mjcf_attributes (XML text
 * ' name="value"' each, NULL: none) kept, every number written exactly). NULL if out of
 * memory; caller owns the result.
 */
json_t *calib_fit_json(
    const struct calib_fit *fit, const char *mjcf_class, const char *mjcf_attributes);

/* The model rebound of a drop from height (see above) on a prepared scene. */
double calib_rebound(const struct scene_model *m, double height);

/*
 * calib_trajectory_model: the model bottom height at each of the n times t[] for an
 * object released at rest at release_time from release_height, into z[] (caller-owned,
 * n values). buf is scratch space of CALIB_MAX_TRAJECTORY_STEPS + 3 doubles.
 */
void calib_trajectory_model(const struct scene_model *m, double release_time, double release_height,
    const double *t, size_t n, double *buf, double *z);

#endif
