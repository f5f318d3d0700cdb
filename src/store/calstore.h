/*
 * calstore.h: the calibration tables of schema/002_calibration.sql: robots, their
 * tokens, calibrations, measurements and fits. Every write that a client is told
 * succeeded is committed with synchronous=FULL (store_begin(STORE_SYNC_FULL)) before
 * the function returns, and each is one transaction: all of it or nothing.
 * Measurements and setups are kept as the canonical JSON text the service validated.
 */
#ifndef CONTACTD_STORE_CALSTORE_H
#define CONTACTD_STORE_CALSTORE_H

#include <jansson.h>

#include "base/error.h"
#include "store/store.h"

#define CALSTORE_NAME_MAX 65 /* robot name with its NUL */
#define CALSTORE_HASH_BYTES 32

/* A token record. */
struct calstore_token {
	char robot[CALSTORE_NAME_MAX];
	unsigned char hash[CALSTORE_HASH_BYTES];
	int revoked;
};

/* Store a new token (id, hash) for robot, creating the robot on first use. */
int calstore_token_create(struct store *st, const char *robot, const char *token_id,
    const unsigned char hash[CALSTORE_HASH_BYTES], struct err *err);

/* Mark a token revoked; ERR_NOT_FOUND when no such token exists. */
int calstore_token_revoke(struct store *st, const char *token_id, struct err *err);

/* Find a token: 1 and *out filled, 0 when unknown, -1 with err on failure. */
int calstore_token_get(
    struct store *st, const char *token_id, struct calstore_token *out, struct err *err);

/* Every token as [{"id", "robot", "created_at", "revoked_at"}]; caller owns *out. */
int calstore_token_list(struct store *st, json_t **out, struct err *err);

/* A new calibration of robot with the canonical setup text; its id into *id. */
int calstore_calibration_create(
    struct store *st, const char *robot, const char *setup, long long *id, struct err *err);

/*
 * A calibration: 1 with robot filled and *setup a new copy of its setup text (caller
 * frees), 0 when there is none, -1 with err. setup may be NULL.
 */
int calstore_calibration_get(
    struct store *st, long long id, char robot[CALSTORE_NAME_MAX], char **setup, struct err *err);

/* A robot's calibrations, oldest first: [{"id", "created_at", "measurements", "fit"}]
 * where fit is the latest fit or null. Caller owns *out. */
int calstore_calibration_list(struct store *st, const char *robot, json_t **out, struct err *err);

/* Every measurement of a calibration as {"drops": [...], "presses": [...],
 * "trajectories": [...]} in upload order. Caller owns *out. */
int calstore_measurements(struct store *st, long long id, json_t **out, struct err *err);

/* The latest fit: 1 with *fit a new copy of its text (caller frees) and *fit_id, 0 when
 * the calibration has none, -1 with err. fit may be NULL to learn only the id. */
int calstore_fit_latest(
    struct store *st, long long id, char **fit, long long *fit_id, struct err *err);

/*
 * The refit of an upload, called inside its transaction with the calibration's setup
 * text and all its measurements (the new ones included, shaped as calstore_measurements).
 * Returns 0 with *fit a new canonical JSON text (freed by calstore_upload), or -1 with
 * err, which rolls the upload back.
 */
typedef int (*calstore_refit_fn)(
    const char *setup, const json_t *all, void *ctx, char **fit, struct err *err);

/*
 * Append the measurements of upload ({"drops", "presses", "trajectories"}, each an array of
 * canonical measurement objects; absent lists are empty) to calibration id, refit, store
 * the fit and commit, synchronously and all in one transaction. On success *fit is a new
 * copy of the fit text (caller frees) and *fit_id its id. ERR_NOT_FOUND for an unknown
 * calibration; any failure leaves nothing written.
 */
int calstore_upload(struct store *st, long long id, const json_t *upload, calstore_refit_fn refit,
    void *ctx, char **fit, long long *fit_id, struct err *err);

#endif
