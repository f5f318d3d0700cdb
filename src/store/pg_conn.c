/*
 * pg_conn.c: the PostgreSQL store's connections, statements and transactions (see pg_conn.h).
 */
#include "store/pg_conn.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>
#include <sodium.h>

#include "store/knobs.h"

static double monotonic_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Sleep seconds on ps->tick (held: ps->lock), waking early at close. */
void pgc_nap_locked(struct pgstore *ps, double seconds)
{
	struct timespec until;
	double t = monotonic_now() + seconds;

	until.tv_sec = (time_t)t;
	until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
	pthread_cond_timedwait(&ps->tick, &ps->lock, &until);
}

/* libpq's message without its trailing newline, into out. */
void pgc_message(PGconn *conn, char *out, size_t size)
{
	size_t n;

	/* the first line: the rest is libpq's advice to a person at a terminal */
	snprintf(out, size, "%s", conn ? PQerrorMessage(conn) : "out of memory");
	n = strcspn(out, "\r\n");
	out[n] = '\0';
	if (n > 7 && strncmp(out, "FATAL:  ", 8) == 0)
		memmove(out, out + 8, n - 7);
	else if (n > 7 && strncmp(out, "ERROR:  ", 8) == 0)
		memmove(out, out + 8, n - 7);
}

static void quiet_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/*
 * Is a failure with SQLSTATE state worth retrying by itself? "" is libpq's own failure (the
 * server never answered: not running, refused, timed out, unknown host), and classes 08
 * (connection), 40 (a transaction rolled back), 53 (resources: too many connections) and
 * 57 (the server starting up or shutting down) pass. The server's other refusals (28:
 * authentication, 3D000: no such database, 42: privileges, ...) need a person.
 */
int pgc_transient(const char *state)
{
	static const char *const classes[] = {"08", "40", "53", "57"};
	size_t i;

	if (!*state)
		return 1;
	for (i = 0; i < sizeof classes / sizeof *classes; i++)
		if (strncmp(state, classes[i], 2) == 0)
			return 1;
	return 0;
}

/*
 * A failed connection's message (asked for with PQERRORS_VERBOSE, so that the server's
 * refusal carries its SQLSTATE: "...failed: FATAL:  3D000: database ... does not exist")
 * into why without the severity and the code, and the code into state ("" when libpq
 * failed on its own).
 */
static void connect_message(PGconn *conn, char state[6], char *why, size_t size)
{
	const char *text = PQerrorMessage(conn), *at;
	size_t line = strcspn(text, "\r\n"), i;

	state[0] = '\0';
	for (at = strstr(text, ":  "); at && (size_t)(at - text) < line;
	     at = strstr(at + 1, ":  ")) {
		for (i = 0; i < 5 &&
		     ((at[3 + i] >= '0' && at[3 + i] <= '9') ||
		         (at[3 + i] >= 'A' && at[3 + i] <= 'Z'));
		     i++)
			;
		if (i == 5 && at[8] == ':' && at[9] == ' ') {
			const char *severity = at;

			memcpy(state, at + 3, 5);
			state[5] = '\0';
			/* back to the start of the severity word ("FATAL") */
			while (severity > text && severity[-1] != ' ')
				severity--;
			snprintf(why, size, "%.*s%.*s", (int)(severity - text), text,
			    (int)(line - (size_t)(at + 10 - text)), at + 10);
			return;
		}
	}
	snprintf(why, size, "%.*s", (int)line, text);
}

/*
 * A new connection to url, or NULL with why filled and *fatal set when the failure needs a
 * person (pgc_transient()): the server refused this user or database, or wants a
 * password the URL does not give. The attempt gives up after PGSTORE_CONNECT_TIMEOUT_S.
 */
