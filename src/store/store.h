/*
 * store.h: contactd's SQLite database: the answer cache, and the connections,
 * prepared statements, transactions and migrations every table of it shares.
 *
 * Threading model
 *   One `struct store` per database file, shared by every thread of the process.
 *   Each thread gets its own SQLite connection, opened lazily by store_conn() on its
 *   first use and kept in thread-local storage; a connection, and every statement
 *   prepared on it, is only ever used by the thread that opened it, so no SQLite
 *   object is shared between threads and no lock is held around queries. Writers on
 *   different threads serialise in SQLite itself (WAL mode: readers never block,
 *   one writer at a time, others wait up to STORE_BUSY_TIMEOUT_MS).
 *   A thread's connection is closed when the thread exits; store_close() closes the
 *   rest. store_close() may only be called once no other thread uses the store
 *   (for the daemon: after MHD_stop_daemon() has joined its threads).
 *
 * Durability
 *   Connections run with PRAGMA synchronous=NORMAL: in WAL mode a commit can be lost
 *   on power failure but the database never corrupts, which is right for a cache.
 *   Records that must survive power loss are written inside
 *   store_begin(st, STORE_SYNC_FULL, ...) ... store_commit(), which fsyncs the commit.
 *
 * Schema
 *   schema/NNN_name.sql files are embedded at build time and applied in order by
 *   store_open() (store_migrate()), each in its own transaction, tracked by
 *   PRAGMA user_version = NNN. To add tables, add the next schema/NNN_*.sql file;
 *   never edit one that has been released.
 *
 * Adding queries (e.g. calstore.c)
 *   sqlite3_stmt *s = store_stmt(st, "SELECT ... WHERE id = ?1", err);
 *   bind, sqlite3_step() ..., then store_stmt_done(s) before returning. The SQL text
 *   is the cache key: pass the same string for the same statement.
 */
#ifndef CONTACTD_STORE_STORE_H
#define CONTACTD_STORE_STORE_H

#include <stddef.h>
#include <sqlite3.h>

#include "base/cache.h"
#include "base/error.h"

/* Bytes of a cache key (BLAKE2b-256). */
#define STORE_KEY_BYTES 32

struct store;

/* One embedded migration: schema/NNN_name.sql. */
struct store_migration {
	int version;      /* NNN */
	const char *name; /* file name, for messages */
	const char *sql;  /* the file's text */
};

/* Every schema/NNN_*.sql file in ascending order (generated at build time). */
extern const struct store_migration store_migrations[];
extern const size_t store_migration_count;

/*
 * Open (creating if needed) the database at path, switch it to WAL mode and apply
 * every pending migration. On success *out is a new store the caller releases with
 * store_close(). Fails with ERR_UNAVAILABLE when the file cannot be opened or was
 * written by a newer contactd (user_version above the newest migration we know).
 * The database and its -wal and -shm files are made mode 0600 if they were wider (fails
 * when that is not permitted).
 */
int store_open(const char *path, struct store **out, struct err *err);

/* Close every connection and free st. NULL is a no-op. See "Threading model". */
void store_close(struct store *st);

/*
 * The calling thread's connection, opened on first use with the pragmas above.
 * Owned by st; valid until the thread exits or store_close(). NULL with err on failure.
 */
sqlite3 *store_conn(struct store *st, struct err *err);

/*
 * Apply to db every migration of store_migrations newer than its user_version.
 * store_open() calls it; exposed for tests and tools. Safe against another process
 * migrating the same file at the same time.
 */
int store_migrate(sqlite3 *db, struct err *err);

/* The schema version of the open database (its PRAGMA user_version); -1 with err on failure. */
int store_schema_version(struct store *st, struct err *err);

/* 0 while the database file st opened is still the one at its path: -1 with err
 * (unavailable) once it was deleted (its link count 0, or no file at the path) or
 * replaced (another file at the path). Two system calls; every durable
 * (STORE_SYNC_FULL) transaction checks it as it begins and before it commits. */
int store_identity(struct store *st, struct err *err);

/* 0 when the disk of st's file has STORE_MIN_FREE_BYTES free (the WAL's peak and a margin),
 * else -1 with err (unavailable). The writes that add records (calibration creates,
 * uploads, new tokens) ask it before they begin, as /v1/health does, so the two agree; a
 * deletion or a revocation, which frees or protects, and the store's own bookkeeping do
 * not. One statvfs(). */
int store_room(struct store *st, struct err *err);

