/* types.h: what a pad fit (fit/fit.h) is given, the measurements and a bound, and what it
 * answers; apart, so the stages that fill a fit_result need not include the entry. */
#ifndef CONTACTD_FIT_TYPES_H
#define CONTACTD_FIT_TYPES_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/scene.h"

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

struct calib_bound {              /* what may stop a fit before it ends */
	const atomic_int *cancel; /* stop when it becomes non-zero (NULL: never) */
	double seconds;           /* stop after this long (0: never) */
};

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
	/* Not identified: pinned at a box edge, chi^2 lowest there (-1 lower, +1 upper; never
	 * misfit: a pad beyond may fit), or open: its 2-sigma interval, se NAN (issue #29). */
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
	double *drop_model, *drop_residual;   /* each drop's model rebound, measured - model */
	double *press_model, *press_residual; /* each press's model deflection, measured - model */
	struct fit_traj *traj;                /* ntrajectories */
	/* 2 * timestep; discrete: timestep / (sqrt(solimp[1]) * dampratio), where refsafe
	 * starts replacing the fitted spring's deepest row */
	double refsafe_min;
	int below_refsafe; /* timeconst < refsafe_min */
	double growth;     /* rest-spring growth per step (/v1/stability) */
	double chatter;    /* jitter (m) of a body placed on the pad, last 0.5 s */
	size_t nnotes;
	char notes[FIT_MAX_NOTES][FIT_NOTE_MAX];
};

#endif
