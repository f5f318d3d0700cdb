/*
 * calstore.c: robots, tokens, calibrations, measurements and fits in SQLite.
 *
 * Every operation states its SQL, its parameters written where the statement is (ARGS(...)),
 * and how it reads the rows (a row reader): the statements and transactions of sq_stmt.h.
 */
#include "store/calstore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "store/calsql.h"
#include "store/sq_stmt.h"
#include "base/knobs.h"
#include "store/knobs.h"

/* ---- robots and tokens ---- */

/* The robot's id, creating it when create is set: 1 found, 0 absent, -1 failure. */
static int robot_id(struct store *st, const char *robot, int create, long long *id, struct err *err)
{
	if (create &&
	    sqc_command(st, "INSERT OR IGNORE INTO robots (name, created_at) VALUES (?1, ?2)",
	        ARGS(TXT(robot), NUM(sqc_now())), NULL, "adding a robot", err) != 0)
		return -1;
	return sqc_query_one(st, "SELECT id FROM robots WHERE name = ?1", ARGS(TXT(robot)),
	    sqc_read_id, id, "finding a robot", err);
}

static int insert_token(struct store *st, const char *token_id, const char *role, long long rid,
    const char *lab, const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at,
    const char *replaces, struct err *err)
{
	return sqc_command(st,
	    "INSERT INTO tokens (id, role, robot_id, lab, hash, created_at, expires_at, replaces) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	    ARGS(TXT(token_id), TXT(role), NUM_IF(rid > 0, rid),
	        TXT_IF(rid <= 0 && lab && *lab, lab), BLOB(hash, CALSTORE_HASH_BYTES),
	        NUM(sqc_now()), NUM_IF(expires_at > 0, expires_at),
	        TXT_IF(replaces && *replaces, replaces)),
	    NULL, "adding a token", err);
}

static int token_create(struct store *st, enum calstore_role role, const char *robot,
    const char *lab, long long expires_at, const char *token_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], struct err *err)
{
	long long rid = 0;

	if (robot) {
		if (robot_id(st, robot, 1, &rid, err) != 1)
			return -1;
		if (role == CALSTORE_ROBOT && lab &&
		    sqc_command(st, "UPDATE robots SET lab = ?2 WHERE id = ?1",
		        ARGS(NUM(rid), TXT(lab)), NULL, "setting a robot's lab", err) != 0)
			return -1;
	}
	return insert_token(st, token_id, role == CALSTORE_ROBOT ? "robot" : "viewer", rid, lab,
	    hash, expires_at, NULL, err);
}

int calstore_token_create(struct store *st, enum calstore_role role, const char *robot,
    const char *lab, long long expires_at, const char *token_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], struct err *err)
{
	struct tx t;

	/* a record added: not into the disk's reserve (store_room()) */
	if (store_room(st, err) != 0 || sqc_begin(st, STORE_SYNC_FULL, &t, err) != 0)
		return -1;
	return sqc_end(
	    &t, token_create(st, role, robot, lab, expires_at, token_id, hash, err), err);
}

/* What a rotated token passes on to its successor. */
struct token_scope {
	char role[16];
	long long rid;
	char lab[CALSTORE_NAME_MAX];
};

static int read_scope(sqlite3_stmt *s, void *ctx, struct err *err)
{
	struct token_scope *scope = ctx;

	(void)err;
	snprintf(scope->role, sizeof scope->role, "%s", (const char *)sqlite3_column_text(s, 0));
	scope->rid = sqlite3_column_int64(s, 1);
	snprintf(scope->lab, sizeof scope->lab, "%s", (const char *)sqlite3_column_text(s, 2));
	return 0;
}

static int token_rotate(struct store *st, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err)
{
	struct token_scope old = {"", 0, ""};
	int found = sqc_query_one(st,
	    "SELECT role, coalesce(robot_id, 0), coalesce(lab, '') FROM tokens WHERE id = ?1 AND "
	    "revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)",
	    ARGS(TXT(old_id), NUM(sqc_now())), read_scope, &old, "reading a token", err);

	if (found <= 0)
		return found < 0 ? -1
		                 : err_set(err, ERR_NOT_FOUND, NULL, "no valid token %s", old_id);
	if (insert_token(st, new_id, old.role, old.rid, old.lab, hash, expires_at, old_id, err) !=
	    0)
		return -1;
	return sqc_command(st,
	    "UPDATE tokens SET expires_at = min(coalesce(expires_at, ?2), ?2) WHERE id = ?1",
	    ARGS(TXT(old_id), NUM(old_expires_at)), NULL, "expiring a rotated token", err);
}

