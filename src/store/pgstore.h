/*
 * pgstore.h: the calibration store (base/calstore.h) on PostgreSQL, shared by any number of
 * contactd nodes: `contactd --store postgresql://...`.
 *
 * The schema is schema/pg/NNN_*.sql, embedded and applied at open inside one transaction
 * holding an advisory lock, so nodes starting together migrate once. Every member has the
 * SQLite store's meaning (store/calstore.h) and, since several processes write at once,
 * takes row locks where SQLite's single writer serialised: an upload, a deletion and a fit
 * claim lock their calibration's row, so a fit always covers exactly what was committed
 * when it was claimed. Fits are claimed with a lease (CALIB_FIT_LEASE_S) that a thread of
 * the store renews while the node lives; another node takes a lapsed fit over
 * (fit_adopt, fit_claim) and only the holder of a fit may finish it.
 *
 * Connections: a pool of PGSTORE_POOL, opened on demand and reopened after a failure, so
 * the store survives a restart of PostgreSQL, and a node may start before it (pgstore_open()
 * with defer). While PostgreSQL is unreachable every member fails at once with
 * ERR_UNAVAILABLE (503 with Retry-After); the next attempt is made PGSTORE_RETRY_S after
 * the last failed one. Events between nodes go
 * through LISTEN/NOTIFY on the channel "contactd_events" (announce, listen).
 */
#ifndef CONTACTD_STORE_PGSTORE_H
#define CONTACTD_STORE_PGSTORE_H

#include "base/calstore.h"
#include "base/error.h"

struct pgstore;

/* Where the store writes what no caller is told: one whole line per call, newline added. */
typedef void (*pgstore_log_fn)(const char *fmt, ...);

/*
 * Connect to the PostgreSQL server of url (a libpq connection URI, postgresql://...),
 * apply every pending migration and start the lease renewer. *out is a new store the
 * caller releases with pgstore_close(); log (NULL: none) hears when a deferred store is
 * reached. Returns 0 when connected and migrated.
 *
 * Failures are of two kinds. Those that need a person are -1 with err, always: a URL
 * libpq cannot parse (ERR_BAD_VALUE), a server that answered and refused (any SQLSTATE
 * outside the classes 08, 40, 53 and 57: a failed authentication, a role or database that
 * does not exist, a privilege missing for a migration), a password the server wants and
 * the URL lacks, a schema newer than this program's. Those that pass by themselves (no
 * server running, connection refused, no answer within PGSTORE_CONNECT_TIMEOUT_S, an
 * unknown host, the server starting up or shutting down, too many connections) are -1
 * with ERR_UNAVAILABLE without defer; with defer they return 1 with *out a working store
 * and err saying why: every member fails with ERR_UNAVAILABLE until a later call reaches
 * the server, which then migrates the schema (under the same lock) and serves.
 */
int pgstore_open(
    const char *url, int defer, pgstore_log_fn log, struct pgstore **out, struct err *err);

/* Stop the store's threads, close every connection and free ps. NULL is a no-op. */
void pgstore_close(struct pgstore *ps);

/* Bind the calibration store interface to ps (borrowed; it must outlive cs). */
void pgstore_bind(struct calstore *cs, struct pgstore *ps);

/* This process's name among the nodes (random hex, made at open): the owner of its fits. */
const char *pgstore_node(const struct pgstore *ps);

/*
 * 1 when the server was reachable at the last contact with it, else 0 (also before it was
 * first reached and its schema migrated). Never blocks on the network: the last statement
 * run, the last connection attempt and the listener (which sees the server close its
 * connection within a fraction of a second) keep it current.
 */
int pgstore_reachable(struct pgstore *ps);

#endif
