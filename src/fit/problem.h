/*
 * problem.h: the least-squares problem of a pad fit, shared by the stages of src/fit/
 * (internal to the layer: its interface is fit/fit.h).
 *
 * Parameter vector x: the fitted ones of (log timeconst, log dampratio), then
 * (release time, release height) of each trajectory. Residual vector: drops,
 * presses, then every trajectory sample, each (model - measured) / sigma.
 *
 * A problem belongs to one fit (fit/fit.c), which sizes and frees it. A stage that fits
 * a part of it works on a copy (struct problem Q = *P) with scratch vectors of its own
 * where it needs them; buf, zmodel and the recent pads stay shared with the copies, so a
 * problem and its copies are used by one thread at a time, but for a problem_fork(), which
 * has scratch of its own and may run on another thread (fit/parallel.h).
 */
#ifndef CONTACTD_FIT_PROBLEM_H
#define CONTACTD_FIT_PROBLEM_H

#include <stdatomic.h>
#include <stddef.h>

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "core/scene.h"
#include "core/sim.h"
#include "fit/input.h"
#include "fit/knobs.h"

/* The physical parameters: log timeconst, log dampratio (fit.h's FIT_TC, FIT_DR). */
enum { TC, DR, NPHYS };

struct grid_start;
struct profile_memo;
struct problem_recent;

struct problem {
	struct core_scene scene; /* the setup with refsafe off; floor.solref set per evaluation */
	const struct calib_data *data;
	double start_log[NPHYS]; /* starting values; a held parameter keeps its value here */
	int free[NPHYS];
	size_t nphys; /* fitted physical parameters */
	size_t n, p;
	double *buf;    /* trajectory simulation scratch, CALIB_MAX_TRAJECTORY_STEPS + 3 */
	double *zmodel; /* model samples of one trajectory, CALIB_MAX_SAMPLES */
	gsl_vector *f0, *f1, *xp;          /* Jacobian scratch */
	double fd_step_log;                /* forward-difference step of the log parameters */
	double se_floor[NPHYS];            /* standard errors at least this (log units) */
	double alt_logp[NPHYS], alt_dchi2; /* the nearest competing minimum, if any */
	int has_alt;
	/* What the first search saw, kept for the confidence intervals (see
	 * fit.c's record_interval()): every point of its starting grid (grid_counts per axis; NULL
	 * in the bootstrap's refits) and the minima its descents reached. */
	struct grid_start *grid_kept;
	int grid_counts[NPHYS], grid_kept_ready;
	double mode_logp[CALIB_MAX_STARTS][NPHYS], mode_chi2[CALIB_MAX_STARTS];
	size_t nmodes;
	/* The drops' and presses' model values at each point of the starting grid, which do
	 * not depend on the releases: the fit's own search fills it, and the bootstrap's refits
	 * read it (NULL: none). Its pads depend on which parameters are held and at what, so it
	 * is read only while they are as when it was filled (problem_grid_model_fits()). Freed
	 * by problem_free() for the fit's own problem; the bootstrap frees one it made itself. */
	double *grid_model;
	int grid_model_ready;
	int grid_model_free[NPHYS];
	double grid_model_held[NPHYS];
	int grid_shifts; /* release shifts tried at each grid point (grid.c) */
	/* The fit's own search (not a bootstrap refit's): also the fine grids around its
	 * minima (search.c's wide_refine()). */
	int thorough;
	/* The logs stay within this box, the starting grid's (the searched range): an
	 * unidentified direction (an overdamped pad's dampratio) would run to infinity, and
	 * the search is complete over the grid only. */
	double log_lo[NPHYS], log_hi[NPHYS];
	/* A profile's problem (see profile.c's walk_side()) holds one combination of the logs:
	 * then (log tc, log dr) = origin + x[0] * axis when nphys is 1, origin when it is 0. */
	int profiling;
	double origin[NPHYS], axis[NPHYS];
	/* The free fall of each drop before contact (model_falls(), at the starting pad: the fall
	 * is the same for every pad), which every evaluation starts from; NULL: none. Allocated
	 * by problem_size(), shared by every copy of P (the bootstrap's replicas have the same
	 * heights), freed by problem_free(). */
	struct core_sim_start *falls;
	/* The drops' model values at the last few pads evaluated one to a few at a time
	 * (problem.c): a trust-region iteration evaluates a point, then its Jacobian there, and a
	 * walk's refit ends where it last evaluated. Allocated by problem_size(), shared by every
	 * copy of P (keyed by the data and the pad), freed by problem_free(). */
	struct problem_recent *recent;
	/* The profile walks' points, kept from profile_standard_errors() for interval_find()
	 * (profile.c; NULL: none yet): both walk the same points from the same estimate.
	 * Owned by the fit, freed by profile_forget(); every copy of P shares it. */
	struct profile_memo *walk_memo;
	/* When set, the releases are held at these (P's layout, from column nphys) and x
	 * holds the physical parameters only (see descent.c's descent_starts()). */
	const gsl_vector *releases;
	/* The fit's bound (NULL: none) and whether it was reached, shared by every copy of
	 * the problem: once set, every evaluation answers zero residuals at once, so the
	 * search, profiles and bootstrap all run out in milliseconds. */
	const struct calib_bound *bound;
	double started;
	atomic_int *stopped;
};

