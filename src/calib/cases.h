/*
 * cases.h: the calibration use cases, over plain values and the store: start a calibration,
 * upload measurements, delete a measurement or an upload, list a robot's calibrations, show
 * one, and the fits as the answers show them. Every function takes the principal a front end
 * authenticated (token.h) and enforces the token policy itself; answers are JSON values the
 * caller owns, errors a struct err whose code the front end maps (the daemon's in
 * http/status.h).
 *
 * An upload or a deletion commits durably, schedules the refit (work.h) and publishes a
 * CALEVENT_FIT (events.h) before it returns; its answer has the fit pending. An upload or a
 * create with an Idempotency-Key is remembered with its first answer, per robot: the same key
 * and body again replay that answer and store nothing; the key with another body is
 * ERR_BAD_VALUE.
 */
#ifndef CONTACTD_CALIB_CASES_H
#define CONTACTD_CALIB_CASES_H

#include <jansson.h>

#include "base/calstore.h"
#include "base/error.h"
#include "calib/token.h"

/* Calibration id if p can see it: 0 with owner filled; else ERR_NOT_FOUND, the same as for
 * an id that does not exist. */
int calcase_visible(struct calstore *cs, const struct caltoken_principal *p, long long id,
    char owner[CALSTORE_NAME_MAX], struct err *err);

/* calcase_visible(), and p may write it (else ERR_FORBIDDEN). */
int calcase_writable(struct calstore *cs, const struct caltoken_principal *p, long long id,
    char owner[CALSTORE_NAME_MAX], struct err *err);

/*
 * Start a calibration of robot with setup body (calreq.h; its field errors carry their JSON
 * Pointer): *answer {"id", "robot", "setup", "fit": null} and *id its id. ERR_TOO_LARGE
 * when the robot holds CALIB_MAX_CALIBRATIONS already. With
 * Idempotency-Key key (NULL: none; calidem_key() parses the header), kept per robot with the
 * first answer as an upload's: the same key and setup again set *replay (caller frees) to
 * that answer's text, with *answer NULL and nothing stored; the key with another setup (or
 * used by an upload) is ERR_BAD_VALUE.
 */
int calcase_create(struct calstore *cs, const struct caltoken_principal *p, const char *robot,
    json_t *body, const char *key, json_t **answer, char **replay, long long *id, struct err *err);

/* A page of robot robot's calibrations: those with an id above after (0: from the first),
 * oldest first, at most limit (1 to CALIB_LIST_MAX; the caller checks) of them: *answer
 * {"robot", "calibrations", "next_after"}, next_after the after of the next page, null on
 * the last. */
int calcase_list(struct calstore *cs, const struct caltoken_principal *p, const char *robot,
    long long after, long long limit, json_t **answer, struct err *err);

/* Calibration id: *answer {"id", "robot", "setup", "measurements", "fit", "fit_id"}. */
int calcase_show(struct calstore *cs, const struct caltoken_principal *p, long long id,
    json_t **answer, struct err *err);

/* Calibration id's measurements with their ids: *answer {"calibration", "measurements"}. */
int calcase_measurements(struct calstore *cs, const struct caltoken_principal *p, long long id,
    json_t **answer, struct err *err);

/* Calibration id's done fits, oldest first, each as its fit member was when it was the newest
 * (calcase_fit_member()): *answer {"calibration", "fits"}. */
int calcase_fits(struct calstore *cs, const struct caltoken_principal *p, long long id,
    json_t **answer, struct err *err);

/* What an upload did. Release with calcase_upload_clear(), also after a failure. */
struct calcase_upload {
	json_t *answer;   /* {"calibration", "fit_id", "fit", "upload", "measurement_ids",
	                     "accepted"}; NULL when replayed */
	char *replay;     /* the first answer's text, when the key was used with this upload */
	long long fit_id; /* the fit that will cover it (0 when replayed) */
};

/*
 * Upload body ({"drops", "presses", "trajectories"}) to calibration id, with Idempotency-Key
 * key (NULL: none; calidem_key() parses the header). The calibration is read once, locked in
 * the upload's transaction. refused (NULL or ERR_NONE: none) is what a front end found wrong
 * reading the request (its body, its key, its wait): it is the error only once p may write
 * the calibration, after the token policy's ERR_NOT_FOUND and ERR_FORBIDDEN, so that a
 * client learns nothing of a calibration it may not write; nothing is then written.
 */
int calcase_upload(struct calstore *cs, const struct caltoken_principal *p, long long id,
    json_t *body, const char *key, const struct err *refused, struct calcase_upload *out,
    struct err *err);

void calcase_upload_clear(struct calcase_upload *u);

/*
 * Delete measurement measurement_id or every measurement of upload upload_id (the other 0) of
 * calibration id: *answer {"calibration", "fit_id", "fit", "deleted"}, *fit_id the refit.
 */
int calcase_delete(struct calstore *cs, const struct caltoken_principal *p, long long id,
    long long measurement_id, long long upload_id, json_t **answer, long long *fit_id,
    struct err *err);

/* The state a client sees of a stored state: "pending" (queued or running), "done" or
 * "failed" (static strings). */
const char *calcase_shown_state(const char *state);

/*
 * A stored fit as the answers show it: the fit with its "state" and "id"; while pending
 * {"state", "id", "started"}; when failed {"state", "id", "error"}. NULL if out of memory.
 */
json_t *calcase_fit_member(const struct calstore_fit *f);

/*
 * Calibration id's newest fit as calcase_fit_member(), or JSON null when it has none; its
 * record into *f (caller clears with calstore_fit_clear()) when f is not NULL. No policy: for
 * a caller that checked it (a stream). NULL with err on failure.
 */
json_t *calcase_latest_fit(
    struct calstore *cs, long long id, struct calstore_fit *f, struct err *err);

#endif
