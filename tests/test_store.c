/*
 * test_store.c: the SQLite store: migrations, the answer cache, cache keys,
 * per-thread connections, cached statements and durable transactions.
 *
 * Every test works in its own mkdtemp() directory.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/calstore.h"
#include "store/store.h"
#include "store/knobs.h"

static char dir[256];
static char db_path[300];

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof dir, "%s/test_store.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db_path, sizeof db_path, "%s/contactd.db", dir);
}

static void teardown(void)
{
	char path[320];
	static const char *const files[] = {"contactd.db", "contactd.db-wal", "contactd.db-shm"};
	size_t i;

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static struct store *open_store(void)
{
	struct store *st = NULL;
	struct err e;

	err_clear(&e);
	ck_assert_msg(store_open(db_path, &st, &e) == 0, "store_open: %s", e.message);
	return st;
}

static int newest_version(void)
{
	return store_migrations[store_migration_count - 1].version;
}

/* Run sql on a private connection (not the store's) and return the first column. */
static char *query_text(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	char *out = NULL;

	ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		out = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
	return out;
}

START_TEST(migrations_numbered_from_one)
{
	size_t i;

	ck_assert_uint_gt(store_migration_count, 0);
	for (i = 0; i < store_migration_count; i++) {
		char prefix[16];

		ck_assert_int_eq(store_migrations[i].version, (int)i + 1);
		snprintf(prefix, sizeof prefix, "%03d_", store_migrations[i].version);
		ck_assert_msg(strncmp(store_migrations[i].name, prefix, 4) == 0, "%s",
		    store_migrations[i].name);
	}
}
END_TEST

/* Every schema/NNN_*.sql of the source tree is embedded: none forgotten by the build. */
START_TEST(every_schema_file_embedded)
{
	const char *srcdir = getenv("srcdir");
	char path[512];
	struct dirent *ent;
	size_t files = 0, i;
	DIR *d;

	snprintf(path, sizeof path, "%s/schema", srcdir ? srcdir : ".");
	d = opendir(path);
	ck_assert_msg(d != NULL, "cannot open %s", path);
	while ((ent = readdir(d))) {
		size_t n = strlen(ent->d_name);
		int found = 0;

		if (n < 8 || strcmp(ent->d_name + n - 4, ".sql") != 0)
			continue;
		files++;
		for (i = 0; i < store_migration_count; i++)
			found |= strcmp(store_migrations[i].name, ent->d_name) == 0;
		ck_assert_msg(found, "%s is not embedded", ent->d_name);
	}
	closedir(d);
	ck_assert_uint_eq(files, store_migration_count);
}
END_TEST

START_TEST(open_migrates_and_uses_wal)
{
	struct store *st = open_store();
	struct err e;
	char *mode, *table;

	ck_assert_int_eq(store_schema_version(st, &e), newest_version());
	store_close(st);
	mode = query_text("PRAGMA journal_mode");
	table = query_text("SELECT name FROM sqlite_master WHERE name = 'answer_cache'");
	ck_assert_str_eq(mode, "wal");
	ck_assert_str_eq(table, "answer_cache");
	free(mode);
	free(table);
}
END_TEST

/* A second open applies nothing again and keeps the data. */
START_TEST(reopen_keeps_cache)
{
	unsigned char key[STORE_KEY_BYTES];
	struct store *st = open_store();
	char *answer = NULL;
	size_t len = 0;
	struct err e;

	store_cache_key("core-x", "rest", "{}\n", key);
	ck_assert_int_eq(store_cache_put(st, key, "core-x", "rest", "{\"a\":1}\n", 8, &e), 0);
	store_close(st);
	st = open_store();
	ck_assert_int_eq(store_schema_version(st, &e), newest_version());
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 1);
	ck_assert_str_eq(answer, "{\"a\":1}\n");
	ck_assert_uint_eq(len, 8);
	free(answer);
	store_close(st);
}
END_TEST

/* A database written by a newer contactd is refused, not damaged. */
START_TEST(newer_schema_refused)
{
	struct store *st = open_store();
	char sql[64], *version;
	sqlite3 *db;
	struct err e;

	store_close(st);
	ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", newest_version() + 1);
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	st = NULL;
	err_clear(&e);
	ck_assert_int_eq(store_open(db_path, &st, &e), -1);
	ck_assert_ptr_null(st);
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	ck_assert_ptr_nonnull(strstr(e.message, "newer"));
	version = query_text("PRAGMA user_version");
	ck_assert_int_eq(atoi(version), newest_version() + 1);
	free(version);
}
END_TEST

