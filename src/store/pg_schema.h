/*
 * pg_schema.h: the PostgreSQL store's migrations (schema/pg/NNN_*.sql, embedded as
 * pgschema_migrations[]), applied when a connection first reaches a server.
 */
#ifndef CONTACTD_STORE_PG_SCHEMA_H
#define CONTACTD_STORE_PG_SCHEMA_H

#include "base/error.h"
#include "store/pg_conn.h"
#include "store/store.h"

/* Every schema/pg/NNN_*.sql file in ascending order (generated at build time). */
extern const struct store_migration pgschema_migrations[];
extern const size_t pgschema_migration_count;

/*
 * Bring the schema to this program's version in one transaction under an advisory lock
 * (nodes starting together migrate once): 0, or -1 with err and *fatal set when retrying
 * cannot help (a schema newer than this program's; a statement the server refused while
 * the connection holds, such as a permission denied).
 */
int pgschema_migrate(struct pgc *c, int *fatal, struct err *err);

#endif
