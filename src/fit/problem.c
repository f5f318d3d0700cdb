/*
 * problem.c: the least-squares problem of a pad fit: its residuals, Jacobian and
 * sigmas (see problem.h).
 */
#include "fit/problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>

#include "core/sim.h"
#include "fit/model.h"
#include "fit/parallel.h"
#include "fit/knobs.h"

double problem_monotonic_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int problem_grid_model_fits(const struct problem *P)
{
	int i;

	if (!P->grid_model || !P->grid_model_ready)
		return 0;
	for (i = 0; i < NPHYS; i++)
		if (P->grid_model_free[i] != P->free[i] ||
		    (!P->free[i] &&
		        memcmp(&P->grid_model_held[i], &P->start_log[i], sizeof P->start_log[i]) !=
		            0))
			return 0;
	return 1;
}

void problem_grid_model_made(struct problem *P)
{
	int i;

	P->grid_model_ready = P->grid_model != NULL;
	for (i = 0; i < NPHYS; i++) {
		P->grid_model_free[i] = P->free[i];
		P->grid_model_held[i] = P->start_log[i];
	}
}

int problem_abandoned(const struct problem *P)
{
	if (!P->bound)
		return 0;
	if (atomic_load(P->stopped))
		return 1;
	if ((P->bound->cancel && atomic_load(P->bound->cancel)) ||
	    (P->bound->seconds > 0 && problem_monotonic_seconds() - P->started > P->bound->seconds))
		atomic_store(P->stopped, 1);
	return atomic_load(P->stopped);
}

double problem_release_time(const struct problem *P, const gsl_vector *x, size_t j)
{
	return gsl_vector_get(P->releases ? P->releases : x, P->nphys + 2 * j);
}

double problem_release_height(const struct problem *P, const gsl_vector *x, size_t j)
{
	return gsl_vector_get(P->releases ? P->releases : x, P->nphys + 2 * j + 1);
}

double problem_drop_sigma(const struct calib_drop *d)
{
	return d->sigma > 0 ? d->sigma : CALIB_SIGMA_REBOUND;
}

double problem_press_sigma(const struct calib_press *p)
{
	return p->sigma > 0
	    ? p->sigma
	    : hypot(CALIB_SIGMA_DEFLECTION_ABS, CALIB_SIGMA_DEFLECTION_REL * fabs(p->deflection));
}

double problem_traj_sigma(const struct calib_trajectory *t)
{
	return t->sigma > 0 ? t->sigma : CALIB_SIGMA_TRAJECTORY;
}

double problem_weigh(double model, double measured, double sigma)
{
	double r = (model - measured) / sigma;

	if (!(fabs(r) < RESIDUAL_CAP))
		return RESIDUAL_CAP;
	return r;
}

void problem_phys_logs(const struct problem *P, const gsl_vector *x, double logp[NPHYS])
{
	size_t k = 0;
	int i;

	for (i = 0; i < NPHYS; i++) {
		if (P->profiling)
			logp[i] =
			    P->origin[i] + (P->nphys > 0 ? gsl_vector_get(x, 0) * P->axis[i] : 0);
		else
			logp[i] = P->free[i] ? gsl_vector_get(x, k++) : P->start_log[i];
		logp[i] = fmin(fmax(logp[i], P->log_lo[i]), P->log_hi[i]);
	}
}

void problem_model_at(const struct problem *P, const double logp[NPHYS], struct core_scene_model *m)
{
	struct core_scene s = P->scene;

	s.floor.solref[0] = exp(logp[TC]);
	s.floor.solref[1] = exp(logp[DR]);
	core_scene_prepare(&s, m);
}

size_t problem_traj_first_row(const struct problem *P)
{
	return P->data->ndrops + P->data->npresses;
}

void problem_traj_residuals(const struct problem *P, const struct core_scene_model *m, size_t j,
    double t0, double H, gsl_vector *f, size_t row)
{
	const struct calib_trajectory *tr = &P->data->trajectories[j];
	double sigma = problem_traj_sigma(tr);
	size_t i;

	if (problem_abandoned(P)) {
		for (i = 0; i < tr->n; i++)
			gsl_vector_set(f, row + i, 0);
		return;
	}
	model_trajectory(m, t0, H, tr->t, tr->n, P->buf, P->zmodel);
	for (i = 0; i < tr->n; i++)
		gsl_vector_set(f, row + i, problem_weigh(P->zmodel[i], tr->z[i], sigma));
}