START_TEST(unopenable_path_fails)
{
	char path[320];
	struct store *st = NULL;
	struct err e;

	snprintf(path, sizeof path, "%s/no/such/dir/x.db", dir);
	err_clear(&e);
	ck_assert_int_eq(store_open(path, &st, &e), -1);
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	ck_assert_ptr_null(st);
}
END_TEST

START_TEST(cache_miss_put_hit_replace)
{
	static const char text[] = "{\"q\":\"a \\\"quoted\\\" 'text'\"}\n";
	unsigned char key[STORE_KEY_BYTES];
	struct store *st = open_store();
	char *answer = NULL;
	size_t len = 0;
	struct err e;

	store_cache_key("core-1", "drop", "{\"height\":0.1}\n", key);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 0);
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "drop", text, strlen(text), &e), 0);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 1);
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_mem_eq(answer, text, len);
	free(answer);
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "drop", "2\n", 2, &e), 0);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 1);
	ck_assert_str_eq(answer, "2\n");
	free(answer);
	store_close(st);
}
END_TEST

/* A question does not wait out another writer's long hold of the write lock (an upload's
 * durable commit, a checkpoint) to cache its answer: store_cache_put() gives up after
 * STORE_CACHE_BUSY_MS with 1, nothing stored and no error (before, it waited
 * STORE_BUSY_TIMEOUT_MS and failed); once the lock is free, the answer is kept again. */
START_TEST(cache_put_gives_way_to_a_writer)
{
	unsigned char key[STORE_KEY_BYTES];
	struct store *st = open_store();
	char *answer = NULL;
	size_t len = 0;
	sqlite3 *other;
	struct err e;

	err_clear(&e);
	store_cache_key("core-1", "drop", "{\"height\":0.2}\n", key);
	ck_assert_int_eq(sqlite3_open(db_path, &other), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "drop", "1\n", 2, &e), 1);
	ck_assert_int_eq(e.code, ERR_NONE);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 0);
	ck_assert_int_eq(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "drop", "1\n", 2, &e), 0);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 1);
	ck_assert_str_eq(answer, "1\n");
	free(answer);
	store_close(st);
}
END_TEST

/* An answer over STORE_CACHE_MAX_ANSWER (an 8 MB eval answer, issue 32) is not kept:
 * a miss, the cache's byte count and the WAL unchanged by it; one at the cap is kept. */
START_TEST(cache_large_answer_not_kept)
{
	const size_t big = 8 * 1024 * 1024, cap = (size_t)STORE_CACHE_MAX_ANSWER;
	unsigned char key[STORE_KEY_BYTES];
	struct store *st = open_store();
	char *text = malloc(big + 1), *answer = NULL;
	long long wal_before;
	size_t len = 0;
	struct err e;

	ck_assert_ptr_nonnull(text);
	memset(text, 'x', big);
	text[big] = '\0';
	store_cache_key("core-1", "eval", "{}\n", key);
	wal_before = store_wal_bytes(st);
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "eval", text, big, &e), 0);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 0);
	ck_assert_int_eq(store_cache_bytes(st), 0);
	ck_assert_int_eq(store_wal_bytes(st), wal_before);
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "eval", text, cap, &e), 0);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 1);
	ck_assert_uint_eq(len, cap);
	free(answer);
	free(text);
	store_close(st);
}
END_TEST

/*
 * The store notices it is gone (issue 32: an upload acknowledged into a deleted
 * database): deleted under it, a durable transaction fails to begin (503) and the
 * health check says so; its answer cache, a copy, may go on. Before, both said ok.
 */
START_TEST(deleted_database_noticed)
{
	static const char *const suffixes[] = {"", "-wal", "-shm"};
	struct store *st = open_store();
	char path[400];
	struct err e;
	size_t i;

	ck_assert_int_eq(store_identity(st, &e), 0);
	ck_assert_msg(store_health(st, &e) == 0, "%s", e.message);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s%s", db_path, suffixes[i]);
		unlink(path);
	}
	ck_assert_int_eq(store_identity(st, &e), -1);
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	ck_assert_msg(strstr(e.message, "deleted"), "%s", e.message);
	ck_assert_int_eq(store_health(st, &e), -1);
	ck_assert_int_eq(store_begin(st, STORE_SYNC_FULL, &e), -1);
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	store_close(st);
}
END_TEST

