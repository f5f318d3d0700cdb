/*
 * pgstore.c: the calibration store on PostgreSQL (see pgstore.h).
 */
#include "store/pgstore.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>
#include <sodium.h>

#include "tunables.h"

/* Taken inside the migration transaction: nodes starting together migrate once. */
#define MIGRATION_LOCK 7104511234LL
#define CHANNEL "contactd_events"
#define MAX_RUNNING 64 /* fits this process computes at once, far above CALIB_FIT_WORKERS */

static const char *const kinds[3] = {"drop", "press", "trajectory"};
static const char *const lists[3] = {"drops", "presses", "trajectories"};

struct slot {
	PGconn *conn;
	int busy;
};

struct pgstore {
	char *url;
	char node[17];
	pthread_mutex_t lock;
	pthread_cond_t freed; /* a slot was released */
	pthread_cond_t tick;  /* CLOCK_MONOTONIC: the threads' sleeps, cut short at close */
	struct slot slots[PGSTORE_POOL];
	double down_until; /* monotonic: until then, fail at once (the last attempt failed) */
	char down_why[160];
	int down_fatal;            /* the last attempt's failure needs a person (pgstore_open()) */
	int ready;                 /* the schema was checked and migrated on this server */
	int reachable;             /* last known: ready, and the last contact with it worked */
	int deferred;              /* opened while unreachable: say when it is reached */
	pthread_mutex_t migrating; /* one thread of the process checks the schema */
	pgstore_log_fn log;
	long long running[MAX_RUNNING]; /* fits this process claimed and computes: renewed */
	int nrunning, stopping;
	pthread_t renewer, listener;
	int renewer_started, listener_started;
	void (*heard)(const char *text, void *heard_ctx);
	void *heard_ctx;
};

/* One borrowed connection. */
struct pgc {
	struct pgstore *ps;
	struct slot *slot;
	PGconn *conn;
	char state[6]; /* the SQLSTATE of its last failed statement ("": none, or libpq's own) */
	int discard;   /* tx_end(): roll back even though the work succeeded */
};

static double monotonic_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Sleep seconds on ps->tick (held: ps->lock), waking early at close. */
static void nap_locked(struct pgstore *ps, double seconds)
{
	struct timespec until;
	double t = monotonic_now() + seconds;

	until.tv_sec = (time_t)t;
	until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
	pthread_cond_timedwait(&ps->tick, &ps->lock, &until);
}

/* libpq's message without its trailing newline, into out. */
static void pq_message(PGconn *conn, char *out, size_t size)
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
static int transient_state(const char *state)
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
 * person (transient_state()): the server refused this user or database, or wants a
 * password the URL does not give. The attempt gives up after PGSTORE_CONNECT_TIMEOUT_S.
 */
static PGconn *connect_url(const char *url, int *fatal, char *why, size_t size)
{
	char timeout[16];
	/* connect_timeout: for PQreset() (pq()), which blocks; the poll below has its own */
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
		*fatal = !transient_state(state) || PQconnectionNeedsPassword(conn);
		PQfinish(conn);
		return NULL;
	}
	PQsetErrorVerbosity(conn, PQERRORS_DEFAULT);
	PQsetNoticeProcessor(conn, quiet_notice, NULL);
	return conn;
}

static int migrate(struct pgc *c, int *fatal, struct err *err);

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

static void release(struct pgc *c);

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
		rc = migrate(c, &fatal, err);
		pthread_mutex_lock(&ps->lock);
		if (rc == 0)
			ps->ready = 1;
		else /* its message without the "store: " acquire() puts back */
			down_locked(ps,
			    err->message + (strncmp(err->message, "store: ", 7) == 0 ? 7 : 0),
			    fatal);
		pthread_mutex_unlock(&ps->lock);
		if (rc == 0 && ps->deferred && ps->log)
			ps->log("calibration store: PostgreSQL reached; schema at version %zu, "
			        "calibration served",
			    pgstore_migration_count);
	}
	pthread_mutex_unlock(&ps->migrating);
	return rc;
}

/* Borrow a connection of the pool, connecting it (and, the first time, migrating the
 * schema) if needed. */
static int acquire(struct pgstore *ps, struct pgc *c, struct err *err)
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
	if (!s->conn && !(s->conn = connect_url(ps->url, &fatal, why, sizeof why))) {
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
		release(c);
		return -1;
	}
	return 0;
}

/* Give the connection back; one that broke is closed, to be reopened by the next user. */
static void release(struct pgc *c)
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
 * A statement's parameter, written where the statement is: TXT(s) a text (NULL: SQL NULL),
 * NUM(n) an integer, NUM_IF(c, n) the integer n when c holds, else NULL. ARGS(...) passes a
 * list of them (and its length) to the functions below; NO_ARGS none.
 */
struct arg {
	const char *text;
	long long num;
	int is_num;
};
#define TXT(s) ((struct arg){(s), 0, 0})
#define NUM(n) ((struct arg){NULL, (n), 1})
#define NUM_IF(c, n) ((struct arg){NULL, (n), (c) ? 1 : 0})
#define ARGS(...)                                                                                  \
	(const struct arg[]){__VA_ARGS__},                                                         \
	    (int)(sizeof((const struct arg[]){__VA_ARGS__}) / sizeof(struct arg))
#define NO_ARGS NULL, 0
#define MAX_ARGS 8

/*
 * Run sql with its n parameters on c, as one statement of the caller's transaction or on
 * its own: the result (caller clears) or NULL with err (ERR_UNAVAILABLE naming what was
 * being done, and the SQLSTATE in c->state). A pooled connection that PostgreSQL closed (a
 * restart) is noticed here: outside a transaction nothing was done, so it reconnects and
 * tries once more.
 */
static PGresult *pq(struct pgc *c, const char *sql, const struct arg *args, int n, const char *what,
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
	pq_message(c->conn, why, sizeof why);
	PQclear(r);
	err_set(err, ERR_UNAVAILABLE, NULL, "store: %s: %s", what, why);
	return NULL;
}

/* pq() for a statement whose rows are not needed: *changed (may be NULL) the rows it
 * touched. */
static int pq_run(struct pgc *c, const char *sql, const struct arg *args, int n, long long *changed,
    const char *what, struct err *err)
{
	PGresult *r = pq(c, sql, args, n, what, err);

	if (!r)
		return -1;
	if (changed)
		*changed = atoll(PQcmdTuples(r));
	PQclear(r);
	return 0;
}

/* pq() on a connection of ps's pool, borrowed for this one statement. */
static PGresult *query(struct pgstore *ps, const char *sql, const struct arg *args, int n,
    const char *what, struct err *err)
{
	struct pgc c;
	PGresult *r;

	if (acquire(ps, &c, err) != 0)
		return NULL;
	r = pq(&c, sql, args, n, what, err);
	release(&c);
	return r;
}

