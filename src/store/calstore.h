/*
 * calstore.h: the calibration tables of schema/002_calibration.sql and
 * schema/003_calibration_async.sql: robots and their labs, tokens, calibrations,
 * uploads and their measurements, fits, Idempotency-Key records and the server's secrets.
 *
 * Every write that a client is told succeeded is committed with synchronous=FULL
 * (store_begin(STORE_SYNC_FULL)) before the function returns, and each is one short
 * transaction: all of it or nothing. No fit is ever computed inside a transaction: an
 * upload or a deletion leaves a 'pending' fit, which a fit worker claims
 * (calstore_fit_claim(), which marks it 'running'), computes with no lock held, and
 * records (calstore_fit_finish()). Measurements and setups are kept as the canonical
 * JSON text the service validated.
 *
 * The SQLite implementation of the calibration store interface (base/calstore.h): the
 * calibration layer reaches these functions only through it (calstore_sqlite_bind()).
 */
#ifndef CONTACTD_STORE_CALSTORE_H
#define CONTACTD_STORE_CALSTORE_H

#include <jansson.h>

#include "base/calstore.h"
#include "base/error.h"
#include "store/store.h"

/*
 * Bind the calibration store interface (base/calstore.h) to st (borrowed; it must outlive
 * cs): each member calls the function of the same name below.
 */
void calstore_sqlite_bind(struct calstore *cs, struct store *st);

/*
 * Store a new token (id, hash) of role for robot (creating the robot on first use) or,
 * for a viewer, lab (robot NULL). A robot token with lab non-NULL also puts the robot
 * in that lab. expires_at 0: never.
 */
int calstore_token_create(struct store *st, enum calstore_role role, const char *robot,
    const char *lab, long long expires_at, const char *token_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], struct err *err);

/*
 * Rotate token old_id: a new token (new_id, hash) of the same role and scope expiring at
 * expires_at (0: never), and the old one now expiring at old_expires_at at the latest.
 * ERR_NOT_FOUND when old_id is unknown, revoked or expired.
 */
int calstore_token_rotate(struct store *st, const char *old_id, const char *new_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], long long expires_at, long long old_expires_at,
    struct err *err);

/* Mark a token revoked; ERR_NOT_FOUND when no such token exists. */
int calstore_token_revoke(struct store *st, const char *token_id, struct err *err);

/* Find a token: 1 and *out filled, 0 when unknown, -1 with err on failure. */
int calstore_token_get(
    struct store *st, const char *token_id, struct calstore_token *out, struct err *err);

/* Record that a token was used at now (at most one write per
 * CALIB_TOKEN_USE_GRANULARITY_S). */
int calstore_token_touch(struct store *st, const char *token_id, long long now, struct err *err);

/* Every token as [{"id", "role", "robot", "lab", "created_at", "expires_at", "last_used_at",
 * "revoked_at", "replaces"}] (never a hash or a secret); caller owns *out. */
int calstore_token_list(struct store *st, json_t **out, struct err *err);

/* A robot's lab into lab ("" for none): 1, 0 when there is no such robot, -1 with err. */
int calstore_robot_lab(
    struct store *st, const char *robot, char lab[CALSTORE_NAME_MAX], struct err *err);

/*
 * A calibration: 1 with robot and lab (its robot's lab, "" for none) filled and *setup a new
 * copy of its setup text (caller frees), 0 when there is none, -1 with err. setup and lab
 * may be NULL.
 */
int calstore_calibration_get(struct store *st, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err);

/* A robot's calibrations with an id above after, oldest first, at most limit of them:
 * [{"id", "created_at", "measurements", "fit_id", "fit_state", "fit_started", "fit"}] where
 * fit is the latest fit's stored text parsed (null when there is none or it is pending).
 * Caller owns *out. */
int calstore_calibration_list(struct store *st, const char *robot, long long after, long long limit,
    json_t **out, struct err *err);

