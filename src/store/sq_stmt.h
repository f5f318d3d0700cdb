/*
 * sq_stmt.h: the SQLite calibration store's statements (inside src/store/ only): parameters
 * written where the statement is (ARGS(...)), row readers, sqc_command(), sqc_insert(),
 * sqc_query() and sqc_query_one() doing the preparing, binding, stepping and error
 * reporting, and sqc_begin() / sqc_end() the transactions, as pg_conn.h does for PostgreSQL.
 * Statements run on the calling thread's connection of the store (store.h).
 */
#ifndef CONTACTD_STORE_SQ_STMT_H
#define CONTACTD_STORE_SQ_STMT_H

#include <jansson.h>
#include <sqlite3.h>

#include "base/calstore.h"
#include "base/error.h"
#include "store/store.h"

/*
 * A statement's parameter, written where the statement is: NUM(n) an integer, REAL(x) a
 * double, TXT(s) a text (NULL: SQL NULL), BLOB(p, n) n bytes, NUM_IF(c, n) / TXT_IF(c, s) the
 * value when c holds, else NULL. Texts and bytes are bound without a copy: they must live
 * until the statement has run. ARGS(...) passes a list of them (and its length) to the
 * functions below; NO_ARGS none.
 */
enum arg_kind { ARG_NULL, ARG_INT, ARG_REAL, ARG_TEXT, ARG_BLOB };
struct arg {
	enum arg_kind kind;
	long long num;
	double real;
	const void *data; /* a text (NUL-terminated) or bytes */
	int len;          /* bytes of a blob */
};
#define NULL_ARG ((struct arg){ARG_NULL, 0, 0, NULL, 0})
#define NUM(n) ((struct arg){ARG_INT, (n), 0, NULL, 0})
#define REAL(x) ((struct arg){ARG_REAL, 0, (x), NULL, 0})
#define TXT(s) ((struct arg){ARG_TEXT, 0, 0, (s), 0})
#define BLOB(p, n) ((struct arg){ARG_BLOB, 0, 0, (p), (int)(n)})
#define NUM_IF(c, n) ((c) ? NUM(n) : NULL_ARG)
#define TXT_IF(c, s) ((c) ? TXT(s) : NULL_ARG)
#define ARGS(...)                                                                                  \
	(const struct arg[]){__VA_ARGS__},                                                         \
	    (int)(sizeof((const struct arg[]){__VA_ARGS__}) / sizeof(struct arg))
#define NO_ARGS NULL, 0

/*
 * A row reader: takes what it needs of the current row of s into ctx. Returns 0 to go on,
 * -1 with err set, or ROW_BAD when the row is not what the store wrote (or it cannot be
 * kept: out of memory), so that the statement fails as SQLite's own failures do.
 */
typedef int (*row_fn)(sqlite3_stmt *s, void *ctx, struct err *err);
#define ROW_BAD (-2)

/*
 * A transaction on the calling thread's connection: sqc_begin() ... sqc_end(). The work
 * between runs its statements on the store as usual.
 */
struct tx {
	struct store *st;
	int discard; /* sqc_end(): roll back although the work succeeded (nothing to keep) */
};

int sqc_fail(struct err *err, sqlite3_stmt *stmt, const char *what);
int sqc_oom(struct err *err);
long long sqc_now(void);
int sqc_statement(struct store *st, const char *sql, const struct arg *args, int n, int limit,
    row_fn read, void *ctx, const char *what, struct err *err);
int sqc_query(struct store *st, const char *sql, const struct arg *args, int n, row_fn read,
    void *ctx, const char *what, struct err *err);
int sqc_query_one(struct store *st, const char *sql, const struct arg *args, int n, row_fn read,
    void *ctx, const char *what, struct err *err);
int sqc_command(struct store *st, const char *sql, const struct arg *args, int n,
    long long *changed, const char *what, struct err *err);
int sqc_insert(struct store *st, const char *sql, const struct arg *args, int n, long long *id,
    const char *what, struct err *err);
int sqc_begin(struct store *st, enum store_sync sync, struct tx *t, struct err *err);
int sqc_end(struct tx *t, int rc, struct err *err);
char *sqc_text(sqlite3_stmt *stmt, int col);
json_t *sqc_int_or_null(sqlite3_stmt *s, int col);
json_t *sqc_text_or_null(sqlite3_stmt *s, int col);
int sqc_read_id(sqlite3_stmt *s, void *ctx, struct err *err);
int sqc_read_id_into(sqlite3_stmt *s, void *ctx, struct err *err);
int sqc_read_name(sqlite3_stmt *s, void *ctx, struct err *err);
int sqc_hand_over(json_t *result, int rows, json_t **out);
int sqc_query_json(struct store *st, const char *sql, const struct arg *args, int n, row_fn read,
    json_t *result, json_t **out, const char *what, struct err *err);

#endif