/* pq_run() on a connection of ps's pool, borrowed for this one statement. */
static int command(struct pgstore *ps, const char *sql, const struct arg *args, int n,
    long long *changed, const char *what, struct err *err)
{
	struct pgc c;
	int rc;

	if (acquire(ps, &c, err) != 0)
		return -1;
	rc = pq_run(&c, sql, args, n, changed, what, err);
	release(&c);
	return rc;
}

static void rollback(struct pgc *c)
{
	if (PQstatus(c->conn) == CONNECTION_OK)
		PQclear(PQexec(c->conn, "ROLLBACK"));
}

/* Borrow a connection of ps's pool and begin a transaction on it: 0, or -1 with err and
 * nothing borrowed. End it with tx_end(). */
static int tx_begin(struct pgstore *ps, struct pgc *c, struct err *err)
{
	if (acquire(ps, c, err) != 0)
		return -1;
	c->discard = 0;
	if (pq_run(c, "BEGIN", NO_ARGS, NULL, "beginning a transaction", err) != 0) {
		release(c);
		return -1;
	}
	return 0;
}

/*
 * End tx_begin()'s transaction with what its work returned, rc (-1 with err, or a result
 * >= 0), and give the connection back: committed when rc >= 0 (unless the work set
 * c->discard: nothing it did is to be kept), else rolled back. Returns rc, or -1 with err
 * when the commit failed.
 */
static int tx_end(struct pgc *c, int rc, struct err *err)
{
	if (rc >= 0 && !c->discard) {
		if (pq_run(c, "COMMIT", NO_ARGS, NULL, "committing", err) != 0)
			rc = -1;
	} else {
		rollback(c);
	}
	release(c);
	return rc;
}

/* The current Unix time. */
static long long now_s(void)
{
	return (long long)time(NULL);
}

/* bytea input text (\x and hex) of n bytes in buf (2n + 3 long). */
static const char *bytea_text(char *buf, const unsigned char *bytes, size_t n)
{
	buf[0] = '\\';
	buf[1] = 'x';
	sodium_bin2hex(buf + 2, 2 * n + 1, bytes, n);
	return buf;
}

/* Hex text (encode(..., 'hex')) of exactly n bytes into out: 0, or -1. */
static int hex_bytes(const char *hex, unsigned char *out, size_t n)
{
	size_t got = 0;

	return strlen(hex) == 2 * n && sodium_hex2bin(out, n, hex, 2 * n, NULL, &got, NULL) == 0 &&
	        got == n
	    ? 0
	    : -1;
}

static long long col_ll(const PGresult *r, int row, int col)
{
	return atoll(PQgetvalue(r, row, col));
}

static int col_bool(const PGresult *r, int row, int col)
{
	return PQgetvalue(r, row, col)[0] == 't';
}

static json_t *col_int_or_null(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? json_null() : json_integer(col_ll(r, row, col));
}

static json_t *col_text_or_null(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? json_null() : json_string(PQgetvalue(r, row, col));
}

static char *col_copy(const PGresult *r, int row, int col)
{
	return strdup(PQgetvalue(r, row, col));
}

static int oom(struct err *err)
{
	return err_set(err, ERR_INTERNAL, NULL, "out of memory");
}

/* The first column of every row of r as a JSON array of integers into *out, r cleared. */
static int id_list(PGresult *r, json_t **out, struct err *err)
{
	json_t *list = json_array();
	int i;

	for (i = 0; list && i < PQntuples(r); i++)
		if (json_array_append_new(list, json_integer(col_ll(r, i, 0))) != 0) {
			json_decref(list);
			list = NULL;
		}
	PQclear(r);
	if (!list)
		return oom(err);
	*out = list;
	return 0;
}

/* ---- migrations ---- */

/*
 * Bring the schema to this program's version in one transaction under an advisory lock
 * (nodes starting together migrate once): 0, or -1 with err and *fatal set when retrying
 * cannot help (a schema newer than this program's; a statement the server refused while
 * the connection holds, such as a permission denied).
 */
static int migrate(struct pgc *c, int *fatal, struct err *err)
{
	PGresult *r;
	long long have;
	size_t i;

	*fatal = 0;
	if (pq_run(c, "BEGIN", NO_ARGS, NULL, "beginning a transaction", err) != 0)
		goto fail;
	if (pq_run(c, "SELECT pg_advisory_xact_lock($1::bigint)", ARGS(NUM(MIGRATION_LOCK)), NULL,
	        "locking the schema", err) != 0 ||
	    pq_run(c,
	        "CREATE TABLE IF NOT EXISTS contactd_schema (version integer PRIMARY KEY, "
	        "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
	        NO_ARGS, NULL, "making the schema table", err) != 0)
		goto fail;
	r = pq(c, "SELECT coalesce(max(version), 0) FROM contactd_schema", NO_ARGS,
	    "reading the schema version", err);
	if (!r)
		goto fail;
	have = col_ll(r, 0, 0);
	PQclear(r);
	if (have > (long long)pgstore_migration_count) {
		err_set(err, ERR_UNAVAILABLE, NULL,
		    "store: the PostgreSQL schema is at version %lld, newer than this contactd's "
		    "%zu",
		    have, pgstore_migration_count);
		*fatal = 1;
		rollback(c);
		return -1;
	}
	for (i = 0; i < pgstore_migration_count; i++) {
		const struct store_migration *m = &pgstore_migrations[i];

		if (m->version <= have)
			continue;
		r = PQexec(c->conn, m->sql); /* several statements: the simple protocol */
		if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
			char why[200];
			const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

			snprintf(c->state, sizeof c->state, "%s", state ? state : "");
			pq_message(c->conn, why, sizeof why);
			PQclear(r);
			err_set(
			    err, ERR_UNAVAILABLE, NULL, "store: migration %s: %s", m->name, why);
			goto fail;
		}
		PQclear(r);
		if (pq_run(c, "INSERT INTO contactd_schema (version, name) VALUES ($1, $2)",
		        ARGS(NUM(m->version), TXT(m->name)), NULL, "recording a migration",
		        err) != 0)
			goto fail;
	}
	if (pq_run(c, "COMMIT", NO_ARGS, NULL, "committing", err) == 0)
		return 0;
fail:
	*fatal = PQstatus(c->conn) == CONNECTION_OK && !transient_state(c->state);
	rollback(c);
	return -1;
}

/* ---- the interface's members ---- */

/* The robot's id, creating it when create is set: 1 found, 0 absent, -1 failure. */
static int robot_id(struct pgc *c, const char *robot, int create, long long *id, struct err *err)
{
	PGresult *r;
	int found;

	if (create &&
	    pq_run(c,
	        "INSERT INTO robots (name, created_at) VALUES ($1, $2) "
	        "ON CONFLICT (name) DO NOTHING",
	        ARGS(TXT(robot), NUM(now_s())), NULL, "adding a robot", err) != 0)
		return -1;
	r = pq(
	    c, "SELECT id FROM robots WHERE name = $1", ARGS(TXT(robot)), "finding a robot", err);
	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		*id = col_ll(r, 0, 0);
	PQclear(r);
	return found;
}

