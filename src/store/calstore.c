/*
 * calstore.c: robots, tokens, calibrations, measurements and fits in SQLite.
 */
#include "store/calstore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const kinds[3] = {"drop", "press", "trajectory"};
static const char *const lists[3] = {"drops", "presses", "trajectories"};

static int fail(struct err *err, sqlite3_stmt *stmt, const char *what)
{
	return err_set(err, ERR_UNAVAILABLE, NULL, "store: %s: %s", what,
	    stmt ? sqlite3_errmsg(sqlite3_db_handle(stmt)) : "no statement");
}

/*
 * The end of a query that built *result row by row: on SQLITE_DONE hand result to *out
 * (the caller owns it), otherwise free it and fail with what. Finishes stmt either way.
 */
static int finish_rows(
    sqlite3_stmt *stmt, int rc, json_t *result, json_t **out, const char *what, struct err *err)
{
	int status = 0;

	if (rc != SQLITE_DONE) {
		status = fail(err, stmt, what);
		json_decref(result);
	} else {
		*out = result;
	}
	store_stmt_done(stmt);
	return status;
}

/* A malloc'ed copy of column col of the current row. */
static char *column_text(sqlite3_stmt *stmt, int col)
{
	size_t n = (size_t)sqlite3_column_bytes(stmt, col);
	char *copy = malloc(n + 1);

	if (copy) {
		memcpy(copy, sqlite3_column_text(stmt, col), n);
		copy[n] = '\0';
	}
	return copy;
}

/* Run a statement that returns no rows. */
static int run(sqlite3_stmt *stmt, struct err *err, const char *what)
{
	int rc = sqlite3_step(stmt) == SQLITE_DONE ? 0 : fail(err, stmt, what);

	store_stmt_done(stmt);
	return rc;
}

/* The robot's id, creating it when create is set: 1 found, 0 absent, -1 failure. */
static int robot_id(struct store *st, const char *robot, int create, long long *id, struct err *err)
{
	sqlite3_stmt *s;
	int rc;

	if (create) {
		s = store_stmt(
		    st, "INSERT OR IGNORE INTO robots (name, created_at) VALUES (?1, ?2)", err);
		if (!s)
			return -1;
		sqlite3_bind_text(s, 1, robot, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)time(NULL));
		if (run(s, err, "adding a robot") != 0)
			return -1;
	}
	s = store_stmt(st, "SELECT id FROM robots WHERE name = ?1", err);
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, robot, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(s, 0);
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "finding a robot");
	}
	store_stmt_done(s);
	return rc;
}

int calstore_token_create(struct store *st, const char *robot, const char *token_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], struct err *err)
{
	sqlite3_stmt *s;
	long long rid;

	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	if (robot_id(st, robot, 1, &rid, err) != 1)
		goto fail;
	s = store_stmt(
	    st, "INSERT INTO tokens (id, robot_id, hash, created_at) VALUES (?1, ?2, ?3, ?4)", err);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, token_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, rid);
	sqlite3_bind_blob(s, 3, hash, CALSTORE_HASH_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)time(NULL));
	if (run(s, err, "adding a token") != 0)
		goto fail;
	return store_commit(st, err);
fail:
	store_rollback(st);
	return -1;
}

int calstore_token_revoke(struct store *st, const char *token_id, struct err *err)
{
	sqlite3_stmt *s;
	int changed;

	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	s = store_stmt(
	    st, "UPDATE tokens SET revoked_at = coalesce(revoked_at, ?2) WHERE id = ?1", err);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, token_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)time(NULL));
	if (run(s, err, "revoking a token") != 0)
		goto fail;
	changed = sqlite3_changes(store_conn(st, err));
	if (changed == 0) {
		err_set(err, ERR_NOT_FOUND, NULL, "no token %s", token_id);
		goto fail;
	}
	return store_commit(st, err);
fail:
	store_rollback(st);
	return -1;
}

