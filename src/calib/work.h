/*
 * work.h: the fit workers of calibrations: scheduling a refit, and the claim, compute,
 * finish cycle.
 *
 * An upload or a deletion commits a pending fit (calstore.h) and queues its calibration
 * here; a worker thread (contactd's --fit-workers, at CALIB_FIT_NICE) claims the newest
 * pending fit, computes it with no lock or transaction held, records it done or failed
 * and publishes a CALEVENT_FIT (events.h) so that waiting clients and event streams hear of
 * it. Uploads that arrive while a calibration is being fitted leave one pending fit, computed
 * next with all of them. One calibration is never fitted by two workers at once. A fit is
 * bounded by CALIB_FIT_SECONDS; shutdown cancels the fits in progress, which the next start
 * resumes (the fits left running are pending again, calstore_fit_recover()).
 *
 * Without started workers (a test, the `contactd token` command) calwork_queue() is a no-op
 * and calwork_run() computes a calibration's pending fits on the calling thread.
 */
#ifndef CONTACTD_CALIB_WORK_H
#define CONTACTD_CALIB_WORK_H

#include <stdatomic.h>

#include "base/calstore.h"
#include "base/error.h"

/* Start `workers` workers (0 to CALIB_FIT_WORKERS_MAX) on cs (borrowed, outlives them) and
 * queue every calibration with a pending fit. A shared store (one with fit_adopt) that is
 * unreachable at start is no error: its pending fits are adopted once it is reached. With 0
 * workers this node fits nothing: its fits left running are made pending again (for a node
 * that fits, or this one's next start with workers), and calwork_queue() is a no-op. */
int calwork_start(struct calstore *cs, int workers, struct err *err);

/* Calibration id has a pending fit: have it computed. Safe from any thread; without workers
 * (never started, or after calwork_stop()) a no-op: the next start finds the pending fit. */
void calwork_queue(long long id);

/* 1 while a worker is computing a fit of calibration id. */
int calwork_busy(long long id);

/*
 * Claim, compute and record calibration id's pending fits on the calling thread until none
 * is left, publishing a CALEVENT_FIT after each. cancel (NULL: none) stops a fit in progress
 * when it becomes non-zero (the fit is then left running, for recovery). Returns how many fits
 * were recorded.
 */
int calwork_run(struct calstore *cs, long long id, const atomic_int *cancel);

/* Cancel the fits in progress and join the workers. */
void calwork_stop(void);

#endif
