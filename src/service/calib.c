/*
 * calib.c: the pad calibration fit (see calib.h for the model and the method).
 *
 * Parameter vector x: the fitted ones of (log timeconst, log dampratio), then
 * (release time, release height) of each trajectory. Residual vector: drops,
 * presses, then every trajectory sample, each (model - measured) / sigma.
 */
#include "service/calib.h"
#include "service/service.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "base/jtext.h"
#include "core/growth.h"
#include "core/sim.h"
#include "tunables.h"

enum { TC, DR, NPHYS };

struct problem {
	struct scene scene; /* the setup with refsafe off; floor.solref set per evaluation */
	const struct calib_data *data;
	double start_log[NPHYS]; /* starting values; a held parameter keeps its value here */
	int free[NPHYS];
	size_t nphys; /* fitted physical parameters */
	size_t n, p;
	double *buf;    /* trajectory simulation scratch, CALIB_MAX_TRAJECTORY_STEPS + 3 */
	double *zmodel; /* model samples of one trajectory, CALIB_MAX_SAMPLES */
	gsl_vector *f0, *f1, *xp; /* Jacobian scratch */
	double fd_step_log;       /* forward-difference step of the log parameters */
	double se_floor[NPHYS];   /* standard errors at least this (log units), see multi_start */
	double alt_logp[NPHYS], alt_dchi2; /* the nearest competing minimum, if any */
	int has_alt;
	/* The drops' and presses' model values at each point of the starting grid, which do
	 * not depend on the releases: the bootstrap's refits share one grid (NULL: none). */
	double *grid_model;
	int grid_model_ready;
	int grid_shifts; /* release shifts tried at each grid point, see grid_residuals */
	/* The logs stay within this box, the starting grid widened by CALIB_LOG_MARGIN:
	 * an unidentified direction (an overdamped pad's dampratio) would run to infinity. */
	double log_lo[NPHYS], log_hi[NPHYS];
	/* A profile's problem (see walk_side) holds one combination of the logs: then
	 * (log tc, log dr) = origin + x[0] * axis when nphys is 1, origin when it is 0. */
	int profiling;
	double origin[NPHYS], axis[NPHYS];
	/* When set, the releases are held at these (P's layout, from column nphys) and x
	 * holds the physical parameters only (see descend). */
	const gsl_vector *releases;
	/* The fit's bound (NULL: none) and whether it was reached, shared by every copy of
	 * the problem: once set, every evaluation answers zero residuals at once, so the
	 * search, profiles and bootstrap all run out in milliseconds. */
	const struct calib_bound *bound;
	double started;
	int *stopped;
};

static double monotonic_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Has the fit been cancelled or run out of time? */
static int abandoned(const struct problem *P)
{
	if (!P->bound)
		return 0;
	if (*P->stopped)
		return 1;
	if ((P->bound->cancel && atomic_load(P->bound->cancel)) ||
	    (P->bound->seconds > 0 && monotonic_seconds() - P->started > P->bound->seconds))
		*P->stopped = 1;
	return *P->stopped;
}

/* Release time and height of trajectory j at x. */
static double release_time(const struct problem *P, const gsl_vector *x, size_t j)
{
	return gsl_vector_get(P->releases ? P->releases : x, P->nphys + 2 * j);
}

static double release_height(const struct problem *P, const gsl_vector *x, size_t j)
{
	return gsl_vector_get(P->releases ? P->releases : x, P->nphys + 2 * j + 1);
}

static double drop_sigma(const struct calib_drop *d)
{
	return d->sigma > 0 ? d->sigma : CALIB_SIGMA_REBOUND;
}

static double press_sigma(const struct calib_press *p)
{
	return p->sigma > 0
	    ? p->sigma
	    : hypot(CALIB_SIGMA_DEFLECTION_ABS, CALIB_SIGMA_DEFLECTION_REL * fabs(p->deflection));
}

static double traj_sigma(const struct calib_trajectory *t)
{
	return t->sigma > 0 ? t->sigma : CALIB_SIGMA_TRAJECTORY;
}

static double weigh(double model, double measured, double sigma)
{
	double r = (model - measured) / sigma;

	if (!(fabs(r) < RESIDUAL_CAP))
		return RESIDUAL_CAP;
	return r;
}

double calib_rebound(const struct scene_model *m, double height)
{
	double z = height + m->half_height, vel = 0, bottom, rebound = 0;
	double leave = fmax(0, m->contact.includemargin);
	long settle = sim_step_count(CALIB_DROP_SETTLE, m->timestep);
	long fall, touch = -1, i;
	int left = 0;

	if (!(m->a0 < 0))
		return 0; /* nothing pulls the object onto the pad */
	/* semi-implicit Euler falls at least as fast as the continuous motion */
	fall = (long)ceil(sqrt(2 * height / -m->a0) / m->timestep) + 2;
	for (i = 0; touch < 0 ? i <= fall + settle : i - touch <= settle; i++) {
		scene_step(m, &z, &vel);
		bottom = z - m->half_height;
		if (!isfinite(bottom))
			return NAN;
		if (touch >= 0) {
			if (bottom > rebound)
				rebound = bottom;
			if (bottom > leave)
				left = 1;
			if (left && vel < 0)
				break; /* the step after the apex */
		}
		if (touch < 0 && bottom < 0)
			touch = i;
	}
	return rebound;
}

/* Catmull-Rom spline through p0..p3 at u in [0, 1] between p1 and p2. */
static double catmull_rom(double p0, double p1, double p2, double p3, double u)
{
	return p1 +
	    0.5 * u *
	    (p2 - p0 + u * (2 * p0 - 5 * p1 + 4 * p2 - p3 + u * (3 * (p1 - p2) + p3 - p0)));
}

void calib_trajectory_model(const struct scene_model *m, double release_time, double release_height,
    const double *t, size_t n, double *buf, double *z)
{
	const double h = m->timestep, cap = CALIB_MAX_TRAJECTORY_STEPS;
	double centre = release_height + m->half_height, vel = 0;
	double last = n > 0 ? (t[n - 1] - release_time) / h : 0;
	long need, k;
	size_t i;

	/* buf[k]: bottom after k steps; up to two past the last sample for the spline */
	need = last > 0 ? (long)ceil(fmin(last, cap)) + 2 : 1;
	buf[0] = release_height;
	for (k = 1; k <= need; k++) {
		scene_step(m, &centre, &vel);
		buf[k] = centre - m->half_height;
	}
	for (i = 0; i < n; i++) {
		double s = (t[i] - release_time) / h, u;

		if (!(s > 0)) {
			z[i] = release_height; /* held at rest until released */
			continue;
		}
		s = fmin(s, cap);
		k = (long)floor(s);
		u = s - (double)k;
		z[i] = catmull_rom(buf[k > 0 ? k - 1 : 0], buf[k], buf[k + 1], buf[k + 2], u);
	}
}

/* The fitted (log timeconst, log dampratio) of x, held ones from the start. */
static void phys_logs(const struct problem *P, const gsl_vector *x, double logp[NPHYS])
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

static void model_at(const struct problem *P, const double logp[NPHYS], struct scene_model *m)
{
	struct scene s = P->scene;

	s.floor.solref[0] = exp(logp[TC]);
	s.floor.solref[1] = exp(logp[DR]);
	scene_prepare(&s, m);
}

static size_t traj_first_row(const struct problem *P)
{
	return P->data->ndrops + P->data->npresses;
}

/* Weighted residuals of trajectory j released at (t0, H) into f from row `row`. */
static void traj_residuals(const struct problem *P, const struct scene_model *m, size_t j,
    double t0, double H, gsl_vector *f, size_t row)
{
	const struct calib_trajectory *tr = &P->data->trajectories[j];
	double sigma = traj_sigma(tr);
	size_t i;

	if (abandoned(P)) {
		for (i = 0; i < tr->n; i++)
			gsl_vector_set(f, row + i, 0);
		return;
	}
	calib_trajectory_model(m, t0, H, tr->t, tr->n, P->buf, P->zmodel);
	for (i = 0; i < tr->n; i++)
		gsl_vector_set(f, row + i, weigh(P->zmodel[i], tr->z[i], sigma));
}

static int residuals(const gsl_vector *x, void *params, gsl_vector *f)
{
	const struct problem *P = params;
	const struct calib_data *d = P->data;
	struct scene_model m;
	double logp[NPHYS], pen;
	size_t i, row = 0;

	if (abandoned(P)) {
		gsl_vector_set_zero(f);
		return GSL_SUCCESS;
	}
	phys_logs(P, x, logp);
	model_at(P, logp, &m);
	for (i = 0; i < d->ndrops; i++, row++)
		gsl_vector_set(f, row,
		    weigh(calib_rebound(&m, d->drops[i].height), d->drops[i].rebound,
		        drop_sigma(&d->drops[i])));
	for (i = 0; i < d->npresses; i++, row++) {
		if (sim_equilibrium(&m, d->presses[i].force, &pen) != 0)
			pen = NAN;
		gsl_vector_set(
		    f, row, weigh(pen, d->presses[i].deflection, press_sigma(&d->presses[i])));
	}
	for (i = 0; i < d->ntrajectories; i++) {
		traj_residuals(P, &m, i, release_time(P, x, i), release_height(P, x, i), f, row);
		row += d->trajectories[i].n;
	}
	return GSL_SUCCESS;
}

/* Forward differences, block by block: a trajectory's release time and height move
 * only its own rows, so each costs one simulation of that trajectory. */
