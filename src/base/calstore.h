/*
 * calstore.h: the calibration store as the calibration layer (src/calib/) sees it: its
 * records, and a table of function pointers over a context, so the use cases never name the
 * engine behind them. SQLite implements it (store/calstore.h, calstore_sqlite_bind()), and
 * so does PostgreSQL, a store several machines share (store/pgstore.h, pgstore_bind()).
 *
 * What every implementation promises: a write a client is told succeeded is durable when
 * the call returns, and each is all of it or nothing; no fit is ever computed inside a
 * transaction (an upload or a deletion leaves a 'pending' fit, which a fit worker claims,
 * computes with no lock held, and finishes); measurements and setups are kept as the
 * canonical JSON text the service validated. Every member returns 0 (or 1 / 0 for found /
 * not found, where said) or -1 with err.
 */
#ifndef CONTACTD_BASE_CALSTORE_H
#define CONTACTD_BASE_CALSTORE_H

#include <jansson.h>

#include "base/error.h"

#define CALSTORE_NAME_MAX 65 /* robot or lab name with its NUL */
#define CALSTORE_HASH_BYTES 32
#define CALSTORE_SECRET_BYTES 32

enum calstore_role {
	CALSTORE_ROBOT,  /* uploads to and reads its robot's calibrations */
	CALSTORE_VIEWER, /* reads one robot's calibrations, or every robot's of a lab */
};

/* A token record. */
struct calstore_token {
	enum calstore_role role;
	char robot[CALSTORE_NAME_MAX]; /* its robot; "" for a lab viewer */
	char lab[CALSTORE_NAME_MAX];   /* a lab viewer's lab; "" otherwise */
	unsigned char hash[CALSTORE_HASH_BYTES];
	int revoked;
	long long expires_at;   /* Unix seconds; 0: never */
	long long last_used_at; /* 0: never */
	int replaced;           /* another token rotated it: its expiry ends its grace */
};

/* A fit record. */
struct calstore_fit {
	long long id;
	char state[16]; /* pending, running, done, failed, superseded */
	char *text;     /* stored text: the fit, the error, or "null" while pending; caller frees */
	long long measurements, created_at, started_at, done_at; /* 0: not yet */
};

/* Free what a calstore_fit holds. */
void calstore_fit_clear(struct calstore_fit *f);

/* An upload's Idempotency-Key (IETF httpapi draft), scoped to the calibration's robot. */
struct calstore_idem {
	const char *key;
	unsigned char fingerprint[CALSTORE_HASH_BYTES]; /* of calibration and canonical upload */
	long long ttl_s;                                /* keys older than this are forgotten */
};

/* What an upload did. */
struct calstore_receipt {
	long long upload_id, fit_id;
	json_t *ids;  /* {"drops": [ids], "presses": [ids], "trajectories": [ids]}; caller frees */
	char *replay; /* set instead when the key was used with the same body: the answer then
	               * stored; nothing else was written. Caller frees. */
};

/* Release what a receipt holds (also after a failed upload). */
void calstore_receipt_clear(struct calstore_receipt *r);

/* A new calibration's setup text, made once its id is known: a malloc'ed string (NULL: out
 * of memory). */
typedef char *(*calstore_setup_fn)(long long id, void *ctx);

/* Limits over every measurement a calibration would hold (the new ones included, shaped as
 * measurements()): 0, or -1 with err, which rolls the upload back. */
typedef int (*calstore_check_fn)(const json_t *all, void *ctx, struct err *err);

/* The answer to store with an Idempotency-Key, from the receipt: a malloc'ed text. */
typedef char *(*calstore_answer_fn)(const struct calstore_receipt *r, void *ctx);

struct calstore {
	void *ctx; /* the implementation's, passed back to every member */