int calstore_token_rotate(struct store *st, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err)
{
	struct tx t;

	if (store_room(st, err) != 0 || sqc_begin(st, STORE_SYNC_FULL, &t, err) != 0)
		return -1;
	return sqc_end(
	    &t, token_rotate(st, old_id, new_id, hash, expires_at, old_expires_at, err), err);
}

static int token_revoke(struct store *st, const char *token_id, struct err *err)
{
	long long changed = 0;

	if (sqc_command(st, "UPDATE tokens SET revoked_at = coalesce(revoked_at, ?2) WHERE id = ?1",
	        ARGS(TXT(token_id), NUM(sqc_now())), &changed, "revoking a token", err) != 0)
		return -1;
	return changed ? 0 : err_set(err, ERR_NOT_FOUND, NULL, "no token %s", token_id);
}

int calstore_token_revoke(struct store *st, const char *token_id, struct err *err)
{
	struct tx t;

	if (sqc_begin(st, STORE_SYNC_FULL, &t, err) != 0)
		return -1;
	return sqc_end(&t, token_revoke(st, token_id, err), err);
}

static int read_token(sqlite3_stmt *s, void *ctx, struct err *err)
{
	struct calstore_token *out = ctx;

	(void)err;
	if (sqlite3_column_bytes(s, 3) != CALSTORE_HASH_BYTES)
		return ROW_BAD;
	out->role = strcmp((const char *)sqlite3_column_text(s, 0), "viewer") == 0 ? CALSTORE_VIEWER
	                                                                           : CALSTORE_ROBOT;
	snprintf(out->robot, sizeof out->robot, "%s", (const char *)sqlite3_column_text(s, 1));
	snprintf(out->lab, sizeof out->lab, "%s", (const char *)sqlite3_column_text(s, 2));
	memcpy(out->hash, sqlite3_column_blob(s, 3), CALSTORE_HASH_BYTES);
	out->revoked = sqlite3_column_int(s, 4);
	out->expires_at = sqlite3_column_int64(s, 5);
	out->last_used_at = sqlite3_column_int64(s, 6);
	out->replaced = sqlite3_column_int(s, 7);
	return 0;
}

int calstore_token_get(
    struct store *st, const char *token_id, struct calstore_token *out, struct err *err)
{
	return sqc_query_one(st,
	    "SELECT t.role, coalesce(r.name, ''), coalesce(t.lab, ''), t.hash, "
	    "t.revoked_at IS NOT NULL, coalesce(t.expires_at, 0), coalesce(t.last_used_at, 0), "
	    /* only a token with an expiry can have been rotated: the successor names it */
	    "CASE WHEN t.expires_at IS NULL THEN 0 ELSE EXISTS (SELECT 1 FROM tokens n WHERE "
	    "n.replaces = t.id) END "
	    "FROM tokens t LEFT JOIN robots r ON r.id = t.robot_id WHERE t.id = ?1",
	    ARGS(TXT(token_id)), read_token, out, "reading a token", err);
}

int calstore_token_touch(struct store *st, const char *token_id, long long now, struct err *err)
{
	/* a hint for the operator, written on the request's way (a question's token is
	 * checked on an HTTP thread): it must not wait seconds for another writer */
	long was = store_busy_limit(STORE_CACHE_BUSY_MS);
	int rc = sqc_command(st,
	    "UPDATE tokens SET last_used_at = ?2 WHERE id = ?1 AND "
	    "(last_used_at IS NULL OR last_used_at < ?2 - ?3)",
	    ARGS(TXT(token_id), NUM(now), NUM(CALIB_TOKEN_USE_GRANULARITY_S)), NULL,
	    "recording a token's use", err);

	store_busy_limit(was);
	return rc;
}

