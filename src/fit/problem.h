/*
 * problem.h: a pad fit's problem (stage 1 of fit/fit.c): the setup, the measurements and
 * their sigmas, the searched box and what every pad shares (each drop's free fall, each
 * trajectory's free-fall release), built once and read only after; and chi^2 at a pad.
 * Internal to the fit layer.
 *
 * A pad is (log timeconst, log dampratio). The residuals: the drops', the presses', then
 * every fitted trajectory sample's, each (model - measured) / sigma. A trajectory also has
 * two nuisance parameters, its release time and height, which the stages profile (fit at
 * each pad) or fit beside the pad (fit/descent.h).
 *
 * Thread safety: a built problem is read only, so any number of threads may evaluate it at
 * once; what an evaluation writes is the caller's (struct problem_scratch is one thread's).
 */
#ifndef CONTACTD_FIT_PROBLEM_H
#define CONTACTD_FIT_PROBLEM_H

#include <stdatomic.h>
#include <stddef.h>

#include "base/error.h"
#include "core/scene.h"
#include "core/sim.h"
#include "fit/input.h"

/* The physical parameters: log timeconst, log dampratio (fit.h's FIT_TC, FIT_DR). */
enum { TC, DR, NPHYS };

struct problem {
	struct core_scene scene;   /* the setup, refsafe off: the spring the solref names */
	struct calib_data data;    /* the measurements, each trajectory cut to its fitted samples */
	size_t n;                  /* residuals */
	size_t nstatic;            /* of which drops and presses */
	size_t dropped;            /* trajectory samples not fitted (after a second impact) */
	size_t max_samples;        /* the longest fitted trajectory's samples */
	double log_lo[NPHYS], log_hi[NPHYS]; /* the searched box */
	double start_log[NPHYS];   /* the setup's own pad (it supplies a held parameter's value) */
	double *release0;          /* each trajectory's free-fall release (t0, H): 2 a trajectory */
	struct core_sim_start *falls; /* each drop's free fall (the same for every pad) */
	struct calib_trajectory *fitted; /* the cut trajectories data points to */
	const struct calib_bound *bound; /* NULL: never stopped */
	double started;                  /* monotonic seconds */
	atomic_int stopped;              /* set once the bound is reached */
};

/* One thread's scratch for trajectory simulation. */
struct problem_scratch {
	double *buf;    /* CALIB_MAX_TRAJECTORY_STEPS + 3 */
	double *zmodel; /* max_samples */
};

/*
 * Build P for fitting data on setup (a validated scene: the pad as floor, the object as body and
 * geom), stopped by bound (NULL: never). P keeps pointers into data, which must outlive it.
 * -1 with ERR_INTERNAL when out of memory (problem_free() still frees what there is).
 */
int problem_build(struct problem *P, const struct core_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct err *err);

/* Free what problem_build() allocated (not P itself). */
void problem_free(struct problem *P);

/* Has the fit been cancelled or run out of time? Once it has, it stays so. */
int problem_stopped(const struct problem *P);

/* Scratch for one thread; 0, or -1 when out of memory. problem_scratch_free() frees it. */
int problem_scratch_alloc(const struct problem *P, struct problem_scratch *S);
void problem_scratch_free(struct problem_scratch *S);

/* One standard deviation of a measurement: its own sigma, or the noise scale of fit/knobs.h. */
double problem_drop_sigma(const struct calib_drop *d);
double problem_press_sigma(const struct calib_press *p);
double problem_traj_sigma(const struct calib_trajectory *t);

/* The weighted residual (model - measured) / sigma; RESIDUAL_CAP in place of one that is not
 * finite or not below it in magnitude. */
double problem_weigh(double model, double measured, double sigma);

/* How many drops bounced: a rebound above CALIB_BOUNCE_SIGMAS sigma. */
size_t problem_bouncing(const struct problem *P);

/* P's scene with the pad exp(logp), prepared into *m. */
void problem_model_at(const struct problem *P, const double logp[NPHYS], struct core_scene_model *m);

/*
 * The drops' (and, with presses set, the presses') weighted residuals at each of npads pads:
 * out[pad * nstatic + k] (caller-owned; the presses' entries untouched without presses). The
 * pads' drops and presses go through the core's lanes together and large batches are shared
 * over the fit's threads (fit/model.h), each value with the bits it has alone.
 */
void problem_statics(const struct problem *P, const double (*logp)[NPHYS], size_t npads,
    int presses, double *out);

/* The weighted residuals of trajectory j at the prepared pad m released at (t0, H) into
 * f[0 .. samples) (caller-owned). */
void problem_traj_residuals(const struct problem *P, struct problem_scratch *S,
    const struct core_scene_model *m, size_t j, double t0, double H, double *f);

/*
 * The k-sigma levels of chi^2 - chi2_min, k = 1, 2, 3, for p fitted parameters: (k^2 +
 * CALIB_ROUGH_LEVEL) times the residual variance, raised to what the chi^2 test of all
 * measurements allows at the same coverage where the fit has too few degrees of freedom or
 * its drops do not bounce (problem_chi2_tested()). Returns whether the test raised one.
 */
int problem_levels(const struct problem *P, double chi2_min, size_t p, double levels[3]);

/* The residual variance that scales the levels and errors: chi^2 / dof, never below 1 (the
 * stated sigmas are the floor), and 1 below CALIB_MIN_DOF degrees of freedom. */
double problem_residual_variance(double chi2, size_t n, size_t p);

/* Whether the levels also hold what the chi^2 test of all measurements allows: fewer than
 * CALIB_MIN_DOF degrees of freedom, or drops none of which bounced and no trajectory (their
 * model rebound is 0 over a plateau, and a measured one is never below 0, so chi^2 - chi^2_min
 * is not the likelihood ratio's variable there). */
int problem_chi2_tested(const struct problem *P, size_t p);

/* The parameters of a problem: its free physical ones and two per trajectory. */
size_t problem_params(const struct problem *P, size_t nphys);

#endif
