/*
 * grid.c: the starting grid of a pad fit, the releases' phases at each of its points, and the
 * local minima of a grid of pads (see grid.h).
 */
#include "fit/grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/traj.h"
#include "fit/knobs.h"

/* Is a better than b: lower chi^2, ties (flat regions) to the point nearer the start. */
static int start_better(const struct grid_start *a, const struct grid_start *b)
{
	if (a->chi2 < b->chi2 * (1 - 1e-9))
		return 1;
	return a->chi2 <= b->chi2 * (1 + 1e-9) && a->dist < b->dist;
}

/*
 * Trajectory i's release in x (its samples at rows from row, the pad's model m) moved along
 * its valley, time by a third of a step, up to P->grid_shifts of them either way, height to
 * keep the fall through the first impact's sample, to the phase of the lowest chi^2 over its
 * samples: that phase's residuals into f's rows when f is set (P->f0 the scratch), its
 * release (time, height) into release when that is set.
 */
static void best_phase(struct problem *P, const gsl_vector *x, const struct core_scene_model *m,
    size_t i, size_t row, gsl_vector *f, double release[2])
{
	const struct calib_trajectory *tr = &P->data->trajectories[i];
	const double h = P->scene.option.timestep;
	double t0 = problem_release_time(P, x, i), H = problem_release_height(P, x, i),
	       best = INFINITY;
	double slope = -P->scene.option.gravity * (tr->t[traj_first_impact(tr)] - t0), pick = 0;
	size_t k;
	int shift;

	for (shift = -P->grid_shifts; shift <= P->grid_shifts; shift++) {
		double dt = shift * h / 3, chi2 = 0;

		problem_traj_residuals(P, m, i, t0 + dt, H + slope * dt, P->f0, row);
		for (k = row; k < row + tr->n; k++)
			chi2 += gsl_vector_get(P->f0, k) * gsl_vector_get(P->f0, k);
		if (chi2 < best) {
			best = chi2;
			pick = dt;
			for (k = row; f && k < row + tr->n; k++)
				gsl_vector_set(f, k, gsl_vector_get(P->f0, k));
		}
	}
	if (release) {
		release[0] = t0 + pick;
		release[1] = H + slope * pick;
	}
}

/*
 * problem_residuals() at a point of the starting grid, the drops' and presses' model values
 * dm (problem_static_models()'s, for the point) kept in P->grid_model when set, or from it
 * once it is ready (dm then unused). Each trajectory's release is moved along its
 * valley (best_phase()) and the best kept: the free fall before the impact fixes
 * a release only to about half a step, and a contact sampled at the wrong phase makes
 * chi^2 at every grid point so large that the grid would not see the physics.
 */
static void grid_residuals(
    struct problem *P, const gsl_vector *x, size_t point, const double *dm, gsl_vector *f)
{
	const struct calib_data *d = P->data;
	size_t nstatic = d->ndrops + d->npresses, i, row = 0;
	struct core_scene_model m;
	double logp[NPHYS];
	const double *model = dm;

	if (problem_abandoned(P)) {
		gsl_vector_set_zero(f);
		return;
	}
	problem_phys_logs(P, x, logp);
	problem_model_at(P, logp, &m);
	if (P->grid_model && nstatic > 0) {
		double *kept = P->grid_model + point * nstatic;

		if (!P->grid_model_ready)
			memcpy(kept, dm, nstatic * sizeof *kept);
		model = kept;
	}
	for (i = 0; i < d->ndrops; i++, row++)
		gsl_vector_set(f, row,
		    problem_weigh(model[i], d->drops[i].rebound, problem_drop_sigma(&d->drops[i])));
	for (i = 0; i < d->npresses; i++, row++)
		gsl_vector_set(f, row,
		    problem_weigh(model[d->ndrops + i], d->presses[i].deflection,
		        problem_press_sigma(&d->presses[i])));
	for (i = 0; i < d->ntrajectories; i++) {
		best_phase(P, x, &m, i, row, f, NULL);
		row += d->trajectories[i].n;
	}
}

void grid_pick_releases(struct problem *P, gsl_vector *x)
{
	const struct calib_data *d = P->data;
	struct core_scene_model m;
	double logp[NPHYS];
	size_t i, row = problem_traj_first_row(P);

	problem_phys_logs(P, x, logp);
	problem_model_at(P, logp, &m);
	for (i = 0; i < d->ntrajectories; i++) {
		double release[2];

		best_phase(P, x, &m, i, row, NULL, release);
		gsl_vector_set(x, P->nphys + 2 * i, release[0]);
		gsl_vector_set(x, P->nphys + 2 * i + 1, release[1]);
		row += d->trajectories[i].n;
	}
}

