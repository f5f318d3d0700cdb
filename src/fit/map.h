/*
 * map.h: a pad fit's chi-square map (stage 2 of fit/fit.c): chi^2 over the whole searched box
 * of (log timeconst, log dampratio), each trajectory's release profiled at every point, on a
 * log-spaced grid refined where a valley could hold the minimum or bound an interval.
 * Internal to the fit layer.
 *
 * The points lie on a lattice MAP_DEPTH halvings finer than the first grid; a cell of the
 * grid is split in four (two when one log is held) while its corners say it may hold a point
 * below the best plus the 3-sigma level (its lowest corner less the spread of its corners),
 * or cross the 1- or 2-sigma level beyond the interval the points found so far: the rest of
 * the box is left at the first grid's resolution. A batch of points has its drops stepped first
 * (cheap: the lanes, a fall stepped once) and its presses and trajectories only where the drops
 * alone leave it below the best plus the 3-sigma level: elsewhere its chi^2 is the drops' (a
 * lower bound, outside every level either way).
 */
#ifndef CONTACTD_FIT_MAP_H
#define CONTACTD_FIT_MAP_H

#include <stddef.h>

#include "base/error.h"
#include "fit/problem.h"

struct map_point {
	double logp[NPHYS];
	int at[NPHYS]; /* on the lattice */
	double chi2;   /* the drops' alone where partial */
	int partial;   /* presses and trajectories not stepped: chi2 is a lower bound */
};

/* A map. Owned by its caller; map_free() frees its arrays. */
struct map {
	const struct problem *P;
	int free[NPHYS];     /* a held log has one lattice point, at held[] */
	int span[NPHYS];     /* the lattice's last index per log (0 when held) */
	double step[NPHYS];  /* the lattice's step (log units) */
	double origin[NPHYS];
	size_t nparams;      /* fitted parameters behind the levels: free logs and releases */
	struct map_point *pt;
	double *rel;         /* each point's profiled releases, 2 per trajectory */
	size_t n, cap;
	int *slot;           /* each lattice position's point, or -1 */
	size_t nslots;
};

/*
 * Map P over its box, the logs free[] names (a held one at held_logp), into *M. -1 with
 * ERR_INTERNAL when out of memory (map_free() still frees what there is). Stopped fits end
 * early with what there is.
 */
int map_build(struct map *M, const struct problem *P, const int free[NPHYS],
    const double held_logp[NPHYS], struct err *err);

/* Refine M again against a lower minimum chi2_min found off the map at focus (a descent's
 * end), the cells around focus down to the lattice. */
int map_refine(struct map *M, const double focus[NPHYS], double chi2_min, struct err *err);

/* Up to max starts for descents into idx[]: the lowest local minima, each at least
 * CALIB_DISTINCT_LOG from those before it in some log, then the lowest point of each edge of
 * the box. Returns how many. */
size_t map_starts(const struct map *M, size_t *idx, size_t max);

/* The point at lattice position at[], or NULL. */
const struct map_point *map_find(const struct map *M, const int at[NPHYS]);

/* Whether point p lies on the box's edge on the low (side 0) or high (1) side of log q. */
int map_on_edge(const struct map *M, const struct map_point *p, int q, int side);

void map_free(struct map *M);

#endif