static int jacobian(const gsl_vector *x, void *params, gsl_matrix *J)
{
	struct problem *P = params;
	const struct calib_data *d = P->data;
	struct scene_model m;
	double logp[NPHYS];
	size_t k, i, j, row = traj_first_row(P);

	residuals(x, P, P->f0);
	gsl_matrix_set_zero(J);
	for (k = 0; k < P->nphys; k++) {
		gsl_vector_memcpy(P->xp, x);
		gsl_vector_set(P->xp, k, gsl_vector_get(x, k) + P->fd_step_log);
		residuals(P->xp, P, P->f1);
		for (i = 0; i < P->n; i++)
			gsl_matrix_set(J, i, k,
			    (gsl_vector_get(P->f1, i) - gsl_vector_get(P->f0, i)) / P->fd_step_log);
	}
	if (P->releases)
		return GSL_SUCCESS;
	phys_logs(P, x, logp);
	model_at(P, logp, &m);
	for (j = 0; j < d->ntrajectories; j++) {
		size_t col = P->nphys + 2 * j, n = d->trajectories[j].n;
		double t0 = gsl_vector_get(x, col), H = gsl_vector_get(x, col + 1);
		double dt = FD_STEP_TIME * m.timestep;

		traj_residuals(P, &m, j, t0 + dt, H, P->f1, row);
		for (i = row; i < row + n; i++)
			gsl_matrix_set(
			    J, i, col, (gsl_vector_get(P->f1, i) - gsl_vector_get(P->f0, i)) / dt);
		traj_residuals(P, &m, j, t0, H + FD_STEP_HEIGHT, P->f1, row);
		for (i = row; i < row + n; i++)
			gsl_matrix_set(J, i, col + 1,
			    (gsl_vector_get(P->f1, i) - gsl_vector_get(P->f0, i)) / FD_STEP_HEIGHT);
		row += n;
	}
	return GSL_SUCCESS;
}

/*
 * Where a trajectory's first impact begins: its first sample at most CALIB_BOUNCE_SIGMAS
 * sigma above the pad, or its lowest sample when none is. Not simply the lowest of all:
 * the later impacts of a pad that hardly bounces are as deep as the first within the
 * noise.
 */
static size_t first_impact(const struct calib_trajectory *tr)
{
	double level = CALIB_BOUNCE_SIGMAS * traj_sigma(tr);
	size_t lowest = 0, i;

	for (i = 0; i < tr->n; i++)
		if (!(tr->z[i] > level))
			return i;
	for (i = 1; i < tr->n; i++)
		if (tr->z[i] < tr->z[lowest])
			lowest = i;
	return lowest;
}

/* Starting (t0, H) of a trajectory: the free-fall parabola with the known gravity
 * through its samples above the pad before the first impact, least squares. Semi-
 * implicit Euler from rest follows z = H + g h^2/8 - g/2 (t - t0 + h/2)^2, so the
 * parabola's vertex is shifted back. */
