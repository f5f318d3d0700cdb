/*
 * calstore.c: robots, tokens, calibrations, measurements and fits in SQLite.
 */
#include "store/calstore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "tunables.h"

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

/* Bind text, or NULL when text is NULL or empty. */
static void bind_text_or_null(sqlite3_stmt *s, int col, const char *text)
{
	if (text && *text)
		sqlite3_bind_text(s, col, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, col);
}

/* Put robot in lab (NULL: leave it). */
static int set_lab(struct store *st, long long rid, const char *lab, struct err *err)
{
	sqlite3_stmt *s;

	if (!lab)
		return 0;
	s = store_stmt(st, "UPDATE robots SET lab = ?2 WHERE id = ?1", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_text(s, 2, lab, -1, SQLITE_STATIC);
	return run(s, err, "setting a robot's lab");
}

static int insert_token(struct store *st, const char *token_id, const char *role, long long rid,
    const char *lab, const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at,
    const char *replaces, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "INSERT INTO tokens (id, role, robot_id, lab, hash, created_at, expires_at, replaces) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	    err);

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, token_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, role, -1, SQLITE_STATIC);
	if (rid > 0)
		sqlite3_bind_int64(s, 3, rid);
	else
		sqlite3_bind_null(s, 3);
	bind_text_or_null(s, 4, rid > 0 ? NULL : lab);
	sqlite3_bind_blob(s, 5, hash, CALSTORE_HASH_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)time(NULL));
	if (expires_at > 0)
		sqlite3_bind_int64(s, 7, expires_at);
	else
		sqlite3_bind_null(s, 7);
	bind_text_or_null(s, 8, replaces);
	return run(s, err, "adding a token");
}

int calstore_token_create(struct store *st, enum calstore_role role, const char *robot,
    const char *lab, long long expires_at, const char *token_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], struct err *err)
{
	long long rid = 0;

	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	if (robot &&
	    (robot_id(st, robot, 1, &rid, err) != 1 ||
	        (role == CALSTORE_ROBOT && set_lab(st, rid, lab, err) != 0)))
		goto fail;
	if (insert_token(st, token_id, role == CALSTORE_ROBOT ? "robot" : "viewer", rid, lab, hash,
	        expires_at, NULL, err) != 0)
		goto fail;
	return store_commit(st, err);
fail:
	store_rollback(st);
	return -1;
}

int calstore_token_rotate(struct store *st, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err)
{
	long long now = (long long)time(NULL), rid = 0;
	char role[16], lab[CALSTORE_NAME_MAX] = "";
	sqlite3_stmt *s;
	int rc;

	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	s = store_stmt(st,
	    "SELECT role, coalesce(robot_id, 0), coalesce(lab, '') FROM tokens WHERE id = ?1 AND "
	    "revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)",
	    err);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, old_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, now);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		snprintf(role, sizeof role, "%s", (const char *)sqlite3_column_text(s, 0));
		rid = sqlite3_column_int64(s, 1);
		snprintf(lab, sizeof lab, "%s", (const char *)sqlite3_column_text(s, 2));
	}
	store_stmt_done(s);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			err_set(err, ERR_NOT_FOUND, NULL, "no valid token %s", old_id);
		else
			fail(err, NULL, "reading a token");
		goto fail;
	}
	if (insert_token(st, new_id, role, rid, lab, hash, expires_at, old_id, err) != 0)
		goto fail;
	s = store_stmt(st,
	    "UPDATE tokens SET expires_at = min(coalesce(expires_at, ?2), ?2) WHERE id = ?1", err);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, old_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, old_expires_at);
	if (run(s, err, "expiring a rotated token") != 0)
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
	    "SELECT t.role, coalesce(r.name, ''), coalesce(t.lab, ''), t.hash, "
	    "t.revoked_at IS NOT NULL, coalesce(t.expires_at, 0), coalesce(t.last_used_at, 0), "
	    /* only a token with an expiry can have been rotated: the successor names it */
	    "CASE WHEN t.expires_at IS NULL THEN 0 ELSE EXISTS (SELECT 1 FROM tokens n WHERE "
	    "n.replaces = t.id) END "
	    "FROM tokens t LEFT JOIN robots r ON r.id = t.robot_id WHERE t.id = ?1",
	    err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, token_id, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_bytes(s, 3) == CALSTORE_HASH_BYTES) {
		out->role = strcmp((const char *)sqlite3_column_text(s, 0), "viewer") == 0
		    ? CALSTORE_VIEWER
		    : CALSTORE_ROBOT;
		snprintf(
		    out->robot, sizeof out->robot, "%s", (const char *)sqlite3_column_text(s, 1));
		snprintf(out->lab, sizeof out->lab, "%s", (const char *)sqlite3_column_text(s, 2));
		memcpy(out->hash, sqlite3_column_blob(s, 3), CALSTORE_HASH_BYTES);
		out->revoked = sqlite3_column_int(s, 4);
		out->expires_at = sqlite3_column_int64(s, 5);
		out->last_used_at = sqlite3_column_int64(s, 6);
		out->replaced = sqlite3_column_int(s, 7);
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading a token");
	}
	store_stmt_done(s);
	return rc;
}

