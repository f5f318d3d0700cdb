/*
 * profile.c: the profile walks of a pad fit, their memo and their restarts from a lower
 * minimum (see profile.h).
 */
#include "fit/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/descent.h"
#include "fit/knobs.h"

/*
 * The points of the profile walks, kept. profile_standard_errors() and interval_find()
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

struct profile_memo {
	size_t p;
	struct tape tapes[PROFILE_N][MEMO_WALKS];
};

void profile_forget(struct problem *P)
{
	struct profile_memo *m = P->walk_memo;
	int a, b;

	if (!m)
		return;
	for (a = 0; a < PROFILE_N; a++)
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
	struct profile_memo *m = P->walk_memo;
	struct tape *t;
	size_t i;
	int same = 1;

	if (walk >= MEMO_WALKS)
		return NULL;
	if (!m || m->p != p) {
		profile_forget(P);
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
 * profile.h). */
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
 * change what interval_find() reports, given the estimate's walk there (job): not
 * once that walk ran out inside every level the answers use, the side being open then
 * whatever else is found (the log intervals use the 1- and 2-sigma levels, the product
 * only whether its 2-sigma region is open).
 */
static int modes_matter(const struct walk_job *job)
{
	if (job->which == PROFILE_PRODUCT)
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

int profile_all(struct problem *P, const gsl_vector *x, const gsl_matrix *cov, const double *levels,
    int seek_better, struct profile_result *pr, gsl_vector *better, int *iterations,
    struct err *err)
{
	static const double dirs[PROFILE_N][NPHYS] = {{1, 0}, {0, 1}, {1, 1}};
	struct walk_job *jobs = calloc(PROFILE_N * MEMO_WALKS, sizeof *jobs);
	struct walk_job *own[PROFILE_N][2] = {{NULL}}; /* the estimate's walks */
	struct walk base; /* what every walk shares: the estimate and the levels */
	gsl_vector *f = gsl_vector_alloc(P->n);
	size_t n = P->n, j, q, walk, njobs = 0, first;
	double s2, logp_hat[NPHYS], step0[PROFILE_N];
	int rc = -1, which, stage, usable[PROFILE_N];

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
	for (which = 0; which < PROFILE_N; which++) {
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
		for (which = 0; which < PROFILE_N; which++) {
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
	for (which = 0; which < PROFILE_N; which++)
		pr->done[which] = usable[which];
	rc = 0;
out:
	for (j = 0; jobs && j < njobs; j++)
		walk_free(&jobs[j].w);
	free(jobs);
	gsl_vector_free(f);
	return rc;
}

int profile_standard_errors(struct problem *P, gsl_vector *x, struct uncertainty_analysis *an,
    struct profile_result *pr, int *iterations, struct err *err)
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
