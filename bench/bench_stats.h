/*
 * bench_stats.h: the statistics the benchmarks print (header only: each bench is one
 * program of its own).
 */
#ifndef CONTACTD_BENCH_STATS_H
#define CONTACTD_BENCH_STATS_H

#include <stdlib.h>

static inline int bench_compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place). */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_compare_doubles);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