/* For /v1/health: 0 when st can take a write now, else -1 with err (unavailable) saying
 * why: the file deleted or replaced (store_identity()), read-only, its disk full (less
 * than STORE_MIN_FREE_BYTES free), the last transaction's failure (SQLITE_FULL, an I/O
 * error) not yet followed by a commit, or the write lock held by another process for
 * over STORE_PROBE_WAIT_MS. Takes at most about that long. */
int store_health(struct store *st, struct err *err);

/*
 * A prepared statement for sql on the calling thread's connection, prepared once per
 * connection and cached. Owned by st: never finalize it; call store_stmt_done() when
 * finished with it. NULL with err on failure.
 */
sqlite3_stmt *store_stmt(struct store *st, const char *sql, struct err *err);

/* Reset stmt and clear its bindings, ready for the next store_stmt() caller. NULL is a no-op. */
void store_stmt_done(sqlite3_stmt *stmt);

enum store_sync {
	STORE_SYNC_NORMAL, /* commit may be lost on power failure (cache) */
	STORE_SYNC_FULL,   /* commit is on disk when store_commit() returns */
};

/* BEGIN IMMEDIATE on the calling thread's connection with the given durability. */
int store_begin(struct store *st, enum store_sync sync, struct err *err);

/* Set how long the calling thread's next writes wait for another writer (ms; the store's
 * default is STORE_BUSY_TIMEOUT_MS) and return the previous limit, to restore after: a
 * write that is only a hint (a token's last use) waits no longer than a cached answer. */
long store_busy_limit(long ms);

/* COMMIT the calling thread's transaction and restore synchronous=NORMAL. */
int store_commit(struct store *st, struct err *err);

/* ROLLBACK the calling thread's transaction, if any, and restore synchronous=NORMAL. */
void store_rollback(struct store *st);

/*
 * The cache key of a question: BLAKE2b-256 of core_version, endpoint and canonical
 * text, each NUL-terminated, so a new core version or another endpoint never shares a key.
 */
void store_cache_key(const char *core_version, const char *endpoint, const char *canonical,
    unsigned char key[STORE_KEY_BYTES]);

/*
 * Look key up in the answer cache. Returns 1 on a hit with *answer a new NUL-terminated
 * copy of the stored text (caller frees with free()) and *len its length; 0 on a miss;
 * -1 with err on failure.
 */
int store_cache_get(struct store *st, const unsigned char key[STORE_KEY_BYTES], char **answer,
    size_t *len, struct err *err);

/* Store answer (len bytes) under key, replacing any previous entry; an answer over
 * STORE_CACHE_MAX_ANSWER bytes is not stored (0: a miss next time). Waits at most
 * STORE_CACHE_BUSY_MS for another writer: 1, nothing stored and err untouched, when the write
 * lock stayed taken that long. 0 when stored; -1 with err. */
int store_cache_put(struct store *st, const unsigned char key[STORE_KEY_BYTES],
    const char *core_version, const char *endpoint, const char *answer, size_t len,
    struct err *err);

/* Bytes of answer text the cache holds (approximately: a replaced answer counts twice
 * until the cache is next emptied, so bounds err on the small side). */
long long store_cache_bytes(struct store *st);

/*
 * Bound the answer cache: when it holds more than max_bytes of answers (0: no bound),
 * delete the oldest answers until it holds a tenth less. Calibration records are never
 * touched. *evicted: answers deleted.
 */
int store_cache_evict(struct store *st, long long max_bytes, long *evicted, struct err *err);

/* Size in bytes of the database's WAL file now (0 when there is none). */
long long store_wal_bytes(struct store *st);

/* Checkpoint the WAL into the database and truncate it (SQLITE_CHECKPOINT_TRUNCATE); a
 * checkpoint that readers kept from finishing is not an error (the next one will). */
int store_checkpoint(struct store *st, struct err *err);

/*
 * Copy the whole database, consistently, into a new single-file database at dest_path
 * (SQLite's online backup API: the store stays usable meanwhile). Restore: stop the
 * daemon, replace its database file with the copy (and delete any -wal and -shm beside
 * it), start it.
 */
int store_backup(struct store *st, const char *dest_path, struct err *err);

/* The answer cache as the service's cache interface (base/cache.h), keys under core_version. */
struct store_cache {
	struct cache cache; /* what to pass to svc_ask() */
	struct store *st;
	const char *core_version;
};

/* Fill c so that c->cache reads and writes st's answer cache. st and core_version are
 * borrowed and must outlive c. */
void store_cache_bind(struct store_cache *c, struct store *st, const char *core_version);

#endif