PGconn *pgc_connect(const char *url, int *fatal, char *why, size_t size)
{
	char timeout[16];
	/* connect_timeout: for PQreset() (pgc_exec()), which blocks; the poll below has its own */
	const char *keys[] = {"dbname", "connect_timeout", "application_name", NULL};
	const char *values[] = {url, timeout, "contactd", NULL};
	PostgresPollingStatusType polled = PGRES_POLLING_WRITING;
	double deadline = monotonic_now() + PGSTORE_CONNECT_TIMEOUT_S;
	char state[6] = "";
	PGconn *conn;

	*fatal = 0;
	snprintf(timeout, sizeof timeout, "%d", PGSTORE_CONNECT_TIMEOUT_S);
	conn = PQconnectStartParams(keys, values, 1);
	if (!conn) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	if (PQstatus(conn) == CONNECTION_BAD) { /* the URL itself: pgstore_open() checked it */
		*fatal = 1;
		connect_message(conn, state, why, size);
		PQfinish(conn);
		return NULL;
	}
	PQsetErrorVerbosity(conn, PQERRORS_VERBOSE);
	while (polled != PGRES_POLLING_OK && polled != PGRES_POLLING_FAILED) {
		struct pollfd pfd = {
		    PQsocket(conn), polled == PGRES_POLLING_READING ? POLLIN : POLLOUT, 0};
		double left = deadline - monotonic_now();
		int n;

		if (left <= 0) {
			snprintf(why, size, "no connection within %d s", PGSTORE_CONNECT_TIMEOUT_S);
			PQfinish(conn);
			return NULL;
		}
		n = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			snprintf(why, size, "poll: %s", strerror(errno));
			PQfinish(conn);
			return NULL;
		}
		if (n > 0)
			polled = PQconnectPoll(conn);
	}
	if (polled == PGRES_POLLING_FAILED || PQstatus(conn) != CONNECTION_OK) {
		connect_message(conn, state, why, size);
		*fatal = !pgc_transient(state) || PQconnectionNeedsPassword(conn);
		PQfinish(conn);
		return NULL;
	}
	PQsetErrorVerbosity(conn, PQERRORS_DEFAULT);
	PQsetNoticeProcessor(conn, quiet_notice, NULL);
	return conn;
}

/* The last attempt to reach the server failed with why: requests fail fast for a while. The
 * caller holds ps->lock. */
static void down_locked(struct pgstore *ps, const char *why, int fatal)
{
	ps->down_until = monotonic_now() + PGSTORE_RETRY_S;
	ps->down_fatal = fatal;
	ps->reachable = 0;
	snprintf(ps->down_why, sizeof ps->down_why, "%.*s", (int)sizeof ps->down_why - 1, why);
}

/* Give slot s back unused. The caller holds ps->lock. */
static void unborrow_locked(struct pgstore *ps, struct slot *s)
{
	s->busy = 0;
	pthread_cond_signal(&ps->freed);
}

/*
 * Check and migrate the schema once the server is reached (at open, or at the first
 * connection after a start while it was unreachable): 0, or -1 with err and the store
 * marked down.
 */
static int get_ready(struct pgc *c, struct err *err)
{
	struct pgstore *ps = c->ps;
	int fatal = 0, rc = 0;

	pthread_mutex_lock(&ps->migrating);
	if (!ps->ready) {
		rc = ps->migrate(c, &fatal, err);
		pthread_mutex_lock(&ps->lock);
		if (rc == 0)
			ps->ready = 1;
		else /* its message without the "store: " pgc_acquire() puts back */
			down_locked(ps,
			    err->message + (strncmp(err->message, "store: ", 7) == 0 ? 7 : 0),
			    fatal);
		pthread_mutex_unlock(&ps->lock);
		if (rc == 0 && ps->deferred && ps->log)
			ps->log("calibration store: PostgreSQL reached; schema at version %zu, "
			        "calibration served",
			    ps->version);
	}
	pthread_mutex_unlock(&ps->migrating);
	return rc;
}

/* Borrow a connection of the pool, connecting it (and, the first time, migrating the
 * schema) if needed. */
int pgc_acquire(struct pgstore *ps, struct pgc *c, struct err *err)
{
	struct slot *s = NULL;
	char why[sizeof ps->down_why];
	int i, fatal, ready;

	pthread_mutex_lock(&ps->lock);
	for (;;) {
		for (i = 0; i < PGSTORE_POOL; i++)
			if (!ps->slots[i].busy && (!s || (!s->conn && ps->slots[i].conn)))
				s = &ps->slots[i];
		if (s)
			break;
		pthread_cond_wait(&ps->freed, &ps->lock);
	}
	s->busy = 1;
	ready = ps->ready;
	if ((!s->conn || !ready) && monotonic_now() < ps->down_until) {
		snprintf(why, sizeof why, "%s", ps->down_why);
		fatal = ps->down_fatal;
		unborrow_locked(ps, s);
		pthread_mutex_unlock(&ps->lock);
		return err_set(err, ERR_UNAVAILABLE, NULL, "store: PostgreSQL %s: %s",
		    fatal ? "refuses contactd" : "unreachable", why);
	}
	pthread_mutex_unlock(&ps->lock);
	if (!s->conn && !(s->conn = pgc_connect(ps->url, &fatal, why, sizeof why))) {
		pthread_mutex_lock(&ps->lock);
		down_locked(ps, why, fatal);
		unborrow_locked(ps, s);
		pthread_mutex_unlock(&ps->lock);
		return err_set(err, ERR_UNAVAILABLE, NULL, "store: PostgreSQL %s: %s",
		    fatal ? "refuses contactd" : "unreachable", why);
	}
	c->ps = ps;
	c->slot = s;
	c->conn = s->conn;
	c->state[0] = '\0';
	if (!ready && get_ready(c, err) != 0) {
		pgc_release(c);
		return -1;
	}
	return 0;
}

