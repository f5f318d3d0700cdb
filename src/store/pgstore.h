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
 * the store survives a restart of PostgreSQL. While PostgreSQL is unreachable every member
 * fails at once with ERR_UNAVAILABLE (503 with Retry-After). Events between nodes go
 * through LISTEN/NOTIFY on the channel "contactd_events" (announce, listen).
 */
#ifndef CONTACTD_STORE_PGSTORE_H
#define CONTACTD_STORE_PGSTORE_H

#include "base/calstore.h"
#include "base/error.h"
#include "store/store.h"

struct pgstore;

/* Every schema/pg/NNN_*.sql file in ascending order (generated at build time). */
extern const struct store_migration pgstore_migrations[];
extern const size_t pgstore_migration_count;

/*
 * Connect to the PostgreSQL server of url (a libpq connection URI, postgresql://...),
 * apply every pending migration and start the lease renewer. *out is a new store the
 * caller releases with pgstore_close(). ERR_UNAVAILABLE when the server cannot be reached
 * or its schema is newer than this program's.
 */
int pgstore_open(const char *url, struct pgstore **out, struct err *err);

/* Stop the store's threads, close every connection and free ps. NULL is a no-op. */
void pgstore_close(struct pgstore *ps);

/* Bind the calibration store interface to ps (borrowed; it must outlive cs). */
void pgstore_bind(struct calstore *cs, struct pgstore *ps);

/* This process's name among the nodes (random hex, made at open): the owner of its fits. */
const char *pgstore_node(const struct pgstore *ps);

#endif
