/*
 * uncertainty.c: the covariance, profile likelihood and bootstrap of a pad fit (see
 * uncertainty.h).
 */
#include "fit/uncertainty.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "fit/descent.h"
#include "fit/parallel.h"
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
 * One refit of uncertainty_bootstrap(): its replica data and its own problem (the first
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

/* Job b of uncertainty_bootstrap()'s refits (fit/parallel.h). */
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

int uncertainty_bootstrap(
    struct problem *P, const gsl_vector *x, struct uncertainty_boot *bt, struct err *err)
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

int uncertainty_analyse(
    struct problem *P, const gsl_vector *x, struct uncertainty_analysis *an, struct err *err)
{
	size_t p = P->p, i, j, k;
	gsl_matrix *J = gsl_matrix_alloc(P->n, p), *A = gsl_matrix_alloc(p, p);
	gsl_matrix *V = gsl_matrix_alloc(p, p);
	gsl_vector *eval = gsl_vector_alloc(p), *scale = gsl_vector_alloc(p);
	gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(p);
	double top;
	int rc = -1;

	an->phys_null = an->nuisance_null = 0;
	an->null_dir[TC] = an->null_dir[DR] = 0;
	if (!J || !A || !V || !eval || !scale || !ws) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	/* the model is rough on the scale of a few ulps of contact timing: the covariance
	 * uses the slope over CALIB_SE_STEP, the scale of a typical uncertainty, rather
	 * than the slope of the piece the solution happens to sit on */
	P->fd_step_log = CALIB_SE_STEP;
	problem_jacobian(x, P, J);
	P->fd_step_log = FD_STEP_LOG;
	/* scale columns to unit norm: parameters in seconds, metres and logs compare */
	for (j = 0; j < p; j++) {
		gsl_vector_view col = gsl_matrix_column(J, j);
		double norm = gsl_blas_dnrm2(&col.vector);

		gsl_vector_set(scale, j, norm > 0 ? norm : 1);
		gsl_vector_scale(&col.vector, 1 / gsl_vector_get(scale, j));
	}
	gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1, J, J, 0, A);
	gsl_eigen_symmv(A, eval, V, ws);
	gsl_eigen_symmv_sort(eval, V, GSL_EIGEN_SORT_VAL_DESC);
	top = gsl_vector_get(eval, 0);
	gsl_matrix_set_zero(an->cov);
	for (k = 0; k < p; k++) {
		double lambda = gsl_vector_get(eval, k);

		if (lambda > top * CALIB_RANK_TOLERANCE * CALIB_RANK_TOLERANCE && lambda > 0) {
			for (i = 0; i < p; i++)
				for (j = 0; j < p; j++)
					*gsl_matrix_ptr(an->cov, i, j) += gsl_matrix_get(V, i, k) *
					    gsl_matrix_get(V, j, k) / lambda;
			continue;
		}
		/* unidentified: its direction in parameter units is scale^-1 v */
		{
			double w[NPHYS] = {0, 0}, norm = 0, all = 0;
			size_t fk = 0;
			int q;

			for (i = 0; i < p; i++) {
				double c = gsl_matrix_get(V, i, k) / gsl_vector_get(scale, i);
				all += c * c;
			}
			for (q = 0; q < NPHYS; q++) {
				if (!P->free[q])
					continue;
				w[q] = gsl_matrix_get(V, fk, k) / gsl_vector_get(scale, fk);
				norm += w[q] * w[q];
				fk++;
			}
			if (norm > 0.01 * all && !an->phys_null) {
				an->phys_null = 1;
				an->null_dir[TC] = w[TC] / sqrt(norm);
				an->null_dir[DR] = w[DR] / sqrt(norm);
			} else if (norm <= 0.01 * all) {
				an->nuisance_null = 1;
			}
		}
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			*gsl_matrix_ptr(an->cov, i, j) /=
			    gsl_vector_get(scale, i) * gsl_vector_get(scale, j);
	rc = 0;
out:
	gsl_eigen_symmv_free(ws);
	gsl_vector_free(scale);
	gsl_vector_free(eval);
	gsl_matrix_free(V);
	gsl_matrix_free(A);
	gsl_matrix_free(J);
	return rc;
}

/*
 * The points of the profile walks, kept. uncertainty_profile() and uncertainty_intervals()
 * walk from the same estimate with the same first steps (only their levels and where they
 * stop differ), and a walk's points follow from its start alone: the k-th point's v from
 * the steps, its start from the two before it, its refit a pure function of those. So the
 * second call replays the first's points (their refitted vectors and chi^2, the same bits)
 * and refits only past where the first stopped. A tape is one walk's points: a combination,
 * a centre and a side, checked by its start (the centre, the first step, the estimate's
 * vector), so a walk from another estimate (a restart found a lower minimum) starts afresh.
 */
enum { MEMO_WALKS = 2 * (CALIB_MAX_STARTS + 1) };

struct tape {
	int valid;
	double key[5]; /* logp_hat, v_hat, step0 of the walk */
	double *key_x; /* the estimate's vector (p) */
	int n;         /* points kept */
	double v[CALIB_PROFILE_STEPS], chi2[CALIB_PROFILE_STEPS];
	double *x; /* CALIB_PROFILE_STEPS vectors of p */
};

struct uncertainty_memo {
	size_t p;
	struct tape tapes[UNCERTAINTY_NPROF][MEMO_WALKS];
};

void uncertainty_forget(struct problem *P)
{
	struct uncertainty_memo *m = P->walk_memo;
	int a, b;

	if (!m)
		return;
	for (a = 0; a < UNCERTAINTY_NPROF; a++)
		for (b = 0; b < MEMO_WALKS; b++) {
			free(m->tapes[a][b].x);
			free(m->tapes[a][b].key_x);
		}
	free(m);
	P->walk_memo = NULL;
}

static int same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* The tape of walk `walk` of combination `which` for a walk of p-vectors from x_hat with
 * key, emptied unless it was recorded from the same start; NULL when out of memory (the walk
 * then runs without one). */
static struct tape *memo_tape(struct problem *P, int which, size_t walk, size_t p,
    const double key[5], const gsl_vector *x_hat)
{
	struct uncertainty_memo *m = P->walk_memo;
	struct tape *t;
	size_t i;
	int same = 1;

	if (walk >= MEMO_WALKS)
		return NULL;
	if (!m || m->p != p) {
		uncertainty_forget(P);
		m = P->walk_memo = calloc(1, sizeof *m);
		if (!m)
			return NULL;
		m->p = p;
	}
	t = &m->tapes[which][walk];
	if (!t->x) {
		t->x = malloc(CALIB_PROFILE_STEPS * p * sizeof *t->x);
		t->key_x = malloc(p * sizeof *t->key_x);
		if (!t->x || !t->key_x)
			return NULL;
	}
	for (i = 0; i < 5 && t->valid; i++)
		same &= same_double(t->key[i], key[i]);
	for (i = 0; i < p && t->valid; i++)
		same &= same_double(t->key_x[i], gsl_vector_get(x_hat, i));
	if (!t->valid || !same) {
		memcpy(t->key, key, sizeof t->key);
		for (i = 0; i < p; i++)
			t->key_x[i] = gsl_vector_get(x_hat, i);
		t->n = 0;
		t->valid = 1;
	}
	return t;
}

/* A walk along the profile of one combination v of the logs (the profile likelihood:
 * uncertainty.h). */
struct walk {
	struct problem Q; /* the problem with v held; its origin moves with v */
	double c[NPHYS];  /* v = c . logp; c . c = 1 or 2 */
	double logp_hat[NPHYS], v_hat;
	double chi2_min, thr; /* thr: s^2 */
	double d_start;       /* chi^2 at the walk's centre less chi2_min (0 at the estimate) */
	double levels[3];     /* the 1-, 2-, 3-sigma levels of chi^2 - chi2_min */
	double stop;          /* a walk ends past this */
	gsl_vector *x_hat; /* Q's vector at the estimate: offset 0 along the axis, the nuisance */
	gsl_vector *prev, *prev2, *x;
	int seek_better; /* stop at a point below chi2_min by CALIB_PROFILE_IMPROVE * thr */
	int better;      /* and one was found */
	double better_logp[NPHYS];
	gsl_vector *better_x; /* Q's vector there */
	struct tape *tape;    /* this walk's points so far (NULL: none kept) */
};

/* Q's phys origin for v: the estimate moved along c. */
static void walk_hold(struct walk *w, double v)
{
	double cc = w->c[TC] * w->c[TC] + w->c[DR] * w->c[DR];
	int i;

	for (i = 0; i < NPHYS; i++)
		w->Q.origin[i] = w->logp_hat[i] + (v - w->v_hat) * w->c[i] / cc;
}

/* The profile chi^2 at v from the start in x (refitted in place). */
static int walk_point(
    struct walk *w, double v, gsl_vector *x, double *chi2, int *iterations, struct err *err)
{
	walk_hold(w, v);
	if (w->Q.p > 0 && descent_least_squares(&w->Q, x, iterations, err) != 0)
		return -1;
	problem_residuals(x, &w->Q, w->Q.f1);
	*chi2 = problem_sum_squares(w->Q.f1);
	return 0;
}

/* Where sqrt(delta) crosses sqrt(thr) between two points, as a fraction of the way:
 * sqrt(delta) is linear in v where chi^2 is quadratic. */
static double crossing(double d0, double d1, double thr)
{
	double a = sqrt(fmax(d0, 0)), b = sqrt(d1);

	return b > a ? fmin(fmax((sqrt(thr) - a) / (b - a), 0), 1) : 1;
}

/*
 * Walk the profile from the estimate to one side (+1 or -1) in steps that start at
 * step0 and grow by CALIB_PROFILE_GROWTH up to CALIB_PROFILE_STEP_MAX, until the
 * profile is CALIB_PROFILE_STOP * thr above the minimum, CALIB_PROFILE_STEPS steps
 * or CALIB_PROFILE_SPAN log units. Each point starts from the previous one moved on
 * as the last two went (the valley curves). The k-sigma interval ends at the outermost
 * point within k^2 thr (a second valley inside counts); *se is the largest of those
 * ends' distances over k, k = 1, 2, 3: a profile that rises steeply and then levels
 * off on a plateau (a curved valley seen from its floor) has a narrow 1-sigma but a
 * wide 3-sigma interval. Stops early when it finds a lower minimum (w->better).
 */
static int walk_side(struct walk *w, int side, double step0, double *se, double ends[3],
    int open[3], int *iterations, struct err *err)
{
	double v_prev = w->v_hat, v_prev2 = NAN, d_prev = w->d_start, step = step0, end[3];
	int k, level, stopped = 0;
	size_t i;

	*se = 0;
	gsl_vector_memcpy(w->prev, w->x_hat);
	for (level = 0; level < 3; level++) {
		end[level] = w->d_start <= w->levels[level] ? w->v_hat : NAN;
		open[level] = 0;
	}
	for (k = 0; k < CALIB_PROFILE_STEPS; k++) {
		double v = v_prev + side * step, chi2, d;

		if (fabs(v - w->v_hat) > CALIB_PROFILE_SPAN) {
			for (level = 0; level < 3; level++)
				if (d_prev <= w->levels[level]) {
					end[level] = w->v_hat + side * CALIB_PROFILE_SPAN;
					open[level] = 1;
				}
			stopped = 1;
			break;
		}
		if (w->tape && k < w->tape->n && same_double(w->tape->v[k], v)) {
			/* the earlier call's refit of this very point */
			for (i = 0; i < w->x->size; i++)
				gsl_vector_set(w->x, i, w->tape->x[(size_t)k * w->x->size + i]);
			chi2 = w->tape->chi2[k];
		} else {
			gsl_vector_memcpy(w->x, w->prev);
			if (isfinite(v_prev2))
				for (i = 0; i < w->x->size; i++)
					*gsl_vector_ptr(w->x, i) +=
					    (gsl_vector_get(w->prev, i) -
					        gsl_vector_get(w->prev2, i)) *
					    (v - v_prev) / (v_prev - v_prev2);
			if (walk_point(w, v, w->x, &chi2, iterations, err) != 0)
				return -1;
			if (w->tape && k == w->tape->n) {
				w->tape->v[k] = v;
				w->tape->chi2[k] = chi2;
				for (i = 0; i < w->x->size; i++)
					w->tape->x[(size_t)k * w->x->size + i] =
					    gsl_vector_get(w->x, i);
				w->tape->n++;
			}
		}
		d = chi2 - w->chi2_min;
		if (w->seek_better && d < -CALIB_PROFILE_IMPROVE * w->thr) {
			w->better = 1;
			problem_phys_logs(&w->Q, w->x, w->better_logp);
			gsl_vector_memcpy(w->better_x, w->x);
			return 0;
		}
		for (level = 0; level < 3; level++) {
			double lev = w->levels[level];

			if (d <= lev)
				end[level] = v;
			else if (d_prev <= lev)
				end[level] = v_prev + (v - v_prev) * crossing(d_prev, d, lev);
		}
		if (d > w->stop) {
			stopped = 1;
			break;
		}
		gsl_vector_memcpy(w->prev2, w->prev);
		gsl_vector_memcpy(w->prev, w->x);
		v_prev2 = v_prev;
		v_prev = v;
		d_prev = d;
		step = fmin(step * CALIB_PROFILE_GROWTH, CALIB_PROFILE_STEP_MAX);
	}
	for (level = 0; level < 3; level++) {
		*se = fmax(*se, fabs(end[level] - w->v_hat) / (level + 1));
		ends[level] = end[level];
		/* out of steps still inside the level: the interval goes on beyond */
		if (!stopped && d_prev <= w->levels[level])
			open[level] = 1;
	}
	return 0;
}

/*
 * One walk of profile_all(): a combination, a centre and a side, with a walk state and a
 * problem copy of its own (problem_fork()), so that the walks of a profile run on the fit's
 * threads at once. A walk is a pure function of its start (the tape's argument above), so
 * which thread runs it, and when, changes no bit of its answer.
 */
struct walk_job {
	struct walk w;
	int which, side;
	size_t centre;
	double step0;
	int rc, iterations;
	struct err err;
	double se, ends[3];
	int open[3];
};

static void walk_free(struct walk *w)
{
	problem_fork_free(&w->Q);
	gsl_vector_free(w->x_hat);
	gsl_vector_free(w->prev);
	gsl_vector_free(w->prev2);
	gsl_vector_free(w->x);
	gsl_vector_free(w->better_x);
}

/* w's problem, a profile's copy of P (one physical parameter fewer, the releases), and its
 * vectors. -1 with ERR_INTERNAL when out of memory (walk_free() frees what there is). */
static int walk_alloc(struct walk *w, const struct problem *P, struct err *err)
{
	size_t q;

	w->Q = *P;
	w->Q.profiling = 1;
	w->Q.nphys = P->nphys - 1;
	w->Q.p = w->Q.nphys + 2 * P->data->ntrajectories;
	if (problem_fork(&w->Q, err) != 0)
		return -1;
	q = w->Q.xp->size;
	w->x_hat = gsl_vector_alloc(q);
	w->prev = gsl_vector_alloc(q);
	w->prev2 = gsl_vector_alloc(q);
	w->x = gsl_vector_alloc(q);
	w->better_x = gsl_vector_alloc(q);
	if (!w->x_hat || !w->prev || !w->prev2 || !w->x || !w->better_x)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	return 0;
}

/* Job j of profile_all()'s walks (fit/parallel.h). */
static void walk_run(void *ctx, size_t j)
{
	struct walk_job *job = (struct walk_job *)ctx + j;

	job->rc = walk_side(&job->w, job->side, job->step0, &job->se, job->ends, job->open,
	    &job->iterations, &job->err);
}

/*
 * Whether the walks from the other minima on this side of combination `which` can still
 * change what uncertainty_intervals() reports, given the estimate's walk there (job): not
 * once that walk ran out inside every level the answers use, the side being open then
 * whatever else is found (the log intervals use the 1- and 2-sigma levels, the product
 * only whether its 2-sigma region is open).
 */
static int modes_matter(const struct walk_job *job)
{
	if (job->which == UNCERTAINTY_PROF_PRODUCT)
		return !job->open[1];
	return !(job->open[0] && job->open[1]);
}

/* Set up job (a walk of combination c, one of its walks from a centre: 2 * centre plus the
 * side) from the estimate x of P and what every walk shares (base). */
static int walk_setup(struct walk_job *job, struct problem *P, const gsl_vector *x,
    const struct walk *base, const double logp_hat[NPHYS], int which, size_t walk,
    const double c[NPHYS], double step0, double d_start, int seek_better, struct err *err)
{
	struct walk *w = &job->w;
	size_t j, centre = walk / 2;

	if (walk_alloc(w, P, err) != 0)
		return -1;
	job->which = which;
	job->centre = centre;
	job->side = walk % 2 ? 1 : -1;
	job->step0 = step0;
	w->chi2_min = base->chi2_min;
	w->thr = base->thr;
	memcpy(w->levels, base->levels, sizeof w->levels);
	w->stop = base->stop;
	memcpy(w->c, c, sizeof w->c);
	/* the other combination: the axis orthogonal to c, offset 0 at the estimate */
	w->Q.axis[TC] = -c[DR] / sqrt(c[TC] * c[TC] + c[DR] * c[DR]);
	w->Q.axis[DR] = c[TC] / sqrt(c[TC] * c[TC] + c[DR] * c[DR]);
	memcpy(w->logp_hat, centre == 0 ? logp_hat : P->mode_logp[centre - 1], sizeof w->logp_hat);
	w->d_start = d_start;
	w->seek_better = centre == 0 ? seek_better : 0;
	w->v_hat = c[TC] * w->logp_hat[TC] + c[DR] * w->logp_hat[DR];
	if (w->Q.nphys > 0)
		gsl_vector_set(w->x_hat, 0, 0);
	for (j = 0; j < 2 * P->data->ntrajectories; j++)
		gsl_vector_set(w->x_hat, w->Q.nphys + j, gsl_vector_get(x, P->nphys + j));
	{
		const double key[5] = {
		    w->logp_hat[TC], w->logp_hat[DR], w->v_hat, step0, (double)job->side};

		/* fetched here, on one thread: the memo is allocated on first use */
		w->tape = memo_tape(P, which, walk, w->x_hat->size, key, w->x_hat);
	}
	return 0;
}

/*
 * The profile standard errors of log timeconst, log dampratio and their sum at the
 * estimate x of P (whose fitted physical parameters are the free ones), with P's covariance
 * cov (unscaled) for the first step. With seek_better, a walk that finds a lower
 * minimum ends it all: pr->better is set and better (P's layout) is the point there.
 * With levels (uncertainty_intervals()), the intervals at those levels also take the walks
 * from every other minimum within the 2-sigma level, on the sides the estimate's own walks
 * left bounded (modes_matter()); without, pr's intervals are the estimate's walks' alone
 * (uncertainty_profile() uses only the standard errors).
 * The walks run at once (parallel_for()), the estimate's first, and are taken in the order
 * one thread would have walked them, so that the first lower minimum, the error and the
 * iterations are that thread's.
 */
static int profile_all(struct problem *P, const gsl_vector *x, const gsl_matrix *cov,
    const double *levels, int seek_better, struct uncertainty_profiles *pr, gsl_vector *better,
    int *iterations, struct err *err)
{
	static const double dirs[UNCERTAINTY_NPROF][NPHYS] = {{1, 0}, {0, 1}, {1, 1}};
	struct walk_job *jobs = calloc(UNCERTAINTY_NPROF * MEMO_WALKS, sizeof *jobs);
	struct walk_job *own[UNCERTAINTY_NPROF][2] = {{NULL}}; /* the estimate's walks */
	struct walk base; /* what every walk shares: the estimate and the levels */
	gsl_vector *f = gsl_vector_alloc(P->n);
	size_t n = P->n, j, q, walk, njobs = 0, first;
	double s2, logp_hat[NPHYS], step0[UNCERTAINTY_NPROF];
	int rc = -1, which, stage, usable[UNCERTAINTY_NPROF];

	memset(pr, 0, sizeof *pr);
	memset(&base, 0, sizeof base);
	if (!jobs || !f) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	problem_phys_logs(P, x, logp_hat);
	problem_residuals(x, P, f);
	base.chi2_min = problem_sum_squares(f);
	s2 = problem_residual_variance(base.chi2_min, n, P->p);
	base.thr = s2;
	for (which = 0; which < 3; which++)
		base.levels[which] = levels ? levels[which] : (which + 1) * (which + 1) * s2;
	/* past the 2-sigma level, the widest an interval needs; the standard profile's
	 * stop is CALIB_PROFILE_STOP s^2 as it was */
	base.stop = fmax(CALIB_PROFILE_STOP * s2, 2 * base.levels[1]);
	for (which = 0; which < UNCERTAINTY_NPROF; which++) {
		double var = 0;
		size_t k = 0;
		int i;

		/* profile only what the free parameters move: with one held, its own log */
		usable[which] = 1;
		for (i = 0; i < NPHYS; i++)
			if (!P->free[i] && dirs[which][i] != 0)
				usable[which] = 0;
		/* first step: the covariance's standard error of v */
		for (i = 0; i < NPHYS && usable[which]; i++) {
			size_t l = 0;
			int m;

			if (!P->free[i])
				continue;
			for (m = 0; m < NPHYS; m++) {
				if (!P->free[m])
					continue;
				var += dirs[which][i] * dirs[which][m] * gsl_matrix_get(cov, k, l) *
				    s2;
				l++;
			}
			k++;
		}
		step0[which] =
		    fmin(fmax(sqrt(fmax(var, 0)), CALIB_PROFILE_STEP_MIN), CALIB_PROFILE_STEP_MAX);
		for (i = 0; i < 3; i++) {
			pr->lo[which][i] = pr->hi[which][i] = NAN;
			pr->open_lo[which][i] = pr->open_hi[which][i] = 0;
		}
	}
	/* stage 0 the estimate's walks, stage 1 those from every other minimum */
	for (stage = 0; stage < (levels ? 2 : 1); stage++) {
		first = njobs;
		for (which = 0; which < UNCERTAINTY_NPROF; which++) {
			if (!usable[which])
				continue;
			for (walk = stage ? 2 : 0; walk < (stage ? 2 * (P->nmodes + 1) : 2);
			     walk++) {
				size_t centre = walk / 2;
				double d_start = 0;
				int i;

				if (centre > 0) {
					const double *mode = P->mode_logp[centre - 1];
					double dist = 0;

					if (!modes_matter(own[which][walk % 2]))
						continue;
					for (i = 0; i < NPHYS; i++)
						dist = fmax(dist, fabs(mode[i] - logp_hat[i]));
					d_start = P->mode_chi2[centre - 1] - base.chi2_min;
					/* a mode of the first search has both parameters free:
					 * with one held since, it lies off the problem */
					if (P->nphys < NPHYS || dist < CALIB_DISTINCT_LOG ||
					    !(d_start <= base.levels[1]))
						continue;
				} else
					own[which][walk % 2] = &jobs[njobs];
				if (walk_setup(&jobs[njobs++], P, x, &base, logp_hat, which, walk,
				        dirs[which], step0[which], d_start, seek_better, err) != 0)
					goto out;
			}
		}
		problem_for_chains(P, njobs - first, 1, walk_run, jobs + first);
		for (j = first; j < njobs; j++) {
			struct walk_job *job = &jobs[j];
			int i;

			if (job->rc != 0) {
				*err = job->err;
				goto out;
			}
			*iterations += job->iterations;
			if (job->w.better) {
				pr->better = 1;
				for (i = 0, q = 0; i < NPHYS; i++)
					if (P->free[i])
						gsl_vector_set(better, q++, job->w.better_logp[i]);
				for (q = 0; q < 2 * P->data->ntrajectories; q++)
					gsl_vector_set(better, P->nphys + q,
					    gsl_vector_get(job->w.better_x, job->w.Q.nphys + q));
				rc = 0;
				goto out;
			}
			if (job->centre == 0)
				pr->se[job->which] = fmax(pr->se[job->which], job->se);
			for (i = 0; i < 3; i++) {
				if (isnan(job->ends[i]))
					continue;
				if (job->side < 0) {
					pr->lo[job->which][i] =
					    fmin(pr->lo[job->which][i], job->ends[i]);
					pr->open_lo[job->which][i] |= job->open[i];
				} else {
					pr->hi[job->which][i] =
					    fmax(pr->hi[job->which][i], job->ends[i]);
					pr->open_hi[job->which][i] |= job->open[i];
				}
			}
		}
	}
	for (which = 0; which < UNCERTAINTY_NPROF; which++)
		pr->done[which] = usable[which];
	rc = 0;
out:
	for (j = 0; jobs && j < njobs; j++)
		walk_free(&jobs[j].w);
	free(jobs);
	gsl_vector_free(f);
	return rc;
}

int uncertainty_profile(struct problem *P, gsl_vector *x, struct uncertainty_analysis *an,
    struct uncertainty_profiles *pr, int *iterations, struct err *err)
{
	gsl_vector *better = gsl_vector_alloc(P->p);
	int restart, rc = -1, phys_null = an->phys_null, nuisance_null = an->nuisance_null;

	if (!better)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	for (restart = 0;; restart++) {
		if (profile_all(P, x, an->cov, NULL, restart < CALIB_PROFILE_RESTARTS, pr, better,
		        iterations, err) != 0)
			goto out;
		if (!pr->better)
			break;
		/* the descent only goes down from a point already below the estimate */
		if (descent_least_squares(P, better, iterations, err) != 0)
			goto out;
		gsl_vector_memcpy(x, better);
		if (uncertainty_analyse(P, x, an, err) != 0)
			goto out;
		/* identification was settled at the first minimum */
		an->phys_null = phys_null;
		an->nuisance_null = nuisance_null;
	}
	rc = 0;
out:
	gsl_vector_free(better);
	return rc;
}

/*
 * Confidence intervals. The k-sigma interval of a log parameter is the projection of
 * the region {chi^2 - chi^2_min <= level_k}: its lowest and highest points, found by
 * the profile walks (from the estimate and from every other minimum the search reached
 * within the 2-sigma level), widened to every point of the first search's grid inside
 * the level, and, with few degrees of freedom, to every point of a fine scan. An
 * interval that reaches the grid's edge, or whose walk ran out still inside the level,
 * is open on that side: the data bound the parameter on one side only.
 *
 * The level is the likelihood ratio's k^2 s^2, right where chi^2 is a smooth bowl near
 * its minimum. With fewer than CALIB_MIN_DOF degrees of freedom it is at least what the
 * chi^2 test of the whole parameter set allows, the n-dof quantile at the same coverage
 * less chi^2_min: chi^2 at the truth has n degrees of freedom however rough the model,
 * and the model of a few drops at a coarse timestep is rough indeed (the apex swings by
 * millimetres as timeconst moves a few per cent, moving the contact's phase within a
 * step), so the lowest of its many pieces fits the noise itself and the likelihood
 * ratio at the truth has n, not 1, degrees of freedom. With more data the residuals
 * show a misfit instead.
 *
 * The likelihood ratio's level has CALIB_ROUGH_LEVEL s^2 added: chi^2 being rough, its
 * lowest piece lies below the smooth bowl through the others, so chi^2 at the truth is
 * that much further above the minimum than a smooth model's, on average.
 */
static int few_dof(const struct problem *P)
{
	return P->n < P->p + CALIB_MIN_DOF;
}

/*
 * Drops none of which bounced (every rebound within CALIB_BOUNCE_SIGMAS sigma of 0) and no
 * trajectory (issue #29): the model's rebound is 0 over a whole plateau of pads (every
 * dampratio above some value), and a measured rebound never goes below 0, so the noise
 * alone makes a pad that bounces a little fit better than the plateau, by more than the
 * likelihood ratio's level in one set of eight: chi^2 - chi^2_min is not the likelihood
 * ratio's 1-dof variable there. Their intervals also hold what the chi^2 test of all
 * measurements allows, as few degrees of freedom's do: the plateau whenever the rebounds
 * are consistent with no bounce at all.
 */
static int no_bounce(const struct problem *P)
{
	const struct calib_data *d = P->data;
	size_t i;

	if (d->ndrops == 0 || d->ntrajectories > 0)
		return 0;
	for (i = 0; i < d->ndrops; i++)
		if (d->drops[i].rebound > CALIB_BOUNCE_SIGMAS * problem_drop_sigma(&d->drops[i]))
			return 0;
	return 1;
}

/* The intervals also hold what the chi^2 test of all measurements allows. */
static int chi2_tested(const struct problem *P)
{
	return few_dof(P) || no_bounce(P);
}

/* The 1-, 2- and 3-sigma levels of chi^2 - chi^2_min at x (chi^2 there into *chi2_min),
 * and whether the chi^2 test set them. */
static int interval_levels(
    struct problem *P, const gsl_vector *x, double levels[3], double *chi2_min)
{
	static const double coverage[3] = {0.682689492137086, 0.954499736103642, 0.997300203936740};
	double chi2, s2;
	int k, test = 0;

	problem_residuals(x, P, P->f1);
	chi2 = *chi2_min = problem_sum_squares(P->f1);
	s2 = problem_residual_variance(chi2, P->n, P->p);
	for (k = 0; k < 3; k++) {
		double allowed = gsl_cdf_chisq_Pinv(coverage[k], (double)P->n) * s2 - chi2;

		levels[k] = ((k + 1) * (k + 1) + CALIB_ROUGH_LEVEL) * s2;
		if (chi2_tested(P) && allowed > levels[k]) {
			levels[k] = allowed;
			test = 1;
		}
	}
	return test;
}

/* Widen out's intervals of parameter q at level k to the point logp, open where the
 * point is on the edge of its grid (index idx of count). */
static void interval_take(
    struct uncertainty_intervals *out, int q, int k, double v, int idx, int count)
{
	out->log[q][k][0] = idx == 0 ? -INFINITY : fmin(out->log[q][k][0], v);
	out->log[q][k][1] = idx == count - 1 ? INFINITY : fmax(out->log[q][k][1], v);
}

/* A point inside the 2-sigma level on an edge of its grid: the region may go on beyond
 * it, so no combination of the parameters is bounded there. */
static void interval_edge(
    struct uncertainty_intervals *out, double d, const int idx[NPHYS], const int count[NPHYS])
{
	int q;

	if (!(d <= out->levels[1]))
		return;
	for (q = 0; q < NPHYS; q++)
		if (idx[q] == 0 || idx[q] == count[q] - 1)
			out->product_open = 1;
}

/* Every point of the first search's grid inside the levels. */
static void interval_grid(
    const struct problem *P, double chi2_min, struct uncertainty_intervals *out)
{
	int a, b, k, q;

	if (!P->grid_kept_ready || P->nphys != NPHYS)
		return;
	for (a = 0; a < P->grid_counts[TC]; a++)
		for (b = 0; b < P->grid_counts[DR]; b++) {
			const struct grid_start *g = &P->grid_kept[a * CALIB_GRID_POINTS + b];
			int idx[NPHYS] = {a, b};

			interval_edge(out, g->chi2 - chi2_min, idx, P->grid_counts);
			for (k = 0; k < 2; k++)
				for (q = 0; q < NPHYS; q++)
					if (g->chi2 - chi2_min <= out->levels[k])
						interval_take(out, q, k, g->logp[q], idx[q],
						    P->grid_counts[q]);
		}
}

/* Whether the scan's point (logs v, grid indices idx of count) can widen out: it is on an edge
 * of the grid, or outside the intervals found so far at some level. A point inside them at
 * both levels changes nothing whatever its chi^2 (the intervals only widen, to the extremes
 * of the points inside the level), so it need not be stepped. */
static int interval_could_widen(const struct uncertainty_intervals *out, const double v[NPHYS],
    const int idx[NPHYS], const int count[NPHYS])
{
	int k, q;

	for (q = 0; q < NPHYS; q++)
		if (idx[q] == 0 || idx[q] == count[q] - 1)
			return 1;
	for (k = 0; k < 2; k++)
		for (q = 0; q < NPHYS; q++)
			if (!(v[q] >= out->log[q][k][0] && v[q] <= out->log[q][k][1]))
				return 1;
	return 0;
}

/* The fine scan of chi^2 over the starting grid's box (a fit with few degrees of
 * freedom, no trajectory: each point costs a few drops or presses), at the points that
 * could widen the intervals the profiles and the starting grid found. */
static int interval_scan(
    struct problem *P, double chi2_min, struct uncertainty_intervals *out, struct err *err)
{
	const double *lo = P->log_lo, *hi = P->log_hi;
	const int count[NPHYS] = {CALIB_SCAN_POINTS_TC, CALIB_SCAN_POINTS_DR};
	size_t n = (size_t)count[TC] * (size_t)count[DR], i, m = 0;
	double(*pads)[NPHYS] = malloc(n * sizeof *pads), *chi2 = malloc(n * sizeof *chi2);
	int(*at)[NPHYS] = malloc(n * sizeof *at);
	gsl_vector *x = gsl_vector_alloc(P->p);
	int a, b, k, q, rc = -1;

	if (!pads || !chi2 || !at || !x) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	/* the points to step, chosen before any is: what they add only widens the intervals,
	 * so a point inside them now is inside them after */
	for (a = 0; a < count[TC]; a++)
		for (b = 0; b < count[DR]; b++) {
			int idx[NPHYS] = {a, b};
			double v[NPHYS];

			for (q = 0; q < NPHYS; q++)
				v[q] = lo[q] + (hi[q] - lo[q]) * idx[q] / (count[q] - 1);
			if (!interval_could_widen(out, v, idx, count))
				continue;
			memcpy(pads[m], v, sizeof pads[m]);
			memcpy(at[m], idx, sizeof at[m]);
			m++;
		}
	/* every point's drops stepped at once, through the lanes, drop by drop: a point whose
	 * first drops put it past both levels is not stepped further (it is outside either way) */
	gsl_vector_set_zero(x);
	if (m > 0 &&
	    problem_chi2_within(P, x, (const double(*)[NPHYS])pads, m,
	        chi2_min + fmax(out->levels[0], out->levels[1]), chi2, err) != 0)
		goto out;
	for (i = 0; i < m; i++) {
		double d = chi2[i] - chi2_min;

		interval_edge(out, d, at[i], count);
		for (k = 0; k < 2; k++)
			for (q = 0; q < NPHYS; q++)
				if (d <= out->levels[k])
					interval_take(out, q, k, pads[i][q], at[i][q], count[q]);
	}
	rc = 0;
out:
	gsl_vector_free(x);
	free(at);
	free(chi2);
	free(pads);
	return rc;
}

int uncertainty_intervals(struct problem *P, const gsl_vector *x, const gsl_matrix *cov,
    struct uncertainty_intervals *out, int *iterations, struct err *err)
{
	static const int prof_of[NPHYS] = {UNCERTAINTY_PROF_TC, UNCERTAINTY_PROF_DR};
	struct uncertainty_profiles pr;
	double chi2_min;
	int q, k;

	memset(out, 0, sizeof *out);
	out->chi2_test = interval_levels(P, x, out->levels, &chi2_min);
	if (profile_all(P, x, cov, out->levels, 0, &pr, NULL, iterations, err) != 0)
		return -1;
	for (q = 0; q < NPHYS; q++) {
		int which = prof_of[q];

		out->done[q] = pr.done[which];
		for (k = 0; k < 2; k++) {
			out->log[q][k][0] = pr.open_lo[which][k] ? -INFINITY : pr.lo[which][k];
			out->log[q][k][1] = pr.open_hi[which][k] ? INFINITY : pr.hi[which][k];
		}
	}
	out->product_open = !pr.done[UNCERTAINTY_PROF_PRODUCT] ||
	    pr.open_lo[UNCERTAINTY_PROF_PRODUCT][1] || pr.open_hi[UNCERTAINTY_PROF_PRODUCT][1];
	interval_grid(P, chi2_min, out);
	if (chi2_tested(P) && P->nphys == NPHYS && P->data->ntrajectories == 0 &&
	    interval_scan(P, chi2_min, out, err) != 0)
		return -1;
	return 0;
}