/* Row reader: a token, appended to the JSON array ctx. */
static int read_token_entry(sqlite3_stmt *s, void *ctx, struct err *err)
{
	json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "id",
	    sqlite3_column_text(s, 0), "role", sqlite3_column_text(s, 1), "robot",
	    sqc_text_or_null(s, 2), "lab", sqc_text_or_null(s, 3), "created_at",
	    (json_int_t)sqlite3_column_int64(s, 4), "expires_at", sqc_int_or_null(s, 5),
	    "last_used_at", sqc_int_or_null(s, 6), "revoked_at", sqc_int_or_null(s, 7), "replaces",
	    sqc_text_or_null(s, 8));

	(void)err;
	return o && json_array_append_new(ctx, o) == 0 ? 0 : ROW_BAD;
}

int calstore_token_list(struct store *st, json_t **out, struct err *err)
{
	return sqc_query_json(st,
	    "SELECT t.id, t.role, r.name, coalesce(t.lab, r.lab), t.created_at, t.expires_at, "
	    "t.last_used_at, t.revoked_at, t.replaces FROM tokens t "
	    "LEFT JOIN robots r ON r.id = t.robot_id ORDER BY coalesce(r.name, ''), "
	    "t.created_at, t.id",
	    NO_ARGS, read_token_entry, json_array(), out, "listing tokens", err);
}

int calstore_robot_lab(
    struct store *st, const char *robot, char lab[CALSTORE_NAME_MAX], struct err *err)
{
	return sqc_query_one(st, "SELECT coalesce(lab, '') FROM robots WHERE name = ?1",
	    ARGS(TXT(robot)), sqc_read_name, lab, "reading a robot", err);
}

/* ---- calibrations and measurements ---- */

/* A write transaction (base/calstore.h): its robot's id and, for an upload, the calibration
 * it locked (0 for a create), and the upload being written with its time. */
struct calstore_write {
	struct tx t;
	long long id, rid, upload_id, now;
};

int calstore_create_begin(
    struct store *st, const char *robot, struct calstore_write **out, struct err *err)
{
	struct calstore_write *w = calloc(1, sizeof *w);

	*out = NULL;
	if (!w)
		return sqc_oom(err);
	/* BEGIN IMMEDIATE holds the write lock: two creates given one key take turns */
	if (store_room(st, err) != 0 || sqc_begin(st, STORE_SYNC_FULL, &w->t, err) != 0) {
		free(w);
		return -1;
	}
	if (robot_id(st, robot, 1, &w->rid, err) != 1) {
		store_rollback(st);
		free(w);
		return -1;
	}
	*out = w;
	return 0;
}

int calstore_calibration_add(struct calstore_write *w, long long *id, struct err *err)
{
	return sqc_insert(w->t.st,
	    "INSERT INTO calibrations (robot_id, setup, created_at) VALUES (?1, '', ?2)",
	    ARGS(NUM(w->rid), NUM(sqc_now())), id, "adding a calibration", err);
}

int calstore_calibration_count(struct calstore_write *w, long long *n, struct err *err)
{
	*n = 0;
	return sqc_query_one(w->t.st, CALSQL_CALIBRATION_COUNT("?1"), ARGS(NUM(w->rid)),
	           sqc_read_id, n, "counting calibrations", err) < 0
	    ? -1
	    : 0;
}

int calstore_calibration_setup(
    struct calstore_write *w, long long id, const char *setup, struct err *err)
{
	return sqc_command(w->t.st, "UPDATE calibrations SET setup = ?2 WHERE id = ?1",
	    ARGS(NUM(id), TXT(setup)), NULL, "adding a calibration", err);
}

/* Where calstore_calibration_get() puts what it read (lab and setup may be NULL). */
struct calibration_row {
	char *robot, *lab, **setup;
	long long *rid; /* upload_begin's read only */
};

static int read_calibration(sqlite3_stmt *s, void *ctx, struct err *err)
{
	struct calibration_row *c = ctx;

	snprintf(c->robot, CALSTORE_NAME_MAX, "%s", (const char *)sqlite3_column_text(s, 0));
	if (c->lab)
		snprintf(c->lab, CALSTORE_NAME_MAX, "%s", (const char *)sqlite3_column_text(s, 2));
	if (c->setup && !(*c->setup = sqc_text(s, 1)))
		return sqc_oom(err);
	return 0;
}

