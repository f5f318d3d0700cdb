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

/* An upload's or a calibration create's Idempotency-Key (IETF httpapi draft), scoped to the
 * robot. */
struct calstore_idem {
	const char *key;
	unsigned char fingerprint[CALSTORE_HASH_BYTES]; /* of calibration and canonical upload */
	long long ttl_s;                                /* keys older than this are forgotten */
};

/* The kinds of measurement, in an upload's order: each kind's name as stored ("drop",
 * "press", "trajectory") and its list's in an upload, a receipt and measurements() ("drops",
 * "presses", "trajectories"). */
#define CALSTORE_KINDS 3
extern const char *const calstore_kinds[CALSTORE_KINDS];
extern const char *const calstore_lists[CALSTORE_KINDS];

/* The index in calstore_kinds of kind, or -1 when it is none of them. */
int calstore_kind_index(const char *kind);

/* A new {"drops": [], "presses": [], "trajectories": []} (caller frees; NULL: out of
 * memory). */
json_t *calstore_lists_new(void);

/* One write transaction of the implementation's, on one robot's behalf: create_begin() opens
 * one for a new calibration, upload_begin() one with a calibration locked; write_end()
 * commits or rolls it back and frees it. What a create or an upload must satisfy (the token
 * policy, an Idempotency-Key's replay, the limits) is the calibration layer's
 * (calib/cases.h), between the two: the members only read and write. */
struct calstore_write;

/* An implementation's write of one measurement of kind (an index of calstore_kinds) in w, as
 * its stored text: its id into *id, 0, or -1 with err. */
typedef int (*calstore_add_fn)(
    struct calstore_write *w, int kind, const char *text, long long *id, struct err *err);

/*
 * For an implementation's upload_add(): write each measurement of upload (the canonical
 * {"drops", "presses", "trajectories"}, each list optional), list by list and in order, with
 * add(w, kind, text, &id): text is what a store keeps, the measurement with its keys sorted
 * and reals to 17 significant digits. The ids written into *ids, as a receipt holds them
 * (caller frees, also after a failure; NULL when out of memory). 0, or -1 with err (add's,
 * or out of memory).
 */
int calstore_upload_each(const json_t *upload, calstore_add_fn add, struct calstore_write *w,
    json_t **ids, struct err *err);

/* What an upload wrote (upload_add()). */
struct calstore_receipt {
	long long upload_id, fit_id;
	json_t *ids; /* {"drops": [ids], "presses": [ids], "trajectories": [ids]}; caller frees */
};

/* Release what a receipt holds (also after a failed upload). */
void calstore_receipt_clear(struct calstore_receipt *r);

/* What a fit claim hands over (fit_claim()). */
struct calstore_claim {
	long long fit_id; /* the fit claimed (when fit_claim() answered 1) */
	json_t *all;      /* every measurement, as measurements() gives them; caller frees */
};