int calstore_token_touch(struct store *st, const char *token_id, long long now, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "UPDATE tokens SET last_used_at = ?2 WHERE id = ?1 AND "
	    "(last_used_at IS NULL OR last_used_at < ?2 - ?3)",
	    err);

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, token_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, now);
	sqlite3_bind_int64(s, 3, CALIB_TOKEN_USE_GRANULARITY_S);
	return run(s, err, "recording a token's use");
}

/* An integer column, or JSON null. */
static json_t *column_int_or_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL
	    ? json_null()
	    : json_integer(sqlite3_column_int64(s, col));
}

static json_t *column_text_or_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL
	    ? json_null()
	    : json_string((const char *)sqlite3_column_text(s, col));
}

int calstore_token_list(struct store *st, json_t **out, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT t.id, t.role, r.name, coalesce(t.lab, r.lab), t.created_at, t.expires_at, "
	    "t.last_used_at, t.revoked_at, t.replaces FROM tokens t "
	    "LEFT JOIN robots r ON r.id = t.robot_id ORDER BY coalesce(r.name, ''), t.created_at, "
	    "t.id",
	    err);
	json_t *list = json_array();
	int rc;

	if (!s || !list) {
		json_decref(list);
		store_stmt_done(s);
		return s ? err_set(err, ERR_INTERNAL, NULL, "out of memory") : -1;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "id",
		    sqlite3_column_text(s, 0), "role", sqlite3_column_text(s, 1), "robot",
		    column_text_or_null(s, 2), "lab", column_text_or_null(s, 3), "created_at",
		    (json_int_t)sqlite3_column_int64(s, 4), "expires_at", column_int_or_null(s, 5),
		    "last_used_at", column_int_or_null(s, 6), "revoked_at",
		    column_int_or_null(s, 7), "replaces", column_text_or_null(s, 8));
		if (!o || json_array_append_new(list, o) != 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	return finish_rows(s, rc, list, out, "listing tokens", err);
}

int calstore_robot_lab(
    struct store *st, const char *robot, char lab[CALSTORE_NAME_MAX], struct err *err)
{
	sqlite3_stmt *s =
	    store_stmt(st, "SELECT coalesce(lab, '') FROM robots WHERE name = ?1", err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, robot, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		snprintf(lab, CALSTORE_NAME_MAX, "%s", (const char *)sqlite3_column_text(s, 0));
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading a robot");
	}
	store_stmt_done(s);
	return rc;
}

int calstore_calibration_create(struct store *st, const char *robot, calstore_setup_fn setup_of,
    void *ctx, long long *id, struct err *err)
{
	sqlite3_stmt *s;
	long long rid;
	char *setup;

	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	if (robot_id(st, robot, 1, &rid, err) != 1)
		goto fail;
	s = store_stmt(
	    st, "INSERT INTO calibrations (robot_id, setup, created_at) VALUES (?1, '', ?2)", err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)time(NULL));
	if (run(s, err, "adding a calibration") != 0)
		goto fail;
	*id = sqlite3_last_insert_rowid(store_conn(st, err));
	setup = setup_of(*id, ctx);
	if (!setup) {
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
		goto fail;
	}
	s = store_stmt(st, "UPDATE calibrations SET setup = ?2 WHERE id = ?1", err);
	if (!s) {
		free(setup);
		goto fail;
	}
	sqlite3_bind_int64(s, 1, *id);
	sqlite3_bind_text(s, 2, setup, -1, SQLITE_TRANSIENT);
	free(setup);
	if (run(s, err, "adding a calibration") != 0)
		goto fail;
	return store_commit(st, err);
