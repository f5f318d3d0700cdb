/*
 * parallel.h: a fit's work shared over its threads (internal to the fit layer).
 *
 * A fit runs on one fit worker (calib/work.c) and may take CALIB_FIT_THREADS threads in all:
 * the worker's own and helpers started for each call that shares work (parallel.c says why).
 * All fits together take no more at once: a helper joins only while
 * fewer fits than CALIB_FIT_THREADS run (parallel_fit_begin()), so two fit workers on a
 * 2-core machine run a thread each, not four threads on two cores beside the questions. The
 * helpers inherit the worker's scheduling class and nice value (SCHED_BATCH, CALIB_FIT_NICE:
 * below the questions), so a fit borrows an idle core, never a busy one's time. Every job is
 * run exactly once, by one thread, and nothing here decides what a job computes: a caller
 * whose jobs are pure functions of their inputs gets the same bits whichever thread ran them,
 * and takes their results in its own order.
 */
#ifndef CONTACTD_FIT_PARALLEL_H
#define CONTACTD_FIT_PARALLEL_H

#include <stddef.h>

/* The calling thread runs a fit from parallel_fit_begin() to parallel_fit_end(): while it
 * does, it holds one of the CALIB_FIT_THREADS threads the fits share. Pairs must match. */
void parallel_fit_begin(void);
void parallel_fit_end(void);

/*
 * run(ctx, j) for every j in [0, njobs), each once, the next job to the next free thread.
 * With share 0, or njobs under 2, or when no helper can start, or from inside a job (the
 * fit's threads are all busy), or while the fits running hold every thread (their count
 * is read once per call), all on the calling thread, in order.
 * run must be safe to call from several threads at once on distinct j.
 */
void parallel_for(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx);

#endif
