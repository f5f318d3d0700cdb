/*
 * pg_conn.h: the PostgreSQL store's connections (inside src/store/ only): the pool of
 * PGSTORE_POOL connections opened on demand, the backoff while the server is unreachable,
 * statements with their parameters, transactions, and column readers. Every other pg_*
 * module and pgstore.c work through these.
 */
#ifndef CONTACTD_STORE_PG_CONN_H
#define CONTACTD_STORE_PG_CONN_H

#include <pthread.h>
#include <stddef.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "base/error.h"
#include "store/knobs.h"

/* Taken inside the migration transaction: nodes starting together migrate once. */
#define MIGRATION_LOCK 7104511234LL
#define CHANNEL "contactd_events"
#define MAX_RUNNING 64 /* fits this process computes at once, far above CALIB_FIT_WORKERS */

struct slot {
	PGconn *conn;
	int busy;
};

struct pgc;

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
	/* brings the server's schema up to date on first contact (pgschema_migrate(), set
	 * by pgstore_open(): the pool knows no migrations); 0, or -1 with err, *fatal set
	 * when a person must act */
	int (*migrate)(struct pgc *c, int *fatal, struct err *err);
	size_t version; /* the schema version migrate brings a server to (for the log) */
	void (*log)(const char *fmt, ...); /* pgstore_open()'s log (NULL: none) */
	long long running[MAX_RUNNING];    /* fits this process claimed and computes: renewed */
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
	int discard;   /* pgc_end(): roll back even though the work succeeded */
};

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

/* Open a connection to url, polling with its own timeout: the connection, or NULL with *fatal
 * (retrying cannot help) and why filled. */
PGconn *pgc_connect(const char *url, int *fatal, char *why, size_t size);
/*
 * Run sql with its n parameters on c, as one statement of the caller's transaction or on its
 * own: the result (caller clears) or NULL with err (ERR_UNAVAILABLE naming what, the SQLSTATE
 * in c->state). Outside a transaction a connection PostgreSQL closed is reopened once.
 */
PGresult *pgc_exec(struct pgc *c, const char *sql, const struct arg *args, int n, const char *what,
    struct err *err);
/* pgc_exec() on a connection of ps's pool, borrowed for this one statement. */
PGresult *pgc_query(struct pgstore *ps, const char *sql, const struct arg *args, int n,
    const char *what, struct err *err);
/* Sleep up to seconds on ps->tick (cut short at close); the caller holds ps->lock. */
void pgc_nap_locked(struct pgstore *ps, double seconds);
/* libpq's last message on conn, one line, into out. */
void pgc_message(PGconn *conn, char *out, size_t size);
/* 1 when SQLSTATE state is worth retrying (the server or its connection failed). */
int pgc_transient(const char *state);
/* Borrow a ready connection of ps's pool into c (migrating the schema on first contact): 0, or
 * -1 with err (ERR_UNAVAILABLE while PostgreSQL is down: at once until the next attempt is due). */
int pgc_acquire(struct pgstore *ps, struct pgc *c, struct err *err);
/* Give c's connection back to the pool. */
void pgc_release(struct pgc *c);
/* pgc_exec() for a statement whose rows are not needed: *changed (may be NULL) the rows it
 * changed. 0, or -1 with err. */
int pgc_run(struct pgc *c, const char *sql, const struct arg *args, int n, long long *changed,
    const char *what, struct err *err);
/* pgc_run() on a connection of ps's pool, borrowed for this one statement. */
int pgc_command(struct pgstore *ps, const char *sql, const struct arg *args, int n,
    long long *changed, const char *what, struct err *err);
/* ROLLBACK c's transaction (a failure only marks the connection for reopening). */
void pgc_rollback(struct pgc *c);
/* Borrow a connection into c and BEGIN on it: 0, or -1 with err. */
int pgc_begin(struct pgstore *ps, struct pgc *c, struct err *err);
/* End pgc_begin()'s transaction with its work's rc (-1 with err, or a result >= 0) and give the
 * connection back: committed when rc >= 0 unless c->discard, else rolled back. Returns rc, or
 * -1 with err when the commit failed. */
int pgc_end(struct pgc *c, int rc, struct err *err);
/* The current Unix time. */
long long pgc_now(void);
/* bytea input text (\\x and hex) of n bytes in buf (2n + 3 long). Returns buf. */
const char *pgc_bytea(char *buf, const unsigned char *bytes, size_t n);
/* n bytes from hex (2n digits): 0, or -1 when it is not that. */
int pgc_hex(const char *hex, unsigned char *out, size_t n);
/* Column readers of row of r: an integer, a boolean, an integer or JSON null, a text or JSON
 * null, a malloc'ed copy of a text (NULL: out of memory). */
long long pgc_ll(const PGresult *r, int row, int col);
int pgc_bool(const PGresult *r, int row, int col);
json_t *pgc_int_or_null(const PGresult *r, int row, int col);
json_t *pgc_text_or_null(const PGresult *r, int row, int col);
char *pgc_copy(const PGresult *r, int row, int col);
/* err set to "out of memory" (ERR_INTERNAL); returns -1. */
int pgc_oom(struct err *err);
/* Each row i of r as the JSON value row(r, i) makes (NULL: out of memory), in a JSON array
 * into *out (caller frees); clears r. 0, or -1 with err (out of memory). */
int pgc_rows_json(
    PGresult *r, json_t *(*row)(const PGresult *r, int i), json_t **out, struct err *err);
/* The first column of r's rows as a JSON array of integers into *out (caller frees); clears r. */
int pgc_id_list(PGresult *r, json_t **out, struct err *err);
/* The first column of r's first row, an integer, into *out: 1, 0 when r has no rows, -1 when r
 * is NULL (its statement failed: pgc_exec() set err). Clears r. */
int pgc_first_ll(PGresult *r, long long *out);
/* pgc_exec() of an INSERT ... RETURNING id that inserts one row: 0 with its id into *id, or -1
 * with err. */
int pgc_insert(struct pgc *c, const char *sql, const struct arg *args, int n, long long *id,
    const char *what, struct err *err);

#endif