static int insert_token(struct pgc *c, const char *token_id, const char *role, long long rid,
    const char *lab, const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at,
    const char *replaces, struct err *err)
{
	char hash_s[2 * CALSTORE_HASH_BYTES + 3];

	return pq_run(c,
	    "INSERT INTO tokens (id, role, robot_id, lab, hash, created_at, expires_at, replaces) "
	    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
	    ARGS(TXT(token_id), TXT(role), NUM_IF(rid > 0, rid),
	        TXT(rid > 0 || !lab || !*lab ? NULL : lab),
	        TXT(bytea_text(hash_s, hash, CALSTORE_HASH_BYTES)), NUM(now_s()),
	        NUM_IF(expires_at > 0, expires_at), TXT(replaces && *replaces ? replaces : NULL)),
	    NULL, "adding a token", err);
}

static int token_create(struct pgc *c, enum calstore_role role, const char *robot, const char *lab,
    long long expires_at, const char *token_id, const unsigned char hash[CALSTORE_HASH_BYTES],
    struct err *err)
{
	long long rid = 0;

	if (robot) {
		if (robot_id(c, robot, 1, &rid, err) != 1)
			return -1;
		if (role == CALSTORE_ROBOT && lab &&
		    pq_run(c, "UPDATE robots SET lab = $2 WHERE id = $1", ARGS(NUM(rid), TXT(lab)),
		        NULL, "setting a robot's lab", err) != 0)
			return -1;
	}
	return insert_token(c, token_id, role == CALSTORE_ROBOT ? "robot" : "viewer", rid, lab,
	    hash, expires_at, NULL, err);
}

static int pg_token_create(void *ctx, enum calstore_role role, const char *robot, const char *lab,
    long long expires_at, const char *token_id, const unsigned char hash[CALSTORE_HASH_BYTES],
    struct err *err)
{
	struct pgc c;

	if (tx_begin(ctx, &c, err) != 0)
		return -1;
	return tx_end(&c, token_create(&c, role, robot, lab, expires_at, token_id, hash, err), err);
}

static int token_rotate(struct pgc *c, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err)
{
	char role[16], lab[CALSTORE_NAME_MAX];
	PGresult *r;
	long long rid;

	r = pq(c,
	    "SELECT role, coalesce(robot_id, 0), coalesce(lab, '') FROM tokens WHERE id = $1 AND "
	    "revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2) FOR UPDATE",
	    ARGS(TXT(old_id), NUM(now_s())), "reading a token", err);
	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return err_set(err, ERR_NOT_FOUND, NULL, "no valid token %s", old_id);
	}
	snprintf(role, sizeof role, "%s", PQgetvalue(r, 0, 0));
	rid = col_ll(r, 0, 1);
	snprintf(lab, sizeof lab, "%s", PQgetvalue(r, 0, 2));
	PQclear(r);
	if (insert_token(c, new_id, role, rid, lab, hash, expires_at, old_id, err) != 0)
		return -1;
	return pq_run(c,
	    "UPDATE tokens SET expires_at = least(coalesce(expires_at, $2), $2) WHERE id = $1",
	    ARGS(TXT(old_id), NUM(old_expires_at)), NULL, "expiring a rotated token", err);
}

static int pg_token_rotate(void *ctx, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err)
{
	struct pgc c;

	if (tx_begin(ctx, &c, err) != 0)
		return -1;
	return tx_end(
	    &c, token_rotate(&c, old_id, new_id, hash, expires_at, old_expires_at, err), err);
}

static int pg_token_revoke(void *ctx, const char *token_id, struct err *err)
{
	long long changed = 0;

	if (command(ctx, "UPDATE tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1",
	        ARGS(TXT(token_id), NUM(now_s())), &changed, "revoking a token", err) != 0)
		return -1;
	return changed ? 0 : err_set(err, ERR_NOT_FOUND, NULL, "no token %s", token_id);
}

static int pg_token_get(
    void *ctx, const char *token_id, struct calstore_token *out, struct err *err)
{
	PGresult *r = query(ctx,
	    "SELECT t.role, coalesce(r.name, ''), coalesce(t.lab, ''), encode(t.hash, 'hex'), "
	    "t.revoked_at IS NOT NULL, coalesce(t.expires_at, 0), coalesce(t.last_used_at, 0), "
	    /* only a token with an expiry can have been rotated: the successor names it */
	    "CASE WHEN t.expires_at IS NULL THEN false ELSE EXISTS (SELECT 1 FROM tokens n WHERE "
	    "n.replaces = t.id) END "
	    "FROM tokens t LEFT JOIN robots r ON r.id = t.robot_id WHERE t.id = $1",
	    ARGS(TXT(token_id)), "reading a token", err);
	int rc = 0;

	if (!r)
		return -1;
	if (PQntuples(r) > 0 &&
	    hex_bytes(PQgetvalue(r, 0, 3), out->hash, CALSTORE_HASH_BYTES) == 0) {
		out->role =
		    strcmp(PQgetvalue(r, 0, 0), "viewer") == 0 ? CALSTORE_VIEWER : CALSTORE_ROBOT;
		snprintf(out->robot, sizeof out->robot, "%s", PQgetvalue(r, 0, 1));
		snprintf(out->lab, sizeof out->lab, "%s", PQgetvalue(r, 0, 2));
		out->revoked = col_bool(r, 0, 4);
		out->expires_at = col_ll(r, 0, 5);
		out->last_used_at = col_ll(r, 0, 6);
		out->replaced = col_bool(r, 0, 7);
		rc = 1;
	}
	PQclear(r);
	return rc;
}

static int pg_token_touch(void *ctx, const char *token_id, long long now, struct err *err)
{
	return command(ctx,
	    "UPDATE tokens SET last_used_at = $2 WHERE id = $1 AND "
	    "(last_used_at IS NULL OR last_used_at < $2::bigint - $3::bigint)",
	    ARGS(TXT(token_id), NUM(now), NUM(CALIB_TOKEN_USE_GRANULARITY_S)), NULL,
	    "recording a token's use", err);
}

