/*
 * bench_fit.c: the calibration fit's wall time on fresh sets (issue 29: a 3-8-drop fit in at
 * most 0.25 s median and 1 s worst on the 2-core machine). Run by `make bench-fit` (never by
 * `make check`).
 *
 * For each drop count (3, 5, 8, and each with 2 presses: "3+2p", the 3-drop row's sets with two
 * presses added, and so on) it draws BENCH_FIT_SETS sets
 * (default 12) with tests/calgen.h
 * (truths, objects, timesteps, heights and sigmas from a seeded SplitMix64, BENCH_FIT_SEED,
 * default 29; the rebounds simulated by libmujoco 2.2.2 at bench time), fits each with
 * fit_solref() on one thread, and prints the median and worst wall time (and the fit thread's
 * CPU time, which a machine busy with other work does not inflate), the statuses, and
 * the largest fitted chi2 - truth chi2, the truth's chi2 in the fit's own model (fit/audit.h;
 * above 0: the search missed a pad at least as good as the truth). With BENCH_FIT_VERBOSE set, each
 * fit's conclusions (status, the fitted pad, chi2, standard errors and 2-sigma intervals, to every
 * digit) go to stderr, one line per fit, so that two builds' answers can be compared with diff.
 * BENCH_FIT_ONLY (a row's label: 3, 5, 8, 3+2p, 5+2p or 8+2p) runs that row alone; the sets are
 * the same.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "calgen.h"
#include "fit/audit.h"
#include "fit/fit.h"
#include "fit/knobs.h"

static double clock_s(clockid_t which)
{
	struct timespec t;

	clock_gettime(which, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One fit's conclusions, every digit, for comparing builds (BENCH_FIT_VERBOSE). */
static void print_fit(size_t drops, int n, const struct fit_result *fit, double wall, double cpu)
{
	int q, k;

	fprintf(stderr,
	    "fit %zu/%d status %d tc %.17g dr %.17g chi2 %.17g se %.17g %.17g held %d%d", drops, n,
	    (int)fit->status, fit->timeconst, fit->dampratio, fit->chi2, fit->se_log[0],
	    fit->se_log[1], fit->held[0], fit->held[1]);
	for (q = 0; q < 2; q++)
		for (k = 0; k < 2; k++)
			fprintf(stderr, " [%.17g %.17g]", fit->interval_log[q][k][0],
			    fit->interval_log[q][k][1]);
	fprintf(stderr, " notes %zu wall %.3f cpu %.3f\n", fit->nnotes, wall, cpu);
}

int main(void)
{
	static const size_t counts[] = {3, 5, 8, 3, 5, 8}, press_counts[] = {0, 0, 0, 2, 2, 2};
	const char *env = getenv("BENCH_FIT_SETS"), *seed_env = getenv("BENCH_FIT_SEED");
	const char *only = getenv("BENCH_FIT_ONLY");
	int verbose = getenv("BENCH_FIT_VERBOSE") != NULL;
	int sets = env ? atoi(env) : 12;
	uint64_t seed = seed_env ? strtoull(seed_env, NULL, 10) : 29;
	size_t c;

	if (sets < 1)
		sets = 12;
	printf("fit wall time on fresh sets (libmujoco 2.2.2 rebounds), %d sets per drop count, "
	       "seed %llu\n",
	    sets, (unsigned long long)seed);
	printf("%8s %10s %10s %10s %10s %10s  %s\n", "drops", "median_s", "worst_s", "cpu_med_s",
	    "cpu_worst_s", "worst_dchi2", "statuses (ok/partial/few_dof/misfit/insufficient)");
	for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		double *wall = malloc((size_t)sets * sizeof *wall), worst = 0, dchi2 = -INFINITY;
		double *cpu = malloc((size_t)sets * sizeof *cpu), worst_cpu = 0;
		int status[5] = {0}, n;
		char label[16];
		uint64_t state = seed * 1000003u + counts[c];

		if (!wall || !cpu)
			return 1;
		snprintf(label, sizeof label, press_counts[c] ? "%zu+%zup" : "%zu", counts[c],
		    press_counts[c]);
		if (only && strcmp(only, label) != 0) {
			free(wall);
			free(cpu);
			continue;
		}
		for (n = 0; n < sets; n++) {
			struct calgen_set set;
			struct fit_result *fit = NULL;
			struct err err;
			struct audit_result *truth = NULL;
			double t0, c0;

			calgen_draw(&state, counts[c], &set);
			calgen_add_presses(&state, press_counts[c], &set);
			t0 = clock_s(CLOCK_MONOTONIC);
			c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
			if (fit_solref(&set.setup, &set.data, NULL, &fit, &err) != 0) {
				fprintf(stderr, "bench_fit: %s\n", err.message);
				return 1;
			}
			wall[n] = clock_s(CLOCK_MONOTONIC) - t0;
			cpu[n] = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
			worst = fmax(worst, wall[n]);
			worst_cpu = fmax(worst_cpu, cpu[n]);
			status[fit->status]++;
			if (verbose)
				print_fit(counts[c], n, fit, wall[n], cpu[n]);
			/* the truth's chi2 in the fit's own model (the audit's) is an upper bound
			 * of the best only within the searched range */
			if (audit_solref(&set.setup, &set.data, set.timeconst, set.dampratio, NULL,
			        &truth, &err) != 0) {
				fprintf(stderr, "bench_fit: %s\n", err.message);
				return 1;
			}
			if (set.timeconst >=
			    CALIB_GRID_TIMECONST_MIN_STEPS * set.setup.option.timestep)
				dchi2 = fmax(dchi2, fit->chi2 - truth->chi2);
			audit_free(truth);
			fit_free(fit);
		}
		printf("%8s %10.3f %10.3f %10.3f %10.3f %10.3g  %d/%d/%d/%d/%d\n", label,
		    bench_median(wall, sets), worst, bench_median(cpu, sets), worst_cpu, dchi2,
		    status[FIT_OK], status[FIT_PARTIAL], status[FIT_FEW_DOF], status[FIT_MISFIT],
		    status[FIT_INSUFFICIENT]);
		fflush(stdout);
		free(wall);
		free(cpu);
	}
	return 0;
}
