/* map.c: a pad fit's chi-square map: the first grid, the points' evaluation and the refinement
 * (see map.h). */
#include "fit/map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/descent.h"
#include "fit/parallel.h"
#include "fit/knobs.h"

enum { CHUNK = 256, PROFILE_CHUNK = 8 };

/* A cell of the refinement: its low corner on the lattice and its size in lattice steps. */
struct cell {
	int at[NPHYS];
	int size;
};

static size_t slot_of(const struct map *M, const int at[NPHYS])
{
	return (size_t)at[TC] * (size_t)(M->span[DR] + 1) + (size_t)at[DR];
}

const struct map_point *map_find(const struct map *M, const int at[NPHYS])
{
	if (at[TC] < 0 || at[DR] < 0 || at[TC] > M->span[TC] || at[DR] > M->span[DR])
		return NULL;
	return M->slot[slot_of(M, at)] >= 0 ? &M->pt[M->slot[slot_of(M, at)]] : NULL;
}

int map_on_edge(const struct map *M, const struct map_point *p, int q, int side)
{
	return M->free[q] && p->at[q] == (side ? M->span[q] : 0);
}

/* Add the point at[] unless there is one; -1 when out of memory or the map is full. */
static int add_point(struct map *M, const int at[NPHYS])
{
	const size_t nrel = 2 * M->P->data.ntrajectories;
	struct map_point *p;
	int q;

	if (map_find(M, at))
		return 0;
	if (M->n >= MAP_MAX_POINTS)
		return -1;
	if (M->n == M->cap) {
		size_t cap = M->cap ? 2 * M->cap : 4096;
		struct map_point *pt = realloc(M->pt, cap * sizeof *pt);
		double *rel = pt ? realloc(M->rel, (cap * nrel + 1) * sizeof *rel) : NULL;

		M->pt = pt ? pt : M->pt;
		if (!rel)
			return -1;
		M->rel = rel;
		M->cap = cap;
	}
	p = &M->pt[M->n];
	*p = (struct map_point){.chi2 = NAN};
	for (q = 0; q < NPHYS; q++) {
		p->at[q] = at[q];
		/* the box's last point exactly on its edge, not a rounding inside or out */
		p->logp[q] = M->free[q] && at[q] == M->span[q] ? M->P->log_hi[q]
		                                               : M->origin[q] + M->step[q] * at[q];
	}
	/* the free fall's releases until profiled (a point left partial keeps them) */
	memcpy(&M->rel[M->n * nrel], M->P->release0, nrel * sizeof *M->rel);
	M->slot[slot_of(M, at)] = (int)M->n++;
	return 0;
}

/* The releases' profile of a batch's points (parallel_for's job: PROFILE_CHUNK points). */
struct profile_job {
	struct map *M;
	const size_t *which; /* the batch's points */
	const int *seed;     /* each one's start: a point's releases, or -1: the free fall */
	double *chi2;        /* out: the trajectories' chi^2 */
	size_t count;
	int failed;
};

/* Each point's releases profiled from a scan along the free fall's valley and, for a refined
 * point, from its cell's lowest corner's (a corner's branch may not be the point's own). */
static void profile_run(void *ctx, size_t job)
{
	struct profile_job *pj = ctx;
	const struct map *M = pj->M;
	const size_t nrel = 2 * M->P->data.ntrajectories;
	struct problem_scratch S = {0};
	size_t i;
	struct err err;

	if (problem_scratch_alloc(M->P, &S) != 0)
		pj->failed = 1;
	for (i = job * PROFILE_CHUNK; i < pj->count && i < (job + 1) * PROFILE_CHUNK; i++) {
		const double *seed = pj->seed[i] >= 0 ? &M->rel[(size_t)pj->seed[i] * nrel] : NULL;

		if (pj->failed ||
		    descent_releases(M->P, &S, M->pt[pj->which[i]].logp, MAP_RELEASE_SCAN, seed,
		        &M->rel[pj->which[i] * nrel], &pj->chi2[i], &err) != 0)
			pj->failed = 1;
	}
	problem_scratch_free(&S);
}

/* The lowest full chi^2 of the map so far, or floor if lower. */
static double lowest(const struct map *M, double floor)
{
	size_t i;

	for (i = 0; i < M->n; i++)
		if (!M->pt[i].partial && M->pt[i].chi2 < floor)
			floor = M->pt[i].chi2;
	return floor;
}

