/*
 * store.c: per-thread SQLite connections, cached prepared statements, migrations
 * and the answer cache. See store.h for the threading model.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "store/store.h"
#include "store/knobs.h"

/* A statement prepared on one connection, found again by its SQL text. */
struct stmt_entry {
	char *sql;
	sqlite3_stmt *stmt;
	struct stmt_entry *next;
};

/* One thread's connection: in thread-local storage and in the store's list. */
struct conn_slot {
	struct store *st;
	sqlite3 *db;
	struct stmt_entry *stmts;
	int sync_full; /* synchronous=FULL is on for the current transaction */
	struct conn_slot *prev, *next;
};

struct store {
	char *path;
	pthread_key_t key;    /* -> this thread's struct conn_slot */
	pthread_mutex_t lock; /* guards slots */
	struct conn_slot *slots;
	/* Bytes of answer text in the cache: summed at open, added to on every put and taken
	 * from by eviction. A replaced answer is counted twice until the cache is next empty,
	 * so the bound errs on the small side. */
	atomic_llong cache_bytes;
	/* The database file as opened: a descriptor of our own (never closed while a
	 * connection is open, so SQLite's POSIX locks are never dropped by it), and the
	 * identity it had then. */
	int fd;
	dev_t dev;
	ino_t ino;
	/* The primary SQLite code of the last transaction that failed to begin or commit
	 * (SQLITE_FULL, SQLITE_READONLY, SQLITE_IOERR, ...), 0 once one commits again. */
	atomic_int write_fault;
};

static int sqlite_fail(struct err *err, sqlite3 *db, const char *what)
{
	return err_set(err, ERR_UNAVAILABLE, NULL, "store: %s: %s", what,
	    db ? sqlite3_errmsg(db) : "out of memory");
}