size_t grid_starts(struct problem *P, gsl_vector *x, struct grid_start *best)
{
	enum { N = CALIB_GRID_POINTS };
	static const int nb[8][2] = {
	    {-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};
	const double *lo = P->log_lo, *hi = P->log_hi; /* the searched range */
	struct grid_start grid[N][N];
	int counts[NPHYS], a, b, i, q;
	size_t k, found = 0;

	size_t ns = P->data->ndrops + P->data->npresses, npts;
	double(*pads)[NPHYS] = malloc(N * N * sizeof *pads), *dm = NULL;
	/* none yet, or made for other held parameters: made (again) */
	int fresh = !problem_grid_model_fits(P);

	if (fresh)
		P->grid_model_ready = 0;

	for (i = 0; i < NPHYS; i++)
		counts[i] = P->free[i] ? N : 1;
	npts = (size_t)(counts[TC] * counts[DR]);
	if (ns > 0 && fresh)
		dm = malloc(npts * ns * sizeof *dm);
	if (!pads || (ns > 0 && fresh && !dm)) {
		/* out of memory: the grid is left out, the descent starts where it is */
		free(pads);
		free(dm);
		problem_phys_logs(P, x, best[0].logp);
		best[0].chi2 = INFINITY;
		best[0].dist = 0;
		return 1;
	}
	for (a = 0; a < counts[TC]; a++) {
		for (b = 0; b < counts[DR]; b++) {
			struct grid_start *g = &grid[a][b];
			int idx[NPHYS] = {a, b};

			g->dist = 0;
			for (i = 0; i < NPHYS; i++) {
				g->logp[i] = P->free[i] ? lo[i] + (hi[i] - lo[i]) * idx[i] / (N - 1)
				                        : P->start_log[i];
				g->dist +=
				    (g->logp[i] - P->start_log[i]) * (g->logp[i] - P->start_log[i]);
				pads[a * counts[DR] + b][i] = g->logp[i];
			}
		}
	}
	/* every grid point's drops and presses at once, through the lanes */
	if (dm && !problem_abandoned(P))
		problem_static_models(P, (const double(*)[NPHYS])pads, npts, dm);
	for (a = 0; a < counts[TC]; a++) {
		for (b = 0; b < counts[DR]; b++) {
			struct grid_start *g = &grid[a][b];

			for (i = 0, k = 0; i < NPHYS; i++)
				if (P->free[i])
					gsl_vector_set(x, k++, g->logp[i]);
			grid_residuals(P, x, (size_t)(a * N + b),
			    dm ? dm + (size_t)(a * counts[DR] + b) * ns : NULL, P->f1);
			g->chi2 = problem_sum_squares(P->f1);
		}
	}
	free(dm);
	free(pads);
	problem_grid_model_made(P);
	if (P->grid_kept && !P->grid_kept_ready) {
		for (a = 0; a < counts[TC]; a++)
			for (b = 0; b < counts[DR]; b++)
				P->grid_kept[a * N + b] = grid[a][b];
		P->grid_counts[TC] = counts[TC];
		P->grid_counts[DR] = counts[DR];
		P->grid_kept_ready = 1;
	}
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
	if (P->thorough && counts[TC] > 1 && counts[DR] > 1) {
		int edge;

		for (edge = 0; edge < 4; edge++) {
			/* edges: timeconst low, high, dampratio low, high */
			const struct grid_start *low = NULL;

			for (i = 0; i < N; i++) {
				const struct grid_start *g = edge < 2
				    ? &grid[edge == 0 ? 0 : N - 1][i]
				    : &grid[i][edge == 2 ? 0 : N - 1];

				if (isfinite(g->chi2) && (!low || start_better(g, low)))
					low = g;
			}
			for (k = 0; low && k < found; k++)
				if (memcmp(best[k].logp, low->logp, sizeof low->logp) == 0)
					low = NULL;
			if (low && found < CALIB_MAX_STARTS)
				best[found++] = *low;
		}
	}
	return found;
}

/* By chi^2, then in grid order (as a stable sort of the grid's minima leaves them). */
static int cell_cmp(const void *pa, const void *pb)
{
	const struct grid_cell *a = pa, *b = pb;

	if (a->chi2 != b->chi2)
		return (a->chi2 > b->chi2) - (a->chi2 < b->chi2);
	if (a->a != b->a)
		return (a->a > b->a) - (a->a < b->a);
	return (a->b > b->b) - (a->b < b->b);
}

/* A pad of a grid and the lower bound of its chi^2, for grid_minima()'s order. */
struct bounded {
	double bound;
	size_t pad;
};

static int bounded_cmp(const void *pa, const void *pb)
{
	const struct bounded *a = pa, *b = pb;

	if (a->bound != b->bound)
		return (a->bound > b->bound) - (a->bound < b->bound);
	return (a->pad > b->pad) - (a->pad < b->pad);
}

/* Whether pad (a, b) of a counts[TC] x counts[DR] grid, stepped, is a local minimum of chi^2
 * among the stepped pads (stepped[]): finite, and no stepped neighbour of the eight lower. */
static int grid_minimum_at(
    const int counts[NPHYS], const double *chi2, const unsigned char *stepped, int a, int b)
{
	static const int nb[8][2] = {
	    {-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};
	const double c = chi2[(size_t)a * (size_t)counts[DR] + (size_t)b];
	int q;

	if (!isfinite(c))
		return 0;
	for (q = 0; q < 8; q++) {
		int na = a + nb[q][0], nbb = b + nb[q][1];
		size_t j = (size_t)na * (size_t)counts[DR] + (size_t)nbb;

		if (na >= 0 && na < counts[TC] && nbb >= 0 && nbb < counts[DR] && stepped[j] &&
		    chi2[j] < c)
			return 0;
	}
	return 1;
}

/* Presses stepped per batch of grid_minima(): enough to share over the fit's threads
 * (fit/model.c shares a batch of 512 or more). */
enum { GRID_BATCH_PRESSES = 512 };

/*
 * Why the presses are stepped lazily, and why that is exact: a press costs seconds of steps, a
 * drop a fraction of one. The drops of every pad are stepped first (problem_lazy_start()),
 * their residuals a lower bound of the pad's chi^2, then the presses of the pads in order of
 * that bound, a batch at a time, until the first `want` minima among the stepped pads lie
 * below `floor`, the least bound of the pads not stepped. Then each of those is a minimum of
 * the whole grid (a neighbour not stepped lies at or above floor, so above it), and no other
 * minimum lies below the last of them: a pad not stepped lies at or above floor, and a stepped one
 * either is a minimum among the stepped pads (and ranks after them) or has a stepped
 * neighbour below it (and is no minimum).
 */
int grid_minima(struct problem *P, const gsl_vector *x, const double (*pads)[NPHYS],
    const int counts[NPHYS], const unsigned char *allowed, int want, struct grid_cell *cells,
    int *nmin, struct err *err)
{
	const size_t n = (size_t)counts[TC] * (size_t)counts[DR];
	double *chi2 = malloc(n * sizeof *chi2), *bound = malloc(n * sizeof *bound);
	unsigned char *stepped = calloc(n, 1);
	struct bounded *order = malloc(n * sizeof *order);
	struct grid_cell *found = malloc(n * sizeof *found);
	size_t *batch = malloc(n * sizeof *batch), next = n, i, count, per;
	struct problem_lazy *L = NULL;
	int rc = -1, a, b;

	*nmin = 0;
	if (!chi2 || !bound || !stepped || !order || !found || !batch) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	if (problem_lazy_start(P, x, pads, n, bound, &L, err) != 0)
		goto out;
	if (!L) {
		/* no presses (or a trajectory): chi^2 at every pad at once */
		if (problem_chi2_many(P, x, pads, n, chi2, err) != 0)
			goto out;
		memset(stepped, 1, n);
	} else {
		for (i = 0; i < n; i++) {
			order[i].bound = bound[i];
			order[i].pad = i;
		}
		qsort(order, n, sizeof *order, bounded_cmp);
		next = 0;
	}
	per = GRID_BATCH_PRESSES / (P->data->npresses > 0 ? P->data->npresses : 1);
	if (per < 1)
		per = 1;
	for (;;) {
		const double floor = next < n ? order[next].bound : INFINITY;

		count = 0;
		for (a = 0; a < counts[TC]; a++)
			for (b = 0; b < counts[DR]; b++) {
				size_t pad = (size_t)a * (size_t)counts[DR] + (size_t)b;

				if (!stepped[pad] || (allowed && !allowed[pad]) ||
				    !grid_minimum_at(counts, chi2, stepped, a, b))
					continue;
				found[count].chi2 = chi2[pad];
				found[count].a = a;
				found[count].b = b;
				count++;
			}
		qsort(found, count, sizeof *found, cell_cmp);
		/* everything stepped, or the first `want` below every pad not stepped */
		if (next == n || (count >= (size_t)want && found[want - 1].chi2 < floor) ||
		    problem_abandoned(P))
			break;
		for (i = 0; i < per && next < n; i++, next++) {
			batch[i] = order[next].pad;
			stepped[batch[i]] = 1;
		}
		if (problem_lazy_finish(L, batch, i, chi2, err) != 0)
			goto out;
	}
	*nmin = count < (size_t)want ? (int)count : want;
	memcpy(cells, found, (size_t)*nmin * sizeof *cells);
	rc = 0;
out:
	problem_lazy_free(L);
	free(batch);
	free(found);
	free(order);
	free(stepped);
	free(bound);
	free(chi2);
	return rc;
}