/* The drops' and presses' model values at the last few pads a small evaluation stepped
 * (problem.h's recent): a trust-region iteration asks for its point's residuals, then for the
 * Jacobian at the same point, whose drops and presses are the same bits. */
enum { RECENT = 4, RECENT_PADS = 4, MAX_STATIC = CALIB_MAX_DROPS + CALIB_MAX_PRESSES };

/* The static measurements' model values per pad: the drops', then the presses'. */
static size_t static_count(const struct problem *P)
{
	return P->data->ndrops + P->data->npresses;
}

struct problem_recent {
	int next;
	struct {
		int valid;
		const struct calib_data *data; /* the drops' heights: whose data */
		double logp[NPHYS];
		double model[MAX_STATIC];
	} e[RECENT];
};

static int recent_find(const struct problem *P, const double logp[NPHYS])
{
	int k;

	for (k = 0; P->recent && k < RECENT; k++)
		if (P->recent->e[k].valid && P->recent->e[k].data == P->data &&
		    memcmp(P->recent->e[k].logp, logp, sizeof P->recent->e[k].logp) == 0)
			return k;
	return -1;
}

/*
 * Scene models for a batch of `want` pads, prepared BATCH_PADS at a time into a heap block
 * when one can be had (the lanes' work is then shared over the fit's threads, fit/model.c,
 * which a few dozen pads are too few for), else STACK_PADS at a time into the caller's
 * `stack`. *cap: the pads the block holds. Free the block with pads_release().
 */
enum { BATCH_PADS = 4096, STACK_PADS = 64 };

static struct core_scene_model *pads_block(
    size_t want, struct core_scene_model stack[STACK_PADS], size_t *cap)
{
	size_t n = want < BATCH_PADS ? want : BATCH_PADS;
	struct core_scene_model *m = n > STACK_PADS ? malloc(n * sizeof *m) : NULL;

	*cap = m ? n : STACK_PADS;
	return m ? m : stack;
}

static void pads_release(struct core_scene_model *m, const struct core_scene_model *stack)
{
	if (m != stack)
		free(m);
}

/* Which of a pad's static measurements static_models_stepped() steps. */
enum { STEP_DROPS = 1, STEP_PRESSES = 2, STEP_ALL = STEP_DROPS | STEP_PRESSES };

/* The model values of P's drops and presses (`parts` of them) at npads pads into
 * out[pad * (ndrops + npresses) + k], as problem_static_models() lays them out; the entries of
 * the parts not stepped are undefined after. */
static void static_models_stepped(
    const struct problem *P, const double (*logp)[NPHYS], size_t npads, double *out, int parts)
{
	enum { PRESS_POINTS = 256 };
	const struct calib_data *d = P->data;
	const size_t nd = parts & STEP_DROPS ? d->ndrops : 0;
	const size_t np = parts & STEP_PRESSES ? d->npresses : 0;
	const size_t ns = d->ndrops + d->npresses, skip = d->ndrops;
	struct core_scene_model stack[STACK_PADS], *m;
	double heights[CALIB_MAX_DROPS], forces[CALIB_MAX_PRESSES], few[PRESS_POINTS], *pressed;
	size_t i, k, at, n, g, cap, group;

	for (i = 0; i < nd && i < CALIB_MAX_DROPS; i++)
		heights[i] = d->drops[i].height;
	for (i = 0; i < np && i < CALIB_MAX_PRESSES; i++)
		forces[i] = d->presses[i].force;
	m = pads_block(npads, stack, &cap);
	/* the presses of a whole block at once where memory allows, else a few pads' */
	pressed = np > 0 && m != stack ? malloc(cap * np * sizeof *pressed) : NULL;
	group = pressed ? cap : np > 0 && np < PRESS_POINTS ? PRESS_POINTS / np : 1;
	if (!pressed)
		pressed = few;
	for (at = 0; at < npads; at += n) {
		double *block = out + at * ns;

		n = npads - at < cap ? npads - at : cap;
		for (i = 0; i < n; i++)
			problem_model_at(P, logp[at + i], &m[i]);
		if (nd > 0 && np > 0 && n <= group) {
			/* a few pads' drops and presses, in one lockstep step */
			model_rebounds_presses(
			    m, n, heights, nd, P->falls, block, forces, np, pressed);
			for (i = n; nd < ns && i-- > 0;)
				memmove(block + i * ns, block + i * nd, nd * sizeof *block);
			for (k = 0; k < n; k++)
				memcpy(block + k * ns + skip, pressed + k * np, np * sizeof *block);
			continue;
		}
		if (nd > 0) {
			/* the drops packed at the block's start, then spread out to their rows
			 * (last pad first: a row never lands on one not yet moved) */
			model_rebounds(m, n, heights, nd, P->falls, block);
			for (i = n; nd < ns && i-- > 0;)
				memmove(block + i * ns, block + i * nd, nd * sizeof *block);
		}
		for (i = 0; i < n && np > 0; i += g) {
			g = n - i < group ? n - i : group;
			model_presses(m + i, g, forces, np, pressed);
			for (k = 0; k < g; k++)
				memcpy(block + (i + k) * ns + skip, pressed + k * np,
				    np * sizeof *block);
		}
	}
	if (pressed != few)
		free(pressed);
	pads_release(m, stack);
}