/* Replaced by another file at its path (a restore while it runs): not ok either. */
START_TEST(replaced_database_noticed)
{
	struct store *st = open_store();
	char other[400];
	struct err e;
	FILE *f;

	snprintf(other, sizeof other, "%s.new", db_path);
	f = fopen(other, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(rename(other, db_path), 0);
	ck_assert_int_eq(store_identity(st, &e), -1);
	ck_assert_msg(strstr(e.message, "replaced"), "%s", e.message);
	ck_assert_int_eq(store_health(st, &e), -1);
	ck_assert_int_eq(store_begin(st, STORE_SYNC_FULL, &e), -1);
	store_close(st);
}
END_TEST

/* Locked by another process's transaction: the health check says so within
 * STORE_PROBE_WAIT_MS, and is ok again once the lock is let go. */
START_TEST(locked_database_noticed)
{
	struct store *st = open_store();
	sqlite3 *other;
	struct err e;

	ck_assert_int_eq(sqlite3_open(db_path, &other), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(store_health(st, &e), -1);
	ck_assert_msg(strstr(e.message, "locked"), "%s", e.message);
	ck_assert_int_eq(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	ck_assert_msg(store_health(st, &e) == 0, "%s", e.message);
	store_close(st);
}
END_TEST

/*
 * The key is BLAKE2b-256 over "core\0endpoint\0canonical\0". Expected value computed
 * independently with Python: hashlib.blake2b(b'core-1\x00drop\x00{"height":0.1}\n\x00',
 * digest_size=32).hexdigest(). Exact: a hash either matches or it does not.
 */
START_TEST(cache_key_known_answer)
{
	static const char expect[] =
	    "17c999510c7cee41bd817448c61c86413d8a7854561e76114de57120de7d5eb1";
	unsigned char key[STORE_KEY_BYTES];
	char hex[2 * STORE_KEY_BYTES + 1];
	size_t i;

	store_cache_key("core-1", "drop", "{\"height\":0.1}\n", key);
	for (i = 0; i < STORE_KEY_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	ck_assert_str_eq(hex, expect);
}
END_TEST

START_TEST(cache_key_separates_fields)
{
	unsigned char a[STORE_KEY_BYTES], b[STORE_KEY_BYTES];

	store_cache_key("core-1", "drop", "{}", a);
	store_cache_key("core-1", "drop", "{}", b);
	ck_assert_mem_eq(a, b, STORE_KEY_BYTES);
	store_cache_key("core-2", "drop", "{}", b);
	ck_assert_int_ne(memcmp(a, b, STORE_KEY_BYTES), 0);
	store_cache_key("core-1", "rest", "{}", b);
	ck_assert_int_ne(memcmp(a, b, STORE_KEY_BYTES), 0);
	/* The NUL separators keep "core-1"+"drop" apart from "core-1d"+"rop". */
	store_cache_key("core-1d", "rop", "{}", b);
	ck_assert_int_ne(memcmp(a, b, STORE_KEY_BYTES), 0);
}
END_TEST

struct thread_probe {
	struct store *st;
	sqlite3 *db;
	int found;
};

static void *probe_thread(void *p)
{
	struct thread_probe *t = p;
	unsigned char key[STORE_KEY_BYTES];
	char *answer = NULL;
	size_t len;
	struct err e;

	t->db = store_conn(t->st, &e);
	store_cache_key("core-1", "rest", "shared", key);
	t->found = store_cache_get(t->st, key, &answer, &len, &e);
	free(answer);
	return NULL;
}

/* Each thread has its own connection, and sees what another committed. */
START_TEST(connection_per_thread)
{
	struct store *st = open_store();
	struct thread_probe probe = {.st = st};
	unsigned char key[STORE_KEY_BYTES];
	pthread_t thread;
	struct err e;
	sqlite3 *mine = store_conn(st, &e);

	ck_assert_ptr_nonnull(mine);
	ck_assert_ptr_eq(store_conn(st, &e), mine);
	store_cache_key("core-1", "rest", "shared", key);
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "rest", "1\n", 2, &e), 0);
	ck_assert_int_eq(pthread_create(&thread, NULL, probe_thread, &probe), 0);
	ck_assert_int_eq(pthread_join(thread, NULL), 0);
	ck_assert_ptr_nonnull(probe.db);
	ck_assert_ptr_ne(probe.db, mine);
	ck_assert_int_eq(probe.found, 1);
	store_close(st);
}
END_TEST

START_TEST(statement_cached_by_text)
{
	struct store *st = open_store();
	char sql[] = "SELECT count(*) FROM answer_cache";
	char copy[sizeof sql];
	sqlite3_stmt *a, *b;
	struct err e;

	memcpy(copy, sql, sizeof sql);
	a = store_stmt(st, sql, &e);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(sqlite3_step(a), SQLITE_ROW);
	store_stmt_done(a);
	b = store_stmt(st, copy, &e);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(sqlite3_step(b), SQLITE_ROW);
	store_stmt_done(b);
	err_clear(&e);
	ck_assert_ptr_null(store_stmt(st, "SELECT nonsense FROM nowhere", &e));
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	store_close(st);
}
END_TEST

static int pragma_synchronous(struct store *st)
{
	struct err e;
	sqlite3_stmt *s = store_stmt(st, "PRAGMA synchronous", &e);
	int v;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int(s, 0);
	store_stmt_done(s);
	return v;
}

/* FULL durability lasts for one transaction; rollback discards, commit keeps. */
START_TEST(durable_transactions)
{
	struct store *st = open_store();
	unsigned char key[STORE_KEY_BYTES];
	char *answer = NULL;
	size_t len;
	struct err e;

	store_cache_key("core-1", "eval", "tx", key);
	ck_assert_int_eq(pragma_synchronous(st), 1); /* NORMAL */
	ck_assert_int_eq(store_begin(st, STORE_SYNC_FULL, &e), 0);
	ck_assert_int_eq(pragma_synchronous(st), 2); /* FULL */
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "eval", "1\n", 2, &e), 0);
	store_rollback(st);
	ck_assert_int_eq(pragma_synchronous(st), 1);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 0);
	ck_assert_int_eq(store_begin(st, STORE_SYNC_FULL, &e), 0);
	ck_assert_int_eq(store_cache_put(st, key, "core-1", "eval", "1\n", 2, &e), 0);
	ck_assert_int_eq(store_commit(st, &e), 0);
	ck_assert_int_eq(pragma_synchronous(st), 1);
	ck_assert_int_eq(store_cache_get(st, key, &answer, &len, &e), 1);
	free(answer);
	store_close(st);
}
END_TEST

