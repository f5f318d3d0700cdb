/* fit.c: the pad calibration fit's entry, a pipeline of five stages, one module each:
 *   1. the problem, built once and read only after (fit/problem.h);
 *   2. the chi-square map of the searched box, releases profiled at each point (fit/map.h);
 *   3. descents from the map's lowest minima, the best (polished) the answer (fit/descent.h);
 *   4. what the data determine: flat directions held, intervals read off the map (fit/interval.h);
 *   5. the status and the notes (fit/status.h).
 * fit_solref() names them in that order; see fit.h for the model and the method. */
#include "fit/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/quiet.h"
#include "fit/descent.h"
#include "fit/interval.h"
#include "fit/map.h"
#include "fit/model.h"
#include "fit/parallel.h"
#include "fit/problem.h"
#include "fit/status.h"
#include "fit/knobs.h"

_Static_assert((int)TC == (int)FIT_TC && (int)DR == (int)FIT_DR && NPHYS == 2,
    "fit.h's parameter order is problem.h's");

/* What the stages pass on: the free logs, the map, the estimate and its analysis. */
struct fit_state {
	const struct problem *P;
	struct problem_scratch S;
	int free[NPHYS], nfree;
	struct map map;
	struct descent_point est;
	struct interval_analysis an;
	struct interval_result ci;
	int iterations;
};

/* Stage 3's descents, one a start, on the fit's threads. */
struct descents {
	struct fit_state *st;
	size_t idx[MAP_STARTS + 2 * NPHYS];
	struct descent_point end[MAP_STARTS + 2 * NPHYS];
	int iterations[MAP_STARTS + 2 * NPHYS], failed;
};

static void descend_one(void *ctx, size_t k)
{
	struct descents *D = ctx;
	const struct fit_state *st = D->st;
	const size_t nrel = 2 * st->P->data.ntrajectories;
	struct problem_scratch S = {0};
	struct err err;

	memcpy(D->end[k].rel, &st->map.rel[D->idx[k] * nrel], nrel * sizeof *D->end[k].rel);
	memcpy(D->end[k].logp, st->map.pt[D->idx[k]].logp, sizeof D->end[k].logp);
	if (problem_scratch_alloc(st->P, &S) != 0 ||
	    descent_run(st->P, &S, st->free, &D->end[k], &D->iterations[k], &err) != 0)
		D->failed = 1;
	problem_scratch_free(&S);
}

/* Stage 3's polish (fit/knobs.h): rings of POLISH_DIRECTIONS points (one free log: 2) around *pt
 * h lattice steps out, each a batch, *pt moved to the lowest below it, else h halved; a log at an
 * edge stays (pinned). Not with trajectories: rough at every scale (the step an impact falls in),
 * their chi^2 has spikes narrower than the intervals' levels, which a compass search digs into. */
static int polish(const struct fit_state *st, struct descent_point *pt)
{
	const struct problem *P = st->P;
	double ring[POLISH_DIRECTIONS][NPHYS], h = 1, *res = malloc(sizeof ring * P->n), chi2;
	int moves[NPHYS], n, k, q, best, rounds = 0;
	size_t i;

	for (q = 0; q < NPHYS; q++)
		moves[q] = st->free[q] && pt->logp[q] > P->log_lo[q] + CALIB_EDGE_LOG &&
		    pt->logp[q] < P->log_hi[q] - CALIB_EDGE_LOG;
	n = moves[TC] && moves[DR] ? POLISH_DIRECTIONS : 2;
	if (!res)
		return -1;
	while ((moves[TC] || moves[DR]) && h >= 1.0 / (1 << POLISH_HALVINGS) &&
	    rounds++ < POLISH_ROUNDS && !problem_stopped(P)) {
		for (k = 0; k < n; k++)
			for (q = 0; q < NPHYS; q++) {
				/* one log alone: its two directions, the other's step 0 */
				double a = 2 * M_PI * k / n + (moves[TC] ? 0 : M_PI / 2),
				       x = pt->logp[q] +
				    moves[q] * (q ? sin(a) : cos(a)) * h * st->map.step[q];

				ring[k][q] = fmin(fmax(x, P->log_lo[q]), P->log_hi[q]);
			}
		problem_statics(P, (const double(*)[NPHYS])ring, (size_t)n, 1, res);
		for (k = 0, best = -1; k < n; k++) {
			for (chi2 = 0, i = 0; i < P->n; i++)
				chi2 += res[k * P->n + i] * res[k * P->n + i];
			if (chi2 < pt->chi2 && !problem_stopped(P)) {
				pt->chi2 = chi2;
				best = k;
			}
		}
		if (best >= 0)
			memcpy(pt->logp, ring[best], sizeof pt->logp);
		else
			h /= 2;
	}
	free(res);
	return 0;
}