fail:
	store_rollback(st);
	return -1;
}

int calstore_calibration_get(struct store *st, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT r.name, c.setup, coalesce(r.lab, '') FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id WHERE c.id = ?1",
	    err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		snprintf(robot, CALSTORE_NAME_MAX, "%s", (const char *)sqlite3_column_text(s, 0));
		if (lab)
			snprintf(
			    lab, CALSTORE_NAME_MAX, "%s", (const char *)sqlite3_column_text(s, 2));
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
	    "f.id, f.state, f.started_at, f.fit FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id "
	    "LEFT JOIN fits f ON f.id = (SELECT max(g.id) FROM fits g WHERE g.calibration_id = "
	    "c.id) "
	    "WHERE r.name = ?1 ORDER BY c.id",
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
		json_t *fit = sqlite3_column_type(s, 6) == SQLITE_NULL
		    ? json_null()
		    : json_loads((const char *)sqlite3_column_text(s, 6), JSON_DECODE_ANY, NULL);
		json_t *o = json_pack("{s:I, s:I, s:I, s:o, s:o, s:b, s:o*}", "id",
		    (json_int_t)sqlite3_column_int64(s, 0), "created_at",
		    (json_int_t)sqlite3_column_int64(s, 1), "measurements",
		    (json_int_t)sqlite3_column_int64(s, 2), "fit_id", column_int_or_null(s, 3),
		    "fit_state", column_text_or_null(s, 4), "fit_started",
		    sqlite3_column_type(s, 5) != SQLITE_NULL, "fit", fit);
		if (!o || json_array_append_new(list, o) != 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	return finish_rows(s, rc, list, out, "listing calibrations", err);
}

/* The kind's index of kinds[], or -1. */
static int kind_index(const char *kind)
{
	int k;

	for (k = 0; k < 3; k++)
		if (strcmp(kind, kinds[k]) == 0)
			return k;
	return -1;
}

int calstore_measurements(struct store *st, long long id, json_t **out, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT kind, body, id, upload_id FROM measurements WHERE calibration_id = ?1 "
	    "ORDER BY id",
	    err);
	json_t *all = json_pack("{s:[], s:[], s:[]}", lists[0], lists[1], lists[2]);
	int rc, k;

	if (!s || !all) {
		json_decref(all);
		store_stmt_done(s);
		return s ? err_set(err, ERR_INTERNAL, NULL, "out of memory") : -1;
	}
	sqlite3_bind_int64(s, 1, id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *m = json_loads((const char *)sqlite3_column_text(s, 1), 0, NULL);

		k = kind_index((const char *)sqlite3_column_text(s, 0));
		if (k < 0 || !m ||
		    json_object_set_new(m, "id", json_integer(sqlite3_column_int64(s, 2))) ||
		    json_object_set_new(m, "upload", column_int_or_null(s, 3)) ||
		    json_array_append_new(json_object_get(all, lists[k]), m) != 0) {
			rc = SQLITE_CORRUPT;
			break;
		}
	}
	return finish_rows(s, rc, all, out, "reading measurements", err);
}

int calstore_fit_latest(struct store *st, long long id, struct calstore_fit *out, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT id, state, fit, measurements, created_at, coalesce(started_at, 0), "
	    "coalesce(done_at, 0) FROM fits WHERE calibration_id = ?1 ORDER BY id DESC LIMIT 1",
	    err);
	int rc;

	memset(out, 0, sizeof *out);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(s, 0);
		snprintf(
		    out->state, sizeof out->state, "%s", (const char *)sqlite3_column_text(s, 1));
		out->measurements = sqlite3_column_int64(s, 3);
		out->created_at = sqlite3_column_int64(s, 4);
		out->started_at = sqlite3_column_int64(s, 5);
		out->done_at = sqlite3_column_int64(s, 6);
		rc = 1;
		if (!(out->text = column_text(s, 2)))
			rc = err_set(err, ERR_INTERNAL, NULL, "out of memory");
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading a fit");
	}
	store_stmt_done(s);
	return rc;
}