static int pg_token_list(void *ctx, json_t **out, struct err *err)
{
	PGresult *r = query(ctx,
	    "SELECT t.id, t.role, r.name, coalesce(t.lab, r.lab), t.created_at, t.expires_at, "
	    "t.last_used_at, t.revoked_at, t.replaces FROM tokens t "
	    "LEFT JOIN robots r ON r.id = t.robot_id ORDER BY coalesce(r.name, '') COLLATE \"C\", "
	    "t.created_at, t.id COLLATE \"C\"",
	    NO_ARGS, "listing tokens", err);
	json_t *list;
	int i;

	if (!r)
		return -1;
	list = json_array();
	for (i = 0; list && i < PQntuples(r); i++) {
		json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "id",
		    PQgetvalue(r, i, 0), "role", PQgetvalue(r, i, 1), "robot",
		    col_text_or_null(r, i, 2), "lab", col_text_or_null(r, i, 3), "created_at",
		    (json_int_t)col_ll(r, i, 4), "expires_at", col_int_or_null(r, i, 5),
		    "last_used_at", col_int_or_null(r, i, 6), "revoked_at",
		    col_int_or_null(r, i, 7), "replaces", col_text_or_null(r, i, 8));
		if (!o || json_array_append_new(list, o) != 0) {
			json_decref(list);
			list = NULL;
		}
	}
	PQclear(r);
	if (!list)
		return oom(err);
	*out = list;
	return 0;
}

static int pg_robot_lab(void *ctx, const char *robot, char lab[CALSTORE_NAME_MAX], struct err *err)
{
	PGresult *r = query(ctx, "SELECT coalesce(lab, '') FROM robots WHERE name = $1",
	    ARGS(TXT(robot)), "reading a robot", err);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		snprintf(lab, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

static int calibration_create(struct pgc *c, const char *robot, calstore_setup_fn setup_of,
    void *setup_ctx, long long *id, struct err *err)
{
	PGresult *r;
	long long rid;
	char *setup;
	int rc;

	if (robot_id(c, robot, 1, &rid, err) != 1)
		return -1;
	r = pq(c,
	    "INSERT INTO calibrations (robot_id, setup, created_at) VALUES ($1, '', $2) "
	    "RETURNING id",
	    ARGS(NUM(rid), NUM(now_s())), "adding a calibration", err);
	if (!r)
		return -1;
	*id = col_ll(r, 0, 0);
	PQclear(r);
	setup = setup_of(*id, setup_ctx);
	if (!setup)
		return oom(err);
	rc = pq_run(c, "UPDATE calibrations SET setup = $2 WHERE id = $1",
	    ARGS(NUM(*id), TXT(setup)), NULL, "adding a calibration", err);
	free(setup);
	return rc;
}

static int pg_calibration_create(void *ctx, const char *robot, calstore_setup_fn setup_of,
    void *setup_ctx, long long *id, struct err *err)
{
	struct pgc c;

	if (tx_begin(ctx, &c, err) != 0)
		return -1;
	return tx_end(&c, calibration_create(&c, robot, setup_of, setup_ctx, id, err), err);
}

/* calibration_get on a borrowed connection. */
static int calibration_get(struct pgc *c, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	PGresult *r = pq(c,
	    "SELECT r.name, c.setup, coalesce(r.lab, '') FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id WHERE c.id = $1",
	    ARGS(NUM(id)), "reading a calibration", err);
	int rc = 0;

	if (!r)
		return -1;
	if (PQntuples(r) > 0) {
		snprintf(robot, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 0));
		if (lab)
			snprintf(lab, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 2));
		rc = 1;
		if (setup && !(*setup = col_copy(r, 0, 1)))
			rc = oom(err);
	}
	PQclear(r);
	return rc;
}

static int pg_calibration_get(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	struct pgc c;
	int rc;

	if (acquire(ctx, &c, err) != 0)
		return -1;
	rc = calibration_get(&c, id, robot, lab, setup, err);
	release(&c);
	return rc;
}

static int pg_calibration_list(void *ctx, const char *robot, json_t **out, struct err *err)
{
	PGresult *r = query(ctx,
	    "SELECT c.id, c.created_at, "
	    "(SELECT count(*) FROM measurements m WHERE m.calibration_id = c.id), "
	    "f.id, f.state, f.started_at, f.fit FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id "
	    "LEFT JOIN fits f ON f.id = (SELECT max(g.id) FROM fits g WHERE g.calibration_id = "
	    "c.id) "
	    "WHERE r.name = $1 ORDER BY c.id",
	    ARGS(TXT(robot)), "listing calibrations", err);
	json_t *list;
	int i;

	if (!r)
		return -1;
	list = json_array();
	for (i = 0; list && i < PQntuples(r); i++) {
		json_t *fit = PQgetisnull(r, i, 6)
		    ? json_null()
		    : json_loads(PQgetvalue(r, i, 6), JSON_DECODE_ANY, NULL);
		json_t *o = json_pack("{s:I, s:I, s:I, s:o, s:o, s:b, s:o*}", "id",
		    (json_int_t)col_ll(r, i, 0), "created_at", (json_int_t)col_ll(r, i, 1),
		    "measurements", (json_int_t)col_ll(r, i, 2), "fit_id", col_int_or_null(r, i, 3),
		    "fit_state", col_text_or_null(r, i, 4), "fit_started", !PQgetisnull(r, i, 5),
		    "fit", fit);
		if (!o || json_array_append_new(list, o) != 0) {
			json_decref(list);
			list = NULL;
		}
	}
	PQclear(r);
	if (!list)
		return oom(err);
	*out = list;
	return 0;
}

static int kind_index(const char *kind)
{
	int k;

	for (k = 0; k < 3; k++)
		if (strcmp(kind, kinds[k]) == 0)
			return k;
	return -1;
}

/* measurements on a borrowed connection. */
static int measurements(struct pgc *c, long long id, json_t **out, struct err *err)
{
	PGresult *r = pq(c,
	    "SELECT kind, body, id, upload_id FROM measurements WHERE calibration_id = $1 "
	    "ORDER BY id",
	    ARGS(NUM(id)), "reading measurements", err);
	json_t *all;
	int i, k;

	if (!r)
		return -1;
	all = json_pack("{s:[], s:[], s:[]}", lists[0], lists[1], lists[2]);
	for (i = 0; all && i < PQntuples(r); i++) {
		json_t *m = json_loads(PQgetvalue(r, i, 1), 0, NULL);

		k = kind_index(PQgetvalue(r, i, 0));
		if (k < 0 || !m || json_object_set_new(m, "id", json_integer(col_ll(r, i, 2))) ||
		    json_object_set_new(m, "upload", col_int_or_null(r, i, 3)) ||
		    json_array_append_new(json_object_get(all, lists[k]), m) != 0) {
			json_decref(m);
			json_decref(all);
			all = NULL;
		}
	}
	PQclear(r);
	if (!all)
		return err_set(err, ERR_INTERNAL, NULL, "store: reading measurements: bad rows");
	*out = all;
	return 0;
}

static int pg_measurements(void *ctx, long long id, json_t **out, struct err *err)
{
	struct pgc c;
	int rc;

	if (acquire(ctx, &c, err) != 0)
		return -1;
	rc = measurements(&c, id, out, err);
	release(&c);
	return rc;
}