/* Stage 3: descents from the map's lowest distinct minima into st->est, the lowest polished. */
static int descend(struct fit_state *st, struct err *err)
{
	const size_t nrel = 2 * st->P->data.ntrajectories;
	struct descents D = {.st = st};
	size_t n = map_starts(&st->map, D.idx, MAP_STARTS + 2 * NPHYS), k, best = 0;
	double *rel = malloc((n * nrel + 1) * sizeof *rel);
	int ok;

	for (k = 0; k < n; k++)
		D.end[k].rel = rel + k * nrel;
	if (rel && n > 0)
		parallel_for(n, 1, descend_one, &D);
	for (k = 0; k < n; k++) {
		st->iterations += D.iterations[k];
		best = D.end[k].chi2 < D.end[best].chi2 ? k : best;
	}
	ok = rel && n > 0 && !D.failed && (nrel > 0 || polish(st, &D.end[best]) == 0);
	if (ok) {
		memcpy(st->est.logp, D.end[best].logp, sizeof st->est.logp);
		memcpy(st->est.rel, D.end[best].rel, nrel * sizeof *st->est.rel);
		st->est.chi2 = D.end[best].chi2;
	}
	free(rel);
	return ok ? 0 : err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
}

/* Stages 2 and 3 for the free logs st->free (a held one at st->est's value), then stage 4's
 * analysis at the estimate. */
static int search(struct fit_state *st, struct err *err)
{
	map_free(&st->map);
	if (map_build(&st->map, st->P, st->free, st->est.logp, err) != 0 || descend(st, err) != 0 ||
	    map_refine(&st->map, st->est.logp, st->est.chi2, err) != 0)
		return -1;
	gsl_matrix_free(st->an.cov);
	st->an.cov = gsl_matrix_alloc(
	    problem_params(st->P, (size_t)st->nfree), problem_params(st->P, (size_t)st->nfree));
	if (!st->an.cov)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	return interval_analyse(st->P, &st->S, st->free, &st->est, &st->an, err);
}

/* Stage 4: a flat direction of the logs is held (one log at its fitted value) and the rest
 * fitted again, unless it is one log's at an edge, which is pinned there. */
static int identify(struct fit_result *fit, struct fit_state *st, struct err *err)
{
	int hold;

	if (!st->an.phys_null || st->nfree < NPHYS ||
	    status_pin(fit, st->P, st->free, st->est.logp, st->an.null_dir)) {
		st->an.phys_null = st->an.phys_null && !(fit->pinned[TC] || fit->pinned[DR]);
		return 0;
	}
	/* the log the flat direction moves most (dampratio on a near tie) */
	hold = fabs(st->an.null_dir[TC]) > 1.5 * fabs(st->an.null_dir[DR]) ? TC : DR;
	st->free[hold] = 0;
	st->nfree--;
	fit->held[hold] = 1;
	status_explain_hold(fit, st->P, hold, st->an.null_dir, exp(st->est.logp[hold]));
	fit->product_identified = fabs(st->an.null_dir[TC]) > 0.3 &&
	    fabs(st->an.null_dir[DR]) > 0.3 && st->an.null_dir[TC] * st->an.null_dir[DR] < 0;
	fit->identified[hold == TC ? DR : TC] = !fit->product_identified;
	return search(st, err);
}

/* Half the width of a 1-sigma interval: the standard error, one definition for every
 * spread the fit reports; NAN when it is open. */
static double half_width(const double one[2])
{
	return isfinite(one[0]) && isfinite(one[1]) ? (one[1] - one[0]) / 2 : NAN;
}