/* The calibration's fit that has not started, made if there is none: into *fit_id. */
static int pending_fit(
    struct store *st, long long id, long long now, long long *fit_id, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT id FROM fits WHERE calibration_id = ?1 AND state = 'pending' "
	    "ORDER BY id DESC LIMIT 1",
	    err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*fit_id = sqlite3_column_int64(s, 0);
	store_stmt_done(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return fail(err, NULL, "reading the fits");
	s = store_stmt(st,
	    "INSERT INTO fits (calibration_id, measurements, fit, created_at, state) "
	    "VALUES (?1, 0, 'null', ?2, 'pending')",
	    err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, now);
	if (run(s, err, "adding a fit") != 0)
		return -1;
	*fit_id = sqlite3_last_insert_rowid(store_conn(st, err));
	return 0;
}

/* Insert one list of the upload as measurements of kind k; their ids onto ids. */
static int insert_kind(struct store *st, long long id, long long upload_id, const json_t *items,
    int k, long long now, json_t *ids, struct err *err)
{
	size_t i;
	json_t *m;

	json_array_foreach (items, i, m) {
		sqlite3_stmt *s = store_stmt(st,
		    "INSERT INTO measurements (calibration_id, kind, body, created_at, upload_id) "
		    "VALUES (?1, ?2, ?3, ?4, ?5)",
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
		sqlite3_bind_int64(s, 5, upload_id);
		rc = run(s, err, "adding a measurement");
		free(text);
		if (rc != 0)
			return -1;
		if (json_array_append_new(
		        ids, json_integer(sqlite3_last_insert_rowid(store_conn(st, err)))) != 0)
			return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	}
	return 0;
}

/* The robot id of calibration id: 1, 0 when there is no such calibration, -1. */
static int calibration_robot(struct store *st, long long id, long long *rid, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st, "SELECT robot_id FROM calibrations WHERE id = ?1", err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*rid = sqlite3_column_int64(s, 0);
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading a calibration");
	}
	store_stmt_done(s);
	return rc;
}

/* An Idempotency-Key seen before: 1 (replay in *answer, same fingerprint), 0 new, -1. */
static int idem_lookup(struct store *st, long long rid, const struct calstore_idem *idem,
    long long now, char **answer, struct err *err)
{
	sqlite3_stmt *s = store_stmt(
	    st, "DELETE FROM idempotency_keys WHERE robot_id = ?1 AND created_at < ?2", err);
	int rc;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_int64(s, 2, now - idem->ttl_s);
	if (run(s, err, "forgetting old idempotency keys") != 0)
		return -1;
	s = store_stmt(st,
	    "SELECT fingerprint, answer FROM idempotency_keys WHERE robot_id = ?1 AND key = ?2",
	    err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_text(s, 2, idem->key, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_bytes(s, 0) != CALSTORE_HASH_BYTES ||
		    memcmp(sqlite3_column_blob(s, 0), idem->fingerprint, CALSTORE_HASH_BYTES) != 0)
			rc = err_set(err, ERR_BAD_VALUE, NULL,
			    "Idempotency-Key %s was used with another request body", idem->key);
		else
			rc = (*answer = column_text(s, 1))
			    ? 1
			    : err_set(err, ERR_INTERNAL, NULL, "out of memory");
	} else {
		rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading an idempotency key");
	}
	store_stmt_done(s);
	return rc;
}

static int idem_store(struct store *st, long long rid, const struct calstore_idem *idem,
    long long upload_id, const char *answer, long long now, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "INSERT INTO idempotency_keys (robot_id, key, fingerprint, upload_id, answer, "
	    "created_at) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	    err);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_text(s, 2, idem->key, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 3, idem->fingerprint, CALSTORE_HASH_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, upload_id);
	sqlite3_bind_text(s, 5, answer, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 6, now);
	return run(s, err, "storing an idempotency key");
}

int calstore_upload(struct store *st, long long id, const json_t *upload,
    const struct calstore_idem *idem, calstore_check_fn check, calstore_answer_fn answer, void *ctx,
    struct calstore_receipt *out, struct err *err)
{
	json_t *all = NULL;
	sqlite3_stmt *s;
	long long now = (long long)time(NULL), rid = 0;
	char *text = NULL;
	int k, found;

	memset(out, 0, sizeof *out);
	out->ids = json_pack("{s:[], s:[], s:[]}", lists[0], lists[1], lists[2]);
	if (!out->ids)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	found = calibration_robot(st, id, &rid, err);
	if (found <= 0) {
		if (found == 0)
			err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
		goto fail;
	}
	if (idem) {
		found = idem_lookup(st, rid, idem, now, &out->replay, err);
		if (found != 0) {
			store_rollback(st);
			return found > 0 ? 0 : -1;
		}
	}
	s = store_stmt(st, "INSERT INTO uploads (calibration_id, created_at) VALUES (?1, ?2)", err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, now);
	if (run(s, err, "adding an upload") != 0)
		goto fail;
	out->upload_id = sqlite3_last_insert_rowid(store_conn(st, err));
	for (k = 0; k < 3; k++) {
		json_t *items = json_object_get(upload, lists[k]);
		if (items &&
		    insert_kind(st, id, out->upload_id, items, k, now,
		        json_object_get(out->ids, lists[k]), err) != 0)
			goto fail;
	}
	if (check && (calstore_measurements(st, id, &all, err) != 0 || check(all, ctx, err) != 0))
		goto fail;
	if (pending_fit(st, id, now, &out->fit_id, err) != 0)
		goto fail;
	if (idem) {
		text = answer(out, ctx);
		if (!text) {
			err_set(err, ERR_INTERNAL, NULL, "out of memory");
			goto fail;
		}
		if (idem_store(st, rid, idem, out->upload_id, text, now, err) != 0)
			goto fail;
	}
	if (store_commit(st, err) != 0)
		goto out;
	free(text);
	json_decref(all);
	return 0;
fail:
	store_rollback(st);
out:
	free(text);
	json_decref(all);
	return -1;
}

/* Move the ids of the measurements about to be deleted onto deleted. */
static int collect_deleted(struct store *st, long long id, long long measurement_id,
    long long upload_id, json_t *deleted, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st,
	    "SELECT id, kind FROM measurements WHERE calibration_id = ?1 AND "
	    "(id = ?2 OR upload_id = ?3) ORDER BY id",
	    err);
	int rc, k;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, measurement_id > 0 ? measurement_id : -1);
	sqlite3_bind_int64(s, 3, upload_id > 0 ? upload_id : -1);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		k = kind_index((const char *)sqlite3_column_text(s, 1));
		if (k < 0 ||
		    json_array_append_new(json_object_get(deleted, lists[k]),
		        json_integer(sqlite3_column_int64(s, 0))) != 0) {
			rc = SQLITE_CORRUPT;
			break;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading measurements");
	store_stmt_done(s);
	return rc;
}

