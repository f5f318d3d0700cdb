/* problem.c: a pad fit's problem: its measurements, sigmas, shared starts and residuals. */
#include "fit/problem.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_cdf.h>

#include "core/law.h"
#include "fit/model.h"
#include "fit/knobs.h"

static double monotonic_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Where a trajectory's first impact begins: the first sample at most CALIB_BOUNCE_SIGMAS sigma
 * above the pad, else the lowest (not the lowest of all: one that hardly bounces hits as deep
 * later). */
static size_t traj_first_impact(const struct calib_trajectory *tr)
{
	double level = CALIB_BOUNCE_SIGMAS * problem_traj_sigma(tr);
	size_t lowest = 0, i;

	for (i = 0; i < tr->n; i++)
		if (!(tr->z[i] > level))
			return i;
	for (i = 1; i < tr->n; i++)
		if (tr->z[i] < tr->z[lowest])
			lowest = i;
	return lowest;
}

/* Why not later samples: a contact beginning within a step gets MuJoCo's full damping impulse
 * at once, so the model jumps as the parameters move a later impact's step (the first's is the
 * release's) and chi^2 becomes a patchwork. Bounced: a sample after the first impact
 * CALIB_BOUNCE_SIGMAS sigma above the pad; back: the next at or below it (a small bounce's noise
 * rarely reaches that far); the samples within three steps before it go too (the spline reaches
 * two steps ahead; noise may hide the first sample in contact). */
static size_t traj_fitted(const struct calib_trajectory *tr, double h)
{
	double level = CALIB_BOUNCE_SIGMAS * problem_traj_sigma(tr);
	size_t first = traj_first_impact(tr), up, back, i;

	for (up = first + 1; up < tr->n && !(tr->z[up] > level); up++)
		;
	for (back = up + 1; back < tr->n && tr->z[back] > 0; back++)
		;
	if (back >= tr->n)
		return tr->n; /* no second impact among the samples */
	for (i = first + 1; i < back && tr->t[i] < tr->t[back] - 3 * h; i++)
		;
	return i;
}

/* A trajectory's starting release (t0, H): the least-squares free-fall parabola through its
 * samples above the pad before the first impact, vertex shifted back (semi-implicit Euler from
 * rest follows z = H + g h^2/8 - g/2 (t - t0 + h/2)^2). g: gravity's magnitude (not positive:
 * the first sample), h the timestep. */
static void traj_start(const struct calib_trajectory *tr, double g, double h, double *t0, double *H)
{
	size_t first, i, count;
	double tref = tr->t[0], from = -INFINITY;
	int pass;

	*t0 = tr->t[0];
	*H = tr->z[0];
	if (!(g > 0))
		return;
	first = traj_first_impact(tr);
	/* second pass: without the samples before the estimated release (at rest) */
	for (pass = 0; pass < 2; pass++) {
		double st = 0, sy = 0, stt = 0, sty = 0, a, b, det;

		count = 0;
		for (i = 0; i < first; i++) {
			double tau = tr->t[i] - tref, y = tr->z[i] + 0.5 * g * tau * tau;

			if (!(tr->z[i] > 0) || tr->t[i] < from)
				continue;
			st += tau;
			sy += y;
			stt += tau * tau;
			sty += tau * y;
			count++;
		}
		det = (double)count * stt - st * st;
		if (count < 2 || !(fabs(det) > 0))
			return;
		b = ((double)count * sty - st * sy) / det;
		a = (sy - b * st) / (double)count;
		*t0 = tref + b / g + 0.5 * h;
		*H = a + b * b / (2 * g) - g * h * h / 8;
		from = *t0;
	}
}

/* P's start_log: the setup's solref in either form, or the default pad's, within the box. */
static void start_logs(const struct core_scene *s, struct problem *P)
{
	double *logp = P->start_log, tc;
	struct core_law_solimp imp;
	struct core_law_gains g;
	int q, kb;

	core_law_solimp_clamp(s->floor.solimp, &imp);
	core_law_solref_kb(s->floor.solref, imp.dwidth, s->option.timestep, 0, &g);
	/* K = 1/(dmax tc dr)^2 and B = 2/(dmax tc), the direct form alike */
	kb = g.K > 0 && g.B > 0;
	tc = kb ? 2 / (imp.dwidth * g.B) : CALIB_PAD_TIMECONST;
	logp[TC] = log(tc);
	logp[DR] = kb ? log(1 / (imp.dwidth * sqrt(g.K) * tc)) : log(CALIB_PAD_DAMPRATIO);
	for (q = 0; q < NPHYS; q++)
		logp[q] = fmin(fmax(logp[q], P->log_lo[q]), P->log_hi[q]);
}

