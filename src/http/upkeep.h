/*
 * upkeep.h: the daemon's store upkeep thread. Every DAEMON_UPKEEP_MS it bounds the
 * answer cache (--cache-max-mb, oldest answers evicted first, calibration records never)
 * and checkpoints the WAL once it is over STORE_WAL_CHECKPOINT_BYTES, so that neither
 * grows without bound under sustained uncached load.
 */
#ifndef CONTACTD_HTTP_UPKEEP_H
#define CONTACTD_HTTP_UPKEEP_H

#include "base/error.h"
#include "store/store.h"

struct upkeep;

/* Start upkeep of st (owned by the caller; it must outlive upkeep_stop()). cache_max_bytes
 * 0: no cache bound. On success *out is the caller's, ended with upkeep_stop(). */
int upkeep_start(struct store *st, long long cache_max_bytes, struct upkeep **out, struct err *err);

/* Stop the thread (after its current pass) and free u. NULL is a no-op. */
void upkeep_stop(struct upkeep *u);

#endif