static int exec_sql(sqlite3 *db, const char *sql, struct err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	err_set(err, ERR_UNAVAILABLE, NULL, "store: %s", msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

/* Finalize every statement and close the connection; the caller has unlinked slot. */
static void slot_free(struct conn_slot *slot)
{
	struct stmt_entry *e, *next;

	for (e = slot->stmts; e; e = next) {
		next = e->next;
		sqlite3_finalize(e->stmt);
		free(e->sql);
		free(e);
	}
	sqlite3_close_v2(slot->db);
	free(slot);
}

static void slot_unlink(struct store *st, struct conn_slot *slot)
{
	if (slot->prev)
		slot->prev->next = slot->next;
	else
		st->slots = slot->next;
	if (slot->next)
		slot->next->prev = slot->prev;
}

/* pthread key destructor: the thread that owned the connection has exited. */
static void slot_thread_exit(void *p)
{
	struct conn_slot *slot = p;
	struct store *st = slot->st;

	pthread_mutex_lock(&st->lock);
	slot_unlink(st, slot);
	pthread_mutex_unlock(&st->lock);
	slot_free(slot);
}

/* Milliseconds this thread's next wait for another writer may last: STORE_BUSY_TIMEOUT_MS,
 * or STORE_CACHE_BUSY_MS while it keeps a question's answer (store_cache_put()). */
static _Thread_local long wait_limit_ms = STORE_BUSY_TIMEOUT_MS;

long store_busy_limit(long ms)
{
	long was = wait_limit_ms;

	wait_limit_ms = ms;
	return was;
}

/*
 * SQLite's busy handler: wait for another writer in steps of STORE_BUSY_STEP_US, up to
 * wait_limit_ms in all. sqlite3_busy_timeout() sleeps in steps that grow to 100 ms,
 * so a request that meets a commit of a few milliseconds would wait a hundred.
 */
static int busy_wait(void *arg, int tries)
{
	(void)arg;
	if ((long long)tries * STORE_BUSY_STEP_US >= wait_limit_ms * 1000LL)
		return 0;
	nanosleep(&(struct timespec){0, STORE_BUSY_STEP_US * 1000L}, NULL);
	return 1;
}

/*
 * SQLite's WAL hook, after every commit (its write lock released): once the WAL holds
 * STORE_WAL_CHECKPOINT_BYTES, the committing thread checkpoints it with TRUNCATE itself,
 * holding the next writers off meanwhile, so the WAL cannot outgrow the threshold by more
 * than the commits already under way. (It replaces SQLite's automatic checkpoint, a
 * PASSIVE one every 1000 pages that readers can keep from resetting the WAL, and the
 * upkeep thread's, which looks only every DAEMON_UPKEEP_MS.) Another thread's checkpoint
 * under way (SQLITE_BUSY) does the same job: nothing to do then.
 */
static int wal_grown(void *arg, sqlite3 *db, const char *name, int pages)
{
	long long page_bytes = (long long)(intptr_t)arg;

	if ((long long)pages * page_bytes >= STORE_WAL_CHECKPOINT_BYTES) {
		/* the checkpoint waits as long as any writer (the WAL's bound rests on it),
		 * whichever commit crossed the threshold */
		long limit = store_busy_limit(STORE_BUSY_TIMEOUT_MS);

		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
		store_busy_limit(limit);
	}
	return SQLITE_OK;
}

/* Install wal_grown() on db, knowing its page size. */
static int watch_wal(sqlite3 *db, struct err *err)
{
	sqlite3_stmt *stmt = NULL;
	long long page_bytes = 4096;

	if (sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &stmt, NULL) != SQLITE_OK)
		return sqlite_fail(err, db, "reading the page size");
	if (sqlite3_step(stmt) == SQLITE_ROW)
		page_bytes = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	sqlite3_wal_hook(db, wal_grown, (void *)(intptr_t)page_bytes);
	return 0;
}

static struct conn_slot *slot_open(struct store *st, struct err *err)
{
	struct conn_slot *slot = calloc(1, sizeof *slot);
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;

	if (!slot) {
		err_set(err, ERR_UNAVAILABLE, NULL, "store: out of memory");
		return NULL;
	}
	slot->st = st;
	if (sqlite3_open_v2(st->path, &slot->db, flags, NULL) != SQLITE_OK) {
		sqlite_fail(err, slot->db, st->path);
		goto fail;
	}
	sqlite3_extended_result_codes(slot->db, 1);
	if (sqlite3_busy_handler(slot->db, busy_wait, NULL) != SQLITE_OK ||
	    exec_sql(slot->db,
	        "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA "
	        "journal_size_limit=" STORE_WAL_LIMIT_TEXT ";",
	        err) < 0 ||
	    watch_wal(slot->db, err) < 0)
		goto fail;
	if (pthread_setspecific(st->key, slot) != 0) {
		err_set(err, ERR_UNAVAILABLE, NULL, "store: cannot keep a thread's connection");
		goto fail;
	}
	pthread_mutex_lock(&st->lock);
	slot->next = st->slots;
	if (st->slots)
		st->slots->prev = slot;
	st->slots = slot;
	pthread_mutex_unlock(&st->lock);
	return slot;
fail:
	slot_free(slot);
	return NULL;
}

static struct conn_slot *slot_get(struct store *st, struct err *err)
{
	struct conn_slot *slot = pthread_getspecific(st->key);

	return slot ? slot : slot_open(st, err);
}

sqlite3 *store_conn(struct store *st, struct err *err)
{
	struct conn_slot *slot = slot_get(st, err);

	return slot ? slot->db : NULL;
}

/* PRAGMA user_version of db, or -1 with err. */
static int user_version(sqlite3 *db, struct err *err)
{
	sqlite3_stmt *stmt = NULL;
	int version = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL) != SQLITE_OK ||
	    sqlite3_step(stmt) != SQLITE_ROW)
		sqlite_fail(err, db, "reading the schema version");
	else
		version = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return version;
}

