/*
 * pg_token.h: the PostgreSQL store's credentials: robots, their tokens (the calstore members
 * token_*, robot_lab) and the server's secrets (secret), on the pool of store/pg_conn.h. Each
 * member has the meaning base/calstore.h gives it; ctx is the struct pgstore. The rest of the
 * store (calibrations, uploads, fits) is pgstore.c.
 */
#ifndef CONTACTD_STORE_PG_TOKEN_H
#define CONTACTD_STORE_PG_TOKEN_H

#include <jansson.h>

#include "base/calstore.h"
#include "base/error.h"
#include "store/pg_conn.h"

/*
 * Robot robot's id into *id, in c's transaction (or on its own): 1 found, 0 when there is
 * none, -1 with err (ERR_UNAVAILABLE from the server). With create the robot is made first
 * when it is new (a concurrent maker is no conflict), so the answer is then 1 or -1.
 */
int pgtok_robot_id(struct pgc *c, const char *robot, int create, long long *id, struct err *err);

/*
 * token_create: a token (token_id, hash) of role for robot (made on first use; a robot
 * token with lab moves the robot into lab) or, robot NULL, a viewer of lab; expires_at 0
 * never. One transaction: 0, or -1 with err (a token_id already taken fails).
 */
int pgtok_create(void *ctx, enum calstore_role role, const char *robot, const char *lab,
    long long expires_at, const char *token_id, const unsigned char hash[CALSTORE_HASH_BYTES],
    struct err *err);

/*
 * token_rotate: old_id's successor new_id (same role, robot and lab; expiring at expires_at,
 * 0 never) naming old_id as the one it replaces, and old_id expiring at old_expires_at at the
 * latest, in one transaction holding old_id's row. 0, ERR_NOT_FOUND when old_id is unknown,
 * revoked or expired, or -1 with err.
 */
int pgtok_rotate(void *ctx, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err);

/* token_revoke: mark token_id revoked (its first revocation time kept): 0, ERR_NOT_FOUND when
 * there is no such token, or -1 with err. */
int pgtok_revoke(void *ctx, const char *token_id, struct err *err);

/*
 * token_get: token_id's record into *out (caller's): 1, 0 when unknown (or its stored hash is
 * unreadable), -1 with err. out->replaced is set when a successor names it.
 */
int pgtok_get(void *ctx, const char *token_id, struct calstore_token *out, struct err *err);

/* token_touch: record token_id's use at now (Unix seconds), written only when the last record
 * is older than CALIB_TOKEN_USE_GRANULARITY_S: 0, or -1 with err. */
int pgtok_touch(void *ctx, const char *token_id, long long now, struct err *err);

/*
 * token_list: every token, by robot name (bytewise), creation time and id, as a JSON array
 * of {"id", "role", "robot", "lab", "created_at", "expires_at", "last_used_at", "revoked_at",
 * "replaces"} (no hash) into *out, which the caller frees: 0, or -1 with err.
 */
int pgtok_list(void *ctx, json_t **out, struct err *err);

/* robot_lab: robot's lab into lab ("" for none): 1, 0 when there is no such robot, -1 with
 * err. */
int pgtok_robot_lab(void *ctx, const char *robot, char lab[CALSTORE_NAME_MAX], struct err *err);

/*
 * secret: the server's secret called name into secret (the caller's; CALSTORE_SECRET_BYTES),
 * made at random and stored on first use; when two nodes make it at once, both read the one
 * stored. 0, or -1 with err (ERR_UNAVAILABLE when the stored value is unreadable).
 */
int pgtok_secret(
    void *ctx, const char *name, unsigned char secret[CALSTORE_SECRET_BYTES], struct err *err);

#endif