void problem_static_models(
    const struct problem *P, const double (*logp)[NPHYS], size_t npads, double *out)
{
	const size_t ns = static_count(P);
	double miss_logp[RECENT_PADS][NPHYS], miss_out[RECENT_PADS * MAX_STATIC];
	size_t i, miss[RECENT_PADS], nmiss = 0;

	if (ns == 0)
		return;
	if (!P->recent || npads > RECENT_PADS || P->data->ndrops > CALIB_MAX_DROPS ||
	    P->data->npresses > CALIB_MAX_PRESSES) {
		static_models_stepped(P, logp, npads, out, STEP_ALL);
		return;
	}
	for (i = 0; i < npads; i++) {
		int k = recent_find(P, logp[i]);

		if (k >= 0) {
			memcpy(out + i * ns, P->recent->e[k].model, ns * sizeof *out);
			continue;
		}
		memcpy(miss_logp[nmiss], logp[i], sizeof miss_logp[nmiss]);
		miss[nmiss++] = i;
	}
	if (nmiss == 0)
		return;
	static_models_stepped(P, (const double(*)[NPHYS])miss_logp, nmiss, miss_out, STEP_ALL);
	for (i = 0; i < nmiss; i++) {
		struct problem_recent *r = P->recent;
		int k = r->next;

		memcpy(out + miss[i] * ns, miss_out + i * ns, ns * sizeof *out);
		r->next = (r->next + 1) % RECENT;
		r->e[k].valid = 1;
		r->e[k].data = P->data;
		memcpy(r->e[k].logp, miss_logp[i], sizeof r->e[k].logp);
		memcpy(r->e[k].model, miss_out + i * ns, ns * sizeof *out);
	}
}

/*
 * The drops' and presses' model values at x's pad (logp) into own. With presses, and the pad
 * not among the recent ones, they are stepped side by side with those of the pads
 * problem_jacobian() steps at x, which lands them among the recent: a trust-region step that
 * is taken asks for the Jacobian there next, and one pass of the lanes steps up to eight
 * presses in about the time the scalar core takes for one pad's two.
 */
static void static_models_at(
    const struct problem *P, const gsl_vector *x, const double logp[NPHYS], double *own)
{
	double pads[1 + NPHYS][NPHYS], models[(1 + NPHYS) * MAX_STATIC];
	const size_t ns = static_count(P);
	size_t k;

	if (P->data->npresses == 0 || x == P->xp || x->size != P->xp->size || P->nphys > NPHYS ||
	    ns > MAX_STATIC || recent_find(P, logp) >= 0) {
		problem_static_models(P, (const double(*)[NPHYS])logp, 1, own);
		return;
	}
	/* the pads as problem_jacobian() makes them, to the bit */
	memcpy(pads[0], logp, sizeof pads[0]);
	for (k = 0; k < P->nphys; k++) {
		gsl_vector_memcpy(P->xp, x);
		gsl_vector_set(P->xp, k, gsl_vector_get(x, k) + P->fd_step_log);
		problem_phys_logs(P, P->xp, pads[1 + k]);
	}
	problem_static_models(P, (const double(*)[NPHYS])pads, 1 + P->nphys, models);
	memcpy(own, models, ns * sizeof *own);
}