/* Give the connection back; one that broke is closed, to be reopened by the next user. */
void pgc_release(struct pgc *c)
{
	if (PQstatus(c->conn) == CONNECTION_OK && PQtransactionStatus(c->conn) != PQTRANS_IDLE)
		PQclear(PQexec(c->conn, "ROLLBACK"));
	if (PQstatus(c->conn) != CONNECTION_OK) {
		PQfinish(c->conn);
		c->conn = NULL;
	}
	pthread_mutex_lock(&c->ps->lock);
	c->ps->reachable = c->conn && c->ps->ready;
	c->slot->conn = c->conn;
	c->slot->busy = 0;
	pthread_cond_signal(&c->ps->freed);
	pthread_mutex_unlock(&c->ps->lock);
}

/* ---- statements ---- */

/*
 * Run sql with its n parameters on c, as one statement of the caller's transaction or on
 * its own: the result (caller clears) or NULL with err (ERR_UNAVAILABLE naming what was
 * being done, and the SQLSTATE in c->state). A pooled connection that PostgreSQL closed (a
 * restart) is noticed here: outside a transaction nothing was done, so it reconnects and
 * tries once more.
 */
PGresult *pgc_exec(struct pgc *c, const char *sql, const struct arg *args, int n, const char *what,
    struct err *err)
{
	PGTransactionStatusType before = PQtransactionStatus(c->conn);
	char numbers[MAX_ARGS][24], why[200];
	const char *values[MAX_ARGS];
	PGresult *r;
	ExecStatusType st;
	int i;

	if (n > MAX_ARGS) {
		err_set(err, ERR_INTERNAL, NULL, "store: %s: %d parameters", what, n);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (args[i].is_num)
			snprintf(numbers[i], sizeof numbers[i], "%lld", args[i].num);
		values[i] = args[i].is_num ? numbers[i] : args[i].text;
	}
	r = PQexecParams(c->conn, sql, n, NULL, values, NULL, NULL, 0);
	st = PQresultStatus(r);
	if (!(r && (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)) &&
	    PQstatus(c->conn) == CONNECTION_BAD && before == PQTRANS_IDLE) {
		PQclear(r);
		PQreset(c->conn);
		r = PQstatus(c->conn) == CONNECTION_OK
		    ? PQexecParams(c->conn, sql, n, NULL, values, NULL, NULL, 0)
		    : NULL;
		st = PQresultStatus(r);
	}
	if (r && (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK))
		return r;
	snprintf(c->state, sizeof c->state, "%s",
	    r && PQresultErrorField(r, PG_DIAG_SQLSTATE) ? PQresultErrorField(r, PG_DIAG_SQLSTATE)
	                                                 : "");
	pgc_message(c->conn, why, sizeof why);
	PQclear(r);
	err_set(err, ERR_UNAVAILABLE, NULL, "store: %s: %s", what, why);
	return NULL;
}

/* pgc_exec() for a statement whose rows are not needed: *changed (may be NULL) the rows it
 * touched. */
int pgc_run(struct pgc *c, const char *sql, const struct arg *args, int n, long long *changed,
    const char *what, struct err *err)
{
	PGresult *r = pgc_exec(c, sql, args, n, what, err);

	if (!r)
		return -1;
	if (changed)
		*changed = atoll(PQcmdTuples(r));
	PQclear(r);
	return 0;
}

/* pgc_exec() on a connection of ps's pool, borrowed for this one statement. */
PGresult *pgc_query(struct pgstore *ps, const char *sql, const struct arg *args, int n,
    const char *what, struct err *err)
{
	struct pgc c;
	PGresult *r;

	if (pgc_acquire(ps, &c, err) != 0)
		return NULL;
	r = pgc_exec(&c, sql, args, n, what, err);
	pgc_release(&c);
	return r;
}

/* pgc_run() on a connection of ps's pool, borrowed for this one statement. */
int pgc_command(struct pgstore *ps, const char *sql, const struct arg *args, int n,
    long long *changed, const char *what, struct err *err)
{
	struct pgc c;
	int rc;

	if (pgc_acquire(ps, &c, err) != 0)
		return -1;
	rc = pgc_run(&c, sql, args, n, changed, what, err);
	pgc_release(&c);
	return rc;
}