static int pg_fit_latest(void *ctx, long long id, struct calstore_fit *out, struct err *err)
{
	PGresult *r;
	int rc = 0;

	memset(out, 0, sizeof *out);
	r = query(ctx,
	    "SELECT id, state, fit, measurements, created_at, coalesce(started_at, 0), "
	    "coalesce(done_at, 0) FROM fits WHERE calibration_id = $1 ORDER BY id DESC LIMIT 1",
	    ARGS(NUM(id)), "reading a fit", err);
	if (!r)
		return -1;
	if (PQntuples(r) > 0) {
		out->id = col_ll(r, 0, 0);
		snprintf(out->state, sizeof out->state, "%s", PQgetvalue(r, 0, 1));
		out->measurements = col_ll(r, 0, 3);
		out->created_at = col_ll(r, 0, 4);
		out->started_at = col_ll(r, 0, 5);
		out->done_at = col_ll(r, 0, 6);
		rc = (out->text = col_copy(r, 0, 2)) ? 1 : oom(err);
	}
	PQclear(r);
	return rc;
}

/*
 * Lock calibration id's row for the rest of the transaction (uploads, deletions and claims
 * of one calibration take turns) and read its robot: 1, 0 when there is none, -1.
 */
static int lock_calibration(struct pgc *c, long long id, long long *rid, struct err *err)
{
	PGresult *r = pq(c, "SELECT robot_id FROM calibrations WHERE id = $1 FOR UPDATE",
	    ARGS(NUM(id)), "locking a calibration", err);
	int found;

	if (!r)
		return -1;
	found = PQntuples(r) > 0;
	if (found)
		*rid = col_ll(r, 0, 0);
	PQclear(r);
	return found;
}

/* The calibration's fit that has not started, made if there is none: into *fit_id. */
static int pending_fit(
    struct pgc *c, long long id, long long now, long long *fit_id, struct err *err)
{
	PGresult *r = pq(c,
	    "SELECT id FROM fits WHERE calibration_id = $1 AND state = 'pending' "
	    "ORDER BY id DESC LIMIT 1",
	    ARGS(NUM(id)), "reading the fits", err);

	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		r = pq(c,
		    "INSERT INTO fits (calibration_id, measurements, fit, created_at, state) "
		    "VALUES ($1, 0, 'null', $2, 'pending') RETURNING id",
		    ARGS(NUM(id), NUM(now)), "adding a fit", err);
		if (!r)
			return -1;
	}
	*fit_id = col_ll(r, 0, 0);
	PQclear(r);
	return 0;
}

static int insert_kind(struct pgc *c, long long id, long long upload_id, const json_t *items, int k,
    long long now, json_t *ids, struct err *err)
{
	size_t i;
	json_t *m;

	json_array_foreach (items, i, m) {
		char *text = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
		PGresult *r;

		if (!text)
			return oom(err);
		r = pq(c,
		    "INSERT INTO measurements (calibration_id, kind, body, created_at, upload_id) "
		    "VALUES ($1, $2, $3, $4, $5) RETURNING id",
		    ARGS(NUM(id), TXT(kinds[k]), TXT(text), NUM(now), NUM(upload_id)),
		    "adding a measurement", err);
		free(text);
		if (!r)
			return -1;
		if (json_array_append_new(ids, json_integer(col_ll(r, 0, 0))) != 0) {
			PQclear(r);
			return oom(err);
		}
		PQclear(r);
	}
	return 0;
}

/* An Idempotency-Key seen before: 1 (replay in *answer, same fingerprint), 0 new, -1. The
 * key is locked for the transaction, so two nodes given it at once take turns. */
static int idem_lookup(struct pgc *c, long long rid, const struct calstore_idem *idem,
    long long now, char **answer, struct err *err)
{
	char fp[CALSTORE_HASH_BYTES * 2 + 1];
	PGresult *r;
	int rc = 0;

	if (pq_run(c, "SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0))",
	        ARGS(NUM(rid), TXT(idem->key)), NULL, "locking an idempotency key", err) != 0 ||
	    pq_run(c, "DELETE FROM idempotency_keys WHERE robot_id = $1 AND created_at < $2",
	        ARGS(NUM(rid), NUM(now - idem->ttl_s)), NULL, "forgetting old idempotency keys",
	        err) != 0)
		return -1;
	r = pq(c,
	    "SELECT encode(fingerprint, 'hex'), answer FROM idempotency_keys WHERE robot_id = $1 "
	    "AND key = $2",
	    ARGS(NUM(rid), TXT(idem->key)), "reading an idempotency key", err);
	if (!r)
		return -1;
	if (PQntuples(r) > 0) {
		sodium_bin2hex(fp, sizeof fp, idem->fingerprint, CALSTORE_HASH_BYTES);
		if (strcmp(PQgetvalue(r, 0, 0), fp) != 0)
			rc = err_set(err, ERR_BAD_VALUE, NULL,
			    "Idempotency-Key %s was used with another request body", idem->key);
		else
			rc = (*answer = col_copy(r, 0, 1)) ? 1 : oom(err);
	}
	PQclear(r);
	return rc;
}

static int idem_store(struct pgc *c, long long rid, const struct calstore_idem *idem,
    long long upload_id, const char *answer, long long now, struct err *err)
{
	char fp[2 * CALSTORE_HASH_BYTES + 3];

	return pq_run(c,
	    "INSERT INTO idempotency_keys (robot_id, key, fingerprint, upload_id, answer, "
	    "created_at) VALUES ($1, $2, $3, $4, $5, $6)",
	    ARGS(NUM(rid), TXT(idem->key),
	        TXT(bytea_text(fp, idem->fingerprint, CALSTORE_HASH_BYTES)), NUM(upload_id),
	        TXT(answer), NUM(now)),
	    NULL, "storing an idempotency key", err);
}

/* An upload's transaction (base/calstore.h): its connection, the calibration locked, and its
 * robot's id. */
struct calstore_upload {
	struct pgc c;
	long long id, rid;
};

static int pg_upload_begin(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct calstore_upload **out, struct err *err)
{
	struct calstore_upload *u = calloc(1, sizeof *u);
	PGresult *r;
	int found = 0;

	*out = NULL;
	if (!u)
		return oom(err);
	if (tx_begin(ctx, &u->c, err) != 0) {
		free(u);
		return -1;
	}
	r = pq(&u->c,
	    "SELECT r.name, c.setup, coalesce(r.lab, ''), c.robot_id FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id WHERE c.id = $1 FOR UPDATE OF c",
	    ARGS(NUM(id)), "locking a calibration", err);
	if (r && PQntuples(r) > 0) {
		snprintf(robot, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 0));
		snprintf(lab, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 2));
		u->rid = col_ll(r, 0, 3);
		found = (*setup = col_copy(r, 0, 1)) ? 1 : oom(err);
	}
	PQclear(r);
	if (!r || found <= 0) {
		tx_end(&u->c, -1, err);
		free(u);
		return r ? found : -1;
	}
	u->id = id;
	*out = u;
	return 1;
}

