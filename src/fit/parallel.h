/*
 * parallel.h: a fit's work shared over its threads (internal to the fit layer).
 *
 * A fit runs on one fit worker (calib/work.c) and may take CALIB_FIT_THREADS threads in all:
 * the worker's own and its helpers, started here on its first call and kept until it exits
 * (parallel.c says why). All fits together take no more at once: a helper joins only while
 * fewer fits than CALIB_FIT_THREADS run (parallel_fit_begin()), so two fit workers on a
 * 2-core machine run a thread each, not four threads on two cores beside the questions. The helpers
 * inherit the worker's scheduling class and nice value (SCHED_BATCH, CALIB_FIT_NICE: below the
 * questions), so a fit borrows an idle core, never a busy one's time. Every job is run exactly
 * once, by one thread, and nothing here decides what a job computes: a caller whose jobs are pure
 * functions of their inputs gets the same bits whichever thread ran them, and takes their results
 * in its own order.
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
 * is read once per call), all on the calling thread.
 * run must be safe to call from several threads at once on distinct j.
 */
void parallel_for(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx);

/*
 * A step a lockstep job asks for (parallel_step()): a caller's request embeds it first and
 * batch() carries out n such requests at once (all of one batch function), each as if alone.
 */
struct parallel_step {
	void (*batch)(struct parallel_step *const *steps, size_t n);
};

/*
 * parallel_for() for jobs that are chains of small steps (a refit's points: a few drops and
 * presses each): each thread that takes jobs runs up to CALIB_LOCKSTEP_JOBS of them side by
 * side (its share of them: the helpers take theirs), as fibers on its own stack that take
 * turns, so a fit still takes no more than its CALIB_FIT_THREADS threads. A job that calls
 * parallel_step() waits until every other job of its thread has asked for a step or ended;
 * then their steps are carried out together, each batch function once over all its requests,
 * and the jobs go on. A job's results are what parallel_for() gives when each step's answer
 * does not depend on the others carried out with it. A job must not block on another job
 * (they share one thread). From inside a job, as parallel_for(): all on the calling thread,
 * one job after another, its steps still batched with the other jobs of its thread.
 * AddressSanitizer is told of each switch; it still warns once that it does not fully follow
 * swapcontext().
 */
void parallel_for_lockstep(size_t njobs, int share, void (*run)(void *ctx, size_t job), void *ctx);

/* Carry out step: with the other lockstep jobs' of this thread when called from one
 * (parallel_for_lockstep()), else at once (step->batch(&step, 1)). Returns when it is done. */
void parallel_step(struct parallel_step *step);

#endif