/* Where a point matters: chi^2 at most the best plus the 3-sigma level. */
static double cutoff(const struct map *M, double best)
{
	double levels[3];

	if (!isfinite(best))
		return INFINITY;
	problem_levels(M->P, best, M->nparams, levels);
	return best + levels[2];
}

struct ranked {
	double bound;
	size_t k;
};

static int by_bound(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return (x->bound > y->bound) - (x->bound < y->bound);
}

/* Evaluate the points [first, M->n), seed[k] the start of point first + k's releases (-1, or
 * seed NULL: the free fall): every point's drops; then, lowest bound first, a chunk at a time,
 * the presses and trajectories of those still under the cutoff. */
static int evaluate(struct map *M, size_t first, const int *seed, struct err *err)
{
	const struct problem *P = M->P;
	const size_t count = M->n - first, ns = P->nstatic, nd = P->data.ndrops;
	const int more = P->data.npresses > 0 || P->data.ntrajectories > 0;
	double(*logp)[NPHYS] = malloc((count + 1) * sizeof *logp), tchi2[CHUNK];
	double *res = malloc((count * ns + 1) * sizeof *res),
	       *full = malloc((CHUNK * ns + 1) * sizeof *full);
	struct ranked *order = malloc((count + 1) * sizeof *order);
	double best = lowest(M, INFINITY);
	size_t i, k, at;
	int rc = -1;

	if (!logp || !res || !full || !order)
		goto out;
	for (i = 0; i < count; i++)
		memcpy(logp[i], M->pt[first + i].logp, sizeof logp[i]);
	problem_statics(P, (const double(*)[NPHYS])logp, count, 0, res);
	for (i = 0; i < count; i++) {
		struct map_point *p = &M->pt[first + i];

		for (p->chi2 = 0, k = 0; k < nd; k++)
			p->chi2 += res[i * ns + k] * res[i * ns + k];
		p->partial = more;
		order[i] = (struct ranked){p->chi2, i};
	}
	qsort(order, count, sizeof *order, by_bound);
	for (at = 0;
	     more && at < count && order[at].bound <= cutoff(M, best) && !problem_stopped(P);
	     at += CHUNK) {
		size_t n = count - at < CHUNK ? count - at : CHUNK, which[CHUNK];
		double pads[CHUNK][NPHYS];
		int seeds[CHUNK];
		struct profile_job pj = {M, which, seeds, tchi2, n, 0};

		for (i = 0; i < n; i++) {
			which[i] = first + order[at + i].k;
			memcpy(pads[i], logp[order[at + i].k], sizeof pads[i]);
			seeds[i] = seed ? seed[order[at + i].k] : -1;
			tchi2[i] = 0;
		}
		problem_statics(P, (const double(*)[NPHYS])pads, n, 1, full);
		if (P->data.ntrajectories > 0)
			parallel_for((n + PROFILE_CHUNK - 1) / PROFILE_CHUNK, 1, profile_run, &pj);
		if (pj.failed)
			goto out;
		for (i = 0; i < n; i++) {
			struct map_point *p = &M->pt[which[i]];

			for (p->chi2 = tchi2[i], k = 0; k < ns; k++)
				p->chi2 += full[i * ns + k] * full[i * ns + k];
			p->partial = 0;
			best = fmin(best, p->chi2);
		}
	}
	rc = 0;
out:
	free(logp);
	free(res);
	free(full);
	free(order);
	return rc == 0 ? 0 : err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
}

/* The corner offsets of a cell of size (0 or size on each free log) into off[]; how many. */
static int corners(const struct map *M, int size, int off[4][NPHYS])
{
	int n = 0, a, b;

	for (a = 0; a <= M->free[TC]; a++)
		for (b = 0; b <= M->free[DR]; b++, n++) {
			off[n][TC] = a * size;
			off[n][DR] = b * size;
		}
	return n;
}

/* Whether cell c is worth splitting: it holds focus (the estimate: the region's core is
 * resolved down to the lattice); or its corners, the lowest less their spread (how far a valley
 * between them may reach), may hold a point below the best, or cross the 1- or 2-sigma level
 * outside the lattice span of the region's points so far (span[k][q], where an interval's end
 * could move). *low gets the index of its lowest corner (its new points' releases start there). */