static int pg_upload_replay(
    struct calstore_upload *u, const struct calstore_idem *idem, char **answer, struct err *err)
{
	return idem_lookup(&u->c, u->rid, idem, now_s(), answer, err);
}

static int pg_upload_add(
    struct calstore_upload *u, const json_t *upload, struct calstore_receipt *out, struct err *err)
{
	long long now = now_s();
	PGresult *r;
	int k;

	memset(out, 0, sizeof *out);
	out->ids = json_pack("{s:[], s:[], s:[]}", lists[0], lists[1], lists[2]);
	if (!out->ids)
		return oom(err);
	r = pq(&u->c,
	    "INSERT INTO uploads (calibration_id, created_at) VALUES ($1, $2) RETURNING id",
	    ARGS(NUM(u->id), NUM(now)), "adding an upload", err);
	if (!r)
		return -1;
	out->upload_id = col_ll(r, 0, 0);
	PQclear(r);
	for (k = 0; k < 3; k++) {
		json_t *items = json_object_get(upload, lists[k]);

		if (items &&
		    insert_kind(&u->c, u->id, out->upload_id, items, k, now,
		        json_object_get(out->ids, lists[k]), err) != 0)
			return -1;
	}
	return pending_fit(&u->c, u->id, now, &out->fit_id, err);
}

static int pg_upload_measurements(struct calstore_upload *u, json_t **out, struct err *err)
{
	return measurements(&u->c, u->id, out, err);
}

static int pg_upload_keep(struct calstore_upload *u, const struct calstore_idem *idem,
    long long upload_id, const char *answer, struct err *err)
{
	return idem_store(&u->c, u->rid, idem, upload_id, answer, now_s(), err);
}

static int pg_upload_end(struct calstore_upload *u, int commit, struct err *err)
{
	int rc;

	u->c.discard = !commit;
	rc = tx_end(&u->c, 0, err);
	free(u);
	return rc;
}

/* A deletion's work (pg_remove()), in its transaction: the ids removed into ids. */
static int remove_measurements(struct pgc *c, long long id, long long measurement_id,
    long long upload_id, json_t *ids, long long *fit_id, struct err *err)
{
	long long rid;
	PGresult *r;
	int found, i, k, changed;

	found = lock_calibration(c, id, &rid, err);
	if (found <= 0)
		return found == 0 ? err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id)
		                  : -1;
	r = pq(c,
	    "WITH d AS (DELETE FROM measurements WHERE calibration_id = $1 AND (id = $2 OR "
	    "upload_id = $3) RETURNING id, kind) SELECT id, kind FROM d ORDER BY id",
	    ARGS(NUM(id), NUM(measurement_id > 0 ? measurement_id : -1),
	        NUM(upload_id > 0 ? upload_id : -1)),
	    "deleting measurements", err);
	if (!r)
		return -1;
	changed = PQntuples(r);
	for (i = 0; i < PQntuples(r); i++) {
		k = kind_index(PQgetvalue(r, i, 1));
		if (k >= 0)
			json_array_append_new(
			    json_object_get(ids, lists[k]), json_integer(col_ll(r, i, 0)));
	}
	PQclear(r);
	if (changed == 0)
		return err_set(err, ERR_NOT_FOUND, NULL, "calibration %lld has no %s %lld", id,
		    measurement_id > 0 ? "measurement" : "upload",
		    measurement_id > 0 ? measurement_id : upload_id);
	return pending_fit(c, id, now_s(), fit_id, err);
}

static int pg_remove(void *ctx, long long id, long long measurement_id, long long upload_id,
    json_t **deleted, long long *fit_id, struct err *err)
{
	json_t *ids = json_pack("{s:[], s:[], s:[]}", lists[0], lists[1], lists[2]);
	struct pgc c;
	int rc;

	if (!ids)
		return oom(err);
	if (tx_begin(ctx, &c, err) != 0) {
		json_decref(ids);
		return -1;
	}
	rc = tx_end(
	    &c, remove_measurements(&c, id, measurement_id, upload_id, ids, fit_id, err), err);
	if (rc == 0)
		*deleted = ids;
	else
		json_decref(ids);
	return rc;
}

/* The running fits this process computes: their leases are renewed. */
static void running_add(struct pgstore *ps, long long fit_id)
{
	pthread_mutex_lock(&ps->lock);
	if (ps->nrunning < MAX_RUNNING)
		ps->running[ps->nrunning++] = fit_id;
	pthread_mutex_unlock(&ps->lock);
}

static void running_remove(struct pgstore *ps, long long fit_id)
{
	int i;

	pthread_mutex_lock(&ps->lock);
	for (i = 0; i < ps->nrunning; i++)
		if (ps->running[i] == fit_id) {
			ps->running[i] = ps->running[--ps->nrunning];
			break;
		}
	pthread_mutex_unlock(&ps->lock);
}

/* A claim's work (pg_fit_claim()), in its transaction: 1 claimed, 0 nothing to claim (the
 * transaction is then discarded), -1. */
static int fit_claim(
    struct pgc *c, long long id, long long *fit_id, char **setup, json_t **all, struct err *err)
{
	char robot[CALSTORE_NAME_MAX];
	long long rid, fit;
	PGresult *r;
	int found;

	c->discard = 1; /* until there is a fit to claim */
	found = lock_calibration(c, id, &rid, err);
	if (found <= 0)
		return found;
	/* One node at a time fits a calibration: while another holds a live lease on one of its
	 * fits, that node claims the newer ones when it is done. */
	r = pq(c,
	    "SELECT 1 FROM fits WHERE calibration_id = $1 AND state = 'running' AND "
	    "lease_until > extract(epoch FROM now())::bigint LIMIT 1",
	    ARGS(NUM(id)), "reading the fits", err);
	if (!r)
		return -1;
	found = PQntuples(r);
	PQclear(r);
	if (found)
		return 0;
	/* the newest fit not settled: pending, or running on a node whose lease lapsed */
	r = pq(c,
	    "SELECT id FROM fits WHERE calibration_id = $1 AND state IN ('pending', 'running') "
	    "ORDER BY id DESC LIMIT 1 FOR UPDATE SKIP LOCKED",
	    ARGS(NUM(id)), "reading the fits", err);
	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	fit = col_ll(r, 0, 0);
	PQclear(r);
	if (pq_run(c,
	        "UPDATE fits SET "
	        "state = CASE WHEN id = $2 THEN 'running' ELSE 'superseded' END, "
	        "started_at = CASE WHEN id = $2 THEN $3 ELSE started_at END, "
	        "owner = CASE WHEN id = $2 THEN $4 ELSE owner END, "
	        "lease_until = CASE WHEN id = $2 THEN extract(epoch FROM now())::bigint + "
	        "$5::bigint "
	        "ELSE NULL END "
	        "WHERE calibration_id = $1 AND state IN ('pending', 'running') AND id <= $2",
	        ARGS(NUM(id), NUM(fit), NUM(now_s()), TXT(c->ps->node), NUM(CALIB_FIT_LEASE_S)),
	        NULL, "starting a fit", err) != 0)
		return -1;
	found = calibration_get(c, id, robot, NULL, setup, err);
	if (found <= 0) /* the row is locked: it cannot have gone */
		return found < 0 ? -1
		                 : err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
	if (measurements(c, id, all, err) != 0)
		return -1;
	c->discard = 0;
	/* renewed from now on: before the commit, so that the lease never lapses unseen */
	running_add(c->ps, fit);
	*fit_id = fit; /* from here on a failed commit must forget it */
	return 1;
}