int calstore_calibration_get(struct store *st, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	struct calibration_row c = {robot, lab, setup, NULL};

	return sqc_query_one(st,
	    "SELECT r.name, c.setup, coalesce(r.lab, '') FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id WHERE c.id = ?1",
	    ARGS(NUM(id)), read_calibration, &c, "reading a calibration", err);
}

/* Row reader: a calibration with its latest fit, appended to the JSON array ctx. */
static int read_calibration_entry(sqlite3_stmt *s, void *ctx, struct err *err)
{
	json_t *fit = sqlite3_column_type(s, 6) == SQLITE_NULL
	    ? json_null()
	    : json_loads((const char *)sqlite3_column_text(s, 6), JSON_DECODE_ANY, NULL);
	json_t *o = json_pack("{s:I, s:I, s:I, s:o, s:o, s:b, s:o*}", "id",
	    (json_int_t)sqlite3_column_int64(s, 0), "created_at",
	    (json_int_t)sqlite3_column_int64(s, 1), "measurements",
	    (json_int_t)sqlite3_column_int64(s, 2), "fit_id", sqc_int_or_null(s, 3), "fit_state",
	    sqc_text_or_null(s, 4), "fit_started", sqlite3_column_type(s, 5) != SQLITE_NULL, "fit",
	    fit);

	(void)err;
	return o && json_array_append_new(ctx, o) == 0 ? 0 : ROW_BAD;
}

int calstore_calibration_list(struct store *st, const char *robot, long long after, long long limit,
    json_t **out, struct err *err)
{
	return sqc_query_json(st, CALSQL_CALIBRATION_LIST("?1", "?2", "?3"),
	    ARGS(TXT(robot), NUM(after), NUM(limit)), read_calibration_entry, json_array(), out,
	    "listing calibrations", err);
}

/* Row reader: a measurement, appended to its kind's list of the JSON object ctx. */
static int read_measurement(sqlite3_stmt *s, void *ctx, struct err *err)
{
	json_t *m = json_loads((const char *)sqlite3_column_text(s, 1), 0, NULL);
	int k = calstore_kind_index((const char *)sqlite3_column_text(s, 0));

	(void)err;
	if (k < 0 || !m || json_object_set_new(m, "id", json_integer(sqlite3_column_int64(s, 2))) ||
	    json_object_set_new(m, "upload", sqc_int_or_null(s, 3)) ||
	    json_array_append_new(json_object_get(ctx, calstore_lists[k]), m) != 0)
		return ROW_BAD;
	return 0;
}

int calstore_measurements(struct store *st, long long id, json_t **out, struct err *err)
{
	return sqc_query_json(st,
	    "SELECT kind, body, id, upload_id FROM measurements WHERE calibration_id = ?1 "
	    "ORDER BY id",
	    ARGS(NUM(id)), read_measurement, calstore_lists_new(), out, "reading measurements",
	    err);
}

static int read_fit(sqlite3_stmt *s, void *ctx, struct err *err)
{
	struct calstore_fit *out = ctx;

	out->id = sqlite3_column_int64(s, 0);
	snprintf(out->state, sizeof out->state, "%s", (const char *)sqlite3_column_text(s, 1));
	out->measurements = sqlite3_column_int64(s, 3);
	out->created_at = sqlite3_column_int64(s, 4);
	out->started_at = sqlite3_column_int64(s, 5);
	out->done_at = sqlite3_column_int64(s, 6);
	return (out->text = sqc_text(s, 2)) ? 0 : sqc_oom(err);
}

int calstore_fit_latest(struct store *st, long long id, struct calstore_fit *out, struct err *err)
{
	memset(out, 0, sizeof *out);
	return sqc_query_one(st,
	    "SELECT id, state, fit, measurements, created_at, coalesce(started_at, 0), "
	    "coalesce(done_at, 0) FROM fits WHERE calibration_id = ?1 ORDER BY id DESC LIMIT 1",
	    ARGS(NUM(id)), read_fit, out, "reading a fit", err);
}