static int worth_splitting(const struct map *M, const struct cell *c, double best,
    const double levels[3], int span[2][NPHYS][2], const double *focus, int *low)
{
	int off[4][NPHYS], n = corners(M, c->size, off), i, k, q, holds = focus != NULL;
	double lo = INFINITY, hi = -INFINITY, reach;

	for (i = 0; i < n; i++) {
		int at[NPHYS] = {c->at[TC] + off[i][TC], c->at[DR] + off[i][DR]};
		const struct map_point *p = map_find(M, at);

		if (!p)
			return 0;
		if (p->chi2 < lo)
			*low = p->partial ? -1 : (int)(p - M->pt);
		lo = fmin(lo, p->chi2);
		hi = fmax(hi, p->chi2);
	}
	for (q = 0; q < NPHYS && holds; q++) {
		double x = M->free[q] ? (focus[q] - M->origin[q]) / M->step[q] : 0;

		holds = !M->free[q] || (x >= c->at[q] && x <= c->at[q] + c->size);
	}
	reach = lo - (hi - lo);
	if (holds || reach < best)
		return 1;
	for (k = 0; k < 2; k++)
		for (q = 0; q < NPHYS; q++)
			if (reach <= best + levels[k] && hi > best + levels[k] && M->free[q] &&
			    (c->at[q] < span[k][q][0] || c->at[q] + c->size > span[k][q][1]))
				return 1;
	return 0;
}

int map_build(struct map *M, const struct problem *P, const int which[NPHYS],
    const double held_logp[NPHYS], struct err *err)
{
	const int traj = P->data.ntrajectories > 0, size = 1 << MAP_DEPTH;
	const int count[NPHYS] = {
	    traj ? MAP_TRAJ_POINTS_TC : MAP_POINTS_TC, traj ? MAP_TRAJ_POINTS_DR : MAP_POINTS_DR};
	int a, b, q, rc = 0;

	memset(M, 0, sizeof *M);
	M->P = P;
	M->nparams = problem_params(P, 0);
	for (q = 0; q < NPHYS; q++) {
		M->free[q] = which[q] != 0;
		M->nparams += M->free[q];
		M->span[q] = which[q] ? (count[q] - 1) * size : 0;
		M->origin[q] = which[q] ? P->log_lo[q] : held_logp[q];
		M->step[q] = which[q] ? (P->log_hi[q] - P->log_lo[q]) / M->span[q] : 0;
	}
	/* the lattice's index: a few megabytes */
	M->nslots = (size_t)(M->span[TC] + 1) * (size_t)(M->span[DR] + 1);
	if ((M->slot = malloc(M->nslots * sizeof *M->slot)))
		memset(M->slot, -1, M->nslots * sizeof *M->slot);
	for (a = 0; M->slot && rc == 0 && a <= M->span[TC]; a += size)
		for (b = 0; rc == 0 && b <= M->span[DR]; b += size)
			rc = add_point(M, (int[NPHYS]){a, b});
	if (!M->slot || rc != 0)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	return evaluate(M, 0, NULL, err) != 0 ? -1 : map_refine(M, NULL, INFINITY, err);
}

