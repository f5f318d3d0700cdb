/*
 * map.c: a pad fit's chi-square map: the first grid, the points' evaluation and the
 * refinement (see map.h).
 */
#include "fit/map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/descent.h"
#include "fit/parallel.h"
#include "fit/traj.h"
#include "fit/knobs.h"

enum { CHUNK = 256 };

/* A cell of the refinement: its low corner on the lattice and its size in lattice steps. */
struct cell {
	int at[NPHYS];
	int size;
};

/* Where the lattice position at[] is indexed in M->slot. */
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

		if (pt)
			M->pt = pt;
		if (!rel)
			return -1;
		M->rel = rel;
		M->cap = cap;
	}
	p = &M->pt[M->n];
	for (q = 0; q < NPHYS; q++) {
		p->at[q] = at[q];
		p->logp[q] = M->origin[q] + M->step[q] * at[q];
	}
	/* the box's last point exactly at its edge, not a rounding inside or out */
	for (q = 0; q < NPHYS; q++)
		if (M->free[q] && at[q] == M->span[q])
			p->logp[q] = M->P->log_hi[q];
	p->chi2 = NAN;
	p->partial = 0;
	M->slot[slot_of(M, at)] = (int)M->n++;
	return 0;
}

/* The releases' profile at points [first, first + count) of a batch (parallel_for's job). */
struct profile_job {
	struct map *M;
	const size_t *which; /* the batch's points */
	const int *seed;     /* each one's start: a point's releases, or -1: the free fall */
	double *chi2;        /* out: the trajectories' chi^2 */
	size_t count;
	int failed;
};

enum { PROFILE_CHUNK = 8 };

/* Trajectory j's weighted chi^2 at the prepared pad m released at rel (t0, H); f: scratch. */
static double traj_chi2(const struct problem *P, struct problem_scratch *S,
    const struct core_scene_model *m, size_t j, const double rel[2], double *f)
{
	double chi2 = 0;
	size_t k;

	problem_traj_residuals(P, S, m, j, rel[0], rel[1], f);
	for (k = 0; k < P->data.trajectories[j].n; k++)
		chi2 += f[k] * f[k];
	return chi2;
}

/*
 * Point i of a profile job: each trajectory's release started from the best of a scan along the
 * valley of its free fall (a later release from higher passes the first impact's sample alike;
 * which step the impact falls in, and where within it, makes chi^2 jump along that line), or for
 * a refined point from the better of the free fall and its cell's lowest corner's release (its
 * neighbours' scans found the branch); then fitted, all at once (each trajectory's release
 * moves its own rows only). f: scratch of max_samples doubles.
 */
static int profile_point(struct profile_job *pj, size_t i, struct problem_scratch *S,
    double *start, double *f)
{
	struct map *M = pj->M;
	const struct problem *P = M->P;
	const size_t nrel = 2 * P->data.ntrajectories, to = pj->which[i];
	const double h = P->scene.option.timestep;
	const int none[NPHYS] = {0, 0}, seeded = pj->seed[i] >= 0;
	struct core_scene_model m;
	struct descent_point dp;
	struct err err;
	size_t j;
	int k, iterations = 0;

	problem_model_at(P, M->pt[to].logp, &m);
	for (j = 0; j < P->data.ntrajectories; j++) {
		const struct calib_trajectory *tr = &P->data.trajectories[j];
		const double *ff = &P->release0[2 * j], *corner = &M->rel[(size_t)pj->seed[i] * nrel + 2 * j];
		const double slope = -P->scene.option.gravity * (tr->t[traj_first_impact(tr)] - ff[0]);
		double best = INFINITY;

		for (k = seeded ? 0 : -MAP_RELEASE_SCAN; k <= (seeded ? 0 : MAP_RELEASE_SCAN); k++) {
			double dt = h * k / MAP_RELEASE_SCAN, rel[2] = {ff[0] + dt, ff[1] + slope * dt};
			double chi2 = traj_chi2(P, S, &m, j, rel, f);

			if (chi2 < best) {
				best = chi2;
				memcpy(&start[2 * j], rel, sizeof rel);
			}
		}
		if (seeded && traj_chi2(P, S, &m, j, corner, f) < best)
			memcpy(&start[2 * j], corner, 2 * sizeof *start);
	}
	memcpy(dp.logp, M->pt[to].logp, sizeof dp.logp);
	dp.rel = start;
	if (descent_run(P, S, none, &dp, &iterations, &err) != 0)
		return -1;
	memcpy(&M->rel[to * nrel], start, nrel * sizeof *start);
	pj->chi2[i] = dp.chi2;
	return 0;
}