int problem_residuals_given(
    const struct problem *P, const gsl_vector *x, const double *static_model, gsl_vector *f)
{
	const struct calib_data *d = P->data;
	struct core_scene_model m;
	double logp[NPHYS], own[MAX_STATIC];
	size_t i, row = 0;

	if (problem_abandoned(P)) {
		gsl_vector_set_zero(f);
		return GSL_SUCCESS;
	}
	problem_phys_logs(P, x, logp);
	if (!static_model && static_count(P) > 0) {
		static_models_at(P, x, logp, own);
		static_model = own;
	}
	for (i = 0; i < d->ndrops; i++, row++)
		gsl_vector_set(f, row,
		    problem_weigh(
		        static_model[i], d->drops[i].rebound, problem_drop_sigma(&d->drops[i])));
	for (i = 0; i < d->npresses; i++, row++)
		gsl_vector_set(f, row,
		    problem_weigh(static_model[d->ndrops + i], d->presses[i].deflection,
		        problem_press_sigma(&d->presses[i])));
	if (d->ntrajectories == 0)
		return GSL_SUCCESS;
	problem_model_at(P, logp, &m);
	for (i = 0; i < d->ntrajectories; i++) {
		problem_traj_residuals(P, &m, i, problem_release_time(P, x, i),
		    problem_release_height(P, x, i), f, row);
		row += d->trajectories[i].n;
	}
	return GSL_SUCCESS;
}

/* P->xp with x's other parameters (already there) and the free logs of one pad. */
static void xp_at(const struct problem *P, const double logp[NPHYS])
{
	size_t k = 0;
	int q;

	for (q = 0; q < NPHYS; q++)
		if (P->free[q])
			gsl_vector_set(P->xp, k++, logp[q]);
}

/* The logs the residuals use at each of npads pads (within the box, the held ones held) into
 * used[]; P->xp holds x's other parameters. */
static void used_logs(
    const struct problem *P, const double (*logp)[NPHYS], size_t npads, double (*used)[NPHYS])
{
	size_t i;

	for (i = 0; i < npads; i++) {
		xp_at(P, logp[i]);
		problem_phys_logs(P, P->xp, used[i]);
	}
}

/* chi^2 at one pad from its drops' and presses' model values dm (NULL: stepped here), P->xp
 * holding x's other parameters; P->f1 is the scratch. */
static double chi2_at(const struct problem *P, const double logp[NPHYS], const double *dm)
{
	xp_at(P, logp);
	problem_residuals_given(P, P->xp, dm, P->f1);
	return problem_sum_squares(P->f1);
}

