/*
 * bootstrap.c: the parametric bootstrap of a pad fit, its replicas refitted over the fit's
 * threads (see bootstrap.h).
 */
#include "fit/bootstrap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "fit/search.h"
#include "fit/traj.h"
#include "fit/knobs.h"

/* Replica measurements into rd's arrays: the model (measured + sigma * weighted
 * residual r at the estimate) plus noise of scale times each sigma. */
static void replicate(const struct calib_data *d, const gsl_vector *r, double scale, gsl_rng *rng,
    struct calib_drop *drops, struct calib_press *presses, double *z)
{
	size_t i, j, row = 0;

	for (i = 0; i < d->ndrops; i++, row++) {
		double sigma = problem_drop_sigma(&d->drops[i]);

		drops[i] = d->drops[i];
		/* an apex is never below the pad's surface */
		drops[i].rebound = fmax(0,
		    d->drops[i].rebound + sigma * gsl_vector_get(r, row) +
		        scale * sigma * gsl_ran_gaussian(rng, 1));
	}
	for (i = 0; i < d->npresses; i++, row++) {
		double sigma = problem_press_sigma(&d->presses[i]);

		presses[i] = d->presses[i];
		presses[i].deflection = d->presses[i].deflection + sigma * gsl_vector_get(r, row) +
		    scale * sigma * gsl_ran_gaussian(rng, 1);
	}
	for (j = 0; j < d->ntrajectories; j++) {
		const struct calib_trajectory *tr = &d->trajectories[j];
		double sigma = problem_traj_sigma(tr);

		for (i = 0; i < tr->n; i++, row++)
			*z++ = tr->z[i] + sigma * gsl_vector_get(r, row) +
			    scale * sigma * gsl_ran_gaussian(rng, 1);
	}
}

/*
 * One refit of bootstrap_standard_errors(): its replica data and its own problem (the first
 * replica's shares the bootstrap's scratch, the others are problem_fork()s of it), so that
 * the refits run on the fit's threads at once. A refit is a pure function of its data and
 * the shared read-only grid, so which thread runs it changes no bit of its answer.
 */
struct replica {
	struct problem R;
	struct calib_data rd;
	struct calib_drop *drops;
	struct calib_press *presses;
	struct calib_trajectory *trajs;
	double *z;
	gsl_vector *xs;
	double logp[NPHYS];
	int forked, rc, iterations;
	struct err err;
};

/* Job b of bootstrap_standard_errors()'s refits (fit/parallel.h). */
static void replica_run(void *ctx, size_t b)
{
	struct replica *rp = (struct replica *)ctx + b;
	struct grid_start reached[CALIB_MAX_STARTS];
	size_t nreached;
	double chi2 = INFINITY;

	rp->rc = search_all(&rp->R, rp->xs, reached, &nreached, &chi2, &rp->iterations, &rp->err);
	if (rp->rc == 0)
		problem_phys_logs(&rp->R, rp->xs, rp->logp);
}

static void replica_free(struct replica *rp)
{
	if (rp->forked)
		problem_fork_free(&rp->R);
	gsl_vector_free(rp->xs);
	free(rp->z);
	free(rp->trajs);
	free(rp->presses);
	free(rp->drops);
}

/* rp's data (a copy of P's with room for the replica's values) and its start vector. -1
 * when out of memory (replica_free() frees what there is). */
static int replica_alloc(struct replica *rp, const struct problem *P)
{
	const struct calib_data *d = P->data;
	size_t j, off;

	rp->drops = calloc(d->ndrops + 1, sizeof *rp->drops);
	rp->presses = calloc(d->npresses + 1, sizeof *rp->presses);
	rp->trajs = calloc(d->ntrajectories + 1, sizeof *rp->trajs);
	rp->z = malloc((P->n + 1) * sizeof *rp->z);
	rp->xs = gsl_vector_alloc(P->p);
	if (!rp->drops || !rp->presses || !rp->trajs || !rp->z || !rp->xs)
		return -1;
	rp->rd = *d;
	rp->rd.drops = rp->drops;
	rp->rd.presses = rp->presses;
	rp->rd.trajectories = rp->trajs;
	for (j = 0, off = d->ndrops + d->npresses; j < d->ntrajectories; j++) {
		rp->trajs[j] = d->trajectories[j];
		rp->trajs[j].z = rp->z + off;
		off += rp->trajs[j].n;
	}
	return 0;
}

int bootstrap_standard_errors(
    struct problem *P, const gsl_vector *x, struct bootstrap_result *bt, struct err *err)
{
	const struct calib_data *d = P->data;
	struct problem R = *P;
	struct replica *reps = calloc(CALIB_BOOT_REPLICAS, sizeof *reps);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_vector *r = gsl_vector_alloc(P->n);
	struct core_scene_model m;
	double logp_hat[NPHYS], span[NPHYS], sum2[NPHYS] = {0, 0}, cross = 0, product = 0;
	double scale;
	size_t j, made = 0;
	int rc = -1, b, q, own_grid;