/* Row reader: a done fit, appended to the JSON array ctx. */
static int read_fit_entry(sqlite3_stmt *s, void *ctx, struct err *err)
{
	json_t *o = json_pack("{s:I, s:s}", "id", (json_int_t)sqlite3_column_int64(s, 0), "text",
	    (const char *)sqlite3_column_text(s, 1));

	(void)err;
	return o && json_array_append_new(ctx, o) == 0 ? 0 : ROW_BAD;
}

int calstore_fit_list(struct store *st, long long id, json_t **out, struct err *err)
{
	return sqc_query_json(st, CALSQL_FIT_LIST("?1"), ARGS(NUM(id)), read_fit_entry,
	    json_array(), out, "listing fits", err);
}

/* ---- uploads, deletions and fits ---- */

/* The calibration's fit that has not started, made if there is none: into *fit_id. */
static int pending_fit(
    struct store *st, long long id, long long now, long long *fit_id, struct err *err)
{
	int found = sqc_query_one(st,
	    "SELECT id FROM fits WHERE calibration_id = ?1 AND state = 'pending' "
	    "ORDER BY id DESC LIMIT 1",
	    ARGS(NUM(id)), sqc_read_id, fit_id, "reading the fits", err);

	if (found != 0)
		return found < 0 ? -1 : 0;
	return sqc_insert(st,
	    "INSERT INTO fits (calibration_id, measurements, fit, created_at, state) "
	    "VALUES (?1, 0, 'null', ?2, 'pending')",
	    ARGS(NUM(id), NUM(now)), fit_id, "adding a fit", err);
}

/* calstore_add_fn: one measurement of the upload being written. */
static int add_measurement(
    struct calstore_write *u, int k, const char *text, long long *mid, struct err *err)
{
	return sqc_insert(u->t.st,
	    "INSERT INTO measurements (calibration_id, kind, body, created_at, upload_id) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)",
	    ARGS(NUM(u->id), TXT(calstore_kinds[k]), TXT(text), NUM(u->now), NUM(u->upload_id)),
	    mid, "adding a measurement", err);
}

/* The robot id of calibration id: 0, or -1 with err (ERR_NOT_FOUND when there is no such
 * calibration). */
static int calibration_robot(struct store *st, long long id, long long *rid, struct err *err)
{
	int found = sqc_query_one(st, "SELECT robot_id FROM calibrations WHERE id = ?1",
	    ARGS(NUM(id)), sqc_read_id, rid, "reading a calibration", err);

	if (found > 0)
		return 0;
	return found < 0 ? -1 : err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
}

/* An Idempotency-Key's record, as calstore_idem_find() reads it. */
struct idem_row {
	const struct calstore_idem *idem;
	int *same;
	char **answer;
};

static int read_idem(sqlite3_stmt *s, void *ctx, struct err *err)
{
	struct idem_row *r = ctx;

	*r->same = sqlite3_column_bytes(s, 0) == CALSTORE_HASH_BYTES &&
	    memcmp(sqlite3_column_blob(s, 0), r->idem->fingerprint, CALSTORE_HASH_BYTES) == 0;
	if (!*r->same)
		return 0;
	return (*r->answer = sqc_text(s, 1)) ? 0 : sqc_oom(err);
}

int calstore_idem_find(struct calstore_write *w, const struct calstore_idem *idem, int *same,
    char **answer, struct err *err)
{
	struct idem_row r = {idem, same, answer};

	/* BEGIN IMMEDIATE: two transactions given one key take turns */
	if (sqc_command(w->t.st,
	        "DELETE FROM idempotency_keys WHERE robot_id = ?1 AND created_at < ?2",
	        ARGS(NUM(w->rid), NUM(sqc_now() - idem->ttl_s)), NULL,
	        "forgetting old idempotency keys", err) != 0)
		return -1;
	return sqc_query_one(w->t.st,
	    "SELECT fingerprint, answer FROM idempotency_keys WHERE robot_id = ?1 AND key = ?2",
	    ARGS(NUM(w->rid), TXT(idem->key)), read_idem, &r, "reading an idempotency key", err);
}

int calstore_idem_keep(struct calstore_write *w, const struct calstore_idem *idem,
    long long upload_id, const char *answer, struct err *err)
{
	return sqc_command(w->t.st,
	    "INSERT INTO idempotency_keys (robot_id, key, fingerprint, upload_id, answer, "
	    "created_at) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	    ARGS(NUM(w->rid), TXT(idem->key), BLOB(idem->fingerprint, CALSTORE_HASH_BYTES),
	        NUM(upload_id), TXT(answer), NUM(sqc_now())),
	    NULL, "storing an idempotency key", err);
}

