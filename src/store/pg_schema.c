/*
 * pg_schema.c: the PostgreSQL store's migrations (see pg_schema.h).
 */
#include "store/pg_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

int pgschema_migrate(struct pgc *c, int *fatal, struct err *err)
{
	PGresult *r;
	long long have;
	size_t i;

	*fatal = 0;
	if (pgc_run(c, "BEGIN", NO_ARGS, NULL, "beginning a transaction", err) != 0)
		goto fail;
	if (pgc_run(c, "SELECT pg_advisory_xact_lock($1::bigint)", ARGS(NUM(MIGRATION_LOCK)), NULL,
	        "locking the schema", err) != 0 ||
	    pgc_run(c,
	        "CREATE TABLE IF NOT EXISTS contactd_schema (version integer PRIMARY KEY, "
	        "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
	        NO_ARGS, NULL, "making the schema table", err) != 0)
		goto fail;
	r = pgc_exec(c, "SELECT coalesce(max(version), 0) FROM contactd_schema", NO_ARGS,
	    "reading the schema version", err);
	if (!r)
		goto fail;
	have = pgc_ll(r, 0, 0);
	PQclear(r);
	if (have > (long long)pgschema_migration_count) {
		err_set(err, ERR_UNAVAILABLE, NULL,
		    "store: the PostgreSQL schema is at version %lld, newer than this contactd's "
		    "%zu",
		    have, pgschema_migration_count);
		*fatal = 1;
		pgc_rollback(c);
		return -1;
	}
	for (i = 0; i < pgschema_migration_count; i++) {
		const struct store_migration *m = &pgschema_migrations[i];

		if (m->version <= have)
			continue;
		r = PQexec(c->conn, m->sql); /* several statements: the simple protocol */
		if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
			char why[200];
			const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

			snprintf(c->state, sizeof c->state, "%s", state ? state : "");
			pgc_message(c->conn, why, sizeof why);
			PQclear(r);
			err_set(
			    err, ERR_UNAVAILABLE, NULL, "store: migration %s: %s", m->name, why);
			goto fail;
		}
		PQclear(r);
		if (pgc_run(c, "INSERT INTO contactd_schema (version, name) VALUES ($1, $2)",
		        ARGS(NUM(m->version), TXT(m->name)), NULL, "recording a migration",
		        err) != 0)
			goto fail;
	}
	if (pgc_run(c, "COMMIT", NO_ARGS, NULL, "committing", err) == 0)
		return 0;
fail:
	*fatal = PQstatus(c->conn) == CONNECTION_OK && !pgc_transient(c->state);
	pgc_rollback(c);
	return -1;
}