	R.f0 = gsl_vector_alloc(P->n);
	R.f1 = gsl_vector_alloc(P->n);
	R.xp = gsl_vector_alloc(P->p);
	/* the fit's own starting grid when its pads are still the refits' (no parameter held
	 * since), else one of their own, which the first refit fills */
	own_grid = !problem_grid_model_fits(P);
	if (own_grid) {
		R.grid_model =
		    malloc((CALIB_GRID_POINTS * CALIB_GRID_POINTS * (d->ndrops + d->npresses) + 1) *
		        sizeof *R.grid_model);
		R.grid_model_ready = 0;
	}
	R.grid_kept = NULL;
	R.thorough = 0; /* the refits: the coarse search only, the spread it makes is what counts */
	if (!reps || !rng || !r || !R.f0 || !R.f1 || !R.xp || !R.grid_model) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	gsl_rng_set(rng, CALIB_BOOT_SEED);
	problem_residuals(x, P, r);
	scale = sqrt(problem_residual_variance(problem_sum_squares(r), P->n, P->p));
	if (P->n > P->p && problem_sum_squares(r) / (double)(P->n - P->p) <= CALIB_ACCEPT_CHI2) {
		/* an exact fit (noise-free data): replicas without noise are the data */
		rc = 0;
		goto out;
	}
	problem_phys_logs(P, x, logp_hat);
	problem_model_at(P, logp_hat, &m); /* gravity and timestep for the releases' starts */
	/* a refit that leaves the grid's range is "anywhere": it counts as the range */
	span[TC] = P->log_hi[TC] - P->log_lo[TC];
	span[DR] = P->log_hi[DR] - P->log_lo[DR];
	/* every replica's data drawn first, in turn: the noise is the seed's whoever refits */
	for (b = 0; b < CALIB_BOOT_REPLICAS; b++, made++) {
		struct replica *rp = &reps[b];

		if (replica_alloc(rp, P) != 0) {
			made++;
			err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
			goto out;
		}
		replicate(
		    d, r, scale, rng, rp->drops, rp->presses, rp->z + d->ndrops + d->npresses);
		gsl_vector_memcpy(rp->xs, x);
		for (j = 0; j < d->ntrajectories; j++) {
			double t0, H;

			traj_start(&rp->trajs[j], -m.a0, m.timestep, &t0, &H);
			gsl_vector_set(rp->xs, P->nphys + 2 * j, t0);
			gsl_vector_set(rp->xs, P->nphys + 2 * j + 1, H);
		}
		rp->R = R;
		rp->R.data = &rp->rd;
	}
	/* with a grid of their own, the first refit alone: it fills the grid's model values,
	 * which the others then read */
	if (own_grid)
		replica_run(reps, 0);
	for (b = 1; b < CALIB_BOOT_REPLICAS && reps[0].rc == 0; b++) {
		reps[b].R.grid_model_ready = own_grid ? reps[0].R.grid_model_ready : 1;
		reps[b].forked = 1;
		if (problem_fork(&reps[b].R, err) != 0)
			goto out;
	}
	/* (a first refit stopped before its grid leaves the others to fill it: one at a time) */
	if (!own_grid)
		problem_for_chains(P, CALIB_BOOT_REPLICAS, 1, replica_run, reps);
	else if (reps[0].rc == 0)
		problem_for_chains(
		    P, CALIB_BOOT_REPLICAS - 1, reps[0].R.grid_model_ready, replica_run, reps + 1);
	for (b = 0; b < CALIB_BOOT_REPLICAS; b++) {
		const struct replica *rp = &reps[b];
		double dev[NPHYS] = {0, 0};

		if (rp->rc != 0) {
			*err = rp->err;
			goto out;
		}
		for (q = 0; q < NPHYS; q++) {
			if (!P->free[q])
				continue;
			dev[q] = fmin(fmax(rp->logp[q] - logp_hat[q], -span[q]), span[q]);
			sum2[q] += dev[q] * dev[q];
		}
		cross += dev[TC] * dev[DR];
		product += (dev[TC] + dev[DR]) * (dev[TC] + dev[DR]);
	}
	bt->replicas = CALIB_BOOT_REPLICAS;
	for (q = 0; q < NPHYS; q++)
		bt->se_log[q] = sqrt(sum2[q] / CALIB_BOOT_REPLICAS);
	bt->correlation = sum2[TC] > 0 && sum2[DR] > 0 ? cross / sqrt(sum2[TC] * sum2[DR]) : NAN;
	bt->se_log_product = sqrt(product / CALIB_BOOT_REPLICAS);
	rc = 0;
out:
	for (b = 0; reps && b < CALIB_BOOT_REPLICAS && (size_t)b < made; b++)
		replica_free(&reps[b]);
	free(reps);
	gsl_vector_free(R.f0);
	gsl_vector_free(R.f1);
	gsl_vector_free(R.xp);
	if (own_grid)
		free(R.grid_model);
	gsl_vector_free(r);
	gsl_rng_free(rng);
	return rc;
}
