/*
 * sq_stmt.c: the SQLite calibration store's statements and transactions (see sq_stmt.h).
 */
#include "store/sq_stmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int sqc_fail(struct err *err, sqlite3_stmt *stmt, const char *what)
{
	return err_set(err, ERR_UNAVAILABLE, NULL, "store: %s: %s", what,
	    stmt ? sqlite3_errmsg(sqlite3_db_handle(stmt)) : "no statement");
}

int sqc_oom(struct err *err)
{
	return err_set(err, ERR_INTERNAL, NULL, "out of memory");
}

/* The current Unix time. */
long long sqc_now(void)
{
	return (long long)time(NULL);
}

/* ---- statements ---- */

/* Bind args[i] to parameter ?(i + 1) of s: SQLITE_OK or SQLite's error. */
static int bind_args(sqlite3_stmt *s, const struct arg *args, int n)
{
	int i, rc = SQLITE_OK;

	for (i = 0; i < n && rc == SQLITE_OK; i++) {
		const struct arg *a = &args[i];

		switch (a->kind) {
		case ARG_INT:
			rc = sqlite3_bind_int64(s, i + 1, a->num);
			break;
		case ARG_REAL:
			rc = sqlite3_bind_double(s, i + 1, a->real);
			break;
		case ARG_TEXT: /* a NULL text binds SQL NULL */
			rc = sqlite3_bind_text(s, i + 1, a->data, -1, SQLITE_STATIC);
			break;
		case ARG_BLOB:
			rc = sqlite3_bind_blob(s, i + 1, a->data, a->len, SQLITE_STATIC);
			break;
		default:
			rc = sqlite3_bind_null(s, i + 1);
		}
	}
	return rc;
}

/*
 * Run sql (prepared once per connection and cached: store_stmt()) with its n parameters,
 * giving each row it returns to read(s, ctx, err), at most limit rows (0: every row; a
 * statement without a reader must return none), then reset it. Returns the number of rows
 * read, or -1 with err: the reader's, or ERR_UNAVAILABLE "store: <what>: <SQLite's
 * message>" when SQLite fails or a reader finds a row bad.
 */
int sqc_statement(struct store *st, const char *sql, const struct arg *args, int n, int limit,
    row_fn read, void *ctx, const char *what, struct err *err)
{
	sqlite3_stmt *s = store_stmt(st, sql, err);
	int rc, rows = 0, got = 0, status;

	if (!s)
		return -1;
	rc = bind_args(s, args, n);
	if (rc == SQLITE_OK)
		do {
			rc = sqlite3_step(s);
			if (rc != SQLITE_ROW || !read || (got = read(s, ctx, err)) != 0)
				break;
			rows++;
		} while (!(limit && rows == limit));
	if (got == -1)
		status = -1;
	else if (got == ROW_BAD ||
	    !(rc == SQLITE_DONE || (rc == SQLITE_ROW && read && limit && rows == limit)))
		status = sqc_fail(err, s, what);
	else
		status = rows;
	store_stmt_done(s);
	return status;
}

/* Every row of sql through read: the number of rows, or -1 with err. */
int sqc_query(struct store *st, const char *sql, const struct arg *args, int n, row_fn read,
    void *ctx, const char *what, struct err *err)
{
	return sqc_statement(st, sql, args, n, 0, read, ctx, what, err);
}

/* The first row of sql (if any) through read: 1, 0 when there is none, or -1 with err. */
int sqc_query_one(struct store *st, const char *sql, const struct arg *args, int n, row_fn read,
    void *ctx, const char *what, struct err *err)
{
	return sqc_statement(st, sql, args, n, 1, read, ctx, what, err);
}

/* A statement that returns no rows: 0, or -1 with err; *changed (may be NULL) the rows it
 * inserted, updated or deleted. */
