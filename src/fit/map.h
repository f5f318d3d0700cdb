/*
 * map.h: a pad fit's chi-square map (stage 2 of fit/fit.c; internal): chi^2 over the box of
 * (log timeconst, log dampratio), each trajectory's release profiled at every point, on a
 * log-spaced grid refined down to a lattice MAP_DEPTH halvings finer where a valley could hold
 * the minimum or bound an interval. A point's presses and trajectories are stepped only where
 * its drops leave it below the best plus the 3-sigma level (else its chi^2 is the drops' alone).
 */
#ifndef CONTACTD_FIT_MAP_H
#define CONTACTD_FIT_MAP_H

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
	int free[NPHYS];                   /* a held log has one lattice point, at held_logp */
	int span[NPHYS];                   /* the lattice's last index per log (0 when held) */
	double step[NPHYS], origin[NPHYS]; /* the lattice's step (log units) and its index 0 */
	size_t nparams; /* fitted parameters behind the levels: free logs and releases */
	struct map_point *pt;
	double *rel; /* each point's profiled releases, 2 per trajectory */
	size_t n, cap;
	int *slot; /* each lattice position's point, or -1 */
	size_t nslots;
};

/* Map P over its box, the logs free[] names (a held one at held_logp), into *M; a stopped fit
 * ends early. -1 with ERR_INTERNAL when out of memory; map_free() frees either way. */
int map_build(struct map *M, const struct problem *P, const int free[NPHYS],
    const double held_logp[NPHYS], struct err *err);
void map_free(struct map *M);

/* Refine M again against chi2_min, a lower minimum found off the map at focus (a descent's end;
 * NULL: none), the cells around focus down to the lattice. -1 with ERR_INTERNAL on no memory. */
int map_refine(struct map *M, const double *focus, double chi2_min, struct err *err);

/* Up to max starts for descents (fit/knobs.h's MAP_STARTS) into idx[]; returns how many. */
size_t map_starts(const struct map *M, size_t *idx, size_t max);

/* map_find(): the point at lattice position at[], or NULL. map_on_edge(): whether p lies on the
 * box's low (side 0) or high (1) edge of log q. */
const struct map_point *map_find(const struct map *M, const int at[NPHYS]);
int map_on_edge(const struct map *M, const struct map_point *p, int q, int side);

#endif
