/*
 * bench_hold.c: one hold answer (core_hold_solve) against MuJoCo's mj_step loop of the
 * same scene (issue 21's: a 2 cm, 100 g sphere between two pads at 10 N, 5 ms, 1 s =
 * 200 steps), for both cones. The core's time is the whole answer: the stepped slip,
 * the steady creep (closed form, and the step loop that confirms it settles) and the
 * verdicts. MuJoCo's is the stepping loop only, after mj_resetData (model compilation
 * left out, so the ratio favours MuJoCo). The two are timed in pairs, a batch of core
 * answers then a batch of MuJoCo runs, back to back, so that a change of the machine's
 * load (it may be shared) falls on both sides of a pair: each pair's ratio, their
 * median and the worst pair are printed, by CPU time (what the process got) and wall
 * clock. The verdict is the median pair's CPU ratio. The slip must agree to 1e-6, or
 * the exit status is 1.
 *
 * Every answer steps its scene until the rest of the run is known (the state repeats, or
 * the transient has become one geometric mode) and sums the rest of the descent, so its
 * time stops growing with the duration: with noslip (the last rows: 2 and 10 sweeps, 1 s
 * and 10 s) the transient it steps is most of the time; docs/hold.md reports it. Each
 * row prints the steps the answer computed one by one.
 *
 * Usage: bench_hold [pairs]   (make bench builds and runs it)
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "core/hold.h"
#include "mjhold.h"

#define BENCH_PAIRS 15
#define BENCH_MAX_PAIRS 1000
#define BENCH_CORE_ANSWERS 200
#define BENCH_MUJOCO_RUNS 10
#define BENCH_TARGET_RATIO 100
#define BENCH_REL_TOL 1e-6

static double now_seconds(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* one side's seconds per answer (or run), by CPU time [0] and wall clock [1] */
struct lap {
	double t0[2];
};

static void lap_start(struct lap *l)
{
	l->t0[0] = now_seconds(CLOCK_PROCESS_CPUTIME_ID);
	l->t0[1] = now_seconds(CLOCK_MONOTONIC);
}

static void lap_end(const struct lap *l, int count, double *cpu, double *wall)
{
	*cpu = (now_seconds(CLOCK_PROCESS_CPUTIME_ID) - l->t0[0]) / count;
	*wall = (now_seconds(CLOCK_MONOTONIC) - l->t0[1]) / count;
}

/* the scenes timed: the cone, noslip sweeps, duration (s) */
static const struct {
	enum core_cone cone;
	int noslip;
	double duration;
} cases[] = {
    {CORE_CONE_PYRAMIDAL, 0, 1},
    {CORE_CONE_ELLIPTIC, 0, 1},
    {CORE_CONE_PYRAMIDAL, 2, 1},
    {CORE_CONE_PYRAMIDAL, 10, 1},
    {CORE_CONE_ELLIPTIC, 2, 1},
    {CORE_CONE_PYRAMIDAL, 2, 10},
    {CORE_CONE_PYRAMIDAL, 10, 10},
};

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : BENCH_PAIRS, c, b, i, failed = 0;

	if (pairs < 1 || pairs > BENCH_MAX_PAIRS)
		pairs = BENCH_PAIRS;
	gsl_set_error_handler_off();
	printf("hold: %d pairs per scene (%d core answers, then %d MuJoCo runs); us per answer or "
	       "run, CPU / wall\n",
	    pairs, BENCH_CORE_ANSWERS, BENCH_MUJOCO_RUNS);
	for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
		static double core[2][BENCH_MAX_PAIRS], mj[2][BENCH_MAX_PAIRS],
		    ratio[2][BENCH_MAX_PAIRS];
		struct core_hold h;
		struct core_hold_answer a;
		struct mjhold mh;
		struct lap lap;
		char err[256];
		double worst[2] = {INFINITY, INFINITY}, slip_mj = 0, med_ratio[2];
		long k, n;
		int w;

		mjhold_issue_scene(&h, cases[c].cone, 1);
		h.noslip_iterations = cases[c].noslip;
		h.duration = cases[c].duration;
		n = lround(h.duration / h.option.timestep);
		if (mjhold_open(&mh, &h, err, sizeof err) != 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		for (b = 0; b < pairs; b++) {
			lap_start(&lap);
			for (i = 0; i < BENCH_CORE_ANSWERS; i++)
				core_hold_solve(&h, &a);
			lap_end(&lap, BENCH_CORE_ANSWERS, &core[0][b], &core[1][b]);
			lap_start(&lap);
			for (i = 0; i < BENCH_MUJOCO_RUNS; i++) {
				mj_resetData(mh.model, mh.data);
				mh.data->ctrl[0] = mh.data->ctrl[1] = h.grip_force;
				for (k = 0; k < n; k++)
					mj_step(mh.model, mh.data);
			}
			lap_end(&lap, BENCH_MUJOCO_RUNS, &mj[0][b], &mj[1][b]);
			for (w = 0; w < 2; w++) {
				ratio[w][b] = mj[w][b] / core[w][b];
				worst[w] = fmin(worst[w], ratio[w][b]);
			}
		}
		slip_mj = -mh.data->qpos[2];
		mjhold_close(&mh);
		for (w = 0; w < 2; w++)
			med_ratio[w] = bench_median(ratio[w], pairs);
		printf(
		    "hold, %s, noslip %d, %ld steps (core stepped %ld): core %.1f / %.1f, MuJoCo "
		    "%.1f / %.1f; "
		    "median pair %.0fx / %.0fx, worst pair %.0fx / %.0fx (target %dx: %s); slip "
		    "core %.9g, MuJoCo %.9g\n",
		    cases[c].cone == CORE_CONE_ELLIPTIC ? "elliptic" : "pyramidal", cases[c].noslip,
		    n, a.stepped, bench_median(core[0], pairs) * 1e6,
		    bench_median(core[1], pairs) * 1e6, bench_median(mj[0], pairs) * 1e6,
		    bench_median(mj[1], pairs) * 1e6, med_ratio[0], med_ratio[1], worst[0],
		    worst[1], BENCH_TARGET_RATIO,
		    med_ratio[0] >= BENCH_TARGET_RATIO ? "met" : "NOT MET", a.slip, slip_mj);
		if (fabs(a.slip - slip_mj) > BENCH_REL_TOL * fabs(slip_mj))
			failed = 1;
	}
	return failed;
}