/* The estimate, chi^2, intervals, spreads, predictions and residuals into fit. */
static void record(struct fit_result *fit, struct fit_state *st)
{
	const struct problem *P = st->P;
	const struct calib_data *d = &P->data;
	const double *se = fit->se_log;
	struct core_scene_model m;
	size_t p = problem_params(P, (size_t)st->nfree), i, j;
	double s2, su;
	int q;

	fit->timeconst = exp(st->est.logp[TC]);
	fit->dampratio = exp(st->est.logp[DR]);
	fit->chi2 = st->est.chi2;
	fit->dof = (long)P->n - (long)p;
	s2 = problem_residual_variance(fit->chi2, P->n, p);
	fit->se_scaled = s2 > 1;
	fit->interval_basis =
	    st->ci.chi2_test ? FIT_INTERVAL_CHI2_TEST : FIT_INTERVAL_LIKELIHOOD_RATIO;
	/* a log left free beside a held one, where only the product is identified, has an
	 * interval that holds only at the held log's value: no claim (NAN), as its note says */
	for (q = 0; q < NPHYS; q++)
		if (st->free[q] && (fit->identified[q] || fit->pinned[q])) {
			memcpy(fit->interval_log[q], st->ci.log[q], sizeof fit->interval_log[q]);
			fit->se_log[q] = fit->identified[q] ? half_width(st->ci.log[q][0]) : NAN;
		}
	/* the correlation the three spreads imply: var(u) = s_tc^2 + s_dr^2 + 2 rho s_tc s_dr */
	su = fit->se_log_product = fit->product_identified ? half_width(st->ci.product[0]) : NAN;
	if (st->nfree == NPHYS && isfinite(su) && se[TC] > 0 && se[DR] > 0)
		fit->correlation = fmax(-1,
		    fmin(1, (su * su - se[TC] * se[TC] - se[DR] * se[DR]) / (2 * se[TC] * se[DR])));
	fit->iterations = st->iterations;
	/* model predictions and residual summaries at the estimate */
	problem_model_at(P, st->est.logp, &m);
	for (i = 0; i < d->ndrops; i++) {
		fit->drop_model[i] = model_rebound(&m, d->drops[i].height);
		fit->drop_residual[i] = d->drops[i].rebound - fit->drop_model[i];
	}
	for (i = 0; i < d->npresses; i++) {
		fit->press_model[i] = model_press(&m, d->presses[i].force);
		fit->press_residual[i] = d->presses[i].deflection - fit->press_model[i];
	}
	for (j = 0; j < d->ntrajectories; j++) {
		struct fit_traj *tf = &fit->traj[j];
		const size_t c = (size_t)st->nfree + 2 * j;

		/* the releases' spreads: the covariance's (the map profiles them out) */
		tf->se_release_time = sqrt(gsl_matrix_get(st->an.cov, c, c) * s2);
		tf->se_release_height = sqrt(gsl_matrix_get(st->an.cov, c + 1, c + 1) * s2);
		tf->release_time = st->est.rel[2 * j];
		tf->release_height = st->est.rel[2 * j + 1];
		problem_traj_residuals(
		    P, &st->S, &m, j, &st->est.rel[2 * j], NULL, &tf->rms, &tf->max_abs);
	}
}

/* Stages 2 to 5 on a built problem. */
static int fit_run(struct fit_result *fit, struct fit_state *st, struct err *err)
{
	const struct problem *P = st->P;
	int q, k;

	if (P->n < problem_params(P, (size_t)st->nfree)) {
		status_insufficient(fit,
		    "%zu measured values for %zu parameters: add drops at other heights, presses "
		    "or a trajectory",
		    P->n, problem_params(P, (size_t)st->nfree));
		return 0;
	}
	if (search(st, err) != 0 || identify(fit, st, err) != 0)
		return -1;
	if (st->an.phys_null) {
		status_insufficient(fit,
		    "the measurements determine neither timeconst nor dampratio (no drop bounces "
		    "and there is no press or trajectory): add presses, bouncing drops or a "
		    "trajectory");
		fit->timeconst = exp(st->est.logp[TC]);
		fit->dampratio = exp(st->est.logp[DR]);
		fit->identified[TC] = fit->identified[DR] = fit->product_identified = 0;
		return 0;
	}
	if (st->nfree == NPHYS)
		fit->identified[TC] = fit->identified[DR] = fit->product_identified = 1;
	status_pin(fit, P, st->free, st->est.logp, NULL);
	interval_read(&st->map, &st->est, st->an.var, &st->ci);
	/* a pinned log is not identified, its intervals open at its edge: the pad may lie beyond */
	for (q = 0; q < NPHYS; q++)
		for (k = 0; k < 2 && fit->pinned[q]; k++) {
			fit->identified[q] = fit->product_identified = 0;
			st->ci.log[q][k][fit->pinned[q] > 0] =
			    fit->pinned[q] > 0 ? INFINITY : -INFINITY;
		}
	if (st->an.nuisance_null)
		status_note(
		    fit, "a trajectory's release time or height is not determined by its samples");
	record(fit, st);
	status_settle(fit, P, st->nfree, st->ci.product_open);
	return 0;
}

/* A new fit's result for data, every spread and interval NAN until found; NULL when out of
 * memory. */
static struct fit_result *fit_new(const struct core_scene *setup, const struct calib_data *data)
{
	struct fit_result *fit = calloc(1, sizeof *fit);
	size_t j;

	if (!fit)
		return NULL;
	fit->scene = *setup;
	fit->ndrops = data->ndrops;
	fit->npresses = data->npresses;
	fit->ntrajectories = data->ntrajectories;
	fit->drop_model = calloc(data->ndrops + 1, sizeof *fit->drop_model);
	fit->drop_residual = calloc(data->ndrops + 1, sizeof *fit->drop_residual);
	fit->press_model = calloc(data->npresses + 1, sizeof *fit->press_model);
	fit->press_residual = calloc(data->npresses + 1, sizeof *fit->press_residual);
	fit->traj = calloc(data->ntrajectories + 1, sizeof *fit->traj);
	if (!fit->drop_model || !fit->drop_residual || !fit->press_model || !fit->press_residual ||
	    !fit->traj) {
		fit_free(fit);
		return NULL;
	}
	fit->se_log[TC] = fit->se_log[DR] = fit->correlation = fit->se_log_product = NAN;
	for (j = 0; j < 2 * 2 * 2; j++)
		(&fit->interval_log[0][0][0])[j] = NAN;
	return fit;
}