int problem_build(struct problem *P, const struct core_scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct err *err)
{
	const double h = setup->option.timestep;
	struct core_scene_model m;
	double heights[CALIB_MAX_DROPS];
	size_t j;

	*P = (struct problem){
	    .scene = *setup, .data = *data, .bound = bound, .started = monotonic_seconds()};
	P->scene.option.refsafe = 0; /* fit the spring the parameters name */
	/* the fit ends where the map searched: beyond it a descent reaches only the valleys next to
	 * its start, and a pad the map missed would be called one the model cannot reach */
	P->log_lo[TC] = log(CALIB_GRID_TIMECONST_MIN_STEPS * h);
	P->log_hi[TC] = log(CALIB_GRID_TIMECONST_MAX);
	P->log_lo[DR] = log(CALIB_GRID_DAMPRATIO_MIN);
	P->log_hi[DR] = log(CALIB_GRID_DAMPRATIO_MAX);
	start_logs(setup, P);
	P->fitted = calloc(data->ntrajectories + 1, sizeof *P->fitted);
	P->release0 = calloc(3 * data->ntrajectories + 1, sizeof *P->release0);
	P->release_slope = P->release0 + 2 * data->ntrajectories;
	P->falls = calloc(data->ndrops + 1, sizeof *P->falls);
	if (!P->fitted || !P->release0 || !P->falls || data->ndrops > CALIB_MAX_DROPS)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	P->n = P->nstatic = data->ndrops + data->npresses;
	problem_model_at(P, P->start_log, &m);
	for (j = 0; j < data->ntrajectories; j++) {
		P->fitted[j] = data->trajectories[j];
		P->fitted[j].n = traj_fitted(&data->trajectories[j], h);
		P->dropped += data->trajectories[j].n - P->fitted[j].n;
		P->n += P->fitted[j].n;
		if (P->fitted[j].n > P->max_samples)
			P->max_samples = P->fitted[j].n;
		traj_start(&P->fitted[j], -m.a0, h, &P->release0[2 * j], &P->release0[2 * j + 1]);
		P->release_slope[j] = -P->scene.option.gravity *
		    (P->fitted[j].t[traj_first_impact(&P->fitted[j])] - P->release0[2 * j]);
	}
	P->data.trajectories = P->fitted;
	/* a drop falls the same way onto every pad: stepped once here */
	for (j = 0; j < data->ndrops; j++)
		heights[j] = data->drops[j].height;
	model_falls(&m, heights, data->ndrops, P->falls);
	return 0;
}

void problem_free(struct problem *P)
{
	free(P->fitted);
	free(P->release0);
	free(P->falls);
}

int problem_stopped(const struct problem *P)
{
	atomic_int *stopped = (atomic_int *)&P->stopped; /* the one field that changes */

	if (P->bound && !atomic_load(stopped) &&
	    ((P->bound->cancel && atomic_load(P->bound->cancel)) ||
	        (P->bound->seconds > 0 && monotonic_seconds() - P->started > P->bound->seconds)))
		atomic_store(stopped, 1);
	return P->bound && atomic_load(stopped);
}

int problem_scratch_alloc(const struct problem *P, struct problem_scratch *S)
{
	S->buf = malloc((CALIB_MAX_TRAJECTORY_STEPS + 3) * sizeof *S->buf);
	S->zmodel = malloc((P->max_samples + 1) * sizeof *S->zmodel);
	S->f = malloc((P->max_samples + 1) * sizeof *S->f);
	return S->buf && S->zmodel && S->f ? 0 : -1;
}

void problem_scratch_free(struct problem_scratch *S)
{
	free(S->buf);
	free(S->zmodel);
	free(S->f);
	S->buf = S->zmodel = S->f = NULL;
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

	return fabs(r) < RESIDUAL_CAP ? r : RESIDUAL_CAP;
}

size_t problem_bouncing(const struct problem *P)
{
	size_t i, n = 0;

	for (i = 0; i < P->data.ndrops; i++)
		n += P->data.drops[i].rebound >
		    CALIB_BOUNCE_SIGMAS * problem_drop_sigma(&P->data.drops[i]);
	return n;
}

void problem_model_at(const struct problem *P, const double logp[NPHYS], struct core_scene_model *m)
{
	struct core_scene s = P->scene;

	s.floor.solref[0] = exp(logp[TC]);
	s.floor.solref[1] = exp(logp[DR]);
	core_scene_prepare(&s, m);
}