int calstore_delete(struct store *st, long long id, long long measurement_id, long long upload_id,
    json_t **deleted, long long *fit_id, struct err *err)
{
	json_t *ids = json_pack("{s:[], s:[], s:[]}", lists[0], lists[1], lists[2]);
	sqlite3_stmt *s;
	long long rid;
	int found;

	if (!ids)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	if (store_begin(st, STORE_SYNC_FULL, err) != 0) {
		json_decref(ids);
		return -1;
	}
	found = calibration_robot(st, id, &rid, err);
	if (found <= 0) {
		if (found == 0)
			err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
		goto fail;
	}
	if (collect_deleted(st, id, measurement_id, upload_id, ids, err) != 0)
		goto fail;
	s = store_stmt(st,
	    "DELETE FROM measurements WHERE calibration_id = ?1 AND (id = ?2 OR upload_id = ?3)",
	    err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, measurement_id > 0 ? measurement_id : -1);
	sqlite3_bind_int64(s, 3, upload_id > 0 ? upload_id : -1);
	if (run(s, err, "deleting measurements") != 0)
		goto fail;
	if (sqlite3_changes(store_conn(st, err)) == 0) {
		err_set(err, ERR_NOT_FOUND, NULL, "calibration %lld has no %s %lld", id,
		    measurement_id > 0 ? "measurement" : "upload",
		    measurement_id > 0 ? measurement_id : upload_id);
		goto fail;
	}
	if (pending_fit(st, id, (long long)time(NULL), fit_id, err) != 0 ||
	    store_commit(st, err) != 0)
		goto fail;
	*deleted = ids;
	return 0;
fail:
	store_rollback(st);
	json_decref(ids);
	return -1;
}

int calstore_fit_claim(
    struct store *st, long long id, long long *fit_id, char **setup, json_t **all, struct err *err)
{
	char robot[CALSTORE_NAME_MAX];
	sqlite3_stmt *s;
	long long now = (long long)time(NULL);
	int rc;

