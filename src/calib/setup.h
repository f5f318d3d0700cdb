/*
 * setup.h: calibrations' setups in parsed form. A setup never changes once stored, so it is
 * parsed once, when the calibration is created (or, after a restart, on its first use), and
 * kept in memory (the CALIB_SETUP_CACHE most recently used), with its canonical JSON, for
 * the uploads, refits and reads that follow. Safe from any thread.
 */
#ifndef CONTACTD_CALIB_SETUP_H
#define CONTACTD_CALIB_SETUP_H

#include <jansson.h>

#include "base/calstore.h"
#include "base/error.h"
#include "calib/calreq.h"

/*
 * Calibration id's setup: parsed into *parsed (when not NULL) and its canonical JSON into
 * *canonical (when not NULL; a copy the caller owns). ERR_NOT_FOUND when there
 * is no such calibration.
 */
int calsetup_get(struct calstore *cs, long long id, struct calreq_setup *parsed, json_t **canonical,
    struct err *err);

/*
 * Calibration id's setup parsed into *parsed, from the cache or else from text, the setup as
 * the store keeps it (read by the caller, e.g. with an upload's lock). No store access.
 */
int calsetup_of_text(long long id, const char *text, struct calreq_setup *parsed, struct err *err);

/* Remember calibration id's setup as just stored (canonical: the stored JSON, copied). */
void calsetup_put(long long id, const struct calreq_setup *parsed, json_t *canonical);

/* Forget every setup (tests, and a store reopened under the same ids). */
void calsetup_forget(void);

/* Setups parsed from stored text since start (a statistic for tests). */
long calsetup_parses(void);

#endif
