/*
 * knobs.h: the store's knobs: how long a writer waits for another, the WAL's and the
 * answer cache's bounds, and the PostgreSQL pool.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_STORE_KNOBS_H
#define CONTACTD_STORE_KNOBS_H

/* ---- store ---- */
#define STORE_BUSY_TIMEOUT_MS 5000 /* how long a connection waits for another writer */
#define STORE_BUSY_STEP_US 250     /* and how often it looks again meanwhile */

/* How long a question waits for another writer to keep its answer in the cache: an upload's
 * durable commit or a checkpoint can hold the write lock for as long as the disk takes to
 * sync (hundreds of milliseconds seen), and an answer is worth more now than cached. Beyond,
 * it is served and not kept (contactd_cache_busy_total). A few scheduler slices: a writer
 * descheduled mid-commit on a busy machine is not given up on. */
#define STORE_CACHE_BUSY_MS 5

/* /v1/health's store check (store_health()): the write lock may be held by another writer
 * this long (a commit) before the store counts as locked; and a disk with less free than
 * this counts as full (the WAL's peak, STORE_WAL_PEAK_BYTES, and a margin), for health and
 * for the writes that add records alike (store_room()). */
#define STORE_PROBE_WAIT_MS 200
#define STORE_MIN_FREE_BYTES (16L * 1024 * 1024)

/* GET /v1/calibrations/{id}/fits lists at most the newest this many done fits: every
 * upload and deletion makes one, so a long-lived calibration's list is bounded (a fit is a
 * few KiB; 500 is about 2 MB, more than a convergence chart draws). */
#define STORE_FIT_LIST_MAX_TEXT "500"

/* ---- the store's upkeep (src/store/store.h, src/http/upkeep.h) ---- */
#define STORE_WAL_LIMIT_TEXT "8388608" /* journal_size_limit: bytes a reset WAL keeps */
#define STORE_WAL_CHECKPOINT_BYTES (4L * 1024 * 1024) /* a WAL larger is checkpointed */

/* The WAL's stated peak: the threshold plus the commits under way when a writer crosses it
 * (tests/test_harden.c and bench/bench_wal.sh hold it; 4.0-4.2 MiB measured). */
#define STORE_WAL_PEAK_BYTES (5L * 1024 * 1024)

/* The largest answer the cache keeps (bytes): a larger one is served, not cached, so
 * that one commit cannot carry the WAL far past its threshold (the stated peak is the
 * threshold plus about two such commits under way). 256 KiB: a sweep of ~3,000 points. */
#define STORE_CACHE_MAX_ANSWER (256L * 1024)
#define STORE_CHECKPOINT_TRIES                                                                     \
	100                     /* a checkpoint that collides with a writer's, retried (1 ms)      \
	                         */
#define STORE_EVICT_BATCH 1024  /* most answers deleted by one statement while evicting */
#define STORE_BACKUP_PAGES 1024 /* pages copied per step of an online backup */

/* ---- the PostgreSQL calibration store (src/store/pgstore.h, --store postgresql://) ---- */
#define PGSTORE_POOL 8              /* connections of one process, besides its listener */
#define PGSTORE_CONNECT_TIMEOUT_S 2 /* a connection attempt gives up after this long */
#define PGSTORE_RETRY_S 1.0         /* after a failed attempt, requests fail fast this long */
#endif