static int pg_fit_claim(
    void *ctx, long long id, long long *fit_id, char **setup, json_t **all, struct err *err)
{
	struct pgstore *ps = ctx;
	struct pgc c;
	int rc;

	*setup = NULL;
	*all = NULL;
	*fit_id = 0;
	if (tx_begin(ps, &c, err) != 0)
		return -1;
	rc = tx_end(&c, fit_claim(&c, id, fit_id, setup, all, err), err);
	if (rc != 1) {
		if (*fit_id)
			running_remove(ps, *fit_id);
		*fit_id = 0;
		free(*setup);
		*setup = NULL;
		json_decref(*all);
		*all = NULL;
	}
	return rc;
}

static int pg_fit_finish(
    void *ctx, long long fit_id, int done, const char *text, long long count, struct err *err)
{
	struct pgstore *ps = ctx;
	long long changed = 0;

	/* finished or not, this node stops holding it: a fit it cannot record lapses and is
	 * computed again, here or elsewhere */
	running_remove(ps, fit_id);
	if (command(ps,
	        "UPDATE fits SET state = $2, fit = $3, measurements = $4, done_at = $5, "
	        "lease_until = NULL WHERE id = $1 AND state = 'running' AND owner = $6",
	        ARGS(NUM(fit_id), TXT(done ? "done" : "failed"), TXT(text), NUM(count),
	            NUM(now_s()), TXT(ps->node)),
	        &changed, "recording a fit", err) != 0)
		return -1;
	return changed ? 0
	               : err_set(err, ERR_CONFLICT, NULL,
	                     "fit %lld was taken over by another node (its lease lapsed)", fit_id);
}

/* fit_recover and fit_adopt: with several nodes, a running fit may be another live node's,
 * so nothing is reset; fit_claim takes over a fit once its lease has lapsed. */
static int pg_fit_adopt(void *ctx, json_t **ids, struct err *err)
{
	PGresult *r = query(ctx,
	    "SELECT DISTINCT calibration_id FROM fits WHERE state = 'pending' OR (state = "
	    "'running' AND (lease_until IS NULL OR lease_until <= extract(epoch FROM "
	    "now())::bigint)) ORDER BY calibration_id",
	    NO_ARGS, "reading pending fits", err);

	return r ? id_list(r, ids, err) : -1;
}

static int pg_secret(
    void *ctx, const char *name, unsigned char secret[CALSTORE_SECRET_BYTES], struct err *err)
{
	unsigned char fresh[CALSTORE_SECRET_BYTES];
	char fresh_s[2 * CALSTORE_SECRET_BYTES + 3];
	struct pgc c;
	PGresult *r;
	int rc = -1;

	randombytes_buf(fresh, sizeof fresh);
	bytea_text(fresh_s, fresh, sizeof fresh);
	sodium_memzero(fresh, sizeof fresh);
	if (acquire(ctx, &c, err) != 0) {
		sodium_memzero(fresh_s, sizeof fresh_s);
		return -1;
	}
	r = pq(&c,
	    "WITH made AS (INSERT INTO server_secrets (name, secret) VALUES ($1, $2) "
	    "ON CONFLICT (name) DO NOTHING RETURNING secret) "
	    "SELECT encode(secret, 'hex') FROM made UNION ALL "
	    "SELECT encode(secret, 'hex') FROM server_secrets WHERE name = $1",
	    ARGS(TXT(name), TXT(fresh_s)), "making a secret", err);
	/* Another node made it at the same moment, after this statement's snapshot: the next
	 * statement sees it. */
	if (r && PQntuples(r) == 0) {
		PQclear(r);
		r = pq(&c, "SELECT encode(secret, 'hex') FROM server_secrets WHERE name = $1",
		    ARGS(TXT(name)), "reading a secret", err);
	}
	sodium_memzero(fresh_s, sizeof fresh_s);
	release(&c);
	if (!r)
		return -1;
	if (PQntuples(r) > 0 && hex_bytes(PQgetvalue(r, 0, 0), secret, CALSTORE_SECRET_BYTES) == 0)
		rc = 0;
	else
		err_set(err, ERR_UNAVAILABLE, NULL, "store: reading secret %s: bad value", name);
	PQclear(r);
	return rc;
}

/* An announcement is "NODE TEXT": each listener skips its own process's. */
static int pg_announce(void *ctx, const char *text, struct err *err)
{
	struct pgstore *ps = ctx;
	char payload[256];

	snprintf(payload, sizeof payload, "%s %s", ps->node, text);
	return command(ps, "SELECT pg_notify($1, $2)", ARGS(TXT(CHANNEL), TXT(payload)), NULL,
	    "announcing an event", err);
}

/* The listener thread: its own connection, LISTENing, reconnected after a failure. */
static void *listener(void *arg)
{
	struct pgstore *ps = arg;
	PGconn *conn = NULL;
	PGnotify *n;
	char why[160];
	int fatal;
	size_t len = strlen(ps->node);
	struct pollfd pfd;

	pthread_mutex_lock(&ps->lock);
	while (!ps->stopping) {
		pthread_mutex_unlock(&ps->lock);
		if (!conn) {
			conn = connect_url(ps->url, &fatal, why, sizeof why);
			if (conn) {
				PGresult *r = PQexec(conn, "LISTEN " CHANNEL);

				if (PQresultStatus(r) != PGRES_COMMAND_OK) {
					PQfinish(conn);
					conn = NULL;
				}
				PQclear(r);
			}
			pthread_mutex_lock(&ps->lock);
			/* back: reachable once the pool has migrated (fit_adopt polls do) */
			if (conn && ps->ready)
				ps->reachable = 1;
			if (!conn) {
				if (!ps->stopping)
					nap_locked(ps, PGSTORE_RETRY_S);
				continue;
			}
			pthread_mutex_unlock(&ps->lock);
		}
		pfd.fd = PQsocket(conn);
		pfd.events = POLLIN;
		pfd.revents = 0;
		if ((poll(&pfd, 1, 250) < 0 && errno != EINTR) || !PQconsumeInput(conn) ||
		    PQstatus(conn) != CONNECTION_OK) {
			/* the server closed it (stopped, restarted): health says so at once */
			PQfinish(conn);
			conn = NULL;
			pthread_mutex_lock(&ps->lock);
			ps->reachable = 0;
			pthread_mutex_unlock(&ps->lock);
		} else {
			while ((n = PQnotifies(conn)) != NULL) {
				if (strncmp(n->extra, ps->node, len) != 0 && n->extra[len] == ' ')
					ps->heard(n->extra + len + 1, ps->heard_ctx);
				PQfreemem(n);
			}
		}
		pthread_mutex_lock(&ps->lock);
	}
	pthread_mutex_unlock(&ps->lock);
	PQfinish(conn);
	return NULL;
}