int map_refine(struct map *M, const double *focus, double chi2_min, struct err *err)
{
	const int size = 1 << MAP_DEPTH, na = M->span[TC] / size, nb = M->span[DR] / size;
	struct cell *cells = malloc(((size_t)(na + 1) * (size_t)(nb + 1)) * sizeof *cells);
	size_t ncells = 0;
	int rc = cells ? 0 : err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	int full = 0, a, b;

	for (a = 0; cells && a < (na ? na : 1) && (M->free[TC] || M->free[DR]); a++)
		for (b = 0; b < (nb ? nb : 1); b++)
			cells[ncells++] = (struct cell){{a * size, b * size}, size};
	/* down to the lattice, the levels measured from the lower of the map's best and chi2_min */
	while (rc == 0 && !full && ncells > 0 && cells[0].size > 1 && !problem_stopped(M->P)) {
		double best = lowest(M, chi2_min), levels[3];
		int span[2][NPHYS][2], off[4][NPHYS], half = cells[0].size / 2,
		                                      nc = corners(M, half, off);
		struct cell *next = malloc(4 * ncells * sizeof *next);
		int *seed = malloc(5 * ncells * sizeof *seed), low = -1, j, k, q;
		size_t first = M->n, nnext = 0, i;

		if (!next || !seed)
			rc = err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		problem_levels(M->P, best, M->nparams, levels);
		for (k = 0; k < 2; k++)
			for (q = 0; q < NPHYS; q++) {
				span[k][q][0] = M->span[q] + 1;
				span[k][q][1] = -1;
				for (i = 0; i < M->n; i++) {
					const int x = M->pt[i].at[q];

					if (M->pt[i].chi2 - best > levels[k])
						continue;
					span[k][q][0] = x < span[k][q][0] ? x : span[k][q][0];
					span[k][q][1] = x > span[k][q][1] ? x : span[k][q][1];
				}
			}
		for (i = 0; rc == 0 && i < ncells && !full; i++) {
			if (!worth_splitting(M, &cells[i], best, levels, span, focus, &low))
				continue;
			/* the finer cells' points: a 3 x 3 (3 x 1) block */
			for (a = 0; a <= 2 * M->free[TC] && !full; a++)
				for (b = 0; b <= 2 * M->free[DR] && !full; b++) {
					int at[NPHYS] = {
					    cells[i].at[TC] + a * half, cells[i].at[DR] + b * half};
					size_t had = M->n;

					full = add_point(M, at) != 0;
					if (M->n > had)
						seed[M->n - 1 - first] = low;
				}
			for (j = 0; j < nc; j++)
				next[nnext++] = (struct cell){
				    {cells[i].at[TC] + off[j][TC], cells[i].at[DR] + off[j][DR]},
				    half};
		}
		if (rc == 0 && M->n > first)
			rc = evaluate(M, first, seed, err);
		free(seed);
		free(cells);
		cells = next;
		ncells = nnext;
	}
	free(cells);
	return rc;
}

/* Whether no neighbour of p (the nearest point in each of the 8 lattice directions) is lower. */
static int local_minimum(const struct map *M, const struct map_point *p)
{
	int dx, dy, s;

	for (dx = -M->free[TC]; dx <= M->free[TC]; dx++)
		for (dy = -M->free[DR]; dy <= M->free[DR]; dy++)
			for (s = 1; (dx || dy) && s <= 1 << MAP_DEPTH; s *= 2) {
				const struct map_point *n = map_find(
				    M, (int[NPHYS]){p->at[TC] + s * dx, p->at[DR] + s * dy});

				if (n && n->chi2 < p->chi2)
					return 0;
				if (n)
					break;
			}
	return 1;
}

size_t map_starts(const struct map *M, size_t *idx, size_t max)
{
	struct ranked *order = malloc((M->n + 1) * sizeof *order);
	size_t i, k, count = 0;

	for (i = 0; order && i < M->n; i++)
		order[i] = (struct ranked){M->pt[i].partial ? INFINITY : M->pt[i].chi2, i};
	if (order)
		qsort(order, M->n, sizeof *order, by_bound);
	for (i = 0; order && i < M->n && count + 2 * NPHYS < max && isfinite(order[i].bound); i++) {
		const struct map_point *p = &M->pt[order[i].k];
		int distinct = count == 0 || local_minimum(M, p);

		for (k = 0; k < count && distinct; k++)
			distinct =
			    fabs(p->logp[TC] - M->pt[idx[k]].logp[TC]) >= CALIB_DISTINCT_LOG ||
			    fabs(p->logp[DR] - M->pt[idx[k]].logp[DR]) >= CALIB_DISTINCT_LOG;
		if (distinct)
			idx[count++] = order[i].k;
	}
	/* and each edge's lowest point: a pad about one timestep stiff lies in a narrow valley
	 * along the edge that the grid ranks far above the interior's minima */
	for (k = 0; k < 2 * NPHYS; k++) {
		int q = (int)k / 2, found = -1;

		for (i = 0; i < M->n; i++)
			if (map_on_edge(M, &M->pt[i], q, (int)k % 2) && !M->pt[i].partial &&
			    (found < 0 || M->pt[i].chi2 < M->pt[found].chi2))
				found = (int)i;
		if (found >= 0 && count < max)
			idx[count++] = (size_t)found;
	}
	free(order);
	return count;
}

void map_free(struct map *M)
{
	free(M->pt);
	free(M->rel);
	free(M->slot);
	memset(M, 0, sizeof *M);
}