int fit_solref(const struct core_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct fit_result **out, struct err *err)
{
	struct fit_result *fit = NULL;
	struct problem P;
	struct fit_state st = {.P = &P};
	int rc = 0;

	quiet_gsl(); /* a library must not abort the daemon: GSL's failures are return codes */
	/* stage 1: the problem (problem_build() leaves P for problem_free() even on failure) */
	if (problem_build(&P, setup, data, bound, err) != 0 || !(fit = fit_new(setup, data)) ||
	    problem_scratch_alloc(&P, &st.S) != 0 ||
	    !(st.est.rel = calloc(2 * data->ntrajectories + 1, sizeof *st.est.rel))) {
		rc = err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	memcpy(st.est.logp, P.start_log, sizeof st.est.logp);
	fit->nsamples = P.n - P.nstatic + P.dropped; /* every trajectory sample, fitted or not */
	/* dampratio is searched unless one press alone is all there is: a settled press depends
	 * on the stiffness 1/(tc*dr)^2 alone, and one press cannot say more (issue #29) */
	st.free[TC] = 1;
	st.free[DR] = data->ndrops + data->ntrajectories > 0 || data->npresses >= 2;
	st.nfree = st.free[TC] + st.free[DR];
	fit->timeconst = exp(P.start_log[TC]);
	fit->dampratio = exp(P.start_log[DR]);
	/* what the data leave out before any fit, as notes; dampratio held for one press alone */
	if (P.dropped > 0)
		status_note(fit,
		    "%zu of the %zu trajectory samples, from each trajectory's second impact on, "
		    "are not fitted: the step a later impact begins in jumps with the parameters, "
		    "and MuJoCo's damping impulse with it",
		    P.dropped, fit->nsamples);
	if (!st.free[DR]) {
		fit->held[DR] = 1;
		fit->product_identified = 1;
		status_note(fit,
		    "one press alone: dampratio held at its starting value %.6g, where the pad "
		    "settles under the press and its depth is the static one, which fixes only "
		    "timeconst*dampratio (the stiffness 1/(timeconst*dampratio)^2); a pad of "
		    "little damping keeps hopping under a press and sinks deeper on average, so "
		    "this holds only for a pad that settles: add drops that bounce, another press "
		    "or a trajectory",
		    exp(P.start_log[DR]));
	} else if (data->ndrops > 0 && problem_bouncing(&P) == 0 && data->ntrajectories == 0) {
		status_note(fit,
		    "no drop bounced (every rebound within %g sigma of 0): drops that do not "
		    "bounce bound dampratio from below only; drops from heights where the pad "
		    "bounces measurably, or a trajectory, would determine it",
		    CALIB_BOUNCE_SIGMAS);
	}
	if (P.n == 0) {
		status_insufficient(
		    fit, "no measurements yet: upload drops, presses or trajectories");
	} else {
		/* stages 2 to 5 */
		parallel_fit_begin();
		rc = fit_run(fit, &st, err);
		parallel_fit_end();
		if (rc != 0)
			goto out;
	}
	fit->scene.floor.solref[0] = fit->timeconst;
	fit->scene.floor.solref[1] = fit->dampratio;
	fit->stiffness =
	    1 / ((fit->timeconst * fit->dampratio) * (fit->timeconst * fit->dampratio));
	fit->damping = 2 / fit->timeconst;
	if (problem_stopped(&P)) {
		if (bound->cancel && atomic_load(bound->cancel))
			rc = err_set(err, ERR_UNAVAILABLE, NULL,
			    "the fit was cancelled: contactd is stopping");
		else
			rc = err_set(err, ERR_UNAVAILABLE, NULL,
			    "the fit was stopped after %g s: upload fewer or shorter trajectories",
			    bound->seconds);
		goto out;
	}
	if (fit->status != FIT_INSUFFICIENT)
		status_check_contact(fit);
	*out = fit;
	fit = NULL;
out:
	map_free(&st.map);
	gsl_matrix_free(st.an.cov);
	problem_scratch_free(&st.S);
	free(st.est.rel);
	problem_free(&P);
	fit_free(fit);
	return rc;
}

void fit_free(struct fit_result *fit)
{
	if (!fit)
		return;
	free(fit->drop_model);
	free(fit->drop_residual);
	free(fit->press_model);
	free(fit->press_residual);
	free(fit->traj);
	free(fit);
}
