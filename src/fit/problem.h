/*
 * problem.h: a pad fit's problem (stage 1 of fit/fit.c; internal): setup, measurements, sigmas,
 * searched box and what every pad (log timeconst, log dampratio) shares, built once and then read
 * by any number of threads at once. Residuals: drops', presses', then fitted trajectory samples',
 * each (model - measured) / sigma; a trajectory's release (t0, H) is a nuisance parameter.
 */
#ifndef CONTACTD_FIT_PROBLEM_H
#define CONTACTD_FIT_PROBLEM_H

#include "base/error.h"
#include "core/sim.h"
#include "fit/types.h"

/* The physical parameters: log timeconst, log dampratio (fit.h's FIT_TC, FIT_DR). */
enum { TC, DR, NPHYS };

struct problem {
	struct core_scene scene; /* the setup, refsafe off: the spring the solref names */
	struct calib_data data;  /* the measurements, each trajectory cut to its fitted samples */
	size_t n, nstatic;       /* residuals, and of them the drops' and presses' */
	size_t dropped;          /* trajectory samples not fitted (after a second impact) */
	size_t max_samples;      /* the longest fitted trajectory's samples */
	double log_lo[NPHYS], log_hi[NPHYS]; /* the searched box */
	double start_log[NPHYS]; /* the setup's own pad (it supplies a held parameter's value) */
	double *release0;        /* each trajectory's free-fall release (t0, H): 2 a trajectory */
	double *release_slope;   /* dH/dt0 along each one's free-fall valley (inside release0) */
	struct core_sim_start *falls;    /* each drop's free fall (the same for every pad) */
	struct calib_trajectory *fitted; /* the cut trajectories data points to */
	const struct calib_bound *bound; /* NULL: never stopped */
	double started;                  /* monotonic seconds */
	atomic_int stopped;              /* set once the bound is reached */
};

/* One thread's scratch for trajectory simulation. */
struct problem_scratch {
	double *buf;    /* CALIB_MAX_TRAJECTORY_STEPS + 3 */
	double *zmodel; /* max_samples */
	double *f;      /* max_samples: a trajectory's weighted residuals */
};

/* Build P for data (which it points into) on setup, stopped by bound (NULL: never). -1 with
 * ERR_INTERNAL when out of memory; problem_free() frees what it allocated (not P) either way. */
int problem_build(struct problem *P, const struct core_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct err *err);
void problem_free(struct problem *P);

/* Has the fit been cancelled or run out of time? Once it has, it stays so. */
int problem_stopped(const struct problem *P);

/* Scratch for one thread; 0, or -1 when out of memory. problem_scratch_free() frees it. */
int problem_scratch_alloc(const struct problem *P, struct problem_scratch *S);
void problem_scratch_free(struct problem_scratch *S);

/* A measurement's sigma: its own, or fit/knobs.h's noise scale. problem_weigh(): (model -
 * measured) / sigma, or RESIDUAL_CAP for one not finite or not below it in size. */
double problem_drop_sigma(const struct calib_drop *d);
double problem_press_sigma(const struct calib_press *p);
double problem_traj_sigma(const struct calib_trajectory *t);
double problem_weigh(double model, double measured, double sigma);

/* How many drops bounced: a rebound above CALIB_BOUNCE_SIGMAS sigma. */
size_t problem_bouncing(const struct problem *P);

/* P's scene with the pad exp(logp), prepared into *m. */
void problem_model_at(
    const struct problem *P, const double logp[NPHYS], struct core_scene_model *m);

/* Weighted residuals at npads pads into out[pad * nstatic + k] (caller-owned): the drops', and
 * the presses' if presses is set (else left as they are); batched, each with its bits alone. */
void problem_statics(
    const struct problem *P, const double (*logp)[NPHYS], size_t npads, int presses, double *out);

/* Trajectory j's weighted residuals at the prepared pad m released at rel (t0, H) into f (NULL:
 * S->f); returns their chi^2, and (rms and max_abs not NULL) the metres behind them, the rms and
 * the largest |measured - model| over the fitted samples. */
double problem_traj_residuals(const struct problem *P, struct problem_scratch *S,
    const struct core_scene_model *m, size_t j, const double rel[2], double *f, double *rms,
    double *max_abs);

/* The residual variance: chi^2 / dof, never below 1 (the stated sigmas are the floor), 1 under
 * CALIB_MIN_DOF dof. The k-sigma levels of chi^2 - chi2_min (k = 1..3, p fitted parameters):
 * (k^2 + ROUGH_LEVEL) variances, raised to the chi^2 test's where it applies (returns if so). */
double problem_residual_variance(double chi2, size_t n, size_t p);
int problem_levels(const struct problem *P, double chi2_min, size_t p, double levels[3]);

/* The parameters of a problem: its free physical ones and two per trajectory. */
size_t problem_params(const struct problem *P, size_t nphys);

#endif