/* Release what a claim holds (after any claim, failed or not). */
void calstore_claim_clear(struct calstore_claim *c);

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
	/* Begin a new calibration of robot (made on first use): a durable write transaction,
	 * *w (end it with write_end() on the same thread). */
	int (*create_begin)(
	    void *ctx, const char *robot, struct calstore_write **w, struct err *err);
	/* A new calibration of create_begin()'s robot in w, its setup empty until
	 * calibration_setup(): its id into *id. */
	int (*calibration_add)(struct calstore_write *w, long long *id, struct err *err);
	/* How many calibrations create_begin()'s robot holds, into *n (in w, so the create's
	 * limit holds against racing creates). */
	int (*calibration_count)(struct calstore_write *w, long long *n, struct err *err);
	/* The setup text of calibration id, which calibration_add() made in w. */
	int (*calibration_setup)(
	    struct calstore_write *w, long long id, const char *setup, struct err *err);
	/* A calibration: 1 with robot and lab (its robot's, "" for none; may be NULL) filled and
	 * *setup a copy of its setup text (caller frees; setup may be NULL), 0 when none. */
	int (*calibration_get)(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
	    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err);
	/* A robot's calibrations with an id above after, oldest first, at most limit of them:
	 * [{"id", "created_at", "measurements", "fit_id", "fit_state", "fit_started", "fit"}]
	 * (fit: the latest fit's stored text parsed, null when none or pending). Caller owns
	 * *out. */
	int (*calibration_list)(void *ctx, const char *robot, long long after, long long limit,
	    json_t **out, struct err *err);
	/* Every measurement of a calibration as {"drops", "presses", "trajectories"} in upload
	 * order, each with its "id" and "upload". Caller owns *out. */
	int (*measurements)(void *ctx, long long id, json_t **out, struct err *err);
	/* The latest fit of calibration id: 1 with *out filled, 0 when it has none. */
	int (*fit_latest)(void *ctx, long long id, struct calstore_fit *out, struct err *err);
	/* The newest done fits of calibration id (the store bounds them), oldest first: [{"id",
	 * "text"}], text the stored fit. Caller owns *out. */
	int (*fit_list)(void *ctx, long long id, json_t **out, struct err *err);
	/* Begin an upload to calibration id: a durable write transaction in which the
	 * calibration is locked (uploads, deletions and claims of one calibration take turns),
	 * and its robot, the robot's lab ("" for none) and a copy of its setup text (caller
	 * frees) read at once. 1 with *w (end it with write_end() on the same thread), 0
	 * when there is no such calibration (no transaction then). */
	int (*upload_begin)(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
	    char lab[CALSTORE_NAME_MAX], char **setup, struct calstore_write **w, struct err *err);
	/* What idem's key was kept with by w's robot (the keys of its creates and uploads are
	 * one set: a key names one request): 1 when it was kept, with *same 1 when with idem's
	 * fingerprint and then *answer (caller frees) the answer kept with it, *same 0 when
	 * with another; 0 when the key is new. Keys older than idem->ttl_s are forgotten
	 * first; two transactions given one key take turns. */
	int (*idem_find)(struct calstore_write *w, const struct calstore_idem *idem, int *same,
	    char **answer, struct err *err);
	/* Append upload (the canonical {"drops", "presses", "trajectories"}, each list
	 * optional) as one new upload of upload_begin()'s locked calibration and leave a
	 * pending fit (the one not yet started, if any: uploads that arrive while a fit runs
	 * are fitted together). *out as written; release it with calstore_receipt_clear(). */
	int (*upload_add)(struct calstore_write *w, const json_t *upload,
	    struct calstore_receipt *out, struct err *err);
	/* Every measurement of the locked calibration, the new ones included, as
	 * measurements() gives them. Caller owns *out. */
	int (*upload_measurements)(struct calstore_write *w, json_t **out, struct err *err);
	/* Keep idem's key for w's robot with answer (a text) and upload upload_id (0: the key
	 * of a create). */
	int (*idem_keep)(struct calstore_write *w, const struct calstore_idem *idem,
	    long long upload_id, const char *answer, struct err *err);
	/* Commit (commit 1: durable when it returns) or roll back w's transaction, and free
	 * w. A failed commit is -1 with err, and nothing was kept. */
	int (*write_end)(struct calstore_write *w, int commit, struct err *err);
	/* Delete measurement measurement_id or upload upload_id (the other 0) of calibration id
	 * and leave a pending fit, durably: *deleted the ids removed (caller frees), *fit_id the
	 * refit. ERR_NOT_FOUND when there is no such measurement or upload. */
	int (*remove)(void *ctx, long long id, long long measurement_id, long long upload_id,
	    json_t **deleted, long long *fit_id, struct err *err);
	/* Claim calibration id's newest pending fit (running; older ones superseded) with
	 * every measurement, at once: 1 with *out filled, 0 when none is
	 * pending. Release *out with calstore_claim_clear() whatever the answer. */
	int (*fit_claim)(void *ctx, long long id, struct calstore_claim *out, struct err *err);
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