static void traj_start(const struct calib_trajectory *tr, double g, double h, double *t0, double *H)
{
	size_t first, i, count;
	double tref = tr->t[0], from = -INFINITY;
	int pass;

	*t0 = tr->t[0];
	*H = tr->z[0];
	if (!(g > 0))
		return;
	first = first_impact(tr);
	/* second pass: without samples taken before the estimated release (at rest) */
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

/* log(timeconst), log(dampratio) equivalent to a geom's solref in either form. */
static void start_logs(const struct scene *s, double logp[NPHYS])
{
	struct law_solimp imp;
	struct law_gains g;

	law_solimp_clamp(s->floor.solimp, &imp);
	law_solref_kb(s->floor.solref, imp.dwidth, s->option.timestep, 0, &g);
	if (g.K > 0 && g.B > 0) {
		/* K = 1/(dmax tc dr)^2 and B = 2/(dmax tc), the direct form alike */
		double tc = 2 / (imp.dwidth * g.B);
		logp[TC] = log(tc);
		logp[DR] = log(1 / (imp.dwidth * sqrt(g.K) * tc));
	} else {
		logp[TC] = log(CALIB_PAD_TIMECONST);
		logp[DR] = log(CALIB_PAD_DAMPRATIO);
	}
}

/*
 * The residual variance that scales the standard errors: chi^2/dof, but never below 1 (the
 * stated sigmas are the floor: residuals that happen to scatter less, as they often do
 * with few of them, do not make the parameters better known than the measurements'
 * noise allows), and 1 when dof is below CALIB_MIN_DOF (too few residuals to estimate
 * a variance from: the stated sigmas alone).
 */
static double residual_variance(double chi2, size_t n, size_t p)
{
	if (n < p + CALIB_MIN_DOF)
		return 1;
	return fmax(1, chi2 / (double)(n - p));
}

static double sum_squares(const gsl_vector *f)
{
	double s;

	gsl_blas_ddot(f, f, &s);
	return s;
}

/* A candidate start of the trust region: a grid point and its chi^2. */
struct start {
	double chi2, dist;
	double logp[NPHYS];
};

/* Is a better than b: lower chi^2, ties (flat regions) to the point nearer the start. */
static int start_better(const struct start *a, const struct start *b)
{
	if (a->chi2 < b->chi2 * (1 - 1e-9))
		return 1;
	return a->chi2 <= b->chi2 * (1 + 1e-9) && a->dist < b->dist;
}

/*
 * residuals() at a point of the starting grid, the drops' and presses' model values
 * from and to P->grid_model when set. Each trajectory's release is moved along its
 * valley (time by a third of a step, up to P->grid_shifts of them either way, height
 * to keep the fall) and the best kept: the free fall before the impact fixes
 * a release only to about half a step, and a contact sampled at the wrong phase makes
 * chi^2 at every grid point so large that the grid would not see the physics.
 */
static void grid_residuals(struct problem *P, const gsl_vector *x, size_t point, gsl_vector *f)
{
	const struct calib_data *d = P->data;
	size_t nstatic = d->ndrops + d->npresses, i, k, row = 0;
	const double h = P->scene.option.timestep;
	struct scene_model m;
	double logp[NPHYS], *model = NULL;
	int shift;

	if (abandoned(P)) {
		gsl_vector_set_zero(f);
		return;
	}
	phys_logs(P, x, logp);
	model_at(P, logp, &m);
	if (P->grid_model && nstatic > 0) {
		model = P->grid_model + point * nstatic;
		if (!P->grid_model_ready) {
			for (i = 0; i < d->ndrops; i++)
				model[i] = calib_rebound(&m, d->drops[i].height);
			for (i = 0; i < d->npresses; i++)
				if (sim_equilibrium(
				        &m, d->presses[i].force, &model[d->ndrops + i]) != 0)
					model[d->ndrops + i] = NAN;
		}
	}
	for (i = 0; i < d->ndrops; i++, row++) {
		double rebound = model ? model[i] : calib_rebound(&m, d->drops[i].height);

		gsl_vector_set(
		    f, row, weigh(rebound, d->drops[i].rebound, drop_sigma(&d->drops[i])));
	}
	for (i = 0; i < d->npresses; i++, row++) {
		double pen;

		if (model)
			pen = model[d->ndrops + i];
		else if (sim_equilibrium(&m, d->presses[i].force, &pen) != 0)
			pen = NAN;
		gsl_vector_set(
		    f, row, weigh(pen, d->presses[i].deflection, press_sigma(&d->presses[i])));
	}
	for (i = 0; i < d->ntrajectories; i++) {
		const struct calib_trajectory *tr = &d->trajectories[i];
		double t0 = release_time(P, x, i), H = release_height(P, x, i), best = INFINITY;
		double slope = -P->scene.option.gravity * (tr->t[first_impact(tr)] - t0);

		for (shift = -P->grid_shifts; shift <= P->grid_shifts; shift++) {
			double dt = shift * h / 3, chi2 = 0;

			traj_residuals(P, &m, i, t0 + dt, H + slope * dt, P->f0, row);
			for (k = row; k < row + tr->n; k++)
				chi2 += gsl_vector_get(P->f0, k) * gsl_vector_get(P->f0, k);
			if (chi2 < best) {
				best = chi2;
				for (k = row; k < row + tr->n; k++)
					gsl_vector_set(f, k, gsl_vector_get(P->f0, k));
			}
		}
		row += tr->n;
	}
}

/* Move each trajectory's release in x along its valley to the best of the phases
 * grid_residuals() tries (x updated in place): where a descent should start. */
static void pick_releases(struct problem *P, gsl_vector *x)
{
	const struct calib_data *d = P->data;
	const double h = P->scene.option.timestep;
	struct scene_model m;
	double logp[NPHYS];
	size_t i, k, row = traj_first_row(P);
	int shift;

	phys_logs(P, x, logp);
	model_at(P, logp, &m);
	for (i = 0; i < d->ntrajectories; i++) {
		const struct calib_trajectory *tr = &d->trajectories[i];
		double t0 = release_time(P, x, i), H = release_height(P, x, i), best = INFINITY;
		double slope = -P->scene.option.gravity * (tr->t[first_impact(tr)] - t0), pick = 0;

		for (shift = -P->grid_shifts; shift <= P->grid_shifts; shift++) {
			double dt = shift * h / 3, chi2 = 0;

			traj_residuals(P, &m, i, t0 + dt, H + slope * dt, P->f0, row);
			for (k = row; k < row + tr->n; k++)
				chi2 += gsl_vector_get(P->f0, k) * gsl_vector_get(P->f0, k);
			if (chi2 < best) {
				best = chi2;
				pick = dt;
			}
		}
		gsl_vector_set(x, P->nphys + 2 * i, t0 + pick);
		gsl_vector_set(x, P->nphys + 2 * i + 1, H + slope * pick);
		row += tr->n;
	}
}

/*
 * The local minima of chi^2 over a log-spaced grid of the fitted physical parameters
 * (nuisance fixed at its start), best first, at most CALIB_STARTS of them into best[].
 * The rebound is a rough function of the parameters (the discrete apex, the contact's
 * phase within a step), so one descent from the single best point can stall in a
 * neighbouring valley. Returns how many were found (>= 1).
 */
static size_t grid_starts(struct problem *P, gsl_vector *x, struct start *best)
{
	enum { N = CALIB_GRID_POINTS };
	static const int nb[8][2] = {
	    {-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};
	double lo[NPHYS] = {log(CALIB_GRID_TIMECONST_MIN_STEPS * P->scene.option.timestep),
	    log(CALIB_GRID_DAMPRATIO_MIN)};
	double hi[NPHYS] = {log(CALIB_GRID_TIMECONST_MAX), log(CALIB_GRID_DAMPRATIO_MAX)};
	struct start grid[N][N];
	int counts[NPHYS], a, b, i, q;
	size_t k, found = 0;

	for (i = 0; i < NPHYS; i++)
		counts[i] = P->free[i] ? N : 1;
	for (a = 0; a < counts[TC]; a++) {
		for (b = 0; b < counts[DR]; b++) {
			struct start *g = &grid[a][b];
			int idx[NPHYS] = {a, b};

			g->dist = 0;
			for (i = 0, k = 0; i < NPHYS; i++) {
				g->logp[i] = P->free[i] ? lo[i] + (hi[i] - lo[i]) * idx[i] / (N - 1)
				                        : P->start_log[i];
				if (P->free[i])
					gsl_vector_set(x, k++, g->logp[i]);
				g->dist +=
				    (g->logp[i] - P->start_log[i]) * (g->logp[i] - P->start_log[i]);
			}
			grid_residuals(P, x, (size_t)(a * N + b), P->f1);
			g->chi2 = sum_squares(P->f1);
		}
	}
	P->grid_model_ready = P->grid_model != NULL;
	for (a = 0; a < counts[TC]; a++) {
		for (b = 0; b < counts[DR]; b++) {
			int minimum = 1;

			for (q = 0; q < 8 && minimum; q++) {
				int na = a + nb[q][0], nbb = b + nb[q][1];
				if (na >= 0 && na < counts[TC] && nbb >= 0 && nbb < counts[DR] &&
				    start_better(&grid[na][nbb], &grid[a][b]))
					minimum = 0;
			}
			if (!minimum)
				continue;
			/* insert into best[], sorted, keeping the CALIB_STARTS best */
			if (found < CALIB_STARTS)
				found++;
			else if (!start_better(&grid[a][b], &best[CALIB_STARTS - 1]))
				continue;
			for (k = found - 1; k > 0 && start_better(&grid[a][b], &best[k - 1]); k--)
				best[k] = best[k - 1];
			best[k] = grid[a][b];
		}
	}
	return found;
}

/* Put the physical part of a start into x. */
static void set_start(const struct problem *P, const struct start *st, gsl_vector *x)
{
	size_t k = 0;
	int i;

	for (i = 0; i < NPHYS; i++)
		if (P->free[i])
			gsl_vector_set(x, k++, st->logp[i]);
}

/* Levenberg-Marquardt from x (updated in place). */
static int least_squares(struct problem *P, gsl_vector *x, int *iterations, struct err *err)
{
	gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_fdf fdf;
	gsl_multifit_nlinear_workspace *w;
	int info;

	params.trs = gsl_multifit_nlinear_trs_lm;
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, P->n, P->p);
	if (!w)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	fdf.f = residuals;
	fdf.df = jacobian;
	fdf.fvv = NULL;
	fdf.n = P->n;
	fdf.p = P->p;
	fdf.params = P;
	/* the driver's status (converged, no progress, iteration limit) does not matter:
	 * the identification analysis and the residuals judge the point it reached */
	if (gsl_multifit_nlinear_init(x, &fdf, w) == GSL_SUCCESS)
		gsl_multifit_nlinear_driver(
		    CALIB_MAX_ITERATIONS, FIT_XTOL, FIT_GTOL, FIT_FTOL, NULL, NULL, &info, w);
	gsl_vector_memcpy(x, gsl_multifit_nlinear_position(w));
	*iterations += (int)gsl_multifit_nlinear_niter(w);
	gsl_multifit_nlinear_free(w);
	return 0;
}

/*
 * Other descents that ended in a different valley with almost the same chi^2 make
 * the local standard errors too optimistic (the model is rough: the contact lasts a
 * few steps and which step ends it jumps with the parameters). Treat chi^2 as
 * quadratic between the two minima: a competitor at distance d in a log parameter
 * with dchi2 / s^2 = z^2 implies a standard error of at least d / max(z, 1). Only
 * competitors within CALIB_AMBIGUITY_SIGMAS count.
 */
static void widen_for_alternatives(struct problem *P, const gsl_vector *x, double best_chi2,
    const struct start *found, size_t count)
{
	double s2, logp[NPHYS], nearest = INFINITY;
	size_t i;
	int q;

	s2 = residual_variance(best_chi2, P->n, P->p);
	phys_logs(P, x, logp);
	for (i = 0; i < count; i++) {
		double dev[NPHYS], dist = 0, z2 = (found[i].chi2 - best_chi2) / s2;

		for (q = 0; q < NPHYS; q++) {
			dev[q] = fabs(found[i].logp[q] - logp[q]);
			dist = fmax(dist, dev[q]);
		}
		if (dist < CALIB_DISTINCT_LOG ||
		    !(z2 <= CALIB_AMBIGUITY_SIGMAS * CALIB_AMBIGUITY_SIGMAS))
			continue;
		for (q = 0; q < NPHYS; q++)
			P->se_floor[q] = fmax(P->se_floor[q], dev[q] / fmax(sqrt(fmax(z2, 0)), 1));
		if (z2 < nearest) {
			nearest = z2;
			P->has_alt = 1;
			P->alt_dchi2 = found[i].chi2 - best_chi2;
			for (q = 0; q < NPHYS; q++)
				P->alt_logp[q] = found[i].logp[q];
		}
	}
}

/*
 * Fit each trajectory's release alone, the physical parameters of x held (x updated
 * in place), from its current release and from releases up to `shifts` half steps
 * earlier and later (heights moved to keep the fall), keeping the best. A descent that
 * moves everything at once from a start far from the data drags a release by whole
 * steps to make up for the wrong contact, and stays there: the release time has a
 * valley for each step the impact can begin in.
 */
static int fit_releases(
    struct problem *P, gsl_vector *x, int shifts, int *iterations, struct err *err)
{
	const struct calib_data *d = P->data;
	struct problem Q = *P;
	struct calib_data one;
	gsl_vector *y = gsl_vector_alloc(2), *best = gsl_vector_alloc(2);
	size_t j;
	int rc = -1, shift;

	Q.xp = gsl_vector_alloc(2);
	if (!y || !best || !Q.xp) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	memset(&one, 0, sizeof one);
	one.ntrajectories = 1;
	phys_logs(P, x, Q.start_log);
	Q.free[TC] = Q.free[DR] = 0;
	Q.nphys = 0;
	Q.p = 2;
	Q.data = &one;
	for (j = 0; j < d->ntrajectories; j++) {
		gsl_vector_view f0 = gsl_vector_subvector(P->f0, 0, d->trajectories[j].n);
		gsl_vector_view f1 = gsl_vector_subvector(P->f1, 0, d->trajectories[j].n);
		const struct calib_trajectory *tr = &d->trajectories[j];
		double best_chi2 = INFINITY, t0 = gsl_vector_get(x, P->nphys + 2 * j);
		double H = gsl_vector_get(x, P->nphys + 2 * j + 1);
		/* moving the release by dt and its height by g (t - t0) dt keeps the fall
		 * through the first impact's sample t: the valleys lie along that line */
		double slope = -P->scene.option.gravity * (tr->t[first_impact(tr)] - t0);

		one.trajectories = tr;
		Q.n = tr->n;
		Q.f0 = &f0.vector;
		Q.f1 = &f1.vector;
		for (shift = -shifts; shift <= shifts; shift++) {
			double dt = 0.5 * shift * P->scene.option.timestep, chi2;

			gsl_vector_set(y, 0, t0 + dt);
			gsl_vector_set(y, 1, H + slope * dt);
			if (least_squares(&Q, y, iterations, err) != 0)
				goto out;
			residuals(y, &Q, Q.f1);
			chi2 = sum_squares(Q.f1);
			if (chi2 < best_chi2) {
				best_chi2 = chi2;
				gsl_vector_memcpy(best, y);
			}
		}
		gsl_vector_set(x, P->nphys + 2 * j, gsl_vector_get(best, 0));
		gsl_vector_set(x, P->nphys + 2 * j + 1, gsl_vector_get(best, 1));
	}
	rc = 0;
out:
	gsl_vector_free(Q.xp);
	gsl_vector_free(best);
	gsl_vector_free(y);
	return rc;
}

/* Fit the physical parameters alone, the releases of x held (x updated in place). */
static int fit_physics(struct problem *P, gsl_vector *x, int *iterations, struct err *err)
{
	struct problem Q = *P;
	gsl_vector *y;
	size_t k;
	int rc;

	if (P->nphys == 0 || P->data->ntrajectories == 0)
		return 0;
	Q.releases = x;
	Q.p = P->nphys;
	Q.xp = gsl_vector_alloc(Q.p);
	y = gsl_vector_alloc(Q.p);
	if (!Q.xp || !y) {
		gsl_vector_free(Q.xp);
		gsl_vector_free(y);
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
	for (k = 0; k < Q.p; k++)
		gsl_vector_set(y, k, gsl_vector_get(x, k));
	rc = least_squares(&Q, y, iterations, err);
	for (k = 0; k < Q.p; k++)
		gsl_vector_set(x, k, gsl_vector_get(y, k));
	gsl_vector_free(Q.xp);
	gsl_vector_free(y);
	return rc;
}

/*
 * The trust region from each of count starts in turn (init holds the nuisance starts),
 * keeping the lowest chi^2 in best and *best_chi2 (which the caller initialises); what
 * each descent reached goes to found[]. Stops early once a fit's chi^2 is at most
 * enough (as good as the noise scales allow); *nfound says how many ran.
 */
static int descend(struct problem *P, const gsl_vector *init, const struct start *starts,
    size_t count, double enough, struct start *found, size_t *nfound, gsl_vector *best,
    double *best_chi2, gsl_vector *x, int *iterations, struct err *err)
{
	size_t i;

	for (i = 0; i < count; i++) {
		double chi2;

		gsl_vector_memcpy(x, init);
		set_start(P, &starts[i], x);
		/* the releases at the start's physics, then the physics with those releases,
		 * then all: together from a far start, a release slides into another step */
		pick_releases(P, x);
		if (fit_releases(P, x, 0, iterations, err) != 0 ||
		    fit_physics(P, x, iterations, err) != 0 ||
		    least_squares(P, x, iterations, err) != 0)
			return -1;
		residuals(x, P, P->f1);
		chi2 = sum_squares(P->f1);
		found[i].chi2 = chi2;
		found[i].dist = 0;
		phys_logs(P, x, found[i].logp);
		if (chi2 < *best_chi2) {
			*best_chi2 = chi2;
			gsl_vector_memcpy(best, x);
		}
		if (*best_chi2 <= enough) {
			i++;
			break;
		}
	}
	*nfound = i;
	return 0;
}

/* Polish best (chi^2 *best_chi2): a fine grid around it finds a deeper valley next to
 * it, and a descent from there, CALIB_REFINE_ROUNDS times at most. x and init are
 * scratch vectors of P's size. */
static int polish(struct problem *P, gsl_vector *best, double *best_chi2, gsl_vector *x,
    gsl_vector *init, int *iterations, struct err *err)
{
	int round, q;

	for (round = 0; round < CALIB_REFINE_ROUNDS; round++) {
		double chi2 = *best_chi2, centre[NPHYS];
		int a, b, improved = 0;

		gsl_vector_memcpy(x, best);
		phys_logs(P, best, centre);
		for (a = -CALIB_REFINE_POINTS; a <= CALIB_REFINE_POINTS; a++) {
			for (b = -CALIB_REFINE_POINTS; b <= CALIB_REFINE_POINTS; b++) {
				struct start st;
				int idx[NPHYS] = {a, b};
				double c;

				for (q = 0; q < NPHYS; q++)
					st.logp[q] = centre[q] +
					    (P->free[q] ? CALIB_REFINE_SPAN * idx[q] /
					                CALIB_REFINE_POINTS
					                : 0);
				if ((!P->free[TC] && a != 0) || (!P->free[DR] && b != 0))
					continue;
				set_start(P, &st, x);
				residuals(x, P, P->f1);
				c = sum_squares(P->f1);
				if (c < chi2 * (1 - 1e-9)) {
					chi2 = c;
					gsl_vector_memcpy(init, x);
					improved = 1;
				}
			}
		}
		if (!improved)
			break;
		gsl_vector_memcpy(x, init);
		if (least_squares(P, x, iterations, err) != 0)
			return -1;
		residuals(x, P, P->f1);
		chi2 = sum_squares(P->f1);
		if (!(chi2 < *best_chi2))
			break;
		*best_chi2 = chi2;
		gsl_vector_memcpy(best, x);
	}
	return 0;
}

/*
 * The whole search: the trust region from each grid start (x holds the nuisance
 * starts), polished, then each release's valley checked again at the best fit. The
 * lowest chi^2 ends in x and *chi2; what the descents reached in found[] (*nfound).
 */
static int search(struct problem *P, gsl_vector *x, struct start *found, size_t *nfound,
    double *chi2_out, int *iterations, struct err *err)
{
	struct start starts[CALIB_STARTS];
	gsl_vector *init = gsl_vector_alloc(P->p), *best = gsl_vector_alloc(P->p);
	gsl_vector *fall = gsl_vector_alloc(P->p); /* the releases' starts, kept */
	double best_chi2 = INFINITY, enough;
	size_t count, i;
	int rc = -1, round;

	if (!init || !best || !fall) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	gsl_vector_memcpy(init, x);
	gsl_vector_memcpy(fall, x);
	count = grid_starts(P, x, starts);
	enough = CALIB_ACCEPT_CHI2 * (double)(P->n > P->p ? P->n - P->p : 1);
	if (descend(P, init, starts, count, enough, found, nfound, best, &best_chi2, x, iterations,
	        err) != 0 ||
	    polish(P, best, &best_chi2, x, init, iterations, err) != 0)
		goto out;
	/* the descents chose each release's valley on the way; at the best fit another
	 * may fit better, near where it is or near the free fall's own estimate */
	for (round = 0; round < CALIB_REFINE_ROUNDS && P->data->ntrajectories > 0; round++) {
		double chi2;
		int from, improved = 0;

		for (from = 0; from < 2; from++) {
			gsl_vector_memcpy(x, best);
			for (i = 0; from == 1 && i < 2 * P->data->ntrajectories; i++)
				gsl_vector_set(x, P->nphys + i, gsl_vector_get(fall, P->nphys + i));
			if (fit_releases(P, x, 2, iterations, err) != 0 ||
			    least_squares(P, x, iterations, err) != 0)
				goto out;
			residuals(x, P, P->f1);
			chi2 = sum_squares(P->f1);
			if (chi2 < best_chi2 * (1 - 1e-9)) {
				best_chi2 = chi2;
				gsl_vector_memcpy(best, x);
				improved = 1;
			}
		}
		if (!improved)
			break;
		if (polish(P, best, &best_chi2, x, init, iterations, err) != 0)
			goto out;
	}
	gsl_vector_memcpy(x, best);
	*chi2_out = best_chi2;
	rc = 0;
out:
	gsl_vector_free(fall);
	gsl_vector_free(init);
	gsl_vector_free(best);
	return rc;
}

/* The search from the grid (x holds the nuisance starts; the best fit ends there), and
 * the standard-error floor of any competing minimum. */
static int multi_start(struct problem *P, gsl_vector *x, int *iterations, struct err *err)
{
	struct start found[CALIB_STARTS];
	size_t nfound;
	double chi2;

	if (search(P, x, found, &nfound, &chi2, iterations, err) != 0)
		return -1;
	widen_for_alternatives(P, x, chi2, found, nfound);
	return 0;
}

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
struct boot {
	int replicas;
	double se_log[NPHYS];  /* RMS deviation of the refitted logs from the estimate */
	double correlation;    /* of the deviations, when both are fitted */
	double se_log_product; /* RMS deviation of log(timeconst*dampratio) */
};

/* Replica measurements into rd's arrays: the model (measured + sigma * weighted
 * residual r at the estimate) plus noise of scale times each sigma. */
static void replicate(const struct calib_data *d, const gsl_vector *r, double scale, gsl_rng *rng,
    struct calib_drop *drops, struct calib_press *presses, double *z)
{
	size_t i, j, row = 0;

	for (i = 0; i < d->ndrops; i++, row++) {
		double sigma = drop_sigma(&d->drops[i]);

		drops[i] = d->drops[i];
		/* an apex is never below the pad's surface */
		drops[i].rebound = fmax(0,
		    d->drops[i].rebound + sigma * gsl_vector_get(r, row) +
		        scale * sigma * gsl_ran_gaussian(rng, 1));
	}
	for (i = 0; i < d->npresses; i++, row++) {
		double sigma = press_sigma(&d->presses[i]);

		presses[i] = d->presses[i];
		presses[i].deflection = d->presses[i].deflection + sigma * gsl_vector_get(r, row) +
		    scale * sigma * gsl_ran_gaussian(rng, 1);
	}
	for (j = 0; j < d->ntrajectories; j++) {
		const struct calib_trajectory *tr = &d->trajectories[j];
		double sigma = traj_sigma(tr);

		for (i = 0; i < tr->n; i++, row++)
			*z++ = tr->z[i] + sigma * gsl_vector_get(r, row) +
			    scale * sigma * gsl_ran_gaussian(rng, 1);
	}
}

static int bootstrap(struct problem *P, const gsl_vector *x, struct boot *bt, struct err *err)
{
	const struct calib_data *d = P->data;
	struct problem R = *P;
	struct calib_data rd = *d;
	struct calib_drop *drops = calloc(d->ndrops + 1, sizeof *drops);
	struct calib_press *presses = calloc(d->npresses + 1, sizeof *presses);
	struct calib_trajectory *trajs = calloc(d->ntrajectories + 1, sizeof *trajs);
	double *z = malloc((P->n + 1) * sizeof *z);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_vector *r = gsl_vector_alloc(P->n), *xs = gsl_vector_alloc(P->p);
	struct start reached[CALIB_STARTS];
	struct scene_model m;
	double logp_hat[NPHYS], span[NPHYS], sum2[NPHYS] = {0, 0}, cross = 0, product = 0;
	double scale;
	size_t nreached, j, off;
	int rc = -1, b, q, iterations = 0;

	R.f0 = gsl_vector_alloc(P->n);
	R.f1 = gsl_vector_alloc(P->n);
	R.xp = gsl_vector_alloc(P->p);
	R.grid_model =
	    malloc((CALIB_GRID_POINTS * CALIB_GRID_POINTS * (d->ndrops + d->npresses) + 1) *
	        sizeof *R.grid_model);
	R.grid_model_ready = 0;
	if (!drops || !presses || !trajs || !z || !rng || !r || !xs || !R.f0 || !R.f1 || !R.xp ||
	    !R.grid_model) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	gsl_rng_set(rng, CALIB_BOOT_SEED);
	residuals(x, P, r);
	scale = sqrt(residual_variance(sum_squares(r), P->n, P->p));
	if (P->n > P->p && sum_squares(r) / (double)(P->n - P->p) <= CALIB_ACCEPT_CHI2) {
		/* an exact fit (noise-free data): replicas without noise are the data */
		rc = 0;
		goto out;
	}
	phys_logs(P, x, logp_hat);
	model_at(P, logp_hat, &m); /* gravity and timestep for the releases' starts */
	/* a refit that leaves the grid's range is "anywhere": it counts as the range */
	span[TC] = log(
	    CALIB_GRID_TIMECONST_MAX / (CALIB_GRID_TIMECONST_MIN_STEPS * P->scene.option.timestep));
	span[DR] = log(CALIB_GRID_DAMPRATIO_MAX / CALIB_GRID_DAMPRATIO_MIN);
	rd.drops = drops;
	rd.presses = presses;
	rd.trajectories = trajs;
	for (j = 0, off = d->ndrops + d->npresses; j < d->ntrajectories; j++) {
		trajs[j] = d->trajectories[j];
		trajs[j].z = z + off;
		off += trajs[j].n;
	}
	R.data = &rd;
	for (b = 0; b < CALIB_BOOT_REPLICAS; b++) {
		double chi2 = INFINITY, logp[NPHYS], dev[NPHYS] = {0, 0};

		replicate(d, r, scale, rng, drops, presses, z + d->ndrops + d->npresses);
		gsl_vector_memcpy(xs, x);
		for (j = 0; j < d->ntrajectories; j++) {
			double t0, H;

			traj_start(&trajs[j], -m.a0, m.timestep, &t0, &H);
			gsl_vector_set(xs, P->nphys + 2 * j, t0);
			gsl_vector_set(xs, P->nphys + 2 * j + 1, H);
		}
		if (search(&R, xs, reached, &nreached, &chi2, &iterations, err) != 0)
			goto out;
		phys_logs(&R, xs, logp);
		for (q = 0; q < NPHYS; q++) {
			if (!P->free[q])
				continue;
			dev[q] = fmin(fmax(logp[q] - logp_hat[q], -span[q]), span[q]);
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
	gsl_vector_free(R.f0);
	gsl_vector_free(R.f1);
	gsl_vector_free(R.xp);
	free(R.grid_model);
	gsl_vector_free(xs);
	gsl_vector_free(r);
	gsl_rng_free(rng);
	free(z);
	free(trajs);
	free(presses);
	free(drops);
	return rc;
}

/* What the Jacobian at x says: the covariance of x (unscaled, pseudo-inverse over the
 * identified directions) and the physical part of the first unidentified direction. */
struct analysis {
	gsl_matrix *cov;        /* p x p */
	int phys_null;          /* an unidentified direction involves timeconst or dampratio */
	int nuisance_null;      /* one involves only release times and heights */
	double null_dir[NPHYS]; /* its (log tc, log dr) part, normalised, 0 for held ones */
};

static int analyse(struct problem *P, const gsl_vector *x, struct analysis *an, struct err *err)
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
	jacobian(x, P, J);
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
enum { PROF_TC, PROF_DR, PROF_PRODUCT, NPROF };

struct walk {
	struct problem Q; /* the problem with v held; its origin moves with v */
	double c[NPHYS];  /* v = c . logp; c . c = 1 or 2 */
	double logp_hat[NPHYS], v_hat;
	double chi2_min, thr; /* thr: s^2 */
	gsl_vector *x_hat; /* Q's vector at the estimate: offset 0 along the axis, the nuisance */
	gsl_vector *prev, *prev2, *x;
	int seek_better; /* stop at a point below chi2_min by CALIB_PROFILE_IMPROVE * thr */
	int better;      /* and one was found */
	double better_logp[NPHYS];
	gsl_vector *better_x; /* Q's vector there */
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
	if (w->Q.p > 0 && least_squares(&w->Q, x, iterations, err) != 0)
		return -1;
	residuals(x, &w->Q, w->Q.f1);
	*chi2 = sum_squares(w->Q.f1);
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
static int walk_side(
    struct walk *w, int side, double step0, double *se, int *iterations, struct err *err)
{
	double v_prev = w->v_hat, v_prev2 = NAN, d_prev = 0, step = step0, end[3];
	int k, level;
	size_t i;

	*se = 0;
	gsl_vector_memcpy(w->prev, w->x_hat);
	for (level = 0; level < 3; level++)
		end[level] = w->v_hat;
	for (k = 0; k < CALIB_PROFILE_STEPS; k++) {
		double v = v_prev + side * step, chi2, d;

		if (fabs(v - w->v_hat) > CALIB_PROFILE_SPAN) {
			for (level = 0; level < 3; level++)
				if (d_prev <= (level + 1) * (level + 1) * w->thr)
					end[level] = w->v_hat + side * CALIB_PROFILE_SPAN;
			break;
		}
		gsl_vector_memcpy(w->x, w->prev);
		if (isfinite(v_prev2))
			for (i = 0; i < w->x->size; i++)
				*gsl_vector_ptr(w->x, i) +=
				    (gsl_vector_get(w->prev, i) - gsl_vector_get(w->prev2, i)) *
				    (v - v_prev) / (v_prev - v_prev2);
		if (walk_point(w, v, w->x, &chi2, iterations, err) != 0)
			return -1;
		d = chi2 - w->chi2_min;
		if (w->seek_better && d < -CALIB_PROFILE_IMPROVE * w->thr) {
			w->better = 1;
			phys_logs(&w->Q, w->x, w->better_logp);
			gsl_vector_memcpy(w->better_x, w->x);
			return 0;
		}
		for (level = 0; level < 3; level++) {
			double lev = (level + 1) * (level + 1) * w->thr;

			if (d <= lev)
				end[level] = v;
			else if (d_prev <= lev)
				end[level] = v_prev + (v - v_prev) * crossing(d_prev, d, lev);
		}
		if (d > CALIB_PROFILE_STOP * w->thr)
			break;
		gsl_vector_memcpy(w->prev2, w->prev);
		gsl_vector_memcpy(w->prev, w->x);
		v_prev2 = v_prev;
		v_prev = v;
		d_prev = d;
		step = fmin(step * CALIB_PROFILE_GROWTH, CALIB_PROFILE_STEP_MAX);
	}
	for (level = 0; level < 3; level++)
		*se = fmax(*se, fabs(end[level] - w->v_hat) / (level + 1));
	return 0;
}

/* What the profiles found: the standard error of each combination, in log units. */
struct profiles {
	int done[NPROF];
	double se[NPROF];
	int better; /* a lower minimum was found */
};

static void walk_free(struct walk *w)
{
	gsl_vector_free(w->Q.f0);
	gsl_vector_free(w->Q.f1);
	gsl_vector_free(w->Q.xp);
	gsl_vector_free(w->x_hat);
	gsl_vector_free(w->prev);
	gsl_vector_free(w->prev2);
	gsl_vector_free(w->x);
	gsl_vector_free(w->better_x);
}

/*
 * The profile standard errors of log timeconst, log dampratio and their sum at the
 * estimate x of P (whose fitted physical parameters are the free ones), with P's covariance
 * cov (unscaled) for the first step. With seek_better, a walk that finds a lower
 * minimum ends it all: pr->better is set and better (P's layout) is the point there.
 */
static int profile_all(struct problem *P, const gsl_vector *x, const gsl_matrix *cov,
    int seek_better, struct profiles *pr, gsl_vector *better, int *iterations, struct err *err)
{
	static const double dirs[NPROF][NPHYS] = {{1, 0}, {0, 1}, {1, 1}};
	struct walk w;
	size_t n = P->n, j, q;
	double s2;
	int rc = -1, which, side;

	memset(pr, 0, sizeof *pr);
	memset(&w, 0, sizeof w);
	w.Q = *P;
	w.Q.profiling = 1;
	w.seek_better = seek_better;
	w.Q.nphys = P->nphys - 1;
	w.Q.p = w.Q.nphys + 2 * P->data->ntrajectories;
	w.Q.f0 = gsl_vector_alloc(n);
	w.Q.f1 = gsl_vector_alloc(n);
	/* a vector of length 0 does not exist in GSL; a profile with nothing to refit
	 * (one parameter, no trajectory) never reads it */
	w.Q.xp = gsl_vector_alloc(w.Q.p > 0 ? w.Q.p : 1);
	w.x_hat = gsl_vector_alloc(w.Q.xp->size);
	w.prev = gsl_vector_alloc(w.Q.xp->size);
	w.prev2 = gsl_vector_alloc(w.Q.xp->size);
	w.x = gsl_vector_alloc(w.Q.xp->size);
	w.better_x = gsl_vector_alloc(w.Q.xp->size);
	if (!w.Q.f0 || !w.Q.f1 || !w.Q.xp || !w.x_hat || !w.prev || !w.prev2 || !w.x ||
	    !w.better_x) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	phys_logs(P, x, w.logp_hat);
	residuals(x, P, w.Q.f1);
	w.chi2_min = sum_squares(w.Q.f1);
	s2 = residual_variance(w.chi2_min, n, P->p);
	w.thr = s2;
	for (which = 0; which < NPROF; which++) {
		double var = 0, step0;
		size_t k = 0;
		int i, usable = 1;

		/* profile only what the free parameters move: with one held, its own log */
		for (i = 0; i < NPHYS; i++)
			if (!P->free[i] && dirs[which][i] != 0)
				usable = 0;
		if (!usable)
			continue;
		for (i = 0; i < NPHYS; i++)
			w.c[i] = dirs[which][i];
		w.v_hat = w.c[TC] * w.logp_hat[TC] + w.c[DR] * w.logp_hat[DR];
		/* the other combination: the axis orthogonal to c, offset 0 at the estimate */
		w.Q.axis[TC] = -w.c[DR] / sqrt(w.c[TC] * w.c[TC] + w.c[DR] * w.c[DR]);
		w.Q.axis[DR] = w.c[TC] / sqrt(w.c[TC] * w.c[TC] + w.c[DR] * w.c[DR]);
		if (w.Q.nphys > 0)
			gsl_vector_set(w.x_hat, 0, 0);
		for (j = 0; j < 2 * P->data->ntrajectories; j++)
			gsl_vector_set(w.x_hat, w.Q.nphys + j, gsl_vector_get(x, P->nphys + j));
		/* first step: the covariance's standard error of v */
		for (i = 0; i < NPHYS; i++) {
			size_t l = 0;
			int m;

			if (!P->free[i])
				continue;
			for (m = 0; m < NPHYS; m++) {
				if (!P->free[m])
					continue;
				var += w.c[i] * w.c[m] * gsl_matrix_get(cov, k, l) * s2;
				l++;
			}
			k++;
		}
		step0 =
		    fmin(fmax(sqrt(fmax(var, 0)), CALIB_PROFILE_STEP_MIN), CALIB_PROFILE_STEP_MAX);
		for (side = -1; side <= 1; side += 2) {
			double se;

			if (walk_side(&w, side, step0, &se, iterations, err) != 0)
				goto out;
			if (w.better) {
				pr->better = 1;
				for (i = 0, q = 0; i < NPHYS; i++)
					if (P->free[i])
						gsl_vector_set(better, q++, w.better_logp[i]);
				for (j = 0; j < 2 * P->data->ntrajectories; j++)
					gsl_vector_set(better, P->nphys + j,
					    gsl_vector_get(w.better_x, w.Q.nphys + j));
				rc = 0;
				goto out;
			}
			pr->se[which] = fmax(pr->se[which], se);
		}
		pr->done[which] = 1;
	}
	rc = 0;
out:
	walk_free(&w);
	return rc;
}

/*
 * The profiles at x (see profile_all). A walk that finds a lower minimum moves x
 * there (refitted, and re-analysed for the nuisance's covariance) and the profiles
 * start again, at most CALIB_PROFILE_RESTARTS times: the long valleys that make the
 * profiles necessary also hide the best fit from the descents of multi_start().
 */
static int profile_fit(struct problem *P, gsl_vector *x, struct analysis *an, struct profiles *pr,
    int *iterations, struct err *err)
{
	gsl_vector *better = gsl_vector_alloc(P->p);
	int restart, rc = -1, phys_null = an->phys_null, nuisance_null = an->nuisance_null;

	if (!better)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	for (restart = 0;; restart++) {
		if (profile_all(P, x, an->cov, restart < CALIB_PROFILE_RESTARTS, pr, better,
		        iterations, err) != 0)
			goto out;
		if (!pr->better)
			break;
		/* the descent only goes down from a point already below the estimate */
		if (least_squares(P, better, iterations, err) != 0)
			goto out;
		gsl_vector_memcpy(x, better);
		if (analyse(P, x, an, err) != 0)
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

static void note(struct calib_fit *fit, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct calib_fit *fit, const char *fmt, ...)
{
	va_list ap;

	if (fit->nnotes >= CALIB_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(fit->notes[fit->nnotes++], CALIB_NOTE_MAX, fmt, ap);
	va_end(ap);
}

static void problem_free(struct problem *P)
{
	free(P->buf);
	free(P->zmodel);
	gsl_vector_free(P->f0);
	gsl_vector_free(P->f1);
	gsl_vector_free(P->xp);
}

/* Size P for the current free set and allocate its scratch. */
static int problem_size(struct problem *P, struct err *err)
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
	return 0;
}

/* Why a parameter is held, for the fit's notes. */
static void explain_hold(
    struct calib_fit *fit, const struct problem *P, int held, const double dir[NPHYS], double value)
{
	static const char *const names[NPHYS] = {"timeconst", "dampratio"};

	if (fabs(dir[TC]) > 0.3 && fabs(dir[DR]) > 0.3) {
		/* the data see tc^a dr^b with (a, b) orthogonal to the null direction */
		double a = fabs(dir[DR]), b = (dir[TC] * dir[DR] < 0 ? 1 : -1) * fabs(dir[TC]);
		if (fabs(a - b) < 0.05 * a)
			note(fit,
			    "the measurements determine only timeconst*dampratio (the static "
			    "stiffness "
			    "1/(timeconst*dampratio)^2): %s held at %.6g; add drops that bounce or "
			    "a trajectory to separate them",
			    names[held], value);
		else
			note(fit,
			    "the measurements determine only timeconst * dampratio^%.3g: %s held "
			    "at "
			    "%.6g",
			    b / a, names[held], value);
	} else if (held == DR && P->data->ndrops > 0) {
		note(fit,
		    "dampratio is not determined by these measurements (drops that do not bounce "
		    "only bound it from below): held at %.6g",
		    value);
	} else {
		note(fit, "%s is not determined by these measurements: held at %.6g", names[held],
		    value);
	}
}

static void insufficient(struct calib_fit *fit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void insufficient(struct calib_fit *fit, const char *fmt, ...)
{
	va_list ap;

	fit->status = CALIB_INSUFFICIENT;
	if (fit->nnotes >= CALIB_MAX_NOTES)
		fit->nnotes = CALIB_MAX_NOTES - 1;
	va_start(ap, fmt);
	vsnprintf(fit->notes[fit->nnotes++], CALIB_NOTE_MAX, fmt, ap);
	va_end(ap);
}

/* Notes on the fitted contact in MuJoCo at the setup's timestep. */
static void check_contact(struct calib_fit *fit)
{
	struct scene s = fit->scene;
	struct scene_model m;
	struct growth_report gr;
	struct sim_drop rest;
	double h = s.option.timestep;

	fit->refsafe_min = 2 * h;
	fit->below_refsafe = fit->timeconst < fit->refsafe_min;
	if (fit->below_refsafe)
		note(fit,
		    "timeconst %.6g is below 2*timestep = %.6g: refsafe would replace it with "
		    "%.6g; "
		    "paste solref_direct (refsafe leaves the direct form alone) or use a timestep "
		    "<= %.6g",
		    fit->timeconst, fit->refsafe_min, fit->refsafe_min, fit->timeconst / 2);
	s.option.refsafe = 0;
	growth_stability(s.floor.solref, s.floor.solimp, -1, h, 0, s.option.integrator, &gr);
	fit->growth = gr.growth;
	if (!gr.stable)
		note(fit,
		    "the fitted contact spring grows by %.4g per step at timestep %.6g (h*omega = "
		    "%.4g): MuJoCo would inject energy; use a smaller timestep",
		    gr.growth, h, gr.h_omega);
	scene_prepare(&s, &m);
	sim_drop(&m, 0, CHATTER_DURATION, &rest);
	fit->chatter = rest.jitter;
	if (!(rest.jitter <= CALIB_CHATTER_JITTER))
		note(fit,
		    "an object placed on this pad at timestep %.6g does not come to rest (height "
		    "varies by %.3g m over the last %.3g s): MuJoCo's contact chatters; a smaller "
		    "timestep or a larger timeconst*dampratio settles it",
		    h, rest.jitter, JITTER_WINDOW);
	if (s.floor.priority <= s.geom.priority)
		note(fit,
		    "the pad's priority (%d) does not exceed the object's (%d): MuJoCo mixes their "
		    "solref, and the fitted value is the pad's share of that mix",
		    s.floor.priority, s.geom.priority);
}

/* Model predictions and residual summaries at the solution. */
static void record_residuals(struct calib_fit *fit, struct problem *P, const gsl_vector *x)
{
	const struct calib_data *d = P->data;
	struct scene_model m;
	double logp[NPHYS], pen;
	size_t i, j;

	phys_logs(P, x, logp);
	model_at(P, logp, &m);
	for (i = 0; i < d->ndrops; i++) {
		fit->drop_model[i] = calib_rebound(&m, d->drops[i].height);
		fit->drop_residual[i] = d->drops[i].rebound - fit->drop_model[i];
	}
	for (i = 0; i < d->npresses; i++) {
		fit->press_model[i] =
		    sim_equilibrium(&m, d->presses[i].force, &pen) == 0 ? pen : NAN;
		fit->press_residual[i] = d->presses[i].deflection - fit->press_model[i];
	}
	for (j = 0; j < d->ntrajectories; j++) {
		const struct calib_trajectory *tr = &d->trajectories[j];
		struct calib_traj_fit *tf = &fit->traj[j];
		double ss = 0;

		tf->release_time = gsl_vector_get(x, P->nphys + 2 * j);
		tf->release_height = gsl_vector_get(x, P->nphys + 2 * j + 1);
		calib_trajectory_model(
		    &m, tf->release_time, tf->release_height, tr->t, tr->n, P->buf, P->zmodel);
		tf->max_abs = 0;
		for (i = 0; i < tr->n; i++) {
			double r = tr->z[i] - P->zmodel[i];
			ss += r * r;
			tf->max_abs = fmax(tf->max_abs, fabs(r));
		}
		tf->rms = sqrt(ss / (double)tr->n);
	}
}

/*
 * Standard errors at the solution. Of the physical parameters: the largest of three,
 * each of which alone falls short somewhere. The covariance's is exact where chi^2 is
 * a smooth bowl; the profile likelihood's follows a curved valley to where the data
 * rule it out; the bootstrap's sees how far the whole search strays in the pieces of a
 * rough chi^2 (and 16 replicas estimate a spread only to about 18 %). Never below the
 * floor a competing minimum sets. Of the releases: the covariance's.
 */
static void record_errors(struct calib_fit *fit, const struct problem *P, const struct analysis *an,
    const struct boot *bt, const struct profiles *pr)
{
	static const int prof_of[NPHYS] = {PROF_TC, PROF_DR};
	double s2, var[NPHYS] = {0, 0}, covar = 0, product;
	size_t k = 0, j;
	int i, idx[NPHYS] = {-1, -1};

	fit->chi2 = sum_squares(P->f0);
	fit->dof = (long)P->n - (long)P->p;
	fit->replicas = bt->replicas;
	s2 = residual_variance(fit->chi2, P->n, P->p);
	fit->se_scaled = s2 > 1;
	for (i = 0; i < NPHYS; i++) {
		double se_prof = pr->done[prof_of[i]] ? pr->se[prof_of[i]] : 0;

		if (!P->free[i])
			continue;
		idx[i] = (int)k;
		var[i] = gsl_matrix_get(an->cov, k, k) * s2;
		var[i] = fmax(var[i], bt->se_log[i] * bt->se_log[i]);
		var[i] = fmax(var[i], se_prof * se_prof);
		var[i] = fmax(var[i], P->se_floor[i] * P->se_floor[i]);
		fit->se_log[i] = fit->identified[i] ? sqrt(var[i]) : NAN;
		k++;
	}
	fit->correlation = NAN;
	if (idx[TC] >= 0 && idx[DR] >= 0) {
		if (bt->replicas > 0) {
			fit->correlation = bt->correlation;
		} else {
			covar = gsl_matrix_get(an->cov, (size_t)idx[TC], (size_t)idx[DR]) * s2;
			if (var[TC] > 0 && var[DR] > 0)
				fit->correlation = covar / sqrt(var[TC] * var[DR]);
		}
		covar = isfinite(fit->correlation) ? fit->correlation * sqrt(var[TC] * var[DR]) : 0;
	}
	fit->se_log_product = NAN;
	if (fit->product_identified) {
		product = sqrt(fmax(var[TC] + var[DR] + 2 * covar, 0));
		if (bt->replicas > 0)
			product = fmax(product, bt->se_log_product);
		if (pr->done[PROF_PRODUCT])
			product = fmax(product, pr->se[PROF_PRODUCT]);
		fit->se_log_product = product;
	}
	for (j = 0; j < P->data->ntrajectories; j++) {
		size_t c = P->nphys + 2 * j;
		fit->traj[j].se_release_time = sqrt(gsl_matrix_get(an->cov, c, c) * s2);
		fit->traj[j].se_release_height = sqrt(gsl_matrix_get(an->cov, c + 1, c + 1) * s2);
	}
}

/* Which parameter to hold for an unidentified direction: the one it moves most,
 * dampratio on a tie (presses, the common case, then fit timeconst). */
static int choose_hold(const double dir[NPHYS])
{
	return fabs(dir[TC]) > 1.5 * fabs(dir[DR]) ? TC : DR;
}

static int fit_run(struct calib_fit *fit, struct problem *P, struct err *err)
{
	const struct calib_data *d = P->data;
	struct scene_model m;
	struct analysis an = {NULL, 0, 0, {0, 0}};
	struct boot bt;
	struct profiles prof;
	gsl_vector *x = NULL;
	size_t j, k;
	int i, rc = -1, phase;

	if (problem_size(P, err) != 0)
		return -1;
	if (P->n < P->p) {
		insufficient(fit,
		    "%zu measured values for %zu parameters: add drops at other heights, presses "
		    "or a trajectory",
		    P->n, P->p);
		return 0;
	}
	x = gsl_vector_alloc(P->p);
	an.cov = gsl_matrix_alloc(P->p, P->p);
	if (!x || !an.cov) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	model_at(P, P->start_log, &m);
	for (j = 0; j < d->ntrajectories; j++) {
		double t0, H;

		traj_start(&d->trajectories[j], -m.a0, m.timestep, &t0, &H);
		gsl_vector_set(x, P->nphys + 2 * j, t0);
		gsl_vector_set(x, P->nphys + 2 * j + 1, H);
	}
	if (multi_start(P, x, &fit->iterations, err) != 0)
		goto out;
	for (phase = 0;; phase++) {
		if ((phase > 0 && least_squares(P, x, &fit->iterations, err) != 0) ||
		    analyse(P, x, &an, err) != 0)
			goto out;
		if (!an.phys_null || phase > 0 || P->nphys < 2)
			break;
		/* hold the parameter the null direction moves most at its fitted value, and
		 * refit the rest: the data determine the orthogonal combination */
		{
			int hold = choose_hold(an.null_dir);
			gsl_vector *reduced = gsl_vector_alloc(P->p - 1);
			double logp[NPHYS];

			if (!reduced) {
				err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
				goto out;
			}
			phys_logs(P, x, logp);
			P->start_log[hold] = logp[hold];
			P->free[hold] = 0;
			fit->held[hold] = 1;
			for (i = 0, k = 0; i < NPHYS; i++)
				if (P->free[i])
					gsl_vector_set(reduced, k++, logp[i]);
			for (j = 2; j < P->p; j++)
				gsl_vector_set(reduced, k++, gsl_vector_get(x, j));
			explain_hold(fit, P, hold, an.null_dir, exp(logp[hold]));
			fit->product_identified = fabs(an.null_dir[TC]) > 0.3 &&
			    fabs(an.null_dir[DR]) > 0.3 && an.null_dir[TC] * an.null_dir[DR] < 0;
			fit->identified[hold == TC ? DR : TC] = !fit->product_identified;
			gsl_vector_free(x);
			gsl_matrix_free(an.cov);
			an.cov = NULL;
			x = reduced;
			if (problem_size(P, err) != 0)
				goto out;
			an.cov = gsl_matrix_alloc(P->p, P->p);
			if (!an.cov) {
				err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
				goto out;
			}
		}
	}
	if (an.phys_null) {
		insufficient(fit,
		    "the measurements determine neither timeconst nor dampratio (no drop bounces "
		    "and there is no press or trajectory): add presses, bouncing drops or a "
		    "trajectory");
		fit->identified[TC] = fit->identified[DR] = fit->product_identified = 0;
	} else if (P->nphys == NPHYS) {
		fit->identified[TC] = fit->identified[DR] = fit->product_identified = 1;
	}
	memset(&bt, 0, sizeof bt);
	memset(&prof, 0, sizeof prof);
	if (!an.phys_null &&
	    (profile_fit(P, x, &an, &prof, &fit->iterations, err) != 0 ||
	        bootstrap(P, x, &bt, err) != 0))
		goto out;
	if (an.nuisance_null)
		note(fit, "a trajectory's release time or height is not determined by its samples");
	if (P->has_alt)
		note(fit,
		    "another minimum, timeconst %.6g and dampratio %.6g, fits almost as well (chi2 "
		    "higher by %.3g): the standard errors are widened to cover it; more "
		    "measurements will decide between them",
		    exp(P->alt_logp[TC]), exp(P->alt_logp[DR]), P->alt_dchi2);
	{
		double logp[NPHYS];

		phys_logs(P, x, logp);
		fit->timeconst = exp(logp[TC]);
		fit->dampratio = exp(logp[DR]);
	}
	residuals(x, P, P->f0);
	record_errors(fit, P, &an, &bt, &prof);
	record_residuals(fit, P, x);
	if (fit->status != CALIB_INSUFFICIENT)
		fit->status = P->nphys == NPHYS ? CALIB_OK : CALIB_PARTIAL;
	/* say when the data cannot vouch for the errors, or contradict their sigmas */
	if (fit->status == CALIB_OK && fit->dof < CALIB_MIN_DOF) {
		fit->status = CALIB_FEW_DOF;
		note(fit,
		    "%ld degrees of freedom left (fewer than %d): the residuals cannot check the "
		    "measurements' sigmas, so the standard errors rest on the stated sigmas alone; "
		    "add measurements",
		    fit->dof, CALIB_MIN_DOF);
	} else if (fit->status == CALIB_OK && fit->dof > 0 &&
	    gsl_cdf_chisq_Q(fit->chi2, (double)fit->dof) < CALIB_MISFIT_P) {
		fit->status = CALIB_MISFIT;
		note(fit,
		    "chi2/dof = %.3g: the measurements scatter far more than their sigmas say, or "
		    "the "
		    "model does not describe them; the standard errors are scaled up by "
		    "sqrt(chi2/dof)",
		    fit->chi2 / (double)fit->dof);
	}
	rc = 0;
out:
	gsl_matrix_free(an.cov);
	gsl_vector_free(x);
	return rc;
}

/*
 * How many of a trajectory's first samples are fitted: those before its second impact.
 * A contact that begins within a step gets MuJoCo's full damping impulse at once, so
 * the model jumps when the parameters move the step a later impact begins in (the
 * first impact's step is set by the release alone); with those samples chi^2 is a
 * patchwork of pieces and the estimate lands in whichever piece the noise favours.
 * The second impact is read off the samples: after the first impact (first_impact())
 * the object bounced when a sample is CALIB_BOUNCE_SIGMAS sigma above the pad, and it
 * is back when one is at or below the pad again (noise near the apex of a small bounce
 * rarely reaches that far). The spline behind a sample reaches two steps ahead and the
 * noise may hide the first sample in contact, so the samples within three steps of
 * that one are left out too.
 */
static size_t traj_fitted(const struct calib_trajectory *tr, double h)
{
	double level = CALIB_BOUNCE_SIGMAS * traj_sigma(tr);
	size_t first = first_impact(tr), up, back, i;

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

int calib_fit(const struct scene *setup, const struct calib_data *data, struct calib_fit **out,
    struct err *err)
{
	return calib_fit_within(setup, data, NULL, out, err);
}

int calib_fit_within(const struct scene *setup, const struct calib_data *data,
    const struct calib_bound *bound, struct calib_fit **out, struct err *err)
{
	int stopped = 0;
	struct calib_fit *fit = calloc(1, sizeof *fit);
	struct calib_trajectory *fitted = calloc(data->ntrajectories + 1, sizeof *fitted);
	struct calib_data used = *data;
	struct problem P;
	size_t j, bouncing, dropped = 0;
	int rc = -1;

	memset(&P, 0, sizeof P);
	P.bound = bound;
	P.started = monotonic_seconds();
	P.stopped = &stopped;
	/* a library must not abort the daemon: GSL's failures are return codes here */
	svc_quiet_gsl();
	if (!fit || !fitted) {
		free(fitted);
		free(fit);
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	}
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
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	fit->se_log[TC] = fit->se_log[DR] = fit->correlation = fit->se_log_product = NAN;

	P.scene = *setup;
	P.scene.option.refsafe = 0; /* fit the spring the parameters name; check_contact()
	                               reports what refsafe would do to it */
	for (j = 0; j < data->ntrajectories; j++) {
		fitted[j] = data->trajectories[j];
		fitted[j].n = traj_fitted(&fitted[j], setup->option.timestep);
		dropped += data->trajectories[j].n - fitted[j].n;
		fit->nsamples += data->trajectories[j].n;
	}
	used.trajectories = fitted;
	P.data = &used;
	P.fd_step_log = FD_STEP_LOG;
	P.grid_shifts = GRID_RELEASE_SHIFTS;
	P.log_lo[TC] =
	    log(CALIB_GRID_TIMECONST_MIN_STEPS * setup->option.timestep) - CALIB_LOG_MARGIN;
	P.log_hi[TC] = log(CALIB_GRID_TIMECONST_MAX) + CALIB_LOG_MARGIN;
	P.log_lo[DR] = log(CALIB_GRID_DAMPRATIO_MIN) - CALIB_LOG_MARGIN;
	P.log_hi[DR] = log(CALIB_GRID_DAMPRATIO_MAX) + CALIB_LOG_MARGIN;
	start_logs(setup, P.start_log);
	P.n = data->ndrops + data->npresses + fit->nsamples - dropped;
	if (dropped > 0)
		note(fit,
		    "%zu of the %zu trajectory samples, from each trajectory's second impact on, "
		    "are not fitted: the step a later impact begins in jumps with the parameters, "
		    "and MuJoCo's damping impulse with it",
		    dropped, fit->nsamples);
	P.free[TC] = 1;
	/* a static deflection depends on the stiffness 1/(tc*dr)^2 alone, and a drop that
	 * does not bounce only bounds dampratio from below */
	bouncing = 0;
	for (j = 0; j < data->ndrops; j++)
		bouncing +=
		    data->drops[j].rebound > CALIB_BOUNCE_SIGMAS * drop_sigma(&data->drops[j]);
	P.free[DR] = bouncing + data->ntrajectories > 0;
	fit->timeconst = exp(P.start_log[TC]);
	fit->dampratio = exp(P.start_log[DR]);
	if (P.n == 0) {
		insufficient(fit, "no measurements yet: upload drops, presses or trajectories");
	} else {
		if (!P.free[DR]) {
			fit->held[DR] = 1;
			fit->product_identified = data->npresses > 0;
			if (data->ndrops > 0)
				note(fit,
				    "no drop bounced (every rebound within %g sigma of 0): drops "
				    "bound "
				    "dampratio from below only; dampratio held at its starting "
				    "value "
				    "%.6g",
				    CALIB_BOUNCE_SIGMAS, exp(P.start_log[DR]));
			if (data->npresses > 0)
				note(fit,
				    "presses determine only timeconst*dampratio (the static "
				    "stiffness "
				    "1/(timeconst*dampratio)^2): add drops that bounce or a "
				    "trajectory "
				    "to separate them");
		}
		if (fit_run(fit, &P, err) != 0)
			goto out;
	}
	fit->scene.floor.solref[0] = fit->timeconst;
	fit->scene.floor.solref[1] = fit->dampratio;
	fit->stiffness =
	    1 / ((fit->timeconst * fit->dampratio) * (fit->timeconst * fit->dampratio));
	fit->damping = 2 / fit->timeconst;
	if (stopped) {
		if (bound->cancel && atomic_load(bound->cancel))
			err_set(err, ERR_UNAVAILABLE, NULL,
			    "the fit was cancelled: contactd is stopping");
		else
			err_set(err, ERR_UNAVAILABLE, NULL,
			    "the fit was stopped after %g s: upload fewer or shorter trajectories",
			    bound->seconds);
		goto out;
	}
	if (fit->status != CALIB_INSUFFICIENT)
		check_contact(fit);
	*out = fit;
	fit = NULL;
	rc = 0;
out:
	problem_free(&P);
	free(fitted);
	calib_fit_free(fit);
	return rc;
}

void calib_fit_free(struct calib_fit *fit)
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

/* ---- the answer ---- */

/* Set key of obj to value (stolen); remembers failure in *ok so callers check once. */
static void put(json_t *obj, const char *key, json_t *value, int *ok)
{
	if (json_object_set_new(obj, key, value) != 0)
		*ok = 0;
}

/* A real, or null for a value that does not exist (JSON has no NaN). */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *reals(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++) {
		if (json_array_append_new(a, real_or_null(v[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static const char *status_name(enum calib_status s)
{
	return s == CALIB_OK     ? "ok"
	    : s == CALIB_PARTIAL ? "partial"
	    : s == CALIB_FEW_DOF ? "few_dof"
	    : s == CALIB_MISFIT  ? "misfit"
	                         : "insufficient_data";
}

/* Append printf output to a growing string; *ok cleared on failure. */
static void append(char **text, size_t *len, int *ok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char **text, size_t *len, int *ok, const char *fmt, ...)
{
	va_list ap;
	char *grown;
	int need;

	if (!*ok)
		return;
	va_start(ap, fmt);
	need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	grown = need >= 0 ? realloc(*text, *len + (size_t)need + 1) : NULL;
	if (!grown) {
		*ok = 0;
		return;
	}
	*text = grown;
	va_start(ap, fmt);
	vsnprintf(*text + *len, (size_t)need + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)need;
}

/* Append ' name="v0 v1 ..."' with each number's shortest text. */
static void append_numbers(
    char **text, size_t *len, int *ok, const char *name, const double *v, size_t n)
{
	char num[JTEXT_REAL_MAX];
	size_t i;

	append(text, len, ok, " %s=\"", name);
	for (i = 0; i < n; i++) {
		jtext_shortest(v[i], num);
		append(text, len, ok, "%s%s", i ? " " : "", num);
	}
	append(text, len, ok, "\"");
}

/* The <default> class to paste into the robot's MJCF: the setup's pad geom whole (its
 * other MJCF attributes, attrs, included) with the fitted solref, every number exact.
 * Caller frees. */
static char *mjcf_default(const struct calib_fit *fit, const char *cls, const char *attrs)
{
	const struct pair_geom *g = &fit->scene.floor;
	double sol[2] = {fit->timeconst, fit->dampratio};
	double direct[2] = {-fit->stiffness, -fit->damping};
	char *text = NULL;
	size_t len = 0;
	int ok = 1;

	append(&text, &len, &ok, "<default class=\"%s\">\n", cls);
	if (fit->below_refsafe)
		append(&text, &len, &ok,
		    "  <!-- direct form: timeconst %.6g is below 2*timestep = %.6g, which refsafe "
		    "would replace -->\n",
		    fit->timeconst, fit->refsafe_min);
	append(&text, &len, &ok, "  <geom%s condim=\"%d\"", attrs ? attrs : "", g->condim);
	append_numbers(&text, &len, &ok, "friction", g->friction, 3);
	append(&text, &len, &ok, " priority=\"%d\"", g->priority);
	append_numbers(&text, &len, &ok, "solref", fit->below_refsafe ? direct : sol, 2);
	append_numbers(&text, &len, &ok, "solimp", g->solimp, 5);
	append_numbers(&text, &len, &ok, "margin", &g->margin, 1);
	append_numbers(&text, &len, &ok, "gap", &g->gap, 1);
	append_numbers(&text, &len, &ok, "solmix", &g->solmix, 1);
	append(&text, &len, &ok, "/>\n</default>\n");
	if (!ok) {
		free(text);
		return NULL;
	}
	return text;
}

static json_t *residuals_json(const struct calib_fit *fit)
{
	json_t *root = json_object(), *drops = json_array(), *presses = json_array();
	json_t *trajs = json_array();
	int ok = root && drops && presses && trajs;
	size_t i;

	for (i = 0; ok && i < fit->ndrops; i++) {
		json_t *o = json_object();
		ok = o != NULL;
		put(o, "model", real_or_null(fit->drop_model[i]), &ok);
		put(o, "residual", real_or_null(fit->drop_residual[i]), &ok);
		if (json_array_append_new(drops, o) != 0)
			ok = 0;
	}
	for (i = 0; ok && i < fit->npresses; i++) {
		json_t *o = json_object();
		ok = o != NULL;
		put(o, "model", real_or_null(fit->press_model[i]), &ok);
		put(o, "residual", real_or_null(fit->press_residual[i]), &ok);
		if (json_array_append_new(presses, o) != 0)
			ok = 0;
	}
	for (i = 0; ok && i < fit->ntrajectories; i++) {
		const struct calib_traj_fit *t = &fit->traj[i];
		json_t *o = json_object();
		ok = o != NULL;
		put(o, "release_time", real_or_null(t->release_time), &ok);
		put(o, "release_height", real_or_null(t->release_height), &ok);
		put(o, "stderr_release_time", real_or_null(t->se_release_time), &ok);
		put(o, "stderr_release_height", real_or_null(t->se_release_height), &ok);
		put(o, "rms", real_or_null(t->rms), &ok);
		put(o, "max", real_or_null(t->max_abs), &ok);
		if (json_array_append_new(trajs, o) != 0)
			ok = 0;
	}
	put(root, "drops", drops, &ok);
	put(root, "presses", presses, &ok);
	put(root, "trajectories", trajs, &ok);
	put(root, "chi2", real_or_null(fit->chi2), &ok);
	put(root, "dof", json_integer(fit->dof), &ok);
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}

json_t *calib_fit_json(
    const struct calib_fit *fit, const char *mjcf_class, const char *mjcf_attributes)
{
	json_t *root = json_object(), *se = json_object(), *ident = json_object();
	json_t *product = json_object(), *refsafe = json_object(), *stab = json_object();
	json_t *counts = json_object(), *noise = json_object(), *notes = json_array();
	json_t *held = json_array();
	int ok =
	    root && se && ident && product && refsafe && stab && counts && noise && notes && held;
	int fitted = fit->status != CALIB_INSUFFICIENT;
	double sol[2] = {fit->timeconst, fit->dampratio};
	double direct[2] = {-fit->stiffness, -fit->damping};
	char *mjcf = fitted ? mjcf_default(fit, mjcf_class, mjcf_attributes) : NULL;
	size_t i;

	if (fitted && !mjcf)
		ok = 0;
	put(root, "status", json_string(status_name(fit->status)), &ok);
	put(root, "solref", fitted ? reals(sol, 2) : json_null(), &ok);
	put(root, "solref_direct", fitted ? reals(direct, 2) : json_null(), &ok);
	put(root, "solimp", reals(fit->scene.floor.solimp, 5), &ok);
	put(root, "timestep", json_real(fit->scene.option.timestep), &ok);

	put(se, "timeconst", real_or_null(fit->timeconst * fit->se_log[TC]), &ok);
	put(se, "dampratio", real_or_null(fit->dampratio * fit->se_log[DR]), &ok);
	put(se, "log_timeconst", real_or_null(fit->se_log[TC]), &ok);
	put(se, "log_dampratio", real_or_null(fit->se_log[DR]), &ok);
	put(se, "correlation", real_or_null(fit->correlation), &ok);
	put(se, "basis", json_string(fit->se_scaled ? "residual_variance" : "noise_scale"), &ok);
	put(root, "stderr", se, &ok);

	put(product, "value", fitted ? json_real(fit->timeconst * fit->dampratio) : json_null(),
	    &ok);
	put(product, "stderr", real_or_null(fit->timeconst * fit->dampratio * fit->se_log_product),
	    &ok);
	put(root, "timeconst_dampratio", product, &ok);

	put(ident, "timeconst", json_boolean(fitted && fit->identified[TC]), &ok);
	put(ident, "dampratio", json_boolean(fitted && fit->identified[DR]), &ok);
	put(ident, "timeconst_dampratio", json_boolean(fitted && fit->product_identified), &ok);
	put(root, "identified", ident, &ok);
	if (fit->held[TC] && json_array_append_new(held, json_string("timeconst")) != 0)
		ok = 0;
	if (fit->held[DR] && json_array_append_new(held, json_string("dampratio")) != 0)
		ok = 0;
	put(root, "held", held, &ok);

	put(refsafe, "timeconst_min", json_real(2 * fit->scene.option.timestep), &ok);
	put(refsafe, "would_replace", json_boolean(fitted && fit->below_refsafe), &ok);
	put(root, "refsafe", refsafe, &ok);
	put(stab, "growth", fitted ? real_or_null(fit->growth) : json_null(), &ok);
	put(stab, "rest_jitter", fitted ? real_or_null(fit->chatter) : json_null(), &ok);
	put(root, "stability", stab, &ok);

	put(root, "residuals", fitted ? residuals_json(fit) : json_null(), &ok);
	put(noise, "rebound", json_real(CALIB_SIGMA_REBOUND), &ok);
	put(noise, "deflection_abs", json_real(CALIB_SIGMA_DEFLECTION_ABS), &ok);
	put(noise, "deflection_rel", json_real(CALIB_SIGMA_DEFLECTION_REL), &ok);
	put(noise, "trajectory", json_real(CALIB_SIGMA_TRAJECTORY), &ok);
	put(root, "noise_scale", noise, &ok);
	put(counts, "drops", json_integer((json_int_t)fit->ndrops), &ok);
	put(counts, "presses", json_integer((json_int_t)fit->npresses), &ok);
	put(counts, "trajectories", json_integer((json_int_t)fit->ntrajectories), &ok);
	put(counts, "samples", json_integer((json_int_t)fit->nsamples), &ok);
	put(root, "measurements", counts, &ok);
	put(root, "iterations", json_integer(fit->iterations), &ok);
	for (i = 0; ok && i < fit->nnotes; i++)
		if (json_array_append_new(notes, json_string(fit->notes[i])) != 0)
			ok = 0;
	put(root, "notes", notes, &ok);
	put(root, "mjcf", mjcf ? json_string(mjcf) : json_null(), &ok);
	free(mjcf);
	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}