int sqc_command(struct store *st, const char *sql, const struct arg *args, int n,
    long long *changed, const char *what, struct err *err)
{
	if (sqc_statement(st, sql, args, n, 0, NULL, NULL, what, err) < 0)
		return -1;
	if (changed)
		*changed = sqlite3_changes(store_conn(st, err));
	return 0;
}

/* An INSERT of one row: 0 with its rowid into *id, or -1 with err. */
int sqc_insert(struct store *st, const char *sql, const struct arg *args, int n, long long *id,
    const char *what, struct err *err)
{
	if (sqc_statement(st, sql, args, n, 0, NULL, NULL, what, err) < 0)
		return -1;
	*id = sqlite3_last_insert_rowid(store_conn(st, err));
	return 0;
}

/* BEGIN IMMEDIATE with durability sync (STORE_SYNC_FULL: the commit is fsynced, for
 * everything a client is told succeeded): 0, or -1 with err. */
int sqc_begin(struct store *st, enum store_sync sync, struct tx *t, struct err *err)
{
	t->st = st;
	t->discard = 0;
	return store_begin(st, sync, err);
}

/*
 * End sqc_begin()'s transaction with what its work returned, rc (-1 with err, or a result
 * >= 0): committed when rc >= 0 (unless the work set t->discard), else rolled back.
 * Returns rc, or -1 with err when the commit failed.
 */
int sqc_end(struct tx *t, int rc, struct err *err)
{
	if (rc >= 0 && !t->discard)
		return store_commit(t->st, err) == 0 ? rc : -1;
	store_rollback(t->st);
	return rc;
}

/* ---- reading rows ---- */

/* A malloc'ed copy of column col of the current row. */
char *sqc_text(sqlite3_stmt *stmt, int col)
{
	size_t n = (size_t)sqlite3_column_bytes(stmt, col);
	char *copy = malloc(n + 1);

	if (copy) {
		memcpy(copy, sqlite3_column_text(stmt, col), n);
		copy[n] = '\0';
	}
	return copy;
}

/* An integer column, or JSON null. */
json_t *sqc_int_or_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL
	    ? json_null()
	    : json_integer(sqlite3_column_int64(s, col));
}

json_t *sqc_text_or_null(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL
	    ? json_null()
	    : json_string((const char *)sqlite3_column_text(s, col));
}

/* Row reader: the first column, an integer (NULL: 0), into *(long long *)ctx. */
int sqc_read_id(sqlite3_stmt *s, void *ctx, struct err *err)
{
	(void)err;
	*(long long *)ctx = sqlite3_column_int64(s, 0);
	return 0;
}

/* Row reader: the first column, an integer, appended to the JSON array ctx. */
int sqc_read_id_into(sqlite3_stmt *s, void *ctx, struct err *err)
{
	(void)err;
	return json_array_append_new(ctx, json_integer(sqlite3_column_int64(s, 0))) == 0 ? 0
	                                                                                 : ROW_BAD;
}

/* Row reader: the first column, a text, into the char[CALSTORE_NAME_MAX] ctx. */
int sqc_read_name(sqlite3_stmt *s, void *ctx, struct err *err)
{
	(void)err;
	snprintf(ctx, CALSTORE_NAME_MAX, "%s", (const char *)sqlite3_column_text(s, 0));
	return 0;
}

/* Hand result, built by a query that returned rows (-1: failed), to *out (the caller owns
 * it), or free it: 0, or -1. */
int sqc_hand_over(json_t *result, int rows, json_t **out)
{
	if (rows < 0) {
		json_decref(result);
		return -1;
	}
	*out = result;
	return 0;
}

/* sqc_query() into result, a new JSON container that read fills (NULL: out of memory), then
 * handed to *out (the caller owns it), or freed: 0, or -1 with err. */
int sqc_query_json(struct store *st, const char *sql, const struct arg *args, int n, row_fn read,
    json_t *result, json_t **out, const char *what, struct err *err)
{
	if (!result)
		return sqc_oom(err);
	return sqc_hand_over(result, sqc_query(st, sql, args, n, read, result, what, err), out);
}