void problem_statics(
    const struct problem *P, const double (*logp)[NPHYS], size_t npads, int presses, double *out)
{
	const struct calib_data *d = &P->data;
	const size_t nd = d->ndrops, np = presses ? d->npresses : 0, ns = P->nstatic;
	/* pads a block: their models and values fit in a few megabytes (a descent asks one pad) */
	const size_t block = npads < 2048 ? npads : 2048;
	struct core_scene_model *m = malloc((block + 1) * sizeof *m);
	double *values = malloc((block * (nd + np) + 1) * sizeof *values);
	double heights[CALIB_MAX_DROPS], forces[CALIB_MAX_PRESSES];
	size_t at, i, k, n;

	for (i = 0; (!m || !values) && i < npads * ns; i++)
		out[i] = RESIDUAL_CAP; /* out of memory: every pad as if its simulation diverged */
	for (i = 0; i < nd; i++)
		heights[i] = d->drops[i].height;
	for (i = 0; i < np; i++)
		forces[i] = d->presses[i].force;
	for (at = 0; m && values && at < npads; at += n) {
		n = npads - at < block ? npads - at : block;
		for (i = 0; i < n; i++)
			problem_model_at(P, logp[at + i], &m[i]);
		if (nd > 0)
			model_rebounds(m, n, heights, nd, P->falls, values);
		if (np > 0)
			model_presses(m, n, forces, np, values + n * nd);
		for (i = 0; i < n; i++) {
			double *row = out + (at + i) * ns;

			for (k = 0; k < nd; k++)
				row[k] = problem_weigh(values[i * nd + k], d->drops[k].rebound,
				    problem_drop_sigma(&d->drops[k]));
			for (k = 0; k < np; k++)
				row[nd + k] = problem_weigh(values[n * nd + i * np + k],
				    d->presses[k].deflection, problem_press_sigma(&d->presses[k]));
		}
	}
	free(values);
	free(m);
}

double problem_traj_residuals(const struct problem *P, struct problem_scratch *S,
    const struct core_scene_model *m, size_t j, const double rel[2], double *f, double *rms,
    double *max_abs)
{
	const struct calib_trajectory *tr = &P->data.trajectories[j];
	double chi2 = 0, ss = 0, worst = 0;
	size_t i;

	f = f ? f : S->f;
	model_trajectory(m, rel[0], rel[1], tr->t, tr->n, S->buf, S->zmodel);
	for (i = 0; i < tr->n; i++) {
		f[i] = problem_weigh(S->zmodel[i], tr->z[i], problem_traj_sigma(tr));
		chi2 += f[i] * f[i];
		ss += (tr->z[i] - S->zmodel[i]) * (tr->z[i] - S->zmodel[i]);
		worst = fmax(worst, fabs(tr->z[i] - S->zmodel[i]));
	}
	if (rms) {
		*rms = tr->n > 0 ? sqrt(ss / (double)tr->n) : 0;
		*max_abs = worst;
	}
	return chi2;
}

double problem_residual_variance(double chi2, size_t n, size_t p)
{
	return n < p + CALIB_MIN_DOF ? 1 : fmax(1, chi2 / (double)(n - p));
}

int problem_levels(const struct problem *P, double chi2_min, size_t p, double levels[3])
{
	static const double coverage[3] = {0.682689492137086, 0.954499736103642, 0.997300203936740};
	double s2 = problem_residual_variance(chi2_min, P->n, p);
	/* the chi^2 test's levels under CALIB_MIN_DOF dof, or with only unbounced drops (their
	 * model rebound is 0 on a plateau, so chi^2 - chi^2_min is no likelihood ratio there) */
	int k, raised = 0,
	       tested = P->n < p + CALIB_MIN_DOF ||
	    (P->data.ndrops > 0 && P->data.ntrajectories == 0 && problem_bouncing(P) == 0);

	for (k = 0; k < 3; k++) {
		double allowed = gsl_cdf_chisq_Pinv(coverage[k], (double)P->n) * s2 - chi2_min;
		double level = ((k + 1) * (k + 1) + CALIB_ROUGH_LEVEL) * s2;

		raised |= tested && allowed > level;
		levels[k] = tested && allowed > level ? allowed : level;
	}
	return raised;
}

size_t problem_params(const struct problem *P, size_t nphys)
{
	return nphys + 2 * P->data.ntrajectories;
}