/* Whether P->grid_model is ready for P's free parameters as they are now (those held at the
 * same values), and problem_grid_model_made(): it now is. */
int problem_grid_model_fits(const struct problem *P);
void problem_grid_model_made(struct problem *P);

/* Seconds on the monotonic clock, for struct problem's started. */
double problem_monotonic_seconds(void);

/*
 * Has the fit been cancelled or run out of time (P->bound; never when it is NULL)?
 * Once it has, *P->stopped is set, which every copy of P shares.
 */
int problem_abandoned(const struct problem *P);

/* Release time and height of trajectory j at x (or at P->releases when set). */
double problem_release_time(const struct problem *P, const gsl_vector *x, size_t j);
double problem_release_height(const struct problem *P, const gsl_vector *x, size_t j);

/* One standard deviation of a measurement: its own sigma, or when it gives none the
 * noise scale of fit/knobs.h (CALIB_SIGMA_REBOUND; hypot(CALIB_SIGMA_DEFLECTION_ABS,
 * CALIB_SIGMA_DEFLECTION_REL * |deflection|); CALIB_SIGMA_TRAJECTORY). */
double problem_drop_sigma(const struct calib_drop *d);
double problem_press_sigma(const struct calib_press *p);
double problem_traj_sigma(const struct calib_trajectory *t);

/* The weighted residual (model - measured) / sigma; RESIDUAL_CAP in place of one that
 * is not finite or not below it in magnitude. */
double problem_weigh(double model, double measured, double sigma);

/* The fitted (log timeconst, log dampratio) of x, held ones from the start (a profile's:
 * origin + x[0] * axis), each kept within [log_lo, log_hi]. */
void problem_phys_logs(const struct problem *P, const gsl_vector *x, double logp[NPHYS]);

/* P's scene with the pad's solref exp(logp), prepared into *m. */
void problem_model_at(const struct problem *P, const double logp[NPHYS], struct core_scene_model *m);

/* The row of the first trajectory sample: after the drops' and the presses'. */
size_t problem_traj_first_row(const struct problem *P);

/* Weighted residuals of trajectory j released at (t0, H) into f from row `row`; zeros
 * once the fit is abandoned. Simulates into P->buf and P->zmodel. */
void problem_traj_residuals(const struct problem *P, const struct core_scene_model *m, size_t j,
    double t0, double H, gsl_vector *f, size_t row);

/* The model values of P's drops and presses at each of npads pads (log timeconst, log
 * dampratio) into out[pad * (ndrops + npresses) + k] (caller-owned), the drops' rebounds
 * (fit/model.h's model_rebounds()) then the presses' depths (model_presses()), the pads
 * prepared as problem_model_at() prepares them. */
void problem_static_models(
    const struct problem *P, const double (*logp)[NPHYS], size_t npads, double *out);

/* problem_residuals() with the drops' and presses' model values given (static_model[k] at
 * x's pad, laid out as problem_static_models() lays out one pad's; NULL: computed here).
 * Returns GSL_SUCCESS. */
int problem_residuals_given(
    const struct problem *P, const gsl_vector *x, const double *static_model, gsl_vector *f);

/* chi^2 at each of npads pads (log timeconst, log dampratio; the held ones as P holds them)
 * with x's other parameters (the releases), into chi2[] (caller-owned): the drops of many
 * pads stepped at once. Not for a profile's problem. Uses P->xp and P->f1 as scratch. -1
 * with ERR_INTERNAL when out of memory. */
int problem_chi2_many(struct problem *P, const gsl_vector *x, const double (*logp)[NPHYS],
    size_t npads, double *chi2, struct err *err);