#define WRITERS 4
#define WRITES 100

static void *writer_thread(void *p)
{
	struct store *st = p;
	long failures = 0;
	int i;

	for (i = 0; i < WRITES; i++) {
		unsigned char key[STORE_KEY_BYTES];
		char canonical[64];
		struct err e;

		snprintf(canonical, sizeof canonical, "%p/%d", (void *)pthread_self(), i);
		store_cache_key("core-1", "drop", canonical, key);
		/* in a transaction of its own: BEGIN IMMEDIATE waits as every writer does (a
		 * lone cache put gives way instead, cache_put_gives_way_to_a_writer) */
		if (store_begin(st, STORE_SYNC_NORMAL, &e) != 0) {
			failures++;
			continue;
		}
		failures += store_cache_put(
		                st, key, "core-1", "drop", canonical, strlen(canonical), &e) != 0;
		failures += store_commit(st, &e) != 0;
	}
	return (void *)failures;
}

/* Writers on many threads wait for each other (busy timeout) instead of failing. */
START_TEST(concurrent_writers)
{
	struct store *st = open_store();
	pthread_t threads[WRITERS];
	char *count;
	int i;

	for (i = 0; i < WRITERS; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, writer_thread, st), 0);
	for (i = 0; i < WRITERS; i++) {
		void *failures;

		ck_assert_int_eq(pthread_join(threads[i], &failures), 0);
		ck_assert_ptr_null(failures);
	}
	store_close(st);
	count = query_text("SELECT count(*) FROM answer_cache");
	ck_assert_int_eq(atoi(count), WRITERS * WRITES);
	free(count);
}
END_TEST

/* ---- the calibration tables (store/calstore.h) ---- */

static size_t presses_of(const json_t *all)
{
	return json_array_size(json_object_get(all, "presses"));
}

/*
 * How the SQLite calibration store runs its statements: every row of a list read, in the
 * statement's order; a row not as the store writes it refused as a store failure; an upload
 * whose check fails undone whole; a replayed Idempotency-Key and a claim with nothing
 * pending write nothing and leave no transaction open; not-found errors named.
 */