	/* A new token (id, hash) of role for robot (made on first use) or, for a viewer, lab
	 * (robot NULL); a robot token with lab puts the robot in it. expires_at 0: never. */
	int (*token_create)(void *ctx, enum calstore_role role, const char *robot, const char *lab,
	    long long expires_at, const char *token_id,
	    const unsigned char hash[CALSTORE_HASH_BYTES], struct err *err);
	/* Token old_id's successor (new_id, hash; same role and scope, expiring at expires_at),
	 * and old_id now expiring at old_expires_at at the latest. ERR_NOT_FOUND when old_id is
	 * unknown, revoked or expired. */
	int (*token_rotate)(void *ctx, const char *old_id, const char *new_id,
	    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at,
	    long long old_expires_at, struct err *err);
	/* Mark a token revoked; ERR_NOT_FOUND when there is none. */
	int (*token_revoke)(void *ctx, const char *token_id, struct err *err);
	/* A token: 1 with *out filled, 0 when unknown. One read by key: cheap enough to poll. */
	int (*token_get)(
	    void *ctx, const char *token_id, struct calstore_token *out, struct err *err);
	/* Record that a token was used at now (at most one write per
	 * CALIB_TOKEN_USE_GRANULARITY_S). */
	int (*token_touch)(void *ctx, const char *token_id, long long now, struct err *err);
	/* Every token as [{"id", "role", "robot", "lab", "created_at", "expires_at",
	 * "last_used_at", "revoked_at", "replaces"}], never a hash; caller owns *out. */
	int (*token_list)(void *ctx, json_t **out, struct err *err);
	/* A robot's lab into lab ("" for none): 1, 0 when there is no such robot. */
	int (*robot_lab)(
	    void *ctx, const char *robot, char lab[CALSTORE_NAME_MAX], struct err *err);
	/* A new calibration of robot with setup setup_of(id, setup_ctx); its id into *id. */
	int (*calibration_create)(void *ctx, const char *robot, calstore_setup_fn setup_of,
	    void *setup_ctx, long long *id, struct err *err);
	/* A calibration: 1 with robot and lab (its robot's, "" for none; may be NULL) filled and
	 * *setup a copy of its setup text (caller frees; setup may be NULL), 0 when none. */
	int (*calibration_get)(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
	    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err);
	/* A robot's calibrations, oldest first: [{"id", "created_at", "measurements", "fit_id",
	 * "fit_state", "fit_started", "fit"}] (fit: the latest fit's stored text parsed, null
	 * when none or pending). Caller owns *out. */
	int (*calibration_list)(void *ctx, const char *robot, json_t **out, struct err *err);
	/* Every measurement of a calibration as {"drops", "presses", "trajectories"} in upload
	 * order, each with its "id" and "upload". Caller owns *out. */
	int (*measurements)(void *ctx, long long id, json_t **out, struct err *err);
	/* The latest fit of calibration id: 1 with *out filled, 0 when it has none. */
	int (*fit_latest)(void *ctx, long long id, struct calstore_fit *out, struct err *err);
	/* Append upload to calibration id as one new upload checked by check, leaving a pending
	 * fit, durably; with idem, a key used with the same fingerprint gives *replay and writes
	 * nothing, with another ERR_BAD_VALUE, new it is kept with answer(receipt). ERR_NOT_FOUND
	 * for an unknown calibration. Release *out with calstore_receipt_clear(). */
	int (*upload)(void *ctx, long long id, const json_t *upload,
	    const struct calstore_idem *idem, calstore_check_fn check, calstore_answer_fn answer,
	    void *cb_ctx, struct calstore_receipt *out, struct err *err);
	/* Delete measurement measurement_id or upload upload_id (the other 0) of calibration id
	 * and leave a pending fit, durably: *deleted the ids removed (caller frees), *fit_id the
	 * refit. ERR_NOT_FOUND when there is no such measurement or upload. */
	int (*remove)(void *ctx, long long id, long long measurement_id, long long upload_id,
	    json_t **deleted, long long *fit_id, struct err *err);
	/* Claim calibration id's newest pending fit (running; older ones superseded) with its
	 * setup text and every measurement, at once: 1 with *fit_id, *setup and *all (caller
	 * frees), 0 when none is pending. */
	int (*fit_claim)(void *ctx, long long id, long long *fit_id, char **setup, json_t **all,
	    struct err *err);
	/* A claimed fit's outcome: done with the fit's text, or failed with the error's. */
	int (*fit_finish)(void *ctx, long long fit_id, int done, const char *text,
	    long long measurements, struct err *err);
	/* At start: fits left running back to pending, and the ids of the calibrations with a
	 * pending fit into *ids (a JSON array; caller frees). */
	int (*fit_recover)(void *ctx, json_t **ids, struct err *err);
	/* The server's secret called name, made (random, durably) on first use. */
	int (*secret)(void *ctx, const char *name, unsigned char secret[CALSTORE_SECRET_BYTES],
	    struct err *err);

	/* The members below are NULL for a store only one process serves (SQLite). A store
	 * several nodes share (PostgreSQL) has them: */
	/* The calibrations whose fit is pending and unclaimed, or running on a node whose lease
	 * on it lapsed (the node died), into *ids (a JSON array; caller frees): the fit workers
	 * call it every CALIB_FIT_ADOPT_S and claim those. A claimed fit's lease is renewed by
	 * the store while its node lives; fit_claim takes a lapsed one over, and fit_finish
	 * records only a fit its node still holds (ERR_CONFLICT otherwise), so each fit is
	 * finished once. */
	int (*fit_adopt)(void *ctx, json_t **ids, struct err *err);
	/* Tell every other process sharing the store text (a short event, calib/events.h). */
	int (*announce)(void *ctx, const char *text, struct err *err);
	/* From now on call heard(text, heard_ctx) on a thread of the store's for every text
	 * another process announced, until the store is closed. heard returns quickly. */
	int (*listen)(void *ctx, void (*heard)(const char *text, void *heard_ctx), void *heard_ctx,
	    struct err *err);
};

#endif