	*setup = NULL;
	*all = NULL;
	if (store_begin(st, STORE_SYNC_NORMAL, err) != 0)
		return -1;
	s = store_stmt(
	    st, "SELECT max(id) FROM fits WHERE calibration_id = ?1 AND state = 'pending'", err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	*fit_id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	store_stmt_done(s);
	if (rc != SQLITE_ROW) {
		fail(err, NULL, "reading the fits");
		goto fail;
	}
	if (*fit_id == 0) {
		store_rollback(st);
		return 0;
	}
	s = store_stmt(st,
	    "UPDATE fits SET state = CASE WHEN id = ?2 THEN 'running' ELSE 'superseded' END, "
	    "started_at = CASE WHEN id = ?2 THEN ?3 ELSE started_at END "
	    "WHERE calibration_id = ?1 AND state IN ('pending', 'running') AND id <= ?2",
	    err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, *fit_id);
	sqlite3_bind_int64(s, 3, now);
	if (run(s, err, "starting a fit") != 0 ||
	    calstore_calibration_get(st, id, robot, NULL, setup, err) != 1 ||
	    calstore_measurements(st, id, all, err) != 0 || store_commit(st, err) != 0)
		goto fail;
	return 1;
fail:
	if (err->code == ERR_NONE)
		err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
	store_rollback(st);
	free(*setup);
	*setup = NULL;
	json_decref(*all);
	*all = NULL;
	return -1;
}

int calstore_fit_finish(struct store *st, long long fit_id, int done, const char *text,
    long long measurements, struct err *err)
{
	sqlite3_stmt *s;

	/* no fsync: a fit lost with the power stays running, and the next start recomputes it */
	if (store_begin(st, STORE_SYNC_NORMAL, err) != 0)
		return -1;
	s = store_stmt(st,
	    "UPDATE fits SET state = ?2, fit = ?3, measurements = ?4, done_at = ?5 WHERE id = ?1",
	    err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, fit_id);
	sqlite3_bind_text(s, 2, done ? "done" : "failed", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, measurements);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)time(NULL));
	if (run(s, err, "recording a fit") != 0)
		goto fail;
	return store_commit(st, err);
fail:
	store_rollback(st);
	return -1;
}

int calstore_fit_recover(struct store *st, json_t **ids, struct err *err)
{
	json_t *list = json_array();
	sqlite3_stmt *s;
	int rc;

	if (!list)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	if (store_begin(st, STORE_SYNC_FULL, err) != 0) {
		json_decref(list);
		return -1;
	}
	s = store_stmt(st,
	    "UPDATE fits SET state = 'pending', started_at = NULL WHERE state = 'running'", err);
	if (!s || run(s, err, "recovering fits") != 0)
		goto fail;
	s = store_stmt(st,
	    "SELECT DISTINCT calibration_id FROM fits WHERE state = 'pending' ORDER BY "
	    "calibration_id",
	    err);
	if (!s)
		goto fail;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if (json_array_append_new(list, json_integer(sqlite3_column_int64(s, 0))) != 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	rc = rc == SQLITE_DONE ? 0 : fail(err, s, "reading pending fits");
	store_stmt_done(s);
	if (rc != 0 || store_commit(st, err) != 0)
		goto fail;
	*ids = list;
	return 0;
fail:
	store_rollback(st);
	json_decref(list);
	return -1;
}

int calstore_secret(struct store *st, const char *name, unsigned char secret[CALSTORE_SECRET_BYTES],
    struct err *err)
{
	unsigned char fresh[CALSTORE_SECRET_BYTES];
	sqlite3_stmt *s;
	int rc;

	randombytes_buf(fresh, sizeof fresh);
	if (store_begin(st, STORE_SYNC_FULL, err) != 0)
		return -1;
	s = store_stmt(
	    st, "INSERT OR IGNORE INTO server_secrets (name, secret) VALUES (?1, ?2)", err);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 2, fresh, sizeof fresh, SQLITE_STATIC);
	if (run(s, err, "making a secret") != 0)
		goto fail;
	s = store_stmt(st, "SELECT secret FROM server_secrets WHERE name = ?1", err);
	if (!s)
		goto fail;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_bytes(s, 0) == CALSTORE_SECRET_BYTES)
		memcpy(secret, sqlite3_column_blob(s, 0), CALSTORE_SECRET_BYTES);
	else
		rc = fail(err, s, "reading a secret");
	store_stmt_done(s);
	sodium_memzero(fresh, sizeof fresh);
	if (rc != SQLITE_ROW)
		goto fail;
	return store_commit(st, err);
fail:
	store_rollback(st);
	return -1;
}

/* ---- the interface (base/calstore.h): each member passes its context on as the store ---- */

