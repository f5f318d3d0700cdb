/*
 * bench_hold.c: one hold answer (ctd_hold_solve) against MuJoCo's mj_step loop of the
 * same scene (issue 21's: a 2 cm, 100 g sphere between two pads at 10 N, 5 ms, 1 s =
 * 200 steps), for both cones. The core's time is the whole answer: the stepped slip,
 * the steady creep (closed form, and the step loop that confirms it settles) and the
 * verdicts. MuJoCo's is the stepping loop only, after mj_resetData (model compilation
 * left out, so the ratio favours MuJoCo). Each side keeps its fastest batch. The slip
 * must agree to 1e-6, or the exit status is 1.
 *
 * With noslip (the last rows: pyramidal, impratio 1, 2 and 10 sweeps, 1 s and 10 s) the
 * answer steps the asymmetric scene until its state repeats and sums the rest of the
 * descent, so its ratio grows with the duration; docs/hold.md reports it.
 *
 * Usage: bench_hold [batches]   (make bench builds and runs it)
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hold.h"
#include "mjhold.h"

#define BENCH_BATCHES 7
#define BENCH_CORE_ANSWERS 200
#define BENCH_MUJOCO_RUNS 10
#define BENCH_TARGET_RATIO 100
#define BENCH_REL_TOL 1e-6

static double now_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the scenes timed: the cone, noslip sweeps, duration (s) */
static const struct {
	enum ctd_cone cone;
	int noslip;
	double duration;
} cases[] = {
    {CTD_CONE_PYRAMIDAL, 0, 1},
    {CTD_CONE_ELLIPTIC, 0, 1},
    {CTD_CONE_PYRAMIDAL, 2, 1},
    {CTD_CONE_PYRAMIDAL, 10, 1},
    {CTD_CONE_PYRAMIDAL, 2, 10},
    {CTD_CONE_PYRAMIDAL, 10, 10},
};

int main(int argc, char **argv)
{
	int batches = argc > 1 ? atoi(argv[1]) : BENCH_BATCHES, c, b, i, failed = 0;

	gsl_set_error_handler_off();
	for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
		struct ctd_hold h;
		struct ctd_hold_answer a;
		struct mjhold mh;
		char err[256];
		double best_core = INFINITY, best_mj = INFINITY, t, slip_mj = 0;
		long k, n;

		mjhold_issue_scene(&h, cases[c].cone, 1);
		h.noslip_iterations = cases[c].noslip;
		h.duration = cases[c].duration;
		n = lround(h.duration / h.option.timestep);
		if (mjhold_open(&mh, &h, err, sizeof err) != 0) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		for (b = 0; b < batches; b++) {
			t = now_seconds();
			for (i = 0; i < BENCH_CORE_ANSWERS; i++)
				ctd_hold_solve(&h, &a);
			best_core = fmin(best_core, (now_seconds() - t) / BENCH_CORE_ANSWERS);
			t = now_seconds();
			for (i = 0; i < BENCH_MUJOCO_RUNS; i++) {
				mj_resetData(mh.model, mh.data);
				mh.data->ctrl[0] = mh.data->ctrl[1] = h.grip_force;
				for (k = 0; k < n; k++)
					mj_step(mh.model, mh.data);
			}
			best_mj = fmin(best_mj, (now_seconds() - t) / BENCH_MUJOCO_RUNS);
		}
		slip_mj = -mh.data->qpos[2];
		mjhold_close(&mh);
		printf(
		    "hold, %s, noslip %d, %ld steps: core %.1f us per answer, MuJoCo %.1f us per "
		    "run: %.0fx (target %dx); slip core %.9g, MuJoCo %.9g\n",
		    cases[c].cone == CTD_CONE_ELLIPTIC ? "elliptic" : "pyramidal", cases[c].noslip,
		    n, best_core * 1e6, best_mj * 1e6, best_mj / best_core, BENCH_TARGET_RATIO,
		    a.slip, slip_mj);
		if (fabs(a.slip - slip_mj) > BENCH_REL_TOL * fabs(slip_mj))
			failed = 1;
	}
	return failed;
}