int problem_chi2_many(struct problem *P, const gsl_vector *x, const double (*logp)[NPHYS],
    size_t npads, double *chi2, struct err *err)
{
	enum { CHUNK = 512 };
	size_t ns = static_count(P), at, n, i;
	double *dm = ns > 0 ? malloc(CHUNK * ns * sizeof *dm) : NULL;
	double(*used)[NPHYS] = malloc(CHUNK * sizeof *used);

	if ((ns > 0 && !dm) || !used) {
		free(dm);
		free(used);
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
	gsl_vector_memcpy(P->xp, x);
	for (at = 0; at < npads; at += n) {
		n = npads - at < CHUNK ? npads - at : CHUNK;
		used_logs(P, logp + at, n, used);
		if (dm && !problem_abandoned(P))
			problem_static_models(P, (const double(*)[NPHYS])used, n, dm);
		for (i = 0; i < n; i++)
			chi2[at + i] = chi2_at(P, logp[at + i], dm ? dm + i * ns : NULL);
	}
	free(used);
	free(dm);
	return 0;
}

/* The measured value and sigma of static measurement k (the drops, then the presses). */
static void measurement_of(const struct calib_data *d, size_t k, double *measured, double *sigma)
{
	if (k < d->ndrops) {
		*measured = d->drops[k].rebound;
		*sigma = problem_drop_sigma(&d->drops[k]);
	} else {
		*measured = d->presses[k - d->ndrops].deflection;
		*sigma = problem_press_sigma(&d->presses[k - d->ndrops]);
	}
}

/* Static measurement k's model value (k < ndrops: drop k's rebound, else press k - ndrops's
 * depth) at each of npads pads into out[pad], with problem_static_models()'s bits; its
 * measured value and sigma in *measured, *sigma. */
static void static_model_one(const struct problem *P, const double (*logp)[NPHYS], size_t npads,
    size_t k, double *out, double *measured, double *sigma)
{
	const struct calib_data *d = P->data;
	const int press = k >= d->ndrops;
	const size_t j = press ? k - d->ndrops : k;
	const double value = press ? d->presses[j].force : d->drops[j].height;
	struct core_scene_model stack[STACK_PADS], *m;
	size_t i, at, n, cap;

	measurement_of(d, k, measured, sigma);
	m = pads_block(npads, stack, &cap);
	for (at = 0; at < npads; at += n) {
		n = npads - at < cap ? npads - at : cap;
		for (i = 0; i < n; i++)
			problem_model_at(P, logp[at + i], &m[i]);
		if (press)
			model_presses(m, n, &value, 1, out + at);
		else
			model_rebounds(m, n, &value, 1, P->falls ? &P->falls[j] : NULL, out + at);
	}
	pads_release(m, stack);
}

/* Drops in the order problem_chi2_within() steps them: the most bouncing first (rebound over
 * sigma), which rules out the pads that do not bounce, the slowest to step. */
static _Thread_local const struct calib_data *order_data; /* one fit per thread */

static int drop_order_cmp(const void *pa, const void *pb)
{
	const struct calib_drop *a = &order_data->drops[*(const size_t *)pa];
	const struct calib_drop *b = &order_data->drops[*(const size_t *)pb];
	double ka = a->rebound / problem_drop_sigma(a), kb = b->rebound / problem_drop_sigma(b);

	if (ka != kb)
		return ka < kb ? 1 : -1;
	return (*(const size_t *)pa > *(const size_t *)pb) -
	    (*(const size_t *)pa < *(const size_t *)pb);
}

/*
 * Reorder order[0..ns) (problem_chi2_within()'s measurements, drops then presses) for a large
 * batch of pads (used[], the logs their residuals use): every measurement is stepped first on
 * a sample of CALIB_WITHIN_SAMPLE pads spread over the batch, and the order is then made greedily
 * on the sample, the next measurement the one that rules out the most of its pads still within cap
 * per step it costs (a press costs CALIB_PRESS_DURATION of steps, a drop at most
 * CALIB_DROP_SETTLE); once none rules out any, the rest stay in their order. Why: the drops of
 * pads that do not bounce (issue #29's sets whose drops do not bounce, scanned for their
 * intervals) rule out few pads after the first and cost a press each in all, while a press
 * rules out nearly every pad left. Any order gives the same answer: a pad within cap gets
 * its chi^2 from all its residuals, and one past it is past it whatever order shows it.
 * Leaves order as it is when the sample cannot be had.
 */
static void within_order(const struct problem *P, const double (*used)[NPHYS], size_t npads,
    double cap, size_t *order, size_t ns)
{
	const struct calib_data *d = P->data;
	const double h = P->scene.option.timestep;
	double(*sample)[NPHYS] = malloc(CALIB_WITHIN_SAMPLE * sizeof *sample);
	double *r2 = malloc(CALIB_WITHIN_SAMPLE * ns * sizeof *r2); /* squared residuals */
	double partial[CALIB_WITHIN_SAMPLE];
	unsigned char out[CALIB_WITHIN_SAMPLE];
	size_t i, t, k;

	if (!sample || !r2 || npads < CALIB_WITHIN_SAMPLE_MIN || ns < 2)
		goto done;
	for (i = 0; i < CALIB_WITHIN_SAMPLE; i++) {
		memcpy(sample[i], used[i * npads / CALIB_WITHIN_SAMPLE], sizeof sample[i]);
		partial[i] = 0;
		out[i] = 0;
	}
	static_models_stepped(P, (const double(*)[NPHYS])sample, CALIB_WITHIN_SAMPLE, r2, STEP_ALL);
	for (i = 0; i < CALIB_WITHIN_SAMPLE * ns; i++) {
		double measured, sigma, r;

		measurement_of(d, i % ns, &measured, &sigma);
		r = problem_weigh(r2[i], measured, sigma);
		r2[i] = r * r;
	}
	for (t = 0; t < ns; t++) {
		double best_rate = 0;
		size_t best = ns, next;

		for (k = t; k < ns; k++) {
			const size_t j = order[k];
			const double cost =
			    (j >= d->ndrops ? CALIB_PRESS_DURATION : CALIB_DROP_SETTLE) / h;
			size_t ruled = 0;

			for (i = 0; i < CALIB_WITHIN_SAMPLE; i++)
				ruled +=
				    !out[i] && (partial[i] + r2[i * ns + j]) * (1 - 1e-12) > cap;
			if ((double)ruled / cost > best_rate) {
				best_rate = (double)ruled / cost;
				best = k;
			}
		}
		if (best == ns)
			break; /* none rules out a pad of the sample: the rest as they are */
		/* order[best] next, the others after it in their order */
		next = order[best];
		memmove(order + t + 1, order + t, (best - t) * sizeof *order);
		order[t] = next;
		for (i = 0; i < CALIB_WITHIN_SAMPLE; i++) {
			partial[i] += r2[i * ns + next];
			out[i] |= partial[i] * (1 - 1e-12) > cap;
		}
	}
done:
	free(r2);
	free(sample);
}

int problem_chi2_within(struct problem *P, const gsl_vector *x, const double (*logp)[NPHYS],
    size_t npads, double cap, double *chi2, struct err *err)
{
	const struct calib_data *d = P->data;
	size_t nd = d->ndrops, ns = static_count(P), i, j, live = npads, order[MAX_STATIC];
	double *dm = malloc((npads * ns + 1) * sizeof *dm);
	double *partial = malloc((npads + 1) * sizeof *partial);
	double *one = malloc((npads + 1) * sizeof *one);
	double(*used)[NPHYS] = malloc((npads + 1) * sizeof *used);
	double(*packed)[NPHYS] = malloc((npads + 1) * sizeof *packed);
	size_t *alive = malloc((npads + 1) * sizeof *alive);
	int rc = -1;

	if (!dm || !partial || !one || !used || !packed || !alive) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	if (ns == 0 || nd > CALIB_MAX_DROPS || d->npresses > CALIB_MAX_PRESSES ||
	    d->ntrajectories > 0 || P->profiling) {
		rc = problem_chi2_many(P, x, logp, npads, chi2, err);
		goto out;
	}
	gsl_vector_memcpy(P->xp, x);
	/* the logs the residuals use, as problem_chi2_many() takes them */
	used_logs(P, logp, npads, used);
	for (i = 0; i < npads; i++) {
		partial[i] = 0;
		alive[i] = i;
	}
	/* the drops first, the most bouncing first (drop_order_cmp()), then the presses (each
	 * press is a few seconds of steps), unless a sample of a large batch says another order
	 * rules pads out sooner (within_order()) */
	for (j = 0; j < ns; j++)
		order[j] = j;
	order_data = d;
	qsort(order, nd, sizeof *order, drop_order_cmp);
	if (!problem_abandoned(P))
		within_order(P, (const double(*)[NPHYS])used, npads, cap, order, ns);
	for (j = 0; j < ns && live > 0; j++) {
		size_t kept = 0;
		double measured, sigma;

		if (problem_abandoned(P))
			break;
		for (i = 0; i < live; i++)
			memcpy(packed[i], used[alive[i]], sizeof packed[i]);
		static_model_one(
		    P, (const double(*)[NPHYS])packed, live, order[j], one, &measured, &sigma);
		for (i = 0; i < live; i++) {
			size_t pad = alive[i];
			double r = problem_weigh(one[i], measured, sigma);

			dm[pad * ns + order[j]] = one[i];
			partial[pad] += r * r;
			/* a sum of squares only grows with more terms, whatever their order (the
			 * factor leaves room for the rounding of a sum in another order): past
			 * the cap here, the whole chi^2 is too */
			if (partial[pad] * (1 - 1e-12) > cap)
				chi2[pad] = INFINITY;
			else
				alive[kept++] = pad;
		}
		live = kept;
	}
	/* the pads still within: chi^2 from all their residuals, as problem_chi2_many() */
	for (i = 0; i < live; i++) {
		size_t pad = alive[i];

		chi2[pad] = chi2_at(P, logp[pad], dm + pad * ns);
	}
	rc = 0;
out:
	free(alive);
	free(packed);
	free(used);
	free(one);
	free(partial);
	free(dm);
	return rc;
}

struct problem_lazy {
	struct problem *P;
	const gsl_vector *x;
	const double (*logp)[NPHYS];
	size_t ns;
	double (*used)[NPHYS]; /* the logs the residuals use, per pad */
	double *dm;            /* the drops' and presses' model values, per pad */
};

void problem_lazy_free(struct problem_lazy *L)
{
	if (!L)
		return;
	free(L->dm);
	free(L->used);
	free(L);
}

int problem_lazy_start(struct problem *P, const gsl_vector *x, const double (*logp)[NPHYS],
    size_t npads, double *bound, struct problem_lazy **out, struct err *err)
{
	const struct calib_data *d = P->data;
	struct problem_lazy *L;
	size_t i, j;

	*out = NULL;
	if (d->ndrops == 0 || d->npresses == 0 || d->ndrops > CALIB_MAX_DROPS ||
	    d->npresses > CALIB_MAX_PRESSES || d->ntrajectories > 0 || P->profiling)
		return 0;
	L = calloc(1, sizeof *L);
	if (L) {
		L->ns = static_count(P);
		L->used = malloc((npads + 1) * sizeof *L->used);
		/* zeros: a fit abandoned steps nothing (and its residuals are zeros) */
		L->dm = calloc(npads * L->ns + 1, sizeof *L->dm);
	}
	if (!L || !L->used || !L->dm) {
		problem_lazy_free(L);
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
	L->P = P;
	L->x = x;
	L->logp = logp;
	gsl_vector_memcpy(P->xp, x);
	used_logs(P, logp, npads, L->used);
	if (!problem_abandoned(P))
		static_models_stepped(P, (const double(*)[NPHYS])L->used, npads, L->dm, STEP_DROPS);
	for (i = 0; i < npads; i++) {
		bound[i] = 0;
		for (j = 0; j < d->ndrops; j++) {
			double r = problem_weigh(L->dm[i * L->ns + j], d->drops[j].rebound,
			    problem_drop_sigma(&d->drops[j]));

			bound[i] += r * r;
		}
		/* a sum of squares only grows with more terms, whatever their order; the
		 * factor leaves room for the rounding of the whole sum in another order */
		bound[i] *= 1 - 1e-12;
	}
	*out = L;
	return 0;
}

int problem_lazy_finish(
    struct problem_lazy *L, const size_t *which, size_t count, double *chi2, struct err *err)
{
	struct problem *P = L->P;
	const size_t nd = P->data->ndrops, ns = L->ns;
	double(*packed)[NPHYS] = malloc((count + 1) * sizeof *packed);
	double *rows = calloc(count * ns + 1, sizeof *rows);
	size_t i;

	if (!packed || !rows) {
		free(rows);
		free(packed);
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
	for (i = 0; i < count; i++)
		memcpy(packed[i], L->used[which[i]], sizeof packed[i]);
	/* the presses of the whole batch at once: the lanes share them over the threads */
	if (!problem_abandoned(P))
		static_models_stepped(P, (const double(*)[NPHYS])packed, count, rows, STEP_PRESSES);
	for (i = 0; i < count; i++)
		memcpy(L->dm + which[i] * ns + nd, rows + i * ns + nd, (ns - nd) * sizeof *rows);
	/* chi^2 from all the pad's residuals, as problem_chi2_many() sums them */
	gsl_vector_memcpy(P->xp, L->x);
	for (i = 0; i < count; i++)
		chi2[which[i]] = chi2_at(P, L->logp[which[i]], L->dm + which[i] * ns);
	free(rows);
	free(packed);
	return 0;
}

void problem_for_chains(
    const struct problem *P, size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx)
{
	if (P->data->npresses > 0)
		parallel_for_lockstep(njobs, share, run, ctx);
	else
		parallel_for(njobs, share, run, ctx);
}

int problem_residuals(const gsl_vector *x, void *params, gsl_vector *f)
{
	return problem_residuals_given(params, x, NULL, f);
}

int problem_jacobian(const gsl_vector *x, void *params, gsl_matrix *J)
{
	struct problem *P = params;
	const struct calib_data *d = P->data;
	struct core_scene_model m;
	double logp[NPHYS], pads[1 + NPHYS][NPHYS], models[(1 + NPHYS) * MAX_STATIC];
	size_t k, i, j, row = problem_traj_first_row(P), ns = static_count(P);

	/* the drops and presses of the pad and of its nphys neighbours, all stepped side by
	 * side */
	problem_phys_logs(P, x, pads[0]);
	for (k = 0; k < P->nphys; k++) {
		gsl_vector_memcpy(P->xp, x);
		gsl_vector_set(P->xp, k, gsl_vector_get(x, k) + P->fd_step_log);
		problem_phys_logs(P, P->xp, pads[1 + k]);
	}
	if (ns > 0 && !problem_abandoned(P))
		problem_static_models(P, (const double(*)[NPHYS])pads, 1 + P->nphys, models);
	problem_residuals_given(P, x, ns > 0 ? models : NULL, P->f0);
	gsl_matrix_set_zero(J);
	for (k = 0; k < P->nphys; k++) {
		gsl_vector_memcpy(P->xp, x);
		gsl_vector_set(P->xp, k, gsl_vector_get(x, k) + P->fd_step_log);
		problem_residuals_given(P, P->xp, ns > 0 ? models + (1 + k) * ns : NULL, P->f1);
		for (i = 0; i < P->n; i++)
			gsl_matrix_set(J, i, k,
			    (gsl_vector_get(P->f1, i) - gsl_vector_get(P->f0, i)) / P->fd_step_log);
	}
	if (P->releases)
		return GSL_SUCCESS;
	problem_phys_logs(P, x, logp);
	problem_model_at(P, logp, &m);
	for (j = 0; j < d->ntrajectories; j++) {
		size_t col = P->nphys + 2 * j, n = d->trajectories[j].n;
		double t0 = gsl_vector_get(x, col), H = gsl_vector_get(x, col + 1);
		double dt = FD_STEP_TIME * m.timestep;

		problem_traj_residuals(P, &m, j, t0 + dt, H, P->f1, row);
		for (i = row; i < row + n; i++)
			gsl_matrix_set(
			    J, i, col, (gsl_vector_get(P->f1, i) - gsl_vector_get(P->f0, i)) / dt);
		problem_traj_residuals(P, &m, j, t0, H + FD_STEP_HEIGHT, P->f1, row);
		for (i = row; i < row + n; i++)
			gsl_matrix_set(J, i, col + 1,
			    (gsl_vector_get(P->f1, i) - gsl_vector_get(P->f0, i)) / FD_STEP_HEIGHT);
		row += n;
	}
	return GSL_SUCCESS;
}

double problem_residual_variance(double chi2, size_t n, size_t p)
{
	if (n < p + CALIB_MIN_DOF)
		return 1;
	return fmax(1, chi2 / (double)(n - p));
}

double problem_sum_squares(const gsl_vector *f)
{
	double s;

	gsl_blas_ddot(f, f, &s);
	return s;
}

void problem_free(struct problem *P)
{
	free(P->grid_kept);
	free(P->grid_model);
	free(P->falls);
	free(P->recent);
	free(P->buf);
	free(P->zmodel);
	gsl_vector_free(P->f0);
	gsl_vector_free(P->f1);
	gsl_vector_free(P->xp);
}

int problem_size(struct problem *P, struct err *err)
{
	int i;

	gsl_vector_free(P->xp);
	P->nphys = 0;
	for (i = 0; i < NPHYS; i++)
		P->nphys += P->free[i] ? 1 : 0;
	P->p = P->nphys + 2 * P->data->ntrajectories;
	P->xp = gsl_vector_alloc(P->p);
	if (!P->f0)
		P->f0 = gsl_vector_alloc(P->n);
	if (!P->f1)
		P->f1 = gsl_vector_alloc(P->n);
	if (!P->buf)
		P->buf = malloc((CALIB_MAX_TRAJECTORY_STEPS + 3) * sizeof *P->buf);
	if (!P->zmodel)
		P->zmodel = malloc(CALIB_MAX_SAMPLES * sizeof *P->zmodel);
	if (!P->xp || !P->f0 || !P->f1 || !P->buf || !P->zmodel)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	if (!P->recent)
		P->recent = calloc(1, sizeof *P->recent);
	if (!P->recent)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	if (!P->falls && P->data->ndrops > 0) {
		/* the drops' free fall, stepped once for the whole fit (the lanes check that each
		 * pad's fall is this one) */
		double heights[CALIB_MAX_DROPS];
		struct core_scene_model m;
		size_t d,
		    nd = P->data->ndrops < CALIB_MAX_DROPS ? P->data->ndrops : CALIB_MAX_DROPS;

		P->falls = malloc(nd * sizeof *P->falls);
		if (!P->falls)
			return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		for (d = 0; d < nd; d++)
			heights[d] = P->data->drops[d].height;
		problem_model_at(P, P->start_log, &m);
		model_falls(&m, heights, nd, P->falls);
	}
	return 0;
}

int problem_fork(struct problem *Q, struct err *err)
{
	Q->f0 = gsl_vector_alloc(Q->n);
	Q->f1 = gsl_vector_alloc(Q->n);
	/* a vector of length 0 does not exist in GSL; a problem with nothing to refit never
	 * reads it */
	Q->xp = gsl_vector_alloc(Q->p > 0 ? Q->p : 1);
	Q->recent = calloc(1, sizeof *Q->recent);
	Q->buf = Q->zmodel = NULL;
	if (Q->data->ntrajectories > 0) {
		Q->buf = malloc((CALIB_MAX_TRAJECTORY_STEPS + 3) * sizeof *Q->buf);
		Q->zmodel = malloc(CALIB_MAX_SAMPLES * sizeof *Q->zmodel);
	}
	if (!Q->f0 || !Q->f1 || !Q->xp || !Q->recent ||
	    (Q->data->ntrajectories > 0 && (!Q->buf || !Q->zmodel)))
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	return 0;
}

void problem_fork_free(struct problem *Q)
{
	gsl_vector_free(Q->f0);
	gsl_vector_free(Q->f1);
	gsl_vector_free(Q->xp);
	free(Q->recent);
	free(Q->buf);
	free(Q->zmodel);
	Q->f0 = Q->f1 = Q->xp = NULL;
	Q->recent = NULL;
	Q->buf = Q->zmodel = NULL;
}