/* Every measurement of a calibration as {"drops": [...], "presses": [...],
 * "trajectories": [...]} in upload order, each with its "id" and "upload" (null for one
 * stored before uploads had ids). Caller owns *out. */
int calstore_measurements(struct store *st, long long id, json_t **out, struct err *err);

/* The latest fit of calibration id: 1 with *out filled, 0 when it has none, -1 with err. */
int calstore_fit_latest(struct store *st, long long id, struct calstore_fit *out, struct err *err);

/* The newest STORE_FIT_LIST_MAX_TEXT done fits of calibration id, oldest first: [{"id",
 * "text"}], text the stored fit. Caller owns *out. */
int calstore_fit_list(struct store *st, long long id, json_t **out, struct err *err);

/*
 * A create or an upload in one durable transaction (BEGIN IMMEDIATE: writers take turns), as
 * the interface's members of the same names (base/calstore.h) promise:
 * calstore_create_begin() makes the robot if it is new (0 with *w), calstore_upload_begin()
 * locks calibration id and reads its robot, lab and setup (1 with *w, 0 when there is none);
 * the others work in that transaction on the calling thread (an Idempotency-Key's record
 * kept per robot, with upload_id 0 for a create's); calstore_write_end() commits or rolls
 * back and frees w. What the create or the upload must satisfy is the caller's to decide.
 */
int calstore_create_begin(
    struct store *st, const char *robot, struct calstore_write **w, struct err *err);
int calstore_calibration_add(struct calstore_write *w, long long *id, struct err *err);
int calstore_calibration_count(struct calstore_write *w, long long *n, struct err *err);
int calstore_calibration_setup(
    struct calstore_write *w, long long id, const char *setup, struct err *err);
int calstore_upload_begin(struct store *st, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct calstore_write **w, struct err *err);
int calstore_idem_find(struct calstore_write *w, const struct calstore_idem *idem, int *same,
    char **answer, struct err *err);
int calstore_upload_add(
    struct calstore_write *w, const json_t *upload, struct calstore_receipt *out, struct err *err);
int calstore_upload_measurements(struct calstore_write *w, json_t **out, struct err *err);
int calstore_idem_keep(struct calstore_write *w, const struct calstore_idem *idem,
    long long upload_id, const char *answer, struct err *err);
int calstore_write_end(struct calstore_write *w, int commit, struct err *err);

/*
 * Delete one measurement (measurement_id) or every measurement of one upload (upload_id;
 * the other id 0) of calibration id and leave a pending fit, durably. *deleted is the ids
 * removed, shaped as calstore_receipt's ids (caller frees); *fit_id the fit that will
 * cover the change. ERR_NOT_FOUND when the calibration has no such measurement or upload.
 */
int calstore_delete(struct store *st, long long id, long long measurement_id, long long upload_id,
    json_t **deleted, long long *fit_id, struct err *err);

/*
 * For a fit worker: claim calibration id's newest pending fit (marked running, older pending
 * or running ones superseded) with its setup text and every measurement, in one
 * transaction, so the fit covers exactly what was committed when it started. 1 with *out
 * filled, 0 when none is pending; release *out with calstore_claim_clear() whatever the
 * answer.
 */
int calstore_fit_claim(struct store *st, long long id, struct calstore_claim *out, struct err *err);

/* Record a claimed fit's outcome: done with the fit's text, or failed with the error's.
 * Not fsynced: one lost with the power is still running, and recomputed at the next start. */
int calstore_fit_finish(struct store *st, long long fit_id, int done, const char *text,
    long long measurements, struct err *err);

/* At start: every running fit (its worker died with the process) back to pending, and the
 * ids of the calibrations with a pending fit into *ids (a JSON array; caller frees). */
int calstore_fit_recover(struct store *st, json_t **ids, struct err *err);

/* The server's secret called name, made (random, durably) on first use. */
int calstore_secret(struct store *st, const char *name, unsigned char secret[CALSTORE_SECRET_BYTES],
    struct err *err);

#endif