START_TEST(calstore_statements)
{
	struct store *st = open_store();
	const unsigned char hash[CALSTORE_HASH_BYTES] = {1, 2, 3};
	const struct calstore_idem idem = {"key-1", {7}, 3600}, other = {"key-1", {8}, 3600};
	unsigned char secret1[CALSTORE_SECRET_BYTES], secret2[CALSTORE_SECRET_BYTES];
	json_t *upload = json_loads("{\"presses\":[{\"force\":1},{\"force\":2}]}", 0, NULL);
	json_t *list = NULL, *all = NULL, *deleted = NULL;
	char robot[CALSTORE_NAME_MAX], lab[CALSTORE_NAME_MAX], want[160], *setup = NULL;
	struct calstore_receipt rec;
	struct calstore_write *tx = NULL;
	struct calstore_claim claim;
	char *replay = NULL;
	int same = 0;
	struct calstore_token tok;
	long long cal = 0, up, fit = 0, claimed = 0;
	struct err e;
	sqlite3 *db;

	err_clear(&e);
	ck_assert_ptr_nonnull(upload);
	db = store_conn(st, &e);
	ck_assert_ptr_nonnull(db);
	ck_assert_int_eq(
	    calstore_token_create(st, CALSTORE_ROBOT, "zeta", "lab1", 0, "t1", hash, &e), 0);
	ck_assert_int_eq(
	    calstore_token_create(st, CALSTORE_ROBOT, "alpha", NULL, 0, "t2", hash, &e), 0);
	ck_assert_int_eq(
	    calstore_token_create(st, CALSTORE_VIEWER, NULL, "lab1", 4102444800LL, "t3", hash, &e),
	    0);
	/* ordered by robot name ("" for a lab viewer), a robot token showing its robot's lab */
	ck_assert_int_eq(calstore_token_list(st, &list, &e), 0);
	ck_assert_uint_eq(json_array_size(list), 3);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "id")), "t3");
	ck_assert(json_is_null(json_object_get(json_array_get(list, 0), "robot")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(list, 0), "expires_at")),
	    4102444800LL);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 1), "id")), "t2");
	ck_assert(json_is_null(json_object_get(json_array_get(list, 1), "lab")));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 2), "id")), "t1");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_array_get(list, 2), "lab")), "lab1");
	json_decref(list);
	ck_assert_int_eq(calstore_token_get(st, "t1", &tok, &e), 1);
	ck_assert_int_eq(tok.role, CALSTORE_ROBOT);
	ck_assert_str_eq(tok.robot, "zeta");
	ck_assert_int_eq(memcmp(tok.hash, hash, sizeof hash), 0);
	ck_assert_int_eq(calstore_token_get(st, "nobody", &tok, &e), 0);
	ck_assert_int_eq(calstore_robot_lab(st, "zeta", lab, &e), 1);
	ck_assert_str_eq(lab, "lab1");
	ck_assert_int_eq(calstore_robot_lab(st, "nobody", lab, &e), 0);
	ck_assert_int_eq(calstore_token_revoke(st, "nobody", &e), -1);
	ck_assert_int_eq(e.code, ERR_NOT_FOUND);
	ck_assert_str_eq(e.message, "no token nobody");
	ck_assert_int_eq(sqlite3_get_autocommit(db), 1);
	err_clear(&e);

	/* a calibration whose setup names its id */
	ck_assert_int_eq(calstore_create_begin(st, "alpha", &tx, &e), 0);
	ck_assert_int_eq(calstore_calibration_add(tx, &cal, &e), 0);
	snprintf(want, sizeof want, "{\"calibration\":%lld}", cal);
	ck_assert_int_eq(calstore_calibration_setup(tx, cal, want, &e), 0);
	ck_assert_int_eq(calstore_write_end(tx, 1, &e), 0);
	ck_assert_int_eq(sqlite3_get_autocommit(db), 1);
	ck_assert_int_eq(calstore_calibration_get(st, cal, robot, lab, &setup, &e), 1);
	ck_assert_str_eq(setup, want);
	ck_assert_str_eq(robot, "alpha");
	free(setup);
	setup = NULL;
	/* an upload rolled back (its checks refused it) leaves nothing */
	ck_assert_int_eq(calstore_upload_begin(st, cal, robot, lab, &setup, &tx, &e), 1);
	ck_assert_str_eq(robot, "alpha");
	ck_assert_str_eq(setup, want);
	free(setup);
	setup = NULL;
	ck_assert_int_eq(calstore_upload_add(tx, upload, &rec, &e), 0);
	ck_assert_int_eq(calstore_upload_measurements(tx, &all, &e), 0);
	ck_assert_uint_eq(presses_of(all), 2);
	json_decref(all);
	calstore_receipt_clear(&rec);
	ck_assert_int_eq(calstore_write_end(tx, 0, &e), 0);
	ck_assert_int_eq(sqlite3_get_autocommit(db), 1);
	ck_assert_int_eq(calstore_measurements(st, cal, &all, &e), 0);
	ck_assert_uint_eq(presses_of(all), 0);
	json_decref(all);
	/* an unknown calibration: no transaction */
	ck_assert_int_eq(calstore_upload_begin(st, cal + 1, robot, lab, &setup, &tx, &e), 0);
	ck_assert_ptr_null(tx);
	ck_assert_int_eq(sqlite3_get_autocommit(db), 1);
	/* with a key: stored once; the same again replays the answer kept then */
	ck_assert_int_eq(calstore_upload_begin(st, cal, robot, lab, &setup, &tx, &e), 1);
	free(setup);
	setup = NULL;
	ck_assert_int_eq(calstore_idem_find(tx, &idem, &same, &replay, &e), 0);
	ck_assert_int_eq(calstore_upload_add(tx, upload, &rec, &e), 0);
	ck_assert_uint_eq(presses_of(rec.ids), 2);
	up = rec.upload_id;
	fit = rec.fit_id;
	ck_assert_int_gt(fit, 0);
	snprintf(want, sizeof want, "{\"upload\":%lld}", up);
	ck_assert_int_eq(calstore_idem_keep(tx, &idem, up, want, &e), 0);
	calstore_receipt_clear(&rec);
	ck_assert_int_eq(calstore_write_end(tx, 1, &e), 0);
	ck_assert_int_eq(calstore_upload_begin(st, cal, robot, lab, &setup, &tx, &e), 1);
	free(setup);
	setup = NULL;
	ck_assert_int_eq(calstore_idem_find(tx, &idem, &same, &replay, &e), 1);
	ck_assert_int_eq(same, 1);
	ck_assert_str_eq(replay, want);
	free(replay);
	replay = NULL;
	ck_assert_int_eq(calstore_write_end(tx, 0, &e), 0);
	/* the key with another fingerprint is found as such (the caller refuses it) */
	ck_assert_int_eq(calstore_upload_begin(st, cal, robot, lab, &setup, &tx, &e), 1);
	free(setup);
	setup = NULL;
	ck_assert_int_eq(calstore_idem_find(tx, &other, &same, &replay, &e), 1);
	ck_assert_int_eq(same, 0);
	ck_assert_ptr_null(replay);
	ck_assert_int_eq(calstore_write_end(tx, 0, &e), 0);
	ck_assert_int_eq(sqlite3_get_autocommit(db), 1);
	ck_assert_int_eq(calstore_measurements(st, cal, &all, &e), 0);
	ck_assert_uint_eq(presses_of(all), 2);
	json_decref(all);
	/* the pending fit is claimed with every measurement; then there is none to claim */
	ck_assert_int_eq(calstore_fit_claim(st, cal, &claim, &e), 1);
	claimed = claim.fit_id;
	ck_assert_int_eq(claimed, fit);
	ck_assert_uint_eq(presses_of(claim.all), 2);
	calstore_claim_clear(&claim);
	ck_assert_int_eq(calstore_fit_claim(st, cal, &claim, &e), 0);
	calstore_claim_clear(&claim);
	ck_assert_int_eq(sqlite3_get_autocommit(db), 1);
	/* deleting the upload takes both presses and leaves a new pending fit; twice: not found */
	ck_assert_int_eq(calstore_delete(st, cal, 0, up, &deleted, &fit, &e), 0);
	ck_assert_uint_eq(presses_of(deleted), 2);
	ck_assert_int_gt(fit, claimed);
	json_decref(deleted);
	ck_assert_int_eq(calstore_delete(st, cal, 0, up, &deleted, &fit, &e), -1);
	ck_assert_int_eq(e.code, ERR_NOT_FOUND);
	snprintf(want, sizeof want, "calibration %lld has no upload %lld", cal, up);
	ck_assert_str_eq(e.message, want);
	ck_assert_int_eq(sqlite3_get_autocommit(db), 1);
	err_clear(&e);
	/* at a restart, the calibrations with a pending fit */
	ck_assert_int_eq(calstore_fit_recover(st, &list, &e), 0);
	ck_assert_uint_eq(json_array_size(list), 1);
	ck_assert_int_eq(json_integer_value(json_array_get(list, 0)), cal);
	json_decref(list);
	/* a measurement whose body is not JSON was not written by the store: a store failure */
	snprintf(want, sizeof want,
	    "INSERT INTO measurements (calibration_id, kind, body, created_at) "
	    "VALUES (%lld, 'press', 'not json', 0)",
	    cal);
	ck_assert_int_eq(sqlite3_exec(db, want, NULL, NULL, NULL), SQLITE_OK);
	all = NULL;
	ck_assert_int_eq(calstore_measurements(st, cal, &all, &e), -1);
	ck_assert_ptr_null(all);
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	ck_assert_msg(
	    strncmp(e.message, "store: reading measurements: ", 29) == 0, "%s", e.message);
	err_clear(&e);
	/* a secret is made once */
	ck_assert_int_eq(calstore_secret(st, "watch", secret1, &e), 0);
	ck_assert_int_eq(calstore_secret(st, "watch", secret2, &e), 0);
	ck_assert_int_eq(memcmp(secret1, secret2, sizeof secret1), 0);
	json_decref(upload);
	store_close(st);
}
END_TEST