void pgc_rollback(struct pgc *c)
{
	if (PQstatus(c->conn) == CONNECTION_OK)
		PQclear(PQexec(c->conn, "ROLLBACK"));
}

/* Borrow a connection of ps's pool and begin a transaction on it: 0, or -1 with err and
 * nothing borrowed. End it with pgc_end(). */
int pgc_begin(struct pgstore *ps, struct pgc *c, struct err *err)
{
	if (pgc_acquire(ps, c, err) != 0)
		return -1;
	c->discard = 0;
	if (pgc_run(c, "BEGIN", NO_ARGS, NULL, "beginning a transaction", err) != 0) {
		pgc_release(c);
		return -1;
	}
	return 0;
}

/*
 * End pgc_begin()'s transaction with what its work returned, rc (-1 with err, or a result
 * >= 0), and give the connection back: committed when rc >= 0 (unless the work set
 * c->discard: nothing it did is to be kept), else rolled back. Returns rc, or -1 with err
 * when the commit failed.
 */
int pgc_end(struct pgc *c, int rc, struct err *err)
{
	if (rc >= 0 && !c->discard) {
		if (pgc_run(c, "COMMIT", NO_ARGS, NULL, "committing", err) != 0)
			rc = -1;
	} else {
		pgc_rollback(c);
	}
	pgc_release(c);
	return rc;
}

/* The current Unix time. */
long long pgc_now(void)
{
	return (long long)time(NULL);
}

/* bytea input text (\x and hex) of n bytes in buf (2n + 3 long). */
const char *pgc_bytea(char *buf, const unsigned char *bytes, size_t n)
{
	buf[0] = '\\';
	buf[1] = 'x';
	sodium_bin2hex(buf + 2, 2 * n + 1, bytes, n);
	return buf;
}

/* Hex text (encode(..., 'hex')) of exactly n bytes into out: 0, or -1. */
int pgc_hex(const char *hex, unsigned char *out, size_t n)
{
	size_t got = 0;

	return strlen(hex) == 2 * n && sodium_hex2bin(out, n, hex, 2 * n, NULL, &got, NULL) == 0 &&
	        got == n
	    ? 0
	    : -1;
}

long long pgc_ll(const PGresult *r, int row, int col)
{
	return atoll(PQgetvalue(r, row, col));
}

int pgc_bool(const PGresult *r, int row, int col)
{
	return PQgetvalue(r, row, col)[0] == 't';
}

json_t *pgc_int_or_null(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? json_null() : json_integer(pgc_ll(r, row, col));
}

json_t *pgc_text_or_null(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? json_null() : json_string(PQgetvalue(r, row, col));
}

char *pgc_copy(const PGresult *r, int row, int col)
{
	return strdup(PQgetvalue(r, row, col));
}

int pgc_oom(struct err *err)
{
	return err_set(err, ERR_INTERNAL, NULL, "out of memory");
}

/* Every row of r made a JSON value by row() into a JSON array, *out; r cleared. */
int pgc_rows_json(
    PGresult *r, json_t *(*row)(const PGresult *r, int i), json_t **out, struct err *err)
{
	json_t *list = json_array();
	int i;

	for (i = 0; list && i < PQntuples(r); i++) {
		json_t *o = row(r, i);

		if (!o || json_array_append_new(list, o) != 0) {
			json_decref(list);
			list = NULL;
		}
	}
	PQclear(r);
	if (!list)
		return pgc_oom(err);
	*out = list;
	return 0;
}

static json_t *id_row(const PGresult *r, int i)
{
	return json_integer(pgc_ll(r, i, 0));
}

/* The first column of every row of r as a JSON array of integers into *out, r cleared. */
int pgc_id_list(PGresult *r, json_t **out, struct err *err)
{
	return pgc_rows_json(r, id_row, out, err);
}

/* An INSERT ... RETURNING id of one row: its id into *id. */
int pgc_insert(struct pgc *c, const char *sql, const struct arg *args, int n, long long *id,
    const char *what, struct err *err)
{
	return pgc_first_ll(pgc_exec(c, sql, args, n, what, err), id) < 0 ? -1 : 0;
}

/* The first column of r's first row, an integer, into *out; r cleared. */
int pgc_first_ll(PGresult *r, long long *out)
{
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		*out = pgc_ll(r, 0, 0);
	PQclear(r);
	return found;
}
