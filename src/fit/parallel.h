/*
 * parallel.h: a fit's work shared over its threads (internal to the fit layer). A fit worker
 * (calib/work.c) may take CALIB_FIT_THREADS threads in all, its own and helpers started per call
 * (parallel.c), and all fits together no more: a helper joins only while fewer fits run, so two
 * fits on a 2-core machine run a thread each. The helpers inherit the worker's SCHED_BATCH and
 * CALIB_FIT_NICE, so a fit borrows an idle core, never a busy one's time. Every job runs once, on
 * one thread: jobs that are pure functions give the same bits whichever thread ran them.
 */
#ifndef CONTACTD_FIT_PARALLEL_H
#define CONTACTD_FIT_PARALLEL_H

#include <stddef.h>

/* The calling thread runs a fit from parallel_fit_begin() to parallel_fit_end(), holding one of
 * the CALIB_FIT_THREADS threads the fits share meanwhile. Pairs must match. */
void parallel_fit_begin(void);
void parallel_fit_end(void);

/* run(ctx, j) once for every j in [0, njobs), the next job to the next free thread; all on the
 * calling thread, in order, with share 0, under 2 jobs, from inside a job, when no helper can
 * start or while the running fits hold every thread (counted once a call). run must be safe to
 * call from several threads at once on distinct j. */
void parallel_for(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx);

#endif