/* Where upload_begin's read puts the calibration's robot id. */
static int read_locked(sqlite3_stmt *s, void *ctx, struct err *err)
{
	struct calibration_row *c = ctx;

	*c->rid = sqlite3_column_int64(s, 3);
	return read_calibration(s, ctx, err);
}

int calstore_upload_begin(struct store *st, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct calstore_write **out, struct err *err)
{
	struct calstore_write *u = calloc(1, sizeof *u);
	struct calibration_row c = {robot, lab, setup, NULL};
	int found;

	*out = NULL;
	if (!u)
		return sqc_oom(err);
	c.rid = &u->rid;
	/* BEGIN IMMEDIATE holds the write lock: the calibration is the transaction's alone */
	if (store_room(st, err) != 0 || sqc_begin(st, STORE_SYNC_FULL, &u->t, err) != 0) {
		free(u);
		return -1;
	}
	found = sqc_query_one(st,
	    "SELECT r.name, c.setup, coalesce(r.lab, ''), c.robot_id FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id WHERE c.id = ?1",
	    ARGS(NUM(id)), read_locked, &c, "reading a calibration", err);
	if (found <= 0) {
		store_rollback(st);
		free(u);
		return found;
	}
	u->id = id;
	*out = u;
	return 1;
}

int calstore_upload_add(
    struct calstore_write *u, const json_t *upload, struct calstore_receipt *out, struct err *err)
{
	memset(out, 0, sizeof *out);
	u->now = sqc_now();
	if (sqc_insert(u->t.st, "INSERT INTO uploads (calibration_id, created_at) VALUES (?1, ?2)",
	        ARGS(NUM(u->id), NUM(u->now)), &out->upload_id, "adding an upload", err) != 0)
		return -1;
	u->upload_id = out->upload_id;
	if (calstore_upload_each(upload, add_measurement, u, &out->ids, err) != 0)
		return -1;
	return pending_fit(u->t.st, u->id, u->now, &out->fit_id, err);
}

int calstore_upload_measurements(struct calstore_write *u, json_t **out, struct err *err)
{
	return calstore_measurements(u->t.st, u->id, out, err);
}

int calstore_write_end(struct calstore_write *u, int commit, struct err *err)
{
	int rc;

	u->t.discard = !commit;
	rc = sqc_end(&u->t, 0, err);
	free(u);
	return rc;
}

/* Row reader: a measurement about to be deleted, its id onto its kind's list of ctx. */
static int read_deleted(sqlite3_stmt *s, void *ctx, struct err *err)
{
	int k = calstore_kind_index((const char *)sqlite3_column_text(s, 1));

	(void)err;
	return k >= 0 &&
	        json_array_append_new(json_object_get(ctx, calstore_lists[k]),
	            json_integer(sqlite3_column_int64(s, 0))) == 0
	    ? 0
	    : ROW_BAD;
}

static int delete_measurements(struct store *st, long long id, long long measurement_id,
    long long upload_id, json_t *deleted, long long *fit_id, struct err *err)
{
	long long rid, changed = 0;
	/* (an id of 0 matches nothing: -1) */
	long long mid = measurement_id > 0 ? measurement_id : -1,
	          uid = upload_id > 0 ? upload_id : -1;

	if (calibration_robot(st, id, &rid, err) != 0 ||
	    sqc_query(st,
	        "SELECT id, kind FROM measurements WHERE calibration_id = ?1 AND "
	        "(id = ?2 OR upload_id = ?3) ORDER BY id",
	        ARGS(NUM(id), NUM(mid), NUM(uid)), read_deleted, deleted, "reading measurements",
	        err) < 0 ||
	    sqc_command(st,
	        "DELETE FROM measurements WHERE calibration_id = ?1 AND (id = ?2 OR upload_id = "
	        "?3)",
	        ARGS(NUM(id), NUM(mid), NUM(uid)), &changed, "deleting measurements", err) != 0)
		return -1;
	if (changed == 0)
		return err_set(err, ERR_NOT_FOUND, NULL, "calibration %lld has no %s %lld", id,
		    measurement_id > 0 ? "measurement" : "upload",
		    measurement_id > 0 ? measurement_id : upload_id);
	return pending_fit(st, id, sqc_now(), fit_id, err);
}