/* GET /v1/calibrations/{id}/fits is bounded: of 510 done fits (and a pending one), the
 * newest STORE_FIT_LIST_MAX_TEXT, oldest first, and none of another calibration's. */
START_TEST(fit_list_bounded)
{
	struct store *st = open_store();
	long max = strtol(STORE_FIT_LIST_MAX_TEXT, NULL, 10);
	json_t *list = NULL;
	sqlite3 *db;
	struct err e;
	size_t i;

	err_clear(&e);
	ck_assert_int_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db,
	                     "INSERT INTO robots (id, name, created_at) VALUES (1, 'r', 0);"
	                     "INSERT INTO calibrations (id, robot_id, setup, created_at) VALUES "
	                     "(1, 1, '{}', 0), (2, 1, '{}', 0);"
	                     "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n "
	                     "WHERE k < 510) INSERT INTO fits (calibration_id, measurements, fit, "
	                     "created_at, state) SELECT 1 + (k % 2 = 0 AND k > 505), 1, "
	                     "'{\"k\": ' || k || '}', 0, 'done' FROM n;"
	                     "INSERT INTO fits (calibration_id, measurements, fit, created_at, "
	                     "state) VALUES (1, 1, '{}', 0, 'pending');",
	                     NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	ck_assert_int_eq(calstore_fit_list(st, 1, &list, &e), 0);
	ck_assert_int_eq(json_array_size(list), max);
	/* calibration 1 holds fits 1..505 and 507, 509 (507 done): the newest max of them
	 * begin at id 508 - max while max <= 505 */
	ck_assert_int_le(max, 505);
	for (i = 1; i < json_array_size(list); i++)
		ck_assert_int_lt(
		    json_integer_value(json_object_get(json_array_get(list, i - 1), "id")),
		    json_integer_value(json_object_get(json_array_get(list, i), "id")));
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_array_get(list, max - 1), "id")), 509);
	ck_assert_int_eq(
	    json_integer_value(json_object_get(json_array_get(list, 0), "id")), 508 - max);
	json_decref(list);
	store_close(st);
}
END_TEST

