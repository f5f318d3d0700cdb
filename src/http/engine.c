/*
 * engine.c: the calibration store's engine, from --store (engine.h).
 */
#include "http/engine.h"

#include <string.h>

#include "http/log.h"
#include "store/calstore.h"
#include "store/pgstore.h"

int engine_url_check(const char *url)
{
	return (strncmp(url, "sqlite:", 7) == 0 && url[7]) ||
	        strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0
	    ? 0
	    : -1;
}

int engine_open(const char *url, struct store *cache, int defer, struct engine *e,
    struct calstore *cs, struct err *err)
{
	int rc = 0;

	memset(e, 0, sizeof *e);
	if (url && strncmp(url, "sqlite:", 7) == 0) {
		if (store_open(url + 7, &e->sqlite, err) != 0)
			return -1;
		calstore_sqlite_bind(cs, e->sqlite);
		e->local = e->sqlite;
	} else if (url) {
		rc = pgstore_open(url, defer, http_log, &e->pg, err);
		if (rc < 0)
			return -1;
		pgstore_bind(cs, e->pg);
	} else {
		calstore_sqlite_bind(cs, cache);
		e->local = cache;
	}
	return rc;
}

void engine_close(struct engine *e)
{
	store_close(e->sqlite);
	pgstore_close(e->pg);
	memset(e, 0, sizeof *e);
}

const char *engine_name(const struct engine *e)
{
	return e->pg ? "postgresql" : "sqlite";
}

int engine_reachable(void *ctx)
{
	struct engine *e = ctx;
	struct err ignored;

	return e->pg ? pgstore_reachable(e->pg)
	             : e->local && store_schema_version(e->local, &ignored) >= 0 &&
	        store_health(e->local, &ignored) == 0;
}

const char *engine_node(const struct engine *e)
{
	return e->pg ? pgstore_node(e->pg) : NULL;
}