int calstore_delete(struct store *st, long long id, long long measurement_id, long long upload_id,
    json_t **deleted, long long *fit_id, struct err *err)
{
	json_t *ids = calstore_lists_new();
	struct tx t;

	if (!ids)
		return sqc_oom(err);
	if (sqc_begin(st, STORE_SYNC_FULL, &t, err) != 0) {
		json_decref(ids);
		return -1;
	}
	return sqc_hand_over(ids,
	    sqc_end(
	        &t, delete_measurements(st, id, measurement_id, upload_id, ids, fit_id, err), err),
	    deleted);
}

static int fit_claim(struct tx *t, long long id, struct calstore_claim *out, struct err *err)
{
	struct store *st = t->st;
	char robot[CALSTORE_NAME_MAX];
	int found;

	if (sqc_query_one(st,
	        "SELECT max(id) FROM fits WHERE calibration_id = ?1 AND state = 'pending'",
	        ARGS(NUM(id)), sqc_read_id, &out->fit_id, "reading the fits", err) < 0)
		return -1;
	if (out->fit_id == 0) {
		t->discard = 1; /* none pending: nothing to do */
		return 0;
	}
	if (sqc_command(st,
	        "UPDATE fits SET state = CASE WHEN id = ?2 THEN 'running' ELSE 'superseded' END, "
	        "started_at = CASE WHEN id = ?2 THEN ?3 ELSE started_at END "
	        "WHERE calibration_id = ?1 AND state IN ('pending', 'running') AND id <= ?2",
	        ARGS(NUM(id), NUM(out->fit_id), NUM(sqc_now())), NULL, "starting a fit", err) != 0)
		return -1;
	found = calstore_calibration_get(st, id, robot, NULL, NULL, err);
	if (found <= 0)
		return found < 0 ? -1
		                 : err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
	return calstore_measurements(st, id, &out->all, err) == 0 ? 1 : -1;
}

int calstore_fit_claim(struct store *st, long long id, struct calstore_claim *out, struct err *err)
{
	struct tx t;

	memset(out, 0, sizeof *out);
	if (sqc_begin(st, STORE_SYNC_NORMAL, &t, err) != 0)
		return -1;
	return sqc_end(&t, fit_claim(&t, id, out, err), err);
}

int calstore_fit_finish(struct store *st, long long fit_id, int done, const char *text,
    long long measurements, struct err *err)
{
	struct tx t;

	/* no fsync: a fit lost with the power stays running, and the next start recomputes it */
	if (sqc_begin(st, STORE_SYNC_NORMAL, &t, err) != 0)
		return -1;
	return sqc_end(&t,
	    sqc_command(st,
	        "UPDATE fits SET state = ?2, fit = ?3, measurements = ?4, done_at = ?5 WHERE id = "
	        "?1",
	        ARGS(NUM(fit_id), TXT(done ? "done" : "failed"), TXT(text), NUM(measurements),
	            NUM(sqc_now())),
	        NULL, "recording a fit", err),
	    err);
}

static int fit_recover(struct store *st, json_t *list, struct err *err)
{
	if (sqc_command(st,
	        "UPDATE fits SET state = 'pending', started_at = NULL WHERE state = 'running'",
	        NO_ARGS, NULL, "recovering fits", err) != 0)
		return -1;
	return sqc_query(st,
	    "SELECT DISTINCT calibration_id FROM fits WHERE state = 'pending' ORDER BY "
	    "calibration_id",
	    NO_ARGS, sqc_read_id_into, list, "reading pending fits", err);
}

int calstore_fit_recover(struct store *st, json_t **ids, struct err *err)
{
	json_t *list = json_array();
	struct tx t;

	if (!list)
		return sqc_oom(err);
	if (sqc_begin(st, STORE_SYNC_FULL, &t, err) != 0) {
		json_decref(list);
		return -1;
	}
	return sqc_hand_over(list, sqc_end(&t, fit_recover(st, list, err), err), ids);
}