/* problem_chi2_many() where only the pads with chi^2 at most cap matter: chi2[] gets the same
 * value there, and +inf at pads ruled out before all their drops and presses were stepped
 * (some of their residuals alone are past cap). Drops and presses only (with trajectories, or
 * in a profile's problem, it is problem_chi2_many()). Uses P->xp and P->f1 as scratch; -1 with
 * ERR_INTERNAL when out of memory. */
int problem_chi2_within(struct problem *P, const gsl_vector *x, const double (*logp)[NPHYS],
    size_t npads, double cap, double *chi2, struct err *err);

/*
 * problem_chi2_many() by halves, for a search that needs chi^2 at some pads only: drops are
 * cheap to step, presses cost seconds of steps each. problem_lazy_start() steps the drops of
 * npads pads (logp as problem_chi2_many() takes them, with x's other parameters) and gives in
 * bound[pad] (caller-owned) a lower bound of each pad's chi^2: its drops' squared residuals,
 * summed, less a part in 1e12 for the rounding of a sum in another order. Then
 * problem_lazy_finish() steps the presses of the `count` pads listed in `which` and gives
 * their chi^2 in chi2[pad] (caller-owned), the bits problem_chi2_many() gives.
 *
 * *out: the state, owned by the caller and freed by problem_lazy_free() (it keeps P, x and
 * logp, which must outlive it), or NULL when halves would not pay (P has no drops or no
 * presses, has trajectories or is a profile's): then bound[] is untouched. Both return -1 with
 * ERR_INTERNAL when out of memory.
 */
struct problem_lazy;
int problem_lazy_start(struct problem *P, const gsl_vector *x, const double (*logp)[NPHYS],
    size_t npads, double *bound, struct problem_lazy **out, struct err *err);
int problem_lazy_finish(
    struct problem_lazy *L, const size_t *which, size_t count, double *chi2, struct err *err);
void problem_lazy_free(struct problem_lazy *L);

/*
 * parallel_for() (fit/parallel.h) for chains of refits on P or its forks (descents, profile
 * walks, bootstrap refits): in lockstep when P has presses, each thread's chains side by side
 * so that their few presses a step fill the lanes' vectors; drops alone step too fast for the
 * turns between chains to pay.
 */
void problem_for_chains(const struct problem *P, size_t njobs, int share,
    void (*run)(void *ctx, size_t job), void *ctx);

/* The weighted residuals at x into f (P->n rows; params: the struct problem), as
 * gsl_multifit_nlinear calls them; zeros once the fit is abandoned. Returns GSL_SUCCESS. */
int problem_residuals(const gsl_vector *x, void *params, gsl_vector *f);

/* The Jacobian of the residuals at x into J (P->n x P->p; params: the struct problem), by
 * forward differences of P->fd_step_log in the logs, block by block: a trajectory's release
 * time and height move only its own rows, so each costs one simulation of that trajectory.
 * Uses P->f0, P->f1 and P->xp as scratch. Returns GSL_SUCCESS. */
int problem_jacobian(const gsl_vector *x, void *params, gsl_matrix *J);

/*
 * The residual variance that scales the standard errors: chi^2/dof, but never below 1 (the
 * stated sigmas are the floor: residuals that happen to scatter less, as they often do
 * with few of them, do not make the parameters better known than the measurements'
 * noise allows), and 1 when dof is below CALIB_MIN_DOF (too few residuals to estimate
 * a variance from: the stated sigmas alone).
 */
double problem_residual_variance(double chi2, size_t n, size_t p);

/* The sum of squares of f: chi^2, for weighted residuals. */
double problem_sum_squares(const gsl_vector *f);

/* Size P for the current free set (P->free, with P->data and P->n set) and allocate its
 * scratch; what is allocated already is kept, but xp, whose size is P->p. -1 with
 * ERR_INTERNAL when out of memory (problem_free() still frees what there is). */
int problem_size(struct problem *P, struct err *err);

/* Free P's scratch, not P itself nor its data. */
void problem_free(struct problem *P);

/*
 * Give Q, a copy of a sized problem (struct problem Q = *P, its p set as it will be used), a
 * scratch of its own: f0, f1, xp (p, at least 1), the recent pads' cache and the trajectory
 * buffers, so that Q can be evaluated on another thread while P and its other forks are
 * (everything else they share is read only while they run, but the stop flag, which is
 * atomic). Free them with problem_fork_free(). -1 with ERR_INTERNAL when out of memory
 * (problem_fork_free() still frees what there is).
 */
int problem_fork(struct problem *Q, struct err *err);

/* Free what problem_fork() gave Q (not Q itself). */
void problem_fork_free(struct problem *Q);

#endif