int calstore_token_get(
    struct store *st, const char *token_id, struct calstore_token *out, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT r.name, t.hash, t.revoked_at IS NOT NULL FROM tokens t "
	    "JOIN robots r ON r.id = t.robot_id WHERE t.id = ?1",
	    err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, token_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_bytes(s, 1) == CALSTORE_HASH_BYTES) {
		snprintf(
		    out->robot, sizeof out->robot, "%s", (const char *)sqlite3_column_text(s, 0));
		memcpy(out->hash, sqlite3_column_blob(s, 1), CALSTORE_HASH_BYTES);
		out->revoked = sqlite3_column_int(s, 2);
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading a token");
	}
	store_stmt_done(s);
	return rc;
}

int calstore_token_list(struct store *st, json_t **out, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT t.id, r.name, t.created_at, t.revoked_at FROM tokens t "
	    "JOIN robots r ON r.id = t.robot_id ORDER BY r.name, t.created_at, t.id",
	    err);
	json_t *list = json_array();
	int rc;

	if (!s || !list) {
		json_decref(list);
		store_stmt_done(s);
		return s ? err_set(err, ERR_INTERNAL, NULL, "out of memory") : -1;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *o = json_pack("{s:s, s:s, s:I, s:o}", "id", sqlite3_column_text(s, 0),
		    "robot", sqlite3_column_text(s, 1), "created_at",
		    (json_int_t)sqlite3_column_int64(s, 2), "revoked_at",
		    sqlite3_column_type(s, 3) == SQLITE_NULL
		        ? json_null()
		        : json_integer(sqlite3_column_int64(s, 3)));
		if (!o || json_array_append_new(list, o) != 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	return finish_rows(s, rc, list, out, "listing tokens", err);
}

int calstore_calibration_create(
    struct store *st, const char *robot, const char *setup, long long *id, struct err *err)
{
	sqlite3_stmt *s;
	long long rid;

	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	if (robot_id(st, robot, 1, &rid, err) != 1)
		goto fail;
	s = store_stmt(
	    st, "INSERT INTO calibrations (robot_id, setup, created_at) VALUES (?1, ?2, ?3)", err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_text(s, 2, setup, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)time(NULL));
	if (run(s, err, "adding a calibration") != 0)
		goto fail;
	*id = sqlite3_last_insert_rowid(store_conn(st, err));
	return store_commit(st, err);
fail:
	store_rollback(st);
	return -1;
}

int calstore_calibration_get(
    struct store *st, long long id, char robot[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT r.name, c.setup FROM calibrations c JOIN robots r ON r.id = c.robot_id "
	    "WHERE c.id = ?1",
	    err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		snprintf(robot, CALSTORE_NAME_MAX, "%s", (const char *)sqlite3_column_text(s, 0));
		rc = 1;
		if (setup && !(*setup = column_text(s, 1)))
			rc = err_set(err, ERR_INTERNAL, NULL, "out of memory");
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading a calibration");
	}
	store_stmt_done(s);
	return rc;
}

int calstore_calibration_list(struct store *st, const char *robot, json_t **out, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT c.id, c.created_at, "
	    "(SELECT count(*) FROM measurements m WHERE m.calibration_id = c.id), "
	    "(SELECT f.fit FROM fits f WHERE f.calibration_id = c.id ORDER BY f.id DESC LIMIT 1) "
	    "FROM calibrations c JOIN robots r ON r.id = c.robot_id WHERE r.name = ?1 "
	    "ORDER BY c.id",
	    err);
	json_t *list = json_array();
	int rc;

	if (!s || !list) {
		json_decref(list);
		store_stmt_done(s);
		return s ? err_set(err, ERR_INTERNAL, NULL, "out of memory") : -1;
	}
	sqlite3_bind_text(s, 1, robot, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *fit = sqlite3_column_type(s, 3) == SQLITE_NULL
		    ? json_null()
		    : json_loads((const char *)sqlite3_column_text(s, 3), 0, NULL);
		json_t *o =
		    json_pack("{s:I, s:I, s:I, s:o*}", "id", (json_int_t)sqlite3_column_int64(s, 0),
		        "created_at", (json_int_t)sqlite3_column_int64(s, 1), "measurements",
		        (json_int_t)sqlite3_column_int64(s, 2), "fit", fit);
		if (!o || json_array_append_new(list, o) != 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	return finish_rows(s, rc, list, out, "listing calibrations", err);
}

int calstore_measurements(struct store *st, long long id, json_t **out, struct err *err)
{
	sqlite3_stmt *s = store_stmt(
	    st, "SELECT kind, body FROM measurements WHERE calibration_id = ?1 ORDER BY id", err);
	json_t *all = json_pack("{s:[], s:[], s:[]}", lists[0], lists[1], lists[2]);
	int rc, k;

	if (!s || !all) {
		json_decref(all);
		store_stmt_done(s);
		return s ? err_set(err, ERR_INTERNAL, NULL, "out of memory") : -1;
	}
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(s, 0);
		json_t *m = json_loads((const char *)sqlite3_column_text(s, 1), 0, NULL);

		for (k = 0; k < 3 && strcmp(kind, kinds[k]) != 0; k++)
			;
		if (k == 3 || !m || json_array_append_new(json_object_get(all, lists[k]), m) != 0) {
			rc = SQLITE_CORRUPT;
			break;
		}
	}
	return finish_rows(s, rc, all, out, "reading measurements", err);
}

int calstore_fit_latest(
    struct store *st, long long id, char **fit, long long *fit_id, struct err *err)
{
	sqlite3_stmt *s = store_stmt(
	    st, "SELECT id, fit FROM fits WHERE calibration_id = ?1 ORDER BY id DESC LIMIT 1", err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*fit_id = sqlite3_column_int64(s, 0);
		rc = 1;
		if (fit && !(*fit = column_text(s, 1)))
			rc = err_set(err, ERR_INTERNAL, NULL, "out of memory");
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading a fit");
	}
	store_stmt_done(s);
	return rc;
}

/* Insert one list of the upload as measurements of kind k. */
static int insert_kind(
    struct store *st, long long id, const json_t *items, int k, long long now, struct err *err)
{
	size_t i;
	json_t *m;

	json_array_foreach (items, i, m) {
		sqlite3_stmt *s = store_stmt(st,
		    "INSERT INTO measurements (calibration_id, kind, body, created_at) "
		    "VALUES (?1, ?2, ?3, ?4)",
		    err);
		char *text = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
		int rc;

		if (!s || !text) {
			free(text);
			return s ? err_set(err, ERR_INTERNAL, NULL, "out of memory") : -1;
		}
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_text(s, 2, kinds[k], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, text, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 4, now);
		rc = run(s, err, "adding a measurement");
		free(text);
		if (rc != 0)
			return -1;
	}
	return 0;
}

int calstore_upload(struct store *st, long long id, const json_t *upload, calstore_refit_fn refit,
    void *ctx, char **fit, long long *fit_id, struct err *err)
{
	char robot[CALSTORE_NAME_MAX];
	char *setup = NULL, *text = NULL;
	json_t *all = NULL;
	sqlite3_stmt *s;
	long long now = (long long)time(NULL), count = 0;
	int k, found;

	/* BEGIN IMMEDIATE: the refit sees exactly the measurements this commit will hold */
	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	found = calstore_calibration_get(st, id, robot, &setup, err);
	if (found <= 0) {
		if (found == 0)
			err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
		goto fail;
	}
	for (k = 0; k < 3; k++) {
		json_t *items = json_object_get(upload, lists[k]);
		if (items && insert_kind(st, id, items, k, now, err) != 0)
			goto fail;
	}
	if (calstore_measurements(st, id, &all, err) != 0 ||
	    refit(setup, all, ctx, &text, err) != 0)
		goto fail;
	for (k = 0; k < 3; k++)
		count += (long long)json_array_size(json_object_get(all, lists[k]));
	s = store_stmt(st,
	    "INSERT INTO fits (calibration_id, measurements, fit, created_at) VALUES (?1, ?2, ?3, "
	    "?4)",
	    err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, count);
	sqlite3_bind_text(s, 3, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, now);
	if (run(s, err, "adding a fit") != 0)
		goto fail;
	*fit_id = sqlite3_last_insert_rowid(store_conn(st, err));
	if (store_commit(st, err) != 0)
		goto out;
	*fit = text;
	text = NULL;
	free(setup);
	json_decref(all);
	return 0;
fail:
	store_rollback(st);
out:
	free(setup);
	free(text);
	json_decref(all);
	return -1;
}
