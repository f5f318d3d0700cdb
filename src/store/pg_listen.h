/*
 * pg_listen.h: the PostgreSQL store's threads and events: announcements through NOTIFY, the
 * LISTEN thread that hears the other nodes', and the lease renewer that keeps this node's
 * running fits its own.
 */
#ifndef CONTACTD_STORE_PG_LISTEN_H
#define CONTACTD_STORE_PG_LISTEN_H

#include "base/error.h"
#include "store/pg_conn.h"

/* A fit this process claimed and computes: its lease is renewed until removed. */
void pglisten_running_add(struct pgstore *ps, long long fit_id);
/* The fit is no longer this process's to renew. */
void pglisten_running_remove(struct pgstore *ps, long long fit_id);

/* The calstore members announce and listen (base/calstore.h) of the store ctx. */
int pglisten_announce(void *ctx, const char *text, struct err *err);
int pglisten_listen(
    void *ctx, void (*heard)(const char *text, void *heard_ctx), void *heard_ctx, struct err *err);

/* The lease renewer's thread (arg: the store), until the store closes. */
void *pglisten_renewer(void *arg);

#endif
