/*
 * http_calib_work.h: the calibration service's fit workers.
 *
 * An upload or a deletion commits a pending fit (calstore.h) and queues its calibration
 * here; a worker thread (CALIB_FIT_WORKERS of them, at CALIB_FIT_NICE) claims the newest
 * pending fit, computes it with no lock or transaction held, records it done or failed
 * and calls the done callback so that waiting clients and event streams hear of it. Uploads
 * that arrive while a calibration is being fitted leave one pending fit, computed next with
 * all of them. One calibration is never fitted by two workers at once. A fit is bounded by
 * CALIB_FIT_SECONDS; shutdown cancels the fits in progress, which the next start resumes
 * (the fits left running are pending again, calstore_fit_recover()).
 */
#ifndef CONTACTD_HTTP_HTTP_CALIB_WORK_H
#define CONTACTD_HTTP_HTTP_CALIB_WORK_H

#include "base/error.h"
#include "store/store.h"

/* Called on a worker thread after a fit of calibration id was recorded. */
typedef void (*http_calib_work_done_fn)(long long id);

/* Start the workers on st (borrowed, outlives them) and queue every calibration with a
 * pending fit. */
int http_calib_work_start(struct store *st, http_calib_work_done_fn done, struct err *err);

/* Calibration id has a pending fit: have it computed. Safe from any thread; after
 * http_calib_work_stop() a no-op (the next start finds the pending fit). */
void http_calib_work_queue(long long id);

/* 1 while a worker is computing a fit of calibration id. */
int http_calib_work_busy(long long id);

/* Cancel the fits in progress and join the workers. */
void http_calib_work_stop(void);

#endif
