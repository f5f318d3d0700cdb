/*
 * pg_token.c: the PostgreSQL store's robots, tokens and server secrets (see pg_token.h).
 */
#include "store/pg_token.h"

#include <stdio.h>
#include <string.h>

#include <libpq-fe.h>
#include <sodium.h>

#include "base/knobs.h"

/* INSERT ... ON CONFLICT: a robot two nodes make at once is made once. */
int pgtok_robot_id(struct pgc *c, const char *robot, int create, long long *id, struct err *err)
{
	if (create &&
	    pgc_run(c,
	        "INSERT INTO robots (name, created_at) VALUES ($1, $2) "
	        "ON CONFLICT (name) DO NOTHING",
	        ARGS(TXT(robot), NUM(pgc_now())), NULL, "adding a robot", err) != 0)
		return -1;
	return pgc_first_ll(pgc_exec(c, "SELECT id FROM robots WHERE name = $1", ARGS(TXT(robot)),
	                        "finding a robot", err),
	    id);
}

static int insert_token(struct pgc *c, const char *token_id, const char *role, long long rid,
    const char *lab, const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at,
    const char *replaces, struct err *err)
{
	char hash_s[2 * CALSTORE_HASH_BYTES + 3];

	return pgc_run(c,
	    "INSERT INTO tokens (id, role, robot_id, lab, hash, created_at, expires_at, replaces) "
	    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
	    ARGS(TXT(token_id), TXT(role), NUM_IF(rid > 0, rid),
	        TXT(rid > 0 || !lab || !*lab ? NULL : lab),
	        TXT(pgc_bytea(hash_s, hash, CALSTORE_HASH_BYTES)), NUM(pgc_now()),
	        NUM_IF(expires_at > 0, expires_at), TXT(replaces && *replaces ? replaces : NULL)),
	    NULL, "adding a token", err);
}

static int token_create(struct pgc *c, enum calstore_role role, const char *robot, const char *lab,
    long long expires_at, const char *token_id, const unsigned char hash[CALSTORE_HASH_BYTES],
    struct err *err)
{
	long long rid = 0;

	if (robot) {
		if (pgtok_robot_id(c, robot, 1, &rid, err) != 1)
			return -1;
		if (role == CALSTORE_ROBOT && lab &&
		    pgc_run(c, "UPDATE robots SET lab = $2 WHERE id = $1", ARGS(NUM(rid), TXT(lab)),
		        NULL, "setting a robot's lab", err) != 0)
			return -1;
	}
	return insert_token(c, token_id, role == CALSTORE_ROBOT ? "robot" : "viewer", rid, lab,
	    hash, expires_at, NULL, err);
}

int pgtok_create(void *ctx, enum calstore_role role, const char *robot, const char *lab,
    long long expires_at, const char *token_id, const unsigned char hash[CALSTORE_HASH_BYTES],
    struct err *err)
{
	struct pgc c;

	if (pgc_begin(ctx, &c, err) != 0)
		return -1;
	return pgc_end(
	    &c, token_create(&c, role, robot, lab, expires_at, token_id, hash, err), err);
}

static int token_rotate(struct pgc *c, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err)
{
	char role[16], lab[CALSTORE_NAME_MAX];
	PGresult *r;
	long long rid;

	r = pgc_exec(c,
	    "SELECT role, coalesce(robot_id, 0), coalesce(lab, '') FROM tokens WHERE id = $1 AND "
	    "revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2) FOR UPDATE",
	    ARGS(TXT(old_id), NUM(pgc_now())), "reading a token", err);
	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return err_set(err, ERR_NOT_FOUND, NULL, "no valid token %s", old_id);
	}
	snprintf(role, sizeof role, "%s", PQgetvalue(r, 0, 0));
	rid = pgc_ll(r, 0, 1);
	snprintf(lab, sizeof lab, "%s", PQgetvalue(r, 0, 2));
	PQclear(r);
	if (insert_token(c, new_id, role, rid, lab, hash, expires_at, old_id, err) != 0)
		return -1;
	return pgc_run(c,
	    "UPDATE tokens SET expires_at = least(coalesce(expires_at, $2), $2) WHERE id = $1",
	    ARGS(TXT(old_id), NUM(old_expires_at)), NULL, "expiring a rotated token", err);
}

int pgtok_rotate(void *ctx, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err)
{
	struct pgc c;

	if (pgc_begin(ctx, &c, err) != 0)
		return -1;
	return pgc_end(
	    &c, token_rotate(&c, old_id, new_id, hash, expires_at, old_expires_at, err), err);
}

int pgtok_revoke(void *ctx, const char *token_id, struct err *err)
{
	long long changed = 0;

	if (pgc_command(ctx,
	        "UPDATE tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1",
	        ARGS(TXT(token_id), NUM(pgc_now())), &changed, "revoking a token", err) != 0)
		return -1;
	return changed ? 0 : err_set(err, ERR_NOT_FOUND, NULL, "no token %s", token_id);
}

