/*
 * uncertainty.h: how well the data determine a pad fit's parameters (internal to
 * src/fit/): the Jacobian's covariance and unidentified directions, the profile
 * likelihood and a parametric bootstrap. fit/fit.c takes the largest of their standard
 * errors.
 */
#ifndef CONTACTD_FIT_UNCERTAINTY_H
#define CONTACTD_FIT_UNCERTAINTY_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/problem.h"

/* What the Jacobian at x says: the covariance of x (unscaled, pseudo-inverse over the
 * identified directions) and the physical part of the first unidentified direction. */
struct uncertainty_analysis {
	gsl_matrix *cov;        /* p x p */
	int phys_null;          /* an unidentified direction involves timeconst or dampratio */
	int nuisance_null;      /* one involves only release times and heights */
	double null_dir[NPHYS]; /* its (log tc, log dr) part, normalised, 0 for held ones */
};

/*
 * The analysis of the Jacobian at x (over steps of CALIB_SE_STEP, with columns scaled to
 * unit norm) into *an: directions whose singular value is below CALIB_RANK_TOLERANCE of
 * the largest are unidentified. an->cov is allocated by the caller (P->p x P->p) and
 * overwritten. -1 with ERR_INTERNAL when out of memory.
 */
int uncertainty_analyse(
    struct problem *P, const gsl_vector *x, struct uncertainty_analysis *an, struct err *err);

/*
 * Profile likelihood. The standard error of a combination v = c . (log tc, log dr)
 * is read off its profile chi^2_p(v): the lowest chi^2 with v held, every other
 * parameter (the other combination, each trajectory's release) refitted. Its k-sigma
 * likelihood-ratio interval is where chi^2_p(v) - chi^2_min <= k^2 s^2 (s^2 = chi^2/dof,
 * the residual variance, or 1 when dof is 0), and the standard error the largest
 * distance from the estimate to an end of the 1-, 2- or 3-sigma interval over k. For a
 * quadratic chi^2 every k gives the covariance's standard error. The trajectories of a
 * bouncy pad, two to six samples in contact at 5 ms, give a long curved valley instead,
 * whose floor rises steeply near the estimate and then levels off: the local slope of
 * the model says nothing about how far the data allow the parameters to move.
 */
enum { UNCERTAINTY_PROF_TC, UNCERTAINTY_PROF_DR, UNCERTAINTY_PROF_PRODUCT, UNCERTAINTY_NPROF };

/* What the profiles found: the standard error of each combination, in log units. */
struct uncertainty_profiles {
	int done[UNCERTAINTY_NPROF];
	double se[UNCERTAINTY_NPROF];
	/* The 1-, 2- and 3-sigma likelihood-ratio intervals' ends: the outermost over the
	 * walks from the estimate and, for uncertainty_intervals(), from every other minimum
	 * the search reached within the 2-sigma level where those can still move an answer
	 * (uncertainty.c's modes_matter()); open when a walk ran out still inside the level. */
	double lo[UNCERTAINTY_NPROF][3], hi[UNCERTAINTY_NPROF][3];
	int open_lo[UNCERTAINTY_NPROF][3], open_hi[UNCERTAINTY_NPROF][3];
	int better; /* a lower minimum was found */
};

/*
 * The profiles at x into *pr, an the analysis at x (an->cov sizes the first steps). A walk
 * that finds a lower minimum moves x there (refitted, and an re-analysed for the
 * nuisance's covariance, its identification kept) and the profiles start again, at most
 * CALIB_PROFILE_RESTARTS times: the long valleys that make the profiles necessary also
 * hide the best fit from the descents of search_multi_start(). -1 with ERR_INTERNAL when
 * out of memory.
 */
int uncertainty_profile(struct problem *P, gsl_vector *x, struct uncertainty_analysis *an,
    struct uncertainty_profiles *pr, int *iterations, struct err *err);

/*
 * Parametric bootstrap. With two to six samples in contact at 5 ms, chi^2 is not the
 * smooth bowl the covariance assumes: a contact that begins within a step jumps to
 * MuJoCo's full damping impulse, so every later impact of a bouncing trajectory makes
 * chi^2 jump as the parameters move the step it begins in, and a trajectory alone
 * leaves a long curved valley of such pieces. The local slope then says nothing about
 * how far the estimate may be from the truth. The bootstrap asks the estimator itself:
 * CALIB_BOOT_REPLICAS synthetic data sets are made by the model at the estimate (the
 * fitted solref, releases and held parameters) plus Gaussian noise of each
 * measurement's sigma times the residual scale sqrt(chi^2/dof) (1 when dof is 0),
 * and each is refitted exactly as the data were (grid, descents, polish; the fitted
 * parameters free, the held ones held). The root-mean-square deviation of the refits
 * from the estimate is its standard error. Only the whole search sees the other
 * valleys: refits that start at the estimate stay in its piece and come out several
 * times too narrow.
 * The noise comes from a fixed seed: the same data always give the same answer.
 */
struct uncertainty_boot {
	int replicas;
	double se_log[NPHYS];  /* RMS deviation of the refitted logs from the estimate */
	double correlation;    /* of the deviations, when both are fitted */
	double se_log_product; /* RMS deviation of log(timeconst*dampratio) */
};

/*
 * The bootstrap's standard errors at the estimate x into *bt; *bt is left as it was
 * (the caller zeroes it: no replicas) when x fits the data exactly. -1 with ERR_INTERNAL
 * when out of memory.
 */
int uncertainty_bootstrap(
    struct problem *P, const gsl_vector *x, struct uncertainty_boot *bt, struct err *err);

/* Confidence intervals of the free log parameters (see uncertainty.c). */
struct uncertainty_intervals {
	int done[NPHYS];         /* parameter q's intervals were found */
	double log[NPHYS][2][2]; /* [q][k - 1][low, high], -inf or +inf where open */
	double levels[3];        /* the k-sigma levels of chi^2 - chi^2_min used */
	int chi2_test;           /* a level was raised to the chi^2 test's (few dof) */
	/* log(timeconst*dampratio)'s 2-sigma interval is open (its walk ran out inside the
	 * level, or a grid or scan point inside it lies on the searched range's edge, beyond
	 * which the region may go on), or was not found */
	int product_open;
};

/*
 * uncertainty_intervals: the 1- and 2-sigma confidence intervals of each free log
 * parameter at the estimate x of P (cov: uncertainty_analyse()'s, for the walks' first
 * steps) into *out. P's first search must have run (its grid and minima are read).
 * Fails only when out of memory.
 */
int uncertainty_intervals(struct problem *P, const gsl_vector *x, const gsl_matrix *cov,
    struct uncertainty_intervals *out, int *iterations, struct err *err);

/*
 * The profile walks' points that uncertainty_profile() keeps in P->walk_memo for
 * uncertainty_intervals(), freed (P->walk_memo NULL again). NULL-safe; call once the
 * intervals are found or the fit ends.
 */
void uncertainty_forget(struct problem *P);

#endif