/* Apply m to db unless another process did it first. One transaction per migration. */
static int migrate_one(sqlite3 *db, const struct store_migration *m, struct err *err)
{
	char set_version[64];
	int version;

	if (exec_sql(db, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	version = user_version(db, err);
	if (version < 0)
		goto fail;
	if (version < m->version) {
		snprintf(set_version, sizeof set_version, "PRAGMA user_version = %d", m->version);
		if (exec_sql(db, m->sql, err) < 0) {
			/* Name the file: a bad migration is a build problem, not a runtime one. */
			char detail[ERR_MESSAGE_MAX];

			snprintf(detail, sizeof detail, "%s", err->message);
			err_set(err, ERR_UNAVAILABLE, NULL, "schema/%s: %s", m->name, detail);
			goto fail;
		}
		if (exec_sql(db, set_version, err) < 0)
			goto fail;
	}
	return exec_sql(db, "COMMIT", err);
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int store_migrate(sqlite3 *db, struct err *err)
{
	int newest = store_migrations[store_migration_count - 1].version;
	int version = user_version(db, err);
	size_t i;

	if (version < 0)
		return -1;
	if (version > newest)
		return err_set(err, ERR_UNAVAILABLE, NULL,
		    "store: database schema %d is newer than this contactd's (%d)", version,
		    newest);
	for (i = 0; i < store_migration_count; i++) {
		if (store_migrations[i].version > version &&
		    migrate_one(db, &store_migrations[i], err) < 0)
			return -1;
	}
	return 0;
}

/* Count the cache's answer bytes into st->cache_bytes. */
static int sum_cache_bytes(struct store *st, struct err *err)
{
	sqlite3_stmt *stmt = store_stmt(st, "SELECT total(length(answer)) FROM answer_cache", err);
	int rc = 0;

	if (!stmt)
		return -1;
	if (sqlite3_step(stmt) == SQLITE_ROW)
		atomic_store(&st->cache_bytes, (long long)sqlite3_column_double(stmt, 0));
	else
		rc = sqlite_fail(err, sqlite3_db_handle(stmt), "measuring the cache");
	store_stmt_done(stmt);
	return rc;
}

/*
 * Make path owner-only (0600) if it exists with a wider mode: the files hold token hashes
 * and measurements, and a database copied in or created under another umask keeps its
 * mode. -1 with err when it exists and cannot be changed.
 */
static int make_private(const char *path, struct err *err)
{
	struct stat sb;

	if (stat(path, &sb) != 0 || (sb.st_mode & 0777) == 0600)
		return 0;
	if (chmod(path, 0600) == 0)
		return 0;
	return err_set(err, ERR_UNAVAILABLE, NULL, "store: %s is mode %03o and cannot be made 0600",
	    path, (unsigned)(sb.st_mode & 0777));
}

/* make_private() on the database and its -wal and -shm files. */
static int make_files_private(const char *path, struct err *err)
{
	static const char *const suffixes[] = {"", "-wal", "-shm"};
	char name[4096];
	size_t i;

	for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
		if (make_private(name, err) < 0)
			return -1;
	}
	return 0;
}

/* The file's identity as opened, kept through st->fd (store_identity()). */
static int remember_file(struct store *st, struct err *err)
{
	struct stat sb;

	st->fd = open(st->path, O_RDONLY | O_CLOEXEC);
	if (st->fd < 0 || fstat(st->fd, &sb) != 0)
		return err_set(
		    err, ERR_UNAVAILABLE, NULL, "store: %s: %s", st->path, strerror(errno));
	st->dev = sb.st_dev;
	st->ino = sb.st_ino;
	return 0;
}

int store_identity(struct store *st, struct err *err)
{
	struct stat open_sb, path_sb;
	int at_path;

	if (st->fd < 0 || fstat(st->fd, &open_sb) != 0)
		return err_set(
		    err, ERR_UNAVAILABLE, NULL, "store: the database file cannot be read");
	at_path = stat(st->path, &path_sb) == 0;

	if (at_path && (path_sb.st_dev != st->dev || path_sb.st_ino != st->ino))
		return err_set(err, ERR_UNAVAILABLE, NULL,
		    "store: the database file %s was replaced under the running daemon: restart "
		    "it to use the new one",
		    st->path);
	if (open_sb.st_nlink == 0 || !at_path)
		return err_set(err, ERR_UNAVAILABLE, NULL,
		    "store: the database file %s was deleted under the running daemon: nothing "
		    "written now would last (restore it from a backup and restart)",
		    st->path);
	return 0;
}

/* A probe's busy handler: another writer may hold the lock this long (a commit), not
 * more (a lock kept: the store is locked). */
static int probe_wait(void *arg, int tries)
{
	(void)arg;
	if ((long long)tries * STORE_BUSY_STEP_US >= STORE_PROBE_WAIT_MS * 1000LL)
		return 0;
	nanosleep(&(struct timespec){0, STORE_BUSY_STEP_US * 1000L}, NULL);
	return 1;
}

int store_room(struct store *st, struct err *err)
{
	struct statvfs vfs;

	if (statvfs(st->path, &vfs) == 0 &&
	    (double)vfs.f_bavail * (double)vfs.f_frsize < (double)STORE_MIN_FREE_BYTES)
		return err_set(err, ERR_UNAVAILABLE, NULL,
		    "store: the disk of %s is full (%.0f bytes free, under the %ld kept in "
		    "reserve): creates and uploads are refused until there is more",
		    st->path, (double)vfs.f_bavail * (double)vfs.f_frsize, STORE_MIN_FREE_BYTES);
	return 0;
}

int store_health(struct store *st, struct err *err)
{
	sqlite3 *db;
	int rc, fault = atomic_load(&st->write_fault);

	if (store_identity(st, err) != 0)
		return -1;
	if (access(st->path, W_OK) != 0)
		return err_set(err, ERR_UNAVAILABLE, NULL,
		    "store: the database file %s is read-only (%s)", st->path, strerror(errno));
	if (store_room(st, err) != 0)
		return -1;
	if (fault)
		return err_set(err, ERR_UNAVAILABLE, NULL, "store: the last write failed: %s",
		    sqlite3_errstr(fault));
	db = store_conn(st, err);
	if (!db)
		return -1;
	/* the write lock, for a moment: a lock another process keeps is a store that
	 * cannot write */
	sqlite3_busy_handler(db, probe_wait, NULL);
	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_busy_handler(db, busy_wait, NULL);
	if (rc != SQLITE_OK)
		return err_set(err, ERR_UNAVAILABLE, NULL, "store: cannot write: %s",
		    (rc & 0xff) == SQLITE_BUSY ? "the database is locked by another process"
		                               : sqlite3_errstr(rc));
	return 0;
}

int store_open(const char *path, struct store **out, struct err *err)
{
	struct store *st = calloc(1, sizeof *st);
	sqlite3 *db;

	if (!st || !(st->path = strdup(path))) {
		free(st);
		return err_set(err, ERR_UNAVAILABLE, NULL, "store: out of memory");
	}
	st->fd = -1;
	if (sodium_init() < 0 || pthread_key_create(&st->key, slot_thread_exit) != 0) {
		free(st->path);
		free(st);
		return err_set(err, ERR_UNAVAILABLE, NULL, "store: cannot initialise");
	}
	pthread_mutex_init(&st->lock, NULL);
	db = store_conn(st, err);
	/* WAL is a property of the file: set once here, every later connection inherits it. */
	if (!db || exec_sql(db, "PRAGMA journal_mode=WAL", err) < 0 || store_migrate(db, err) < 0 ||
	    sum_cache_bytes(st, err) < 0 || make_files_private(path, err) < 0 ||
	    remember_file(st, err) < 0) {
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

void store_close(struct store *st)
{
	struct conn_slot *slot, *next;

	if (!st)
		return;
	/* Threads still alive (this one, at least) keep a slot: close them all here. */
	for (slot = st->slots; slot; slot = next) {
		next = slot->next;
		slot_free(slot);
	}
	pthread_setspecific(st->key, NULL);
	pthread_key_delete(st->key);
	pthread_mutex_destroy(&st->lock);
	if (st->fd >= 0)
		close(st->fd); /* after every connection: no lock of theirs left to drop */
	free(st->path);
	free(st);
}

int store_schema_version(struct store *st, struct err *err)
{
	sqlite3 *db = store_conn(st, err);

	return db ? user_version(db, err) : -1;
}

sqlite3_stmt *store_stmt(struct store *st, const char *sql, struct err *err)
{
	struct conn_slot *slot = slot_get(st, err);
	struct stmt_entry *e;

	if (!slot)
		return NULL;
	for (e = slot->stmts; e; e = e->next) {
		if (e->sql == sql || strcmp(e->sql, sql) == 0)
			return e->stmt;
	}
	e = calloc(1, sizeof *e);
	if (!e || !(e->sql = strdup(sql))) {
		free(e);
		err_set(err, ERR_UNAVAILABLE, NULL, "store: out of memory");
		return NULL;
	}
	if (sqlite3_prepare_v3(slot->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &e->stmt, NULL) !=
	    SQLITE_OK) {
		sqlite_fail(err, slot->db, "preparing a statement");
		free(e->sql);
		free(e);
		return NULL;
	}
	e->next = slot->stmts;
	slot->stmts = e;
	return e->stmt;
}

void store_stmt_done(sqlite3_stmt *stmt)
{
	if (!stmt)
		return;
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
}

/* Remember why db's last write failed (health), unless it was waiting for a lock. */
static void note_fault(struct store *st, sqlite3 *db)
{
	int rc = sqlite3_errcode(db) & 0xff;

	if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
		atomic_store(&st->write_fault, rc);
}

int store_begin(struct store *st, enum store_sync sync, struct err *err)
{
	struct conn_slot *slot = slot_get(st, err);

	if (!slot)
		return -1;
	if (sync == STORE_SYNC_FULL) {
		/* a write the client is told succeeded must land in the file it will find */
		if (store_identity(st, err) != 0)
			return -1;
		if (exec_sql(slot->db, "PRAGMA synchronous=FULL", err) < 0)
			return -1;
		slot->sync_full = 1;
	}
	if (exec_sql(slot->db, "BEGIN IMMEDIATE", err) < 0) {
		note_fault(st, slot->db);
		store_rollback(st);
		return -1;
	}
	return 0;
}

/* Back to the cache's durability after a transaction. */
static void restore_sync(struct conn_slot *slot)
{
	if (slot->sync_full) {
		sqlite3_exec(slot->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
		slot->sync_full = 0;
	}
}

int store_commit(struct store *st, struct err *err)
{
	struct conn_slot *slot = slot_get(st, err);
	int rc;

	if (!slot)
		return -1;
	/* deleted or replaced since it began: nothing of it would last */
	rc = slot->sync_full ? store_identity(st, err) : 0;
	if (rc == 0)
		rc = exec_sql(slot->db, "COMMIT", err);
	if (rc < 0) {
		note_fault(st, slot->db);
		sqlite3_exec(slot->db, "ROLLBACK", NULL, NULL, NULL);
	} else {
		atomic_store(&st->write_fault, 0);
	}
	restore_sync(slot);
	return rc;
}

void store_rollback(struct store *st)
{
	struct conn_slot *slot = pthread_getspecific(st->key);

	if (!slot)
		return;
	if (!sqlite3_get_autocommit(slot->db))
		sqlite3_exec(slot->db, "ROLLBACK", NULL, NULL, NULL);
	restore_sync(slot);
}

void store_cache_key(const char *core_version, const char *endpoint, const char *canonical,
    unsigned char key[STORE_KEY_BYTES])
{
	crypto_generichash_state h;

	crypto_generichash_init(&h, NULL, 0, STORE_KEY_BYTES);
	crypto_generichash_update(
	    &h, (const unsigned char *)core_version, strlen(core_version) + 1);
	crypto_generichash_update(&h, (const unsigned char *)endpoint, strlen(endpoint) + 1);
	crypto_generichash_update(&h, (const unsigned char *)canonical, strlen(canonical) + 1);
	crypto_generichash_final(&h, key, STORE_KEY_BYTES);
}

static const char sql_cache_get[] = "SELECT answer FROM answer_cache WHERE key = ?1";
static const char sql_cache_put[] =
    "INSERT OR REPLACE INTO answer_cache (key, core_version, endpoint, answer, created_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5)";

int store_cache_get(struct store *st, const unsigned char key[STORE_KEY_BYTES], char **answer,
    size_t *len, struct err *err)
{
	sqlite3_stmt *stmt = store_stmt(st, sql_cache_get, err);
	int rc, found = -1;
	size_t n;

	if (!stmt)
		return -1;
	sqlite3_bind_blob(stmt, 1, key, STORE_KEY_BYTES, SQLITE_STATIC);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE) {
		found = 0;
	} else if (rc != SQLITE_ROW) {
		sqlite_fail(err, sqlite3_db_handle(stmt), "reading the cache");
	} else {
		n = (size_t)sqlite3_column_bytes(stmt, 0);
		*answer = malloc(n + 1);
		if (!*answer) {
			err_set(err, ERR_UNAVAILABLE, NULL, "store: out of memory");
		} else {
			memcpy(*answer, sqlite3_column_text(stmt, 0), n);
			(*answer)[n] = '\0';
			*len = n;
			found = 1;
		}
	}
	store_stmt_done(stmt);
	return found;
}

int store_cache_put(struct store *st, const unsigned char key[STORE_KEY_BYTES],
    const char *core_version, const char *endpoint, const char *answer, size_t len, struct err *err)
{
	sqlite3_stmt *stmt;
	int rc = 0, step;
	long limit;

	/* too large to cache: the WAL's bound holds for large answers too (store/knobs.h) */
	if (len > (size_t)STORE_CACHE_MAX_ANSWER)
		return 0;
	stmt = store_stmt(st, sql_cache_put, err);
	if (!stmt)
		return -1;
	sqlite3_bind_blob(stmt, 1, key, STORE_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, core_version, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, endpoint, -1, SQLITE_STATIC);
	sqlite3_bind_text64(stmt, 4, answer, len, SQLITE_STATIC, SQLITE_UTF8);
	sqlite3_bind_int64(stmt, 5, (sqlite3_int64)time(NULL));
	limit = store_busy_limit(STORE_CACHE_BUSY_MS);
	step = sqlite3_step(stmt);
	store_busy_limit(limit);
	if ((step & 0xff) == SQLITE_BUSY)
		rc = 1; /* another writer holds the lock: not kept, no harm done */
	else if (step != SQLITE_DONE)
		rc = sqlite_fail(err, sqlite3_db_handle(stmt), "writing the cache");
	else
		atomic_fetch_add(&st->cache_bytes, (long long)len);
	store_stmt_done(stmt);
	return rc;
}

long long store_cache_bytes(struct store *st)
{
	return atomic_load(&st->cache_bytes);
}

/* Oldest answers first (ids grow with every put, a replaced answer included). */
static const char sql_cache_evict[] =
    "DELETE FROM answer_cache WHERE id IN (SELECT id FROM answer_cache ORDER BY id LIMIT ?1)"
    " RETURNING length(answer)";

int store_cache_evict(struct store *st, long long max_bytes, long *evicted, struct err *err)
{
	long long target = max_bytes - max_bytes / 10; /* a tenth below: not at every put */
	int rc = 0, batch = 8;

	*evicted = 0;
	if (max_bytes <= 0 || atomic_load(&st->cache_bytes) <= max_bytes)
		return 0;
	while (rc == 0 && atomic_load(&st->cache_bytes) > target) {
		sqlite3_stmt *stmt = store_stmt(st, sql_cache_evict, err);
		long long freed = 0;
		long rows = 0;
		int step;

		if (!stmt)
			return -1;
		sqlite3_bind_int(stmt, 1, batch);
		while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
			freed += sqlite3_column_int64(stmt, 0);
			rows++;
		}
		if (step != SQLITE_DONE)
			rc = sqlite_fail(err, sqlite3_db_handle(stmt), "evicting from the cache");
		store_stmt_done(stmt);
		*evicted += rows;
		if (rc == 0 && rows == 0) {
			atomic_store(&st->cache_bytes, 0); /* empty: the count is exact again */
			break;
		}
		atomic_fetch_sub(&st->cache_bytes, freed);
		/* Grow the batch while far from the target, so that big answers are not
		 * over-evicted and small ones are not deleted a few at a time. */
		if (atomic_load(&st->cache_bytes) - target > 2 * freed && batch < STORE_EVICT_BATCH)
			batch *= 2;
	}
	return rc;
}

long long store_wal_bytes(struct store *st)
{
	char wal[4096];
	struct stat sb;

	snprintf(wal, sizeof wal, "%s-wal", st->path);
	return stat(wal, &sb) == 0 ? (long long)sb.st_size : 0;
}

int store_checkpoint(struct store *st, struct err *err)
{
	sqlite3 *db = store_conn(st, err);
	int rc, attempt;

	if (!db)
		return -1;
	/* TRUNCATE waits (busy timeout) for readers of old snapshots, holding new writers
	 * off, copies every frame back and empties the file: the WAL cannot outgrow what one
	 * period writes. It fails at once, without waiting, while a writer's automatic
	 * (passive) checkpoint runs: those are short, so try again shortly. */
	for (attempt = 0;; attempt++) {
		int frames = -1;

		rc = sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &frames, NULL);
		if (rc != SQLITE_BUSY || frames >= 0 || attempt == STORE_CHECKPOINT_TRIES)
			break;
		sqlite3_sleep(1);
	}
	if (rc != SQLITE_OK && rc != SQLITE_BUSY)
		return sqlite_fail(err, db, "checkpointing the WAL");
	return 0;
}

int store_backup(struct store *st, const char *dest_path, struct err *err)
{
	sqlite3 *src = store_conn(st, err), *dest = NULL;
	sqlite3_backup *b;
	int rc = -1, step;

	if (!src)
		return -1;
	if (sqlite3_open_v2(dest_path, &dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		sqlite_fail(err, dest, dest_path);
		goto out;
	}
	b = sqlite3_backup_init(dest, "main", src, "main");
	if (!b) {
		sqlite_fail(err, dest, "starting the backup");
		goto out;
	}
	/* A page batch at a time, so the daemon's writers get the file between batches; a
	 * write meanwhile restarts the copy from a consistent snapshot. */
	do {
		step = sqlite3_backup_step(b, STORE_BACKUP_PAGES);
		if (step == SQLITE_BUSY || step == SQLITE_LOCKED)
			sqlite3_sleep(10);
	} while (step == SQLITE_OK || step == SQLITE_BUSY || step == SQLITE_LOCKED);
	sqlite3_backup_finish(b);
	if (step != SQLITE_DONE) {
		sqlite_fail(err, dest, "copying the database");
		goto out;
	}
	/* The copy is a plain single file: no WAL beside it to lose when it is copied on. */
	if (exec_sql(dest, "PRAGMA journal_mode=DELETE", err) < 0)
		goto out;
	rc = 0;
out:
	sqlite3_close(dest);
	return rc;
}

static int answer_cache_get(void *ctx, const char *endpoint, const char *canonical, char **answer,
    size_t *len, struct err *err)
{
	const struct store_cache *c = ctx;
	unsigned char key[STORE_KEY_BYTES];

	store_cache_key(c->core_version, endpoint, canonical, key);
	return store_cache_get(c->st, key, answer, len, err);
}

static int answer_cache_put(void *ctx, const char *endpoint, const char *canonical,
    const char *answer, size_t len, struct err *err)
{
	const struct store_cache *c = ctx;
	unsigned char key[STORE_KEY_BYTES];

	store_cache_key(c->core_version, endpoint, canonical, key);
	return store_cache_put(c->st, key, c->core_version, endpoint, answer, len, err);
}

void store_cache_bind(struct store_cache *c, struct store *st, const char *core_version)
{
	c->st = st;
	c->core_version = core_version;
	c->cache.ctx = c;
	c->cache.get = answer_cache_get;
	c->cache.put = answer_cache_put;
}