int pgtok_get(void *ctx, const char *token_id, struct calstore_token *out, struct err *err)
{
	PGresult *r = pgc_query(ctx,
	    "SELECT t.role, coalesce(r.name, ''), coalesce(t.lab, ''), encode(t.hash, 'hex'), "
	    "t.revoked_at IS NOT NULL, coalesce(t.expires_at, 0), coalesce(t.last_used_at, 0), "
	    /* only a token with an expiry can have been rotated: the successor names it */
	    "CASE WHEN t.expires_at IS NULL THEN false ELSE EXISTS (SELECT 1 FROM tokens n WHERE "
	    "n.replaces = t.id) END "
	    "FROM tokens t LEFT JOIN robots r ON r.id = t.robot_id WHERE t.id = $1",
	    ARGS(TXT(token_id)), "reading a token", err);
	int rc = 0;

	if (!r)
		return -1;
	if (PQntuples(r) > 0 && pgc_hex(PQgetvalue(r, 0, 3), out->hash, CALSTORE_HASH_BYTES) == 0) {
		out->role =
		    strcmp(PQgetvalue(r, 0, 0), "viewer") == 0 ? CALSTORE_VIEWER : CALSTORE_ROBOT;
		snprintf(out->robot, sizeof out->robot, "%s", PQgetvalue(r, 0, 1));
		snprintf(out->lab, sizeof out->lab, "%s", PQgetvalue(r, 0, 2));
		out->revoked = pgc_bool(r, 0, 4);
		out->expires_at = pgc_ll(r, 0, 5);
		out->last_used_at = pgc_ll(r, 0, 6);
		out->replaced = pgc_bool(r, 0, 7);
		rc = 1;
	}
	PQclear(r);
	return rc;
}

int pgtok_touch(void *ctx, const char *token_id, long long now, struct err *err)
{
	return pgc_command(ctx,
	    "UPDATE tokens SET last_used_at = $2 WHERE id = $1 AND "
	    "(last_used_at IS NULL OR last_used_at < $2::bigint - $3::bigint)",
	    ARGS(TXT(token_id), NUM(now), NUM(CALIB_TOKEN_USE_GRANULARITY_S)), NULL,
	    "recording a token's use", err);
}

/* A row of token_list's statement as its entry. */
static json_t *token_entry(const PGresult *r, int i)
{
	return json_pack("{s:s, s:s, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "id", PQgetvalue(r, i, 0),
	    "role", PQgetvalue(r, i, 1), "robot", pgc_text_or_null(r, i, 2), "lab",
	    pgc_text_or_null(r, i, 3), "created_at", (json_int_t)pgc_ll(r, i, 4), "expires_at",
	    pgc_int_or_null(r, i, 5), "last_used_at", pgc_int_or_null(r, i, 6), "revoked_at",
	    pgc_int_or_null(r, i, 7), "replaces", pgc_text_or_null(r, i, 8));
}

int pgtok_list(void *ctx, json_t **out, struct err *err)
{
	PGresult *r = pgc_query(ctx,
	    "SELECT t.id, t.role, r.name, coalesce(t.lab, r.lab), t.created_at, t.expires_at, "
	    "t.last_used_at, t.revoked_at, t.replaces FROM tokens t "
	    "LEFT JOIN robots r ON r.id = t.robot_id ORDER BY coalesce(r.name, '') COLLATE \"C\", "
	    "t.created_at, t.id COLLATE \"C\"",
	    NO_ARGS, "listing tokens", err);

	return r ? pgc_rows_json(r, token_entry, out, err) : -1;
}

int pgtok_robot_lab(void *ctx, const char *robot, char lab[CALSTORE_NAME_MAX], struct err *err)
{
	PGresult *r = pgc_query(ctx, "SELECT coalesce(lab, '') FROM robots WHERE name = $1",
	    ARGS(TXT(robot)), "reading a robot", err);
	int found = r ? PQntuples(r) > 0 : -1;

	if (found > 0)
		snprintf(lab, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

int pgtok_secret(
    void *ctx, const char *name, unsigned char secret[CALSTORE_SECRET_BYTES], struct err *err)
{
	unsigned char fresh[CALSTORE_SECRET_BYTES];
	char fresh_s[2 * CALSTORE_SECRET_BYTES + 3];
	struct pgc c;
	PGresult *r;
	int rc = -1;

	randombytes_buf(fresh, sizeof fresh);
	pgc_bytea(fresh_s, fresh, sizeof fresh);
	sodium_memzero(fresh, sizeof fresh);
	if (pgc_acquire(ctx, &c, err) != 0) {
		sodium_memzero(fresh_s, sizeof fresh_s);
		return -1;
	}
	r = pgc_exec(&c,
	    "WITH made AS (INSERT INTO server_secrets (name, secret) VALUES ($1, $2) "
	    "ON CONFLICT (name) DO NOTHING RETURNING secret) "
	    "SELECT encode(secret, 'hex') FROM made UNION ALL "
	    "SELECT encode(secret, 'hex') FROM server_secrets WHERE name = $1",
	    ARGS(TXT(name), TXT(fresh_s)), "making a secret", err);
	/* Another node made it at the same moment, after this statement's snapshot: the next
	 * statement sees it. */
	if (r && PQntuples(r) == 0) {
		PQclear(r);
		r = pgc_exec(&c, "SELECT encode(secret, 'hex') FROM server_secrets WHERE name = $1",
		    ARGS(TXT(name)), "reading a secret", err);
	}
	sodium_memzero(fresh_s, sizeof fresh_s);
	pgc_release(&c);
	if (!r)
		return -1;
	if (PQntuples(r) > 0 && pgc_hex(PQgetvalue(r, 0, 0), secret, CALSTORE_SECRET_BYTES) == 0)
		rc = 0;
	else
		err_set(err, ERR_UNAVAILABLE, NULL, "store: reading secret %s: bad value", name);
	PQclear(r);
	return rc;
}