/* Write s to file path (for a user namespace's maps). */
static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s", path);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * A tmpfs of mb MiB at dir, in a mount namespace of this test's process alone (Check forks
 * each test): as root a namespace of its own, else in a user namespace too (unprivileged
 * user namespaces). Propagation is made private first, so nothing shows outside.
 */
static void mount_small_disk(int mb)
{
	char opts[32], map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWNS) != 0) {
		ck_assert_msg(unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0,
		    "no mount namespace for a small tmpfs: %s", strerror(errno));
		write_text("/proc/self/setgroups", "deny");
		snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
		write_text("/proc/self/uid_map", map);
		snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
		write_text("/proc/self/gid_map", map);
	}
	ck_assert_msg(
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0, "%s", strerror(errno));
	snprintf(opts, sizeof opts, "size=%dm", mb);
	ck_assert_msg(mount("tmpfs", dir, "tmpfs", 0, opts) == 0, "%s", strerror(errno));
}

/* Fill dir's disk with file filler until about leave bytes are free. */
static void fill_disk(const char *filler, double leave)
{
	static char block[1 << 16];
	struct statvfs vfs;
	double fill;
	FILE *f = fopen(filler, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(statvfs(dir, &vfs), 0);
	for (fill = (double)vfs.f_bavail * (double)vfs.f_frsize - leave; fill > 0;
	     fill -= sizeof block)
		ck_assert_uint_eq(fwrite(block, 1, sizeof block, f), sizeof block);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(statvfs(dir, &vfs), 0);
	ck_assert_msg((double)vfs.f_bavail * (double)vfs.f_frsize < STORE_MIN_FREE_BYTES,
	    "%.0f bytes free", (double)vfs.f_bavail * (double)vfs.f_frsize);
}

/*
 * Issue 51: on a nearly full disk (under STORE_MIN_FREE_BYTES free, ample room for SQLite
 * still), /v1/health's store check and the writes that add records agree: health says the
 * disk is full and a calibration create, an upload and a new token are refused as
 * unavailable (503), while a revocation still goes through; with the space back, both
 * agree again. Before, health said unavailable while creates committed (201).
 */
START_TEST(nearly_full_disk_refuses_what_health_refuses)
{
	const unsigned char hash[CALSTORE_HASH_BYTES] = {1};
	char filler[320], robot[CALSTORE_NAME_MAX], lab[CALSTORE_NAME_MAX], *setup = NULL;
	struct calstore_write *w = NULL;
	struct store *st;
	long long cal = 0;
	struct err e;

	mount_small_disk(2 * STORE_MIN_FREE_BYTES / (1024 * 1024));
	st = open_store();
	err_clear(&e);
	ck_assert_msg(calstore_token_create(st, CALSTORE_ROBOT, "r", NULL, 0, "t1", hash, &e) == 0,
	    "%s", e.message);
	ck_assert_int_eq(calstore_create_begin(st, "r", &w, &e), 0);
	ck_assert_int_eq(calstore_calibration_add(w, &cal, &e), 0);
	ck_assert_int_eq(calstore_write_end(w, 1, &e), 0);
	snprintf(filler, sizeof filler, "%s/filler", dir);
	/* half the reserve left: SQLite could still write, the store must not */
	fill_disk(filler, STORE_MIN_FREE_BYTES / 2);
	ck_assert_int_eq(store_health(st, &e), -1);
	ck_assert_msg(strstr(e.message, "full"), "%s", e.message);
	err_clear(&e);
	ck_assert_int_eq(calstore_create_begin(st, "r", &w, &e), -1);
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	ck_assert_msg(strstr(e.message, "full"), "%s", e.message);
	err_clear(&e);
	ck_assert_int_eq(calstore_upload_begin(st, cal, robot, lab, &setup, &w, &e), -1);
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	err_clear(&e);
	ck_assert_int_eq(
	    calstore_token_create(st, CALSTORE_ROBOT, "r", NULL, 0, "t2", hash, &e), -1);
	ck_assert_int_eq(e.code, ERR_UNAVAILABLE);
	err_clear(&e);
	ck_assert_msg(calstore_token_revoke(st, "t1", &e) == 0, "%s", e.message);
	/* the space back: both say yes again */
	ck_assert_int_eq(unlink(filler), 0);
	ck_assert_msg(store_health(st, &e) == 0, "%s", e.message);
	ck_assert_msg(calstore_create_begin(st, "r", &w, &e) == 0, "%s", e.message);
	ck_assert_int_eq(calstore_write_end(w, 0, &e), 0);
	store_close(st);
	teardown(); /* the files on the tmpfs (its root stays, a mount point) */
	ck_assert_int_eq(umount(dir), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, migrations_numbered_from_one);
	tcase_add_test(tc, every_schema_file_embedded);
	tcase_add_test(tc, open_migrates_and_uses_wal);
	tcase_add_test(tc, reopen_keeps_cache);
	tcase_add_test(tc, newer_schema_refused);
	tcase_add_test(tc, unopenable_path_fails);
	tcase_add_test(tc, cache_miss_put_hit_replace);
	tcase_add_test(tc, cache_large_answer_not_kept);
	tcase_add_test(tc, cache_put_gives_way_to_a_writer);
	tcase_add_test(tc, deleted_database_noticed);
	tcase_add_test(tc, replaced_database_noticed);
	tcase_add_test(tc, locked_database_noticed);
	tcase_add_test(tc, cache_key_known_answer);
	tcase_add_test(tc, cache_key_separates_fields);
	tcase_add_test(tc, connection_per_thread);
	tcase_add_test(tc, statement_cached_by_text);
	tcase_add_test(tc, durable_transactions);
	tcase_add_test(tc, concurrent_writers);
	tcase_add_test(tc, calstore_statements);
	tcase_add_test(tc, fit_list_bounded);
	tcase_add_test(tc, nearly_full_disk_refuses_what_health_refuses);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