static int sq_token_create(void *ctx, enum calstore_role role, const char *robot, const char *lab,
    long long expires_at, const char *token_id, const unsigned char hash[CALSTORE_HASH_BYTES],
    struct err *err)
{
	return calstore_token_create(ctx, role, robot, lab, expires_at, token_id, hash, err);
}

static int sq_token_rotate(void *ctx, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err)
{
	return calstore_token_rotate(ctx, old_id, new_id, hash, expires_at, old_expires_at, err);
}

static int sq_token_revoke(void *ctx, const char *token_id, struct err *err)
{
	return calstore_token_revoke(ctx, token_id, err);
}

static int sq_token_get(
    void *ctx, const char *token_id, struct calstore_token *out, struct err *err)
{
	return calstore_token_get(ctx, token_id, out, err);
}

static int sq_token_touch(void *ctx, const char *token_id, long long now, struct err *err)
{
	return calstore_token_touch(ctx, token_id, now, err);
}

static int sq_token_list(void *ctx, json_t **out, struct err *err)
{
	return calstore_token_list(ctx, out, err);
}

static int sq_robot_lab(void *ctx, const char *robot, char lab[CALSTORE_NAME_MAX], struct err *err)
{
	return calstore_robot_lab(ctx, robot, lab, err);
}

static int sq_calibration_create(void *ctx, const char *robot, calstore_setup_fn setup_of,
    void *setup_ctx, long long *id, struct err *err)
{
	return calstore_calibration_create(ctx, robot, setup_of, setup_ctx, id, err);
}

static int sq_calibration_get(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	return calstore_calibration_get(ctx, id, robot, lab, setup, err);
}

static int sq_calibration_list(void *ctx, const char *robot, json_t **out, struct err *err)
{
	return calstore_calibration_list(ctx, robot, out, err);
}

static int sq_measurements(void *ctx, long long id, json_t **out, struct err *err)
{
	return calstore_measurements(ctx, id, out, err);
}

static int sq_fit_latest(void *ctx, long long id, struct calstore_fit *out, struct err *err)
{
	return calstore_fit_latest(ctx, id, out, err);
}

static int sq_upload(void *ctx, long long id, const json_t *upload,
    const struct calstore_idem *idem, calstore_check_fn check, calstore_answer_fn answer,
    void *cb_ctx, struct calstore_receipt *out, struct err *err)
{
	return calstore_upload(ctx, id, upload, idem, check, answer, cb_ctx, out, err);
}

static int sq_remove(void *ctx, long long id, long long measurement_id, long long upload_id,
    json_t **deleted, long long *fit_id, struct err *err)
{
	return calstore_delete(ctx, id, measurement_id, upload_id, deleted, fit_id, err);
}

static int sq_fit_claim(
    void *ctx, long long id, long long *fit_id, char **setup, json_t **all, struct err *err)
{
	return calstore_fit_claim(ctx, id, fit_id, setup, all, err);
}

static int sq_fit_finish(void *ctx, long long fit_id, int done, const char *text,
    long long measurements, struct err *err)
{
	return calstore_fit_finish(ctx, fit_id, done, text, measurements, err);
}

static int sq_fit_recover(void *ctx, json_t **ids, struct err *err)
{
	return calstore_fit_recover(ctx, ids, err);
}

static int sq_secret(
    void *ctx, const char *name, unsigned char secret[CALSTORE_SECRET_BYTES], struct err *err)
{
	return calstore_secret(ctx, name, secret, err);
}

void calstore_sqlite_bind(struct calstore *cs, struct store *st)
{
	*cs = (struct calstore){
	    .ctx = st,
	    .token_create = sq_token_create,
	    .token_rotate = sq_token_rotate,
	    .token_revoke = sq_token_revoke,
	    .token_get = sq_token_get,
	    .token_touch = sq_token_touch,
	    .token_list = sq_token_list,
	    .robot_lab = sq_robot_lab,
	    .calibration_create = sq_calibration_create,
	    .calibration_get = sq_calibration_get,
	    .calibration_list = sq_calibration_list,
	    .measurements = sq_measurements,
	    .fit_latest = sq_fit_latest,
	    .upload = sq_upload,
	    .remove = sq_remove,
	    .fit_claim = sq_fit_claim,
	    .fit_finish = sq_fit_finish,
	    .fit_recover = sq_fit_recover,
	    .secret = sq_secret,
	};
}
