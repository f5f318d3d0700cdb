/*
 * token_cmd.c: `contactd token ...` (token_cmd.h).
 */
#include "http/token_cmd.h"

#include <stddef.h>

#include "calib/events.h"
#include "calib/token.h"
#include "http/engine.h"

/* The token command's store: --store, or the SQLite file at --db. */
struct token_db {
	const char *path, *url;
	struct store *st;
	struct engine engine;
	struct calstore cs;
};

static int token_db_open(void *ctx, struct calstore **cs, struct err *err)
{
	struct token_db *db = ctx;

	if (!db->url && store_open(db->path, &db->st, err) != 0)
		return -1;
	/* a command fails at once when PostgreSQL is unreachable: nothing would wait for it */
	if (engine_open(db->url, db->st, 0, &db->engine, &db->cs, err) != 0) {
		store_close(db->st);
		db->st = NULL;
		return -1;
	}
	/* a revocation or rotation reaches the daemons' streams at once */
	calevents_share(&db->cs, 0, err);
	*cs = &db->cs;
	return 0;
}

static void token_db_close(void *ctx)
{
	struct token_db *db = ctx;

	calevents_share(NULL, 0, NULL);
	engine_close(&db->engine);
	store_close(db->st);
	db->st = NULL;
}

int token_cmd_run(int argc, char **argv, const char *db_path, const char *store_url)
{
	struct token_db db = {db_path, store_url, NULL, {0}, {0}};
	const struct caltoken_opener opener = {&db, token_db_open, token_db_close};

	return caltoken_command(argc, argv, &opener);
}
