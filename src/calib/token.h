/*
 * token.h: who may do what with calibrations: bearer tokens (calib/auth.h) checked against
 * their records (base/calstore.h), the principal a token speaks for, its scope, expiry and
 * rotation grace, and `contactd token ...`.
 *
 * A robot's token reads and writes its robot's calibrations; a viewer's token reads those of
 * one robot or of every robot of a lab, and may not write (ERR_FORBIDDEN). A calibration or
 * robot the token cannot see does not exist for it: ERR_NOT_FOUND, as for an unknown id,
 * naming nobody. A rotated token keeps working until its grace ends (its expiry), then is
 * refused like an expired one.
 */
#ifndef CONTACTD_CALIB_TOKEN_H
#define CONTACTD_CALIB_TOKEN_H

#include "base/calstore.h"
#include "base/error.h"
#include "calib/auth.h"

/* Who a bearer token (or the token behind a watch URL) speaks for. */
struct caltoken_principal {
	char token_id[AUTH_ID_HEX + 1];
	enum calstore_role role;
	char robot[CALSTORE_NAME_MAX]; /* "" for a lab's viewer */
	char lab[CALSTORE_NAME_MAX];   /* a lab viewer's lab */
};

/*
 * The principal of token token_id whose secret is secret (NULL: proven otherwise, by a watch
 * URL's signature) into *p, at Unix time now; records its use (at most one write per
 * CALIB_TOKEN_USE_GRANULARITY_S). ERR_UNAUTHORIZED when unknown, wrong, revoked or expired.
 */
int caltoken_principal(struct calstore *cs, const char *token_id, const char *secret, long long now,
    struct caltoken_principal *p, struct err *err);

/* The principal of an Authorization header "Bearer <id>.<secret>" (NULL: none given). */
int caltoken_authenticate(struct calstore *cs, const char *authorization, long long now,
    struct caltoken_principal *p, struct err *err);

/* May p read robot owner's calibrations, owner being in lab owner_lab ("": none)? 1 or 0. */
int caltoken_can_see(const struct caltoken_principal *p, const char *owner, const char *owner_lab);

/* May p write robot owner's calibrations? 0, or ERR_FORBIDDEN. */
int caltoken_can_write(const struct caltoken_principal *p, const char *owner, struct err *err);

/* Robot robot's routes: 0 when p can see the robot, else ERR_NOT_FOUND naming it. */
int caltoken_robot_visible(
    struct calstore *cs, const struct caltoken_principal *p, const char *robot, struct err *err);

/*
 * Why an event stream opened with token token_id must end at Unix time now: "token_revoked",
 * "token_rotated" (a rotation's grace ended), "token_expired" or "token_unknown"; NULL while
 * the token is valid, and when the store cannot tell (a busy store closes no stream). One
 * read by primary key: cheap enough for every stream's ticker.
 */
const char *caltoken_close_reason(struct calstore *cs, const char *token_id, long long now);

/*
 * A new token of role for robot (a viewer of a lab: robot NULL, lab set; a robot's token with
 * lab puts the robot in it), expiring at expires_at (0: never), into *out (its text is shown
 * once: only the hash is stored).
 */
int caltoken_create(struct calstore *cs, enum calstore_role role, const char *robot,
    const char *lab, long long expires_at, struct auth_token *out, struct err *err);

/* Rotate token old_id: a new one of the same scope (expires_at, 0: never) into *out, and old_id
 * valid until grace_until at the latest. Subscribers hear of it (events.h). */
int caltoken_rotate(struct calstore *cs, const char *old_id, long long expires_at,
    long long grace_until, struct auth_token *out, struct err *err);

/* Revoke token_id at once; its open streams close (events.h, and each stream's ticker). */
int caltoken_revoke(struct calstore *cs, const char *token_id, struct err *err);

/* How the token command reaches its store: open() once the arguments are checked (a usage
 * error opens nothing), close() at the end when open() succeeded. */
struct caltoken_opener {
	void *ctx;
	int (*open)(void *ctx, struct calstore **cs, struct err *err);
	void (*close)(void *ctx);
};

/*
 * `contactd token create|rotate|revoke|list ...`: argv[0] is "token". Prints the new token,
 * "revoked <id>" or the list on stdout; never a secret it was given. Returns the process
 * exit status (2: usage).
 */
int caltoken_command(int argc, char **argv, const struct caltoken_opener *opener);

#endif