static void profile_run(void *ctx, size_t job)
{
	struct profile_job *pj = ctx;
	const struct problem *P = pj->M->P;
	const size_t nrel = 2 * P->data.ntrajectories;
	struct problem_scratch S = {NULL, NULL};
	double *start = malloc((nrel + 1) * sizeof *start);
	double *f = malloc((P->max_samples + 1) * sizeof *f);
	size_t i;

	if (!start || !f || problem_scratch_alloc(P, &S) != 0)
		pj->failed = 1;
	for (i = job * PROFILE_CHUNK; !pj->failed && i < pj->count && i < (job + 1) * PROFILE_CHUNK;
	     i++)
		if (profile_point(pj, i, &S, start, f) != 0)
			pj->failed = 1;
	problem_scratch_free(&S);
	free(start);
	free(f);
}

/* The lowest full chi^2 of the map so far (INFINITY: none). */
static double lowest(const struct map *M)
{
	double best = INFINITY;
	size_t i;

	for (i = 0; i < M->n; i++)
		if (!M->pt[i].partial && M->pt[i].chi2 < best)
			best = M->pt[i].chi2;
	return best;
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

/*
 * Evaluate the points [first, M->n), seed[k] the start of point first + k's releases (-1: the
 * free fall): the drops of every point; then, lowest bound first, a chunk at a time, the
 * presses and trajectories of those still under the cutoff.
 */
static int evaluate(struct map *M, size_t first, const int *seed, struct err *err)
{
	const struct problem *P = M->P;
	const size_t count = M->n - first, ns = P->nstatic, nd = P->data.ndrops;
	const int more = P->data.npresses > 0 || P->data.ntrajectories > 0;
	double(*logp)[NPHYS] = malloc((count + 1) * sizeof *logp);
	double *res = malloc((count * ns + 1) * sizeof *res);
	double *full = malloc((CHUNK * ns + 1) * sizeof *full), tchi2[CHUNK], best = lowest(M);
	struct ranked *order = malloc((count + 1) * sizeof *order);
	size_t i, k, at;
	int rc = -1;

	if (!logp || !res || !full || !order) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	for (i = 0; i < count; i++)
		memcpy(logp[i], M->pt[first + i].logp, sizeof logp[i]);
	problem_statics(P, (const double(*)[NPHYS])logp, count, 0, res);
	for (i = 0; i < count; i++) {
		struct map_point *p = &M->pt[first + i];

		p->chi2 = 0;
		for (k = 0; k < nd; k++)
			p->chi2 += res[i * ns + k] * res[i * ns + k];
		p->partial = more;
		order[i].bound = p->chi2;
		order[i].k = i;
	}
	qsort(order, count, sizeof *order, by_bound);
	for (at = 0; more && at < count && order[at].bound <= cutoff(M, best) && !problem_stopped(P);
	     at += CHUNK) {
		size_t n = count - at < CHUNK ? count - at : CHUNK, which[CHUNK];
		double pads[CHUNK][NPHYS];
		int seeds[CHUNK];
		struct profile_job pj = {M, which, seeds, tchi2, n, 0};

		for (i = 0; i < n; i++) {
			which[i] = first + order[at + i].k;
			memcpy(pads[i], logp[order[at + i].k], sizeof pads[i]);
			seeds[i] = seed[order[at + i].k];
			tchi2[i] = 0;
		}
		problem_statics(P, (const double(*)[NPHYS])pads, n, 1, full);
		if (P->data.ntrajectories > 0)
			parallel_for((n + PROFILE_CHUNK - 1) / PROFILE_CHUNK, 1, profile_run, &pj);
		if (pj.failed) {
			err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
			goto out;
		}
		for (i = 0; i < n; i++) {
			struct map_point *p = &M->pt[which[i]];

			p->chi2 = tchi2[i];
			for (k = 0; k < ns; k++)
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
	return rc;
}

/* Each corner offset (0 or size on a free log) of a cell: how many, into off[][]. */
static int corners(const struct map *M, int size, int off[4][NPHYS])
{
	int n = 0, a, b;

	for (a = 0; a <= (M->free[TC] ? 1 : 0); a++)
		for (b = 0; b <= (M->free[DR] ? 1 : 0); b++) {
			off[n][TC] = a * size;
			off[n][DR] = b * size;
			n++;
		}
	return n;
}

/* The lattice span of the 1- and 2-sigma regions' points: [k][log][low, high]. */
static void regions(const struct map *M, double best, const double levels[3], int span[2][NPHYS][2])
{
	size_t i;
	int k, q;

	for (k = 0; k < 2; k++)
		for (q = 0; q < NPHYS; q++) {
			span[k][q][0] = M->span[q] + 1;
			span[k][q][1] = -1;
		}
	for (i = 0; i < M->n; i++)
		for (k = 0; k < 2; k++)
			if (M->pt[i].chi2 - best <= levels[k])
				for (q = 0; q < NPHYS; q++) {
					if (M->pt[i].at[q] < span[k][q][0])
						span[k][q][0] = M->pt[i].at[q];
					if (M->pt[i].at[q] > span[k][q][1])
						span[k][q][1] = M->pt[i].at[q];
				}
}

/*
 * Whether cell c is worth splitting: its corners, lowest less their spread (how far a valley
 * between them may reach), may hold a point below the best, or may cross the 1- or 2-sigma
 * level outside the span of the region's points so far (where it could move an interval's
 * end). *low gets the index of its lowest corner (the new points' releases start there).
 */
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
		if (p->chi2 < lo) {
			lo = p->chi2;
			*low = (int)(p - M->pt);
		}
		hi = fmax(hi, p->chi2);
	}
	/* the cell around the estimate, down to the lattice: the region's core is resolved */
	for (q = 0; q < NPHYS && holds; q++) {
		double x = M->free[q] ? (focus[q] - M->origin[q]) / M->step[q] : 0;

		holds = !M->free[q] || (x >= c->at[q] && x <= c->at[q] + c->size);
	}
	if (holds)
		return 1;
	reach = lo - (hi - lo);
	if (!(reach <= best + levels[2]))
		return 0;
	if (reach < best)
		return 1;
	for (k = 0; k < 2; k++) {
		if (!(reach <= best + levels[k] && hi > best + levels[k]))
			continue;
		for (q = 0; q < NPHYS; q++)
			if (M->free[q] &&
			    (c->at[q] < span[k][q][0] || c->at[q] + c->size > span[k][q][1]))
				return 1;
	}
	return 0;
}

/* Refine from cells (ncells, freed here) down to the lattice, the levels measured from the
 * lower of the map's best and floor; the cells around focus (NULL: none) always. */
static int refine(struct map *M, struct cell *cells, size_t ncells, double floor,
    const double *focus, struct err *err)
{
	const struct problem *P = M->P;
	int rc = 0;

	while (rc == 0 && ncells > 0 && cells[0].size > 1 && !problem_stopped(P)) {
		double best = fmin(lowest(M), floor), levels[3];
		int span[2][NPHYS][2], off[4][NPHYS], nc, half = cells[0].size / 2, full = 0;
		struct cell *next = malloc(4 * ncells * sizeof *next);
		int *seed = malloc(5 * ncells * sizeof *seed);
		size_t first = M->n, nnext = 0, i;
		int j, low = -1;

		if (!next || !seed) {
			free(next);
			free(seed);
			free(cells);
			return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		}
		problem_levels(P, best, M->nparams, levels);
		regions(M, best, levels, span);
		nc = corners(M, half, off);
		for (i = 0; i < ncells && !full; i++) {
			int a, b;

			if (!worth_splitting(M, &cells[i], best, levels, span, focus, &low))
				continue;
			/* the points of the finer cells: a 3 x 3 (3 x 1) block, the corners there */
			for (a = 0; a <= (M->free[TC] ? 2 : 0) && !full; a++)
				for (b = 0; b <= (M->free[DR] ? 2 : 0) && !full; b++) {
					int at[NPHYS] = {cells[i].at[TC] + a * half,
					    cells[i].at[DR] + b * half};
					size_t had = M->n;

					full = add_point(M, at) != 0;
					if (M->n > had)
						seed[M->n - 1 - first] = low;
				}
			for (j = 0; j < nc; j++) {
				next[nnext].at[TC] = cells[i].at[TC] + off[j][TC];
				next[nnext].at[DR] = cells[i].at[DR] + off[j][DR];
				next[nnext++].size = half;
			}
		}
		if (M->n > first)
			rc = evaluate(M, first, seed, err);
		free(seed);
		free(cells);
		cells = next;
		ncells = nnext;
		if (full)
			break;
	}
	free(cells);
	return rc;
}

/* The first grid's cells. */
static struct cell *first_cells(const struct map *M, size_t *ncells)
{
	const int size = 1 << MAP_DEPTH;
	int na = M->free[TC] ? M->span[TC] / size : 1, nb = M->free[DR] ? M->span[DR] / size : 1;
	struct cell *c = malloc(((size_t)na * (size_t)nb + 1) * sizeof *c);
	int a, b;

	*ncells = 0;
	if (!c || !(M->free[TC] || M->free[DR]))
		return c;
	for (a = 0; a < na; a++)
		for (b = 0; b < nb; b++) {
			c[*ncells].at[TC] = a * size;
			c[*ncells].at[DR] = b * size;
			c[(*ncells)++].size = size;
		}
	return c;
}

int map_build(struct map *M, const struct problem *P, const int which[NPHYS],
    const double held_logp[NPHYS], struct err *err)
{
	const int traj = P->data.ntrajectories > 0, size = 1 << MAP_DEPTH;
	const int count[NPHYS] = {traj ? MAP_TRAJ_POINTS_TC : MAP_POINTS_TC,
	    traj ? MAP_TRAJ_POINTS_DR : MAP_POINTS_DR};
	struct cell *cells;
	size_t ncells, i;
	int *seed, a, b, q;

	memset(M, 0, sizeof *M);
	M->P = P;
	M->nparams = problem_params(P, 0);
	for (q = 0; q < NPHYS; q++) {
		M->free[q] = which[q];
		M->nparams += which[q] != 0;
		M->span[q] = which[q] ? (count[q] - 1) * size : 0;
		M->origin[q] = which[q] ? P->log_lo[q] : held_logp[q];
		M->step[q] = which[q] ? (P->log_hi[q] - P->log_lo[q]) / M->span[q] : 0;
	}
	/* the lattice's index: a few megabytes */
	M->nslots = (size_t)(M->span[TC] + 1) * (size_t)(M->span[DR] + 1);
	M->slot = malloc(M->nslots * sizeof *M->slot);
	if (!M->slot)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	for (i = 0; i < M->nslots; i++)
		M->slot[i] = -1;
	for (a = 0; a <= M->span[TC]; a += size)
		for (b = 0; b <= M->span[DR]; b += size) {
			int at[NPHYS] = {a, b};

			if (add_point(M, at) != 0)
				return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		}
	seed = malloc((M->n + 1) * sizeof *seed);
	if (!seed)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	for (i = 0; i < M->n; i++)
		seed[i] = -1;
	if (evaluate(M, 0, seed, err) != 0) {
		free(seed);
		return -1;
	}
	free(seed);
	cells = first_cells(M, &ncells);
	if (!cells)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	return refine(M, cells, ncells, INFINITY, NULL, err);
}

int map_refine(struct map *M, const double focus[NPHYS], double chi2_min, struct err *err)
{
	size_t ncells;
	struct cell *cells = first_cells(M, &ncells);

	if (!cells)
		return err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
	return refine(M, cells, ncells, chi2_min, focus, err);
}

/* Whether no neighbour of p (the nearest point of the map in each of the 8 directions along
 * the lattice) is lower. */
static int local_minimum(const struct map *M, const struct map_point *p)
{
	int dx, dy, s;

	for (dx = -1; dx <= 1; dx++)
		for (dy = -1; dy <= 1; dy++) {
			if ((dx == 0 && dy == 0) || (dx && !M->free[TC]) || (dy && !M->free[DR]))
				continue;
			for (s = 1; s <= 1 << MAP_DEPTH; s *= 2) {
				int at[NPHYS] = {p->at[TC] + s * dx, p->at[DR] + s * dy};
				const struct map_point *n = map_find(M, at);

				if (!n)
					continue;
				if (n->chi2 < p->chi2)
					return 0;
				break;
			}
		}
	return 1;
}

size_t map_starts(const struct map *M, size_t *idx, size_t max)
{
	struct ranked *order = malloc((M->n + 1) * sizeof *order);
	size_t i, k, count = 0;

	if (!order)
		return 0;
	for (i = 0; i < M->n; i++) {
		order[i].bound = M->pt[i].partial ? INFINITY : M->pt[i].chi2;
		order[i].k = i;
	}
	qsort(order, M->n, sizeof *order, by_bound);
	for (i = 0; i < M->n && count + 2 * NPHYS < max && isfinite(order[i].bound); i++) {
		const struct map_point *p = &M->pt[order[i].k];
		int distinct = 1;

		if (count > 0 && !local_minimum(M, p))
			continue;
		for (k = 0; k < count && distinct; k++) {
			const struct map_point *o = &M->pt[idx[k]];

			distinct = fabs(p->logp[TC] - o->logp[TC]) >= CALIB_DISTINCT_LOG ||
			    fabs(p->logp[DR] - o->logp[DR]) >= CALIB_DISTINCT_LOG;
		}
		if (distinct)
			idx[count++] = order[i].k;
	}
	/* and the lowest point of each edge of the box: a pad about one timestep stiff lies in a
	 * narrow valley along the edge that the grid ranks far above the interior's minima */
	for (k = 0; k < 2 * NPHYS; k++) {
		int q = (int)k / 2, side = (int)k % 2, found = -1;

		for (i = 0; i < M->n && M->free[q]; i++)
			if (map_on_edge(M, &M->pt[i], q, side) && !M->pt[i].partial &&
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
	M->pt = NULL;
	M->rel = NULL;
	M->slot = NULL;
}