/* ---- the server's secrets ---- */

static int read_secret(sqlite3_stmt *s, void *ctx, struct err *err)
{
	(void)err;
	if (sqlite3_column_bytes(s, 0) != CALSTORE_SECRET_BYTES)
		return ROW_BAD;
	memcpy(ctx, sqlite3_column_blob(s, 0), CALSTORE_SECRET_BYTES);
	return 0;
}

static int find_secret(struct store *st, const char *name, const unsigned char *fresh,
    unsigned char secret[CALSTORE_SECRET_BYTES], struct err *err)
{
	int found;

	if (sqc_command(st, "INSERT OR IGNORE INTO server_secrets (name, secret) VALUES (?1, ?2)",
	        ARGS(TXT(name), BLOB(fresh, CALSTORE_SECRET_BYTES)), NULL, "making a secret",
	        err) != 0)
		return -1;
	found = sqc_query_one(st, "SELECT secret FROM server_secrets WHERE name = ?1",
	    ARGS(TXT(name)), read_secret, secret, "reading a secret", err);
	return found > 0 ? 0 : found < 0 ? -1 : sqc_fail(err, NULL, "reading a secret");
}

int calstore_secret(struct store *st, const char *name, unsigned char secret[CALSTORE_SECRET_BYTES],
    struct err *err)
{
	unsigned char fresh[CALSTORE_SECRET_BYTES];
	struct tx t;
	int rc;

	randombytes_buf(fresh, sizeof fresh);
	if (sqc_begin(st, STORE_SYNC_FULL, &t, err) != 0)
		return -1;
	rc = find_secret(st, name, fresh, secret, err);
	sodium_memzero(fresh, sizeof fresh);
	return sqc_end(&t, rc, err);
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

static int sq_create_begin(void *ctx, const char *robot, struct calstore_write **w, struct err *err)
{
	return calstore_create_begin(ctx, robot, w, err);
}

static int sq_calibration_get(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	return calstore_calibration_get(ctx, id, robot, lab, setup, err);
}

static int sq_calibration_list(
    void *ctx, const char *robot, long long after, long long limit, json_t **out, struct err *err)
{
	return calstore_calibration_list(ctx, robot, after, limit, out, err);
}

static int sq_measurements(void *ctx, long long id, json_t **out, struct err *err)
{
	return calstore_measurements(ctx, id, out, err);
}

static int sq_fit_latest(void *ctx, long long id, struct calstore_fit *out, struct err *err)
{
	return calstore_fit_latest(ctx, id, out, err);
}

static int sq_fit_list(void *ctx, long long id, json_t **out, struct err *err)
{
	return calstore_fit_list(ctx, id, out, err);
}

static int sq_upload_begin(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct calstore_write **w, struct err *err)
{
	return calstore_upload_begin(ctx, id, robot, lab, setup, w, err);
}

static int sq_remove(void *ctx, long long id, long long measurement_id, long long upload_id,
    json_t **deleted, long long *fit_id, struct err *err)
{
	return calstore_delete(ctx, id, measurement_id, upload_id, deleted, fit_id, err);
}

static int sq_fit_claim(void *ctx, long long id, struct calstore_claim *out, struct err *err)
{
	return calstore_fit_claim(ctx, id, out, err);
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
	    .create_begin = sq_create_begin,
	    .calibration_add = calstore_calibration_add,
	    .calibration_count = calstore_calibration_count,
	    .calibration_setup = calstore_calibration_setup,
	    .calibration_get = sq_calibration_get,
	    .calibration_list = sq_calibration_list,
	    .measurements = sq_measurements,
	    .fit_latest = sq_fit_latest,
	    .fit_list = sq_fit_list,
	    .upload_begin = sq_upload_begin,
	    .idem_find = calstore_idem_find,
	    .upload_add = calstore_upload_add,
	    .upload_measurements = calstore_upload_measurements,
	    .idem_keep = calstore_idem_keep,
	    .write_end = calstore_write_end,
	    .remove = sq_remove,
	    .fit_claim = sq_fit_claim,
	    .fit_finish = sq_fit_finish,
	    .fit_recover = sq_fit_recover,
	    .secret = sq_secret,
	};
}