static int pg_listen(
    void *ctx, void (*heard)(const char *text, void *heard_ctx), void *heard_ctx, struct err *err)
{
	struct pgstore *ps = ctx;

	if (ps->listener_started)
		return err_set(err, ERR_INTERNAL, NULL, "store: already listening");
	ps->heard = heard;
	ps->heard_ctx = heard_ctx;
	if (pthread_create(&ps->listener, NULL, listener, ps) != 0)
		return err_set(err, ERR_INTERNAL, NULL, "store: cannot start the listener");
	ps->listener_started = 1;
	return 0;
}

/* The lease renewer: every CALIB_FIT_LEASE_S / 4, the leases of the fits this process
 * computes. */
static void *renewer(void *arg)
{
	struct pgstore *ps = arg;
	char ids[MAX_RUNNING * 24 + 3];
	struct err err;
	size_t n;
	int i;

	pthread_mutex_lock(&ps->lock);
	while (!ps->stopping) {
		nap_locked(ps, CALIB_FIT_LEASE_S / 4.0);
		if (ps->stopping || ps->nrunning == 0)
			continue;
		n = (size_t)snprintf(ids, sizeof ids, "{");
		for (i = 0; i < ps->nrunning; i++)
			n += (size_t)snprintf(
			    ids + n, sizeof ids - n, "%s%lld", i ? "," : "", ps->running[i]);
		snprintf(ids + n, sizeof ids - n, "}");
		pthread_mutex_unlock(&ps->lock);
		err_clear(&err);
		command(ps,
		    "UPDATE fits SET lease_until = extract(epoch FROM now())::bigint + $3::bigint "
		    "WHERE owner = $1 AND state = 'running' AND id = ANY($2::bigint[])",
		    ARGS(TXT(ps->node), TXT(ids), NUM(CALIB_FIT_LEASE_S)), NULL, "renewing leases",
		    &err);
		pthread_mutex_lock(&ps->lock);
	}
	pthread_mutex_unlock(&ps->lock);
	return NULL;
}

int pgstore_open(
    const char *url, int defer, pgstore_log_fn log, struct pgstore **out, struct err *err)
{
	struct pgstore *ps;
	pthread_condattr_t attr;
	unsigned char node[8];
	PQconninfoOption *options;
	char *why = NULL;
	struct pgc c;

	*out = NULL;
	/* a URL that can never work fails now, reachable server or not */
	options = PQconninfoParse(url, &why);
	if (!options) {
		/* (the URL itself is not repeated: it may hold a password) */
		err_set(err, ERR_BAD_VALUE, NULL, "store: a bad PostgreSQL URL: %.*s",
		    why ? (int)strcspn(why, "\r\n") : 13, why ? why : "out of memory");
		PQfreemem(why);
		return -1;
	}
	PQconninfoFree(options);
	if (sodium_init() < 0)
		return err_set(err, ERR_INTERNAL, NULL, "libsodium cannot start");
	ps = calloc(1, sizeof *ps);
	if (!ps || !(ps->url = strdup(url))) {
		free(ps);
		return oom(err);
	}
	ps->log = log;
	randombytes_buf(node, sizeof node);
	sodium_bin2hex(ps->node, sizeof ps->node, node, sizeof node);
	pthread_mutex_init(&ps->lock, NULL);
	pthread_mutex_init(&ps->migrating, NULL);
	pthread_cond_init(&ps->freed, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ps->tick, &attr);
	pthread_condattr_destroy(&attr);
	if (acquire(ps, &c, err) == 0) {
		release(&c);
	} else if (!defer || ps->down_fatal) {
		pgstore_close(ps);
		return -1;
	} else {
		ps->deferred = 1;
	}
	if (pthread_create(&ps->renewer, NULL, renewer, ps) != 0) {
		pgstore_close(ps);
		return err_set(err, ERR_INTERNAL, NULL, "store: cannot start the lease renewer");
	}
	ps->renewer_started = 1;
	*out = ps;
	return ps->deferred;
}

void pgstore_close(struct pgstore *ps)
{
	int i;

	if (!ps)
		return;
	pthread_mutex_lock(&ps->lock);
	ps->stopping = 1;
	pthread_cond_broadcast(&ps->tick);
	pthread_mutex_unlock(&ps->lock);
	if (ps->renewer_started)
		pthread_join(ps->renewer, NULL);
	if (ps->listener_started)
		pthread_join(ps->listener, NULL);
	for (i = 0; i < PGSTORE_POOL; i++)
		PQfinish(ps->slots[i].conn);
	pthread_cond_destroy(&ps->tick);
	pthread_cond_destroy(&ps->freed);
	pthread_mutex_destroy(&ps->migrating);
	pthread_mutex_destroy(&ps->lock);
	free(ps->url);
	free(ps);
}

const char *pgstore_node(const struct pgstore *ps)
{
	return ps->node;
}

int pgstore_reachable(struct pgstore *ps)
{
	int reachable;

	pthread_mutex_lock(&ps->lock);
	reachable = ps->reachable;
	pthread_mutex_unlock(&ps->lock);
	return reachable;
}

void pgstore_bind(struct calstore *cs, struct pgstore *ps)
{
	*cs = (struct calstore){
	    .ctx = ps,
	    .token_create = pg_token_create,
	    .token_rotate = pg_token_rotate,
	    .token_revoke = pg_token_revoke,
	    .token_get = pg_token_get,
	    .token_touch = pg_token_touch,
	    .token_list = pg_token_list,
	    .robot_lab = pg_robot_lab,
	    .calibration_create = pg_calibration_create,
	    .calibration_get = pg_calibration_get,
	    .calibration_list = pg_calibration_list,
	    .measurements = pg_measurements,
	    .fit_latest = pg_fit_latest,
	    .upload_begin = pg_upload_begin,
	    .upload_replay = pg_upload_replay,
	    .upload_add = pg_upload_add,
	    .upload_measurements = pg_upload_measurements,
	    .upload_keep = pg_upload_keep,
	    .upload_end = pg_upload_end,
	    .remove = pg_remove,
	    .fit_claim = pg_fit_claim,
	    .fit_finish = pg_fit_finish,
	    .fit_recover = pg_fit_adopt,
	    .secret = pg_secret,
	    .fit_adopt = pg_fit_adopt,
	    .announce = pg_announce,
	    .listen = pg_listen,
	};
}
