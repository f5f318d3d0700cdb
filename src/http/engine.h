/*
 * engine.h: the calibration store's engine, chosen by the daemon's main (contactd.c and
 * its token command, token_cmd.c) from --store: SQLite (the --db database, or another
 * file) or PostgreSQL. The only module above the store that names an engine: the
 * calibration routes and the calibration layer see the store through struct calstore.
 */
#ifndef CONTACTD_HTTP_ENGINE_H
#define CONTACTD_HTTP_ENGINE_H

#include "base/calstore.h"
#include "base/error.h"
#include "store/store.h"

struct pgstore;

/* The engine behind a calibration store, and what of it was opened here. */
struct engine {
	struct store *sqlite; /* opened here (sqlite:PATH other than --db) */
	struct store *local;  /* the SQLite store in use (sqlite, or the --db one), or NULL */
	struct pgstore *pg;
};

/* 0 when url is a --store contactd can open (sqlite:PATH, postgresql://...), else -1. */
int engine_url_check(const char *url);

/*
 * Bind cs to the store url names (NULL: cache, the --db database, borrowed): 0, or with
 * defer 1 when it is a PostgreSQL server not reachable yet (err says why; cs works, failing
 * with ERR_UNAVAILABLE until the server is reached: pgstore_open()). -1 with err when it
 * cannot be opened. PostgreSQL's own lines go to the daemon's log. End with engine_close().
 */
int engine_open(const char *url, struct store *cache, int defer, struct engine *e,
    struct calstore *cs, struct err *err);

/* Close what engine_open() opened (not the borrowed --db store); e may be zeroed. */
void engine_close(struct engine *e);

/* "sqlite" or "postgresql" (static), for /v1/health. */
const char *engine_name(const struct engine *e);

/* Does the store answer (e is a struct engine *)? Cheap and never blocking on the network:
 * PostgreSQL's is the last known state (pgstore_reachable()); SQLite's is whether the file
 * answers a read of its schema version. */
int engine_reachable(void *e);

/* The PostgreSQL node name its fits carry in the store, NULL for SQLite (static until
 * engine_close()). */
const char *engine_node(const struct engine *e);

#endif
