/*
 * pgstore.c: the calibration store on PostgreSQL (see pgstore.h): opening and closing it, and
 * the interface's members for calibrations, uploads, deletions and fits (robots, tokens and
 * secrets are pg_token.c's).
 */
#include "store/pgstore.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>
#include <sodium.h>

#include "store/calsql.h"
#include "store/pg_conn.h"
#include "store/pg_listen.h"
#include "store/pg_schema.h"
#include "store/pg_token.h"
#include "base/knobs.h"
#include "store/knobs.h"

/* A write transaction (base/calstore.h): its connection, its robot's id and, for an upload,
 * the calibration it locked (0 for a create), and the upload being written with its time. */
struct calstore_write {
	struct pgc c;
	long long id, rid, upload_id, now;
};

/* idem_find: the key is locked for the transaction, so two nodes given it at once take
 * turns. */
static int pg_idem_find(struct calstore_write *w, const struct calstore_idem *idem, int *same,
    char **answer, struct err *err)
{
	char fp[CALSTORE_HASH_BYTES * 2 + 1];
	PGresult *r;
	int rc = 0;

	if (pgc_run(&w->c, "SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0))",
	        ARGS(NUM(w->rid), TXT(idem->key)), NULL, "locking an idempotency key", err) != 0 ||
	    pgc_run(&w->c, "DELETE FROM idempotency_keys WHERE robot_id = $1 AND created_at < $2",
	        ARGS(NUM(w->rid), NUM(pgc_now() - idem->ttl_s)), NULL,
	        "forgetting old idempotency keys", err) != 0)
		return -1;
	r = pgc_exec(&w->c,
	    "SELECT encode(fingerprint, 'hex'), answer FROM idempotency_keys WHERE robot_id = $1 "
	    "AND key = $2",
	    ARGS(NUM(w->rid), TXT(idem->key)), "reading an idempotency key", err);
	if (!r)
		return -1;
	if (PQntuples(r) > 0) {
		sodium_bin2hex(fp, sizeof fp, idem->fingerprint, CALSTORE_HASH_BYTES);
		*same = strcmp(PQgetvalue(r, 0, 0), fp) == 0;
		rc = !*same || (*answer = pgc_copy(r, 0, 1)) ? 1 : pgc_oom(err);
	}
	PQclear(r);
	return rc;
}

static int pg_idem_keep(struct calstore_write *w, const struct calstore_idem *idem,
    long long upload_id, const char *answer, struct err *err)
{
	char fp[2 * CALSTORE_HASH_BYTES + 3];

	return pgc_run(&w->c,
	    "INSERT INTO idempotency_keys (robot_id, key, fingerprint, upload_id, answer, "
	    "created_at) VALUES ($1, $2, $3, $4, $5, $6)",
	    ARGS(NUM(w->rid), TXT(idem->key),
	        TXT(pgc_bytea(fp, idem->fingerprint, CALSTORE_HASH_BYTES)), NUM(upload_id),
	        TXT(answer), NUM(pgc_now())),
	    NULL, "storing an idempotency key", err);
}

static int pg_write_end(struct calstore_write *w, int commit, struct err *err)
{
	int rc;

	w->c.discard = !commit;
	rc = pgc_end(&w->c, 0, err);
	free(w);
	return rc;
}

static int pg_create_begin(
    void *ctx, const char *robot, struct calstore_write **out, struct err *err)
{
	struct calstore_write *w = calloc(1, sizeof *w);

	*out = NULL;
	if (!w)
		return pgc_oom(err);
	if (pgc_begin(ctx, &w->c, err) != 0) {
		free(w);
		return -1;
	}
	if (pgtok_robot_id(&w->c, robot, 1, &w->rid, err) != 1) {
		pg_write_end(w, 0, err);
		return -1;
	}
	*out = w;
	return 0;
}

static int pg_calibration_add(struct calstore_write *w, long long *id, struct err *err)
{
	return pgc_insert(&w->c,
	    "INSERT INTO calibrations (robot_id, setup, created_at) VALUES ($1, '', $2) "
	    "RETURNING id",
	    ARGS(NUM(w->rid), NUM(pgc_now())), id, "adding a calibration", err);
}

static int pg_calibration_count(struct calstore_write *w, long long *n, struct err *err)
{
	/* the robot's row locked first: racing creates of one robot count in turn */
	if (pgc_run(&w->c, "SELECT id FROM robots WHERE id = $1 FOR UPDATE", ARGS(NUM(w->rid)),
	        NULL, "counting calibrations", err) != 0)
		return -1;
	*n = 0;
	return pgc_first_ll(pgc_exec(&w->c, CALSQL_CALIBRATION_COUNT("$1"), ARGS(NUM(w->rid)),
	                        "counting calibrations", err),
	           n) < 0
	    ? -1
	    : 0;
}

static int pg_calibration_setup(
    struct calstore_write *w, long long id, const char *setup, struct err *err)
{
	return pgc_run(&w->c, "UPDATE calibrations SET setup = $2 WHERE id = $1",
	    ARGS(NUM(id), TXT(setup)), NULL, "adding a calibration", err);
}

/* calibration_get on a borrowed connection. */
static int calibration_get(struct pgc *c, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	PGresult *r = pgc_exec(c,
	    "SELECT r.name, c.setup, coalesce(r.lab, '') FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id WHERE c.id = $1",
	    ARGS(NUM(id)), "reading a calibration", err);
	int rc = 0;

	if (!r)
		return -1;
	if (PQntuples(r) > 0) {
		snprintf(robot, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 0));
		if (lab)
			snprintf(lab, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 2));
		rc = 1;
		if (setup && !(*setup = pgc_copy(r, 0, 1)))
			rc = pgc_oom(err);
	}
	PQclear(r);
	return rc;
}

static int pg_calibration_get(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	struct pgc c;
	int rc;

	if (pgc_acquire(ctx, &c, err) != 0)
		return -1;
	rc = calibration_get(&c, id, robot, lab, setup, err);
	pgc_release(&c);
	return rc;
}

/* A row of calibration_list's statement as its entry. */
static json_t *calibration_entry(const PGresult *r, int i)
{
	json_t *fit = PQgetisnull(r, i, 6) ? json_null()
	                                   : json_loads(PQgetvalue(r, i, 6), JSON_DECODE_ANY, NULL);

	return json_pack("{s:I, s:I, s:I, s:o, s:o, s:b, s:o*}", "id", (json_int_t)pgc_ll(r, i, 0),
	    "created_at", (json_int_t)pgc_ll(r, i, 1), "measurements", (json_int_t)pgc_ll(r, i, 2),
	    "fit_id", pgc_int_or_null(r, i, 3), "fit_state", pgc_text_or_null(r, i, 4),
	    "fit_started", !PQgetisnull(r, i, 5), "fit", fit);
}

static int pg_calibration_list(
    void *ctx, const char *robot, long long after, long long limit, json_t **out, struct err *err)
{
	PGresult *r = pgc_query(ctx, CALSQL_CALIBRATION_LIST("$1", "$2", "$3"),
	    ARGS(TXT(robot), NUM(after), NUM(limit)), "listing calibrations", err);

	return r ? pgc_rows_json(r, calibration_entry, out, err) : -1;
}

/* measurements on a borrowed connection. */
static int measurements(struct pgc *c, long long id, json_t **out, struct err *err)
{
	PGresult *r = pgc_exec(c,
	    "SELECT kind, body, id, upload_id FROM measurements WHERE calibration_id = $1 "
	    "ORDER BY id",
	    ARGS(NUM(id)), "reading measurements", err);
	json_t *all;
	int i, k;

	if (!r)
		return -1;
	all = calstore_lists_new();
	for (i = 0; all && i < PQntuples(r); i++) {
		json_t *m = json_loads(PQgetvalue(r, i, 1), 0, NULL);

		k = calstore_kind_index(PQgetvalue(r, i, 0));
		if (k < 0 || !m || json_object_set_new(m, "id", json_integer(pgc_ll(r, i, 2))) ||
		    json_object_set_new(m, "upload", pgc_int_or_null(r, i, 3)) ||
		    json_array_append_new(json_object_get(all, calstore_lists[k]), m) != 0) {
			json_decref(m);
			json_decref(all);
			all = NULL;
		}
	}
	PQclear(r);
	if (!all)
		return err_set(err, ERR_INTERNAL, NULL, "store: reading measurements: bad rows");
	*out = all;
	return 0;
}

static int pg_measurements(void *ctx, long long id, json_t **out, struct err *err)
{
	struct pgc c;
	int rc;

	if (pgc_acquire(ctx, &c, err) != 0)
		return -1;
	rc = measurements(&c, id, out, err);
	pgc_release(&c);
	return rc;
}

/* A row of fit_list's statement as its entry. */
static json_t *fit_entry(const PGresult *r, int i)
{
	return json_pack(
	    "{s:I, s:s}", "id", (json_int_t)pgc_ll(r, i, 0), "text", PQgetvalue(r, i, 1));
}

static int pg_fit_list(void *ctx, long long id, json_t **out, struct err *err)
{
	PGresult *r = pgc_query(ctx, CALSQL_FIT_LIST("$1"), ARGS(NUM(id)), "listing fits", err);

	return r ? pgc_rows_json(r, fit_entry, out, err) : -1;
}

static int pg_fit_latest(void *ctx, long long id, struct calstore_fit *out, struct err *err)
{
	PGresult *r;
	int rc = 0;

	memset(out, 0, sizeof *out);
	r = pgc_query(ctx,
	    "SELECT id, state, fit, measurements, created_at, coalesce(started_at, 0), "
	    "coalesce(done_at, 0) FROM fits WHERE calibration_id = $1 ORDER BY id DESC LIMIT 1",
	    ARGS(NUM(id)), "reading a fit", err);
	if (!r)
		return -1;
	if (PQntuples(r) > 0) {
		out->id = pgc_ll(r, 0, 0);
		snprintf(out->state, sizeof out->state, "%s", PQgetvalue(r, 0, 1));
		out->measurements = pgc_ll(r, 0, 3);
		out->created_at = pgc_ll(r, 0, 4);
		out->started_at = pgc_ll(r, 0, 5);
		out->done_at = pgc_ll(r, 0, 6);
		rc = (out->text = pgc_copy(r, 0, 2)) ? 1 : pgc_oom(err);
	}
	PQclear(r);
	return rc;
}

/*
 * Lock calibration id's row for the rest of the transaction (uploads, deletions and claims
 * of one calibration take turns) and read its robot: 1, 0 when there is none, -1.
 */
static int lock_calibration(struct pgc *c, long long id, long long *rid, struct err *err)
{
	return pgc_first_ll(
	    pgc_exec(c, "SELECT robot_id FROM calibrations WHERE id = $1 FOR UPDATE", ARGS(NUM(id)),
	        "locking a calibration", err),
	    rid);
}

/* The calibration's fit that has not started, made if there is none: into *fit_id. */
static int pending_fit(
    struct pgc *c, long long id, long long now, long long *fit_id, struct err *err)
{
	PGresult *r = pgc_exec(c,
	    "SELECT id FROM fits WHERE calibration_id = $1 AND state = 'pending' "
	    "ORDER BY id DESC LIMIT 1",
	    ARGS(NUM(id)), "reading the fits", err);

	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		r = pgc_exec(c,
		    "INSERT INTO fits (calibration_id, measurements, fit, created_at, state) "
		    "VALUES ($1, 0, 'null', $2, 'pending') RETURNING id",
		    ARGS(NUM(id), NUM(now)), "adding a fit", err);
		if (!r)
			return -1;
	}
	*fit_id = pgc_ll(r, 0, 0);
	PQclear(r);
	return 0;
}

/* calstore_add_fn: one measurement of the upload being written. */
static int add_measurement(
    struct calstore_write *u, int k, const char *text, long long *mid, struct err *err)
{
	return pgc_insert(&u->c,
	    "INSERT INTO measurements (calibration_id, kind, body, created_at, upload_id) "
	    "VALUES ($1, $2, $3, $4, $5) RETURNING id",
	    ARGS(NUM(u->id), TXT(calstore_kinds[k]), TXT(text), NUM(u->now), NUM(u->upload_id)),
	    mid, "adding a measurement", err);
}

static int pg_upload_begin(void *ctx, long long id, char robot[CALSTORE_NAME_MAX],
    char lab[CALSTORE_NAME_MAX], char **setup, struct calstore_write **out, struct err *err)
{
	struct calstore_write *u = calloc(1, sizeof *u);
	PGresult *r;
	int found = 0;

	*out = NULL;
	if (!u)
		return pgc_oom(err);
	if (pgc_begin(ctx, &u->c, err) != 0) {
		free(u);
		return -1;
	}
	r = pgc_exec(&u->c,
	    "SELECT r.name, c.setup, coalesce(r.lab, ''), c.robot_id FROM calibrations c "
	    "JOIN robots r ON r.id = c.robot_id WHERE c.id = $1 FOR UPDATE OF c",
	    ARGS(NUM(id)), "locking a calibration", err);
	if (r && PQntuples(r) > 0) {
		snprintf(robot, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 0));
		snprintf(lab, CALSTORE_NAME_MAX, "%s", PQgetvalue(r, 0, 2));
		u->rid = pgc_ll(r, 0, 3);
		found = (*setup = pgc_copy(r, 0, 1)) ? 1 : pgc_oom(err);
	}
	PQclear(r);
	if (!r || found <= 0) {
		pgc_end(&u->c, -1, err);
		free(u);
		return r ? found : -1;
	}
	u->id = id;
	*out = u;
	return 1;
}

static int pg_upload_add(
    struct calstore_write *u, const json_t *upload, struct calstore_receipt *out, struct err *err)
{
	memset(out, 0, sizeof *out);
	u->now = pgc_now();
	if (pgc_insert(&u->c,
	        "INSERT INTO uploads (calibration_id, created_at) VALUES ($1, $2) RETURNING id",
	        ARGS(NUM(u->id), NUM(u->now)), &out->upload_id, "adding an upload", err) != 0)
		return -1;
	u->upload_id = out->upload_id;
	if (calstore_upload_each(upload, add_measurement, u, &out->ids, err) != 0)
		return -1;
	return pending_fit(&u->c, u->id, u->now, &out->fit_id, err);
}

static int pg_upload_measurements(struct calstore_write *u, json_t **out, struct err *err)
{
	return measurements(&u->c, u->id, out, err);
}

/* A deletion's work (pg_remove()), in its transaction: the ids removed into ids. */
static int remove_measurements(struct pgc *c, long long id, long long measurement_id,
    long long upload_id, json_t *ids, long long *fit_id, struct err *err)
{
	long long rid;
	PGresult *r;
	int found, i, k, changed;

	found = lock_calibration(c, id, &rid, err);
	if (found <= 0)
		return found == 0 ? err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id)
		                  : -1;
	r = pgc_exec(c,
	    "WITH d AS (DELETE FROM measurements WHERE calibration_id = $1 AND (id = $2 OR "
	    "upload_id = $3) RETURNING id, kind) SELECT id, kind FROM d ORDER BY id",
	    ARGS(NUM(id), NUM(measurement_id > 0 ? measurement_id : -1),
	        NUM(upload_id > 0 ? upload_id : -1)),
	    "deleting measurements", err);
	if (!r)
		return -1;
	changed = PQntuples(r);
	for (i = 0; i < PQntuples(r); i++) {
		k = calstore_kind_index(PQgetvalue(r, i, 1));
		if (k >= 0)
			json_array_append_new(
			    json_object_get(ids, calstore_lists[k]), json_integer(pgc_ll(r, i, 0)));
	}
	PQclear(r);
	if (changed == 0)
		return err_set(err, ERR_NOT_FOUND, NULL, "calibration %lld has no %s %lld", id,
		    measurement_id > 0 ? "measurement" : "upload",
		    measurement_id > 0 ? measurement_id : upload_id);
	return pending_fit(c, id, pgc_now(), fit_id, err);
}

static int pg_remove(void *ctx, long long id, long long measurement_id, long long upload_id,
    json_t **deleted, long long *fit_id, struct err *err)
{
	json_t *ids = calstore_lists_new();
	struct pgc c;
	int rc;

	if (!ids)
		return pgc_oom(err);
	if (pgc_begin(ctx, &c, err) != 0) {
		json_decref(ids);
		return -1;
	}
	rc = pgc_end(
	    &c, remove_measurements(&c, id, measurement_id, upload_id, ids, fit_id, err), err);
	if (rc == 0)
		*deleted = ids;
	else
		json_decref(ids);
	return rc;
}

/* A claim's work (pg_fit_claim()), in its transaction: 1 claimed, 0 nothing to claim (the
 * transaction is then discarded), -1. */
static int fit_claim(struct pgc *c, long long id, struct calstore_claim *out, struct err *err)
{
	char robot[CALSTORE_NAME_MAX];
	long long rid, fit;
	PGresult *r;
	int found;

	c->discard = 1; /* until there is a fit to claim */
	found = lock_calibration(c, id, &rid, err);
	if (found <= 0)
		return found;
	/* One node at a time fits a calibration: while another holds a live lease on one of its
	 * fits, that node claims the newer ones when it is done. */
	r = pgc_exec(c,
	    "SELECT 1 FROM fits WHERE calibration_id = $1 AND state = 'running' AND "
	    "lease_until > extract(epoch FROM now())::bigint LIMIT 1",
	    ARGS(NUM(id)), "reading the fits", err);
	if (!r)
		return -1;
	found = PQntuples(r);
	PQclear(r);
	if (found)
		return 0;
	/* the newest fit not settled: pending, or running on a node whose lease lapsed */
	r = pgc_exec(c,
	    "SELECT id FROM fits WHERE calibration_id = $1 AND state IN ('pending', 'running') "
	    "ORDER BY id DESC LIMIT 1 FOR UPDATE SKIP LOCKED",
	    ARGS(NUM(id)), "reading the fits", err);
	if (!r)
		return -1;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return 0;
	}
	fit = pgc_ll(r, 0, 0);
	PQclear(r);
	if (pgc_run(c,
	        "UPDATE fits SET "
	        "state = CASE WHEN id = $2 THEN 'running' ELSE 'superseded' END, "
	        "started_at = CASE WHEN id = $2 THEN $3 ELSE started_at END, "
	        "owner = CASE WHEN id = $2 THEN $4 ELSE owner END, "
	        "lease_until = CASE WHEN id = $2 THEN extract(epoch FROM now())::bigint + "
	        "$5::bigint "
	        "ELSE NULL END "
	        "WHERE calibration_id = $1 AND state IN ('pending', 'running') AND id <= $2",
	        ARGS(NUM(id), NUM(fit), NUM(pgc_now()), TXT(c->ps->node), NUM(CALIB_FIT_LEASE_S)),
	        NULL, "starting a fit", err) != 0)
		return -1;
	found = calibration_get(c, id, robot, NULL, NULL, err);
	if (found <= 0) /* the row is locked: it cannot have gone */
		return found < 0 ? -1
		                 : err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
	if (measurements(c, id, &out->all, err) != 0)
		return -1;
	c->discard = 0;
	/* renewed from now on: before the commit, so that the lease never lapses unseen */
	pglisten_running_add(c->ps, fit);
	out->fit_id = fit; /* from here on a failed commit must forget it */
	return 1;
}

static int pg_fit_claim(void *ctx, long long id, struct calstore_claim *out, struct err *err)
{
	struct pgstore *ps = ctx;
	struct pgc c;
	int rc;

	memset(out, 0, sizeof *out);
	if (pgc_begin(ps, &c, err) != 0)
		return -1;
	rc = pgc_end(&c, fit_claim(&c, id, out, err), err);
	if (rc != 1 && out->fit_id) {
		/* its commit failed: not this node's to renew */
		pglisten_running_remove(ps, out->fit_id);
		out->fit_id = 0;
	}
	return rc;
}

static int pg_fit_finish(
    void *ctx, long long fit_id, int done, const char *text, long long count, struct err *err)
{
	struct pgstore *ps = ctx;
	long long changed = 0;

	/* finished or not, this node stops holding it: a fit it cannot record lapses and is
	 * computed again, here or elsewhere */
	pglisten_running_remove(ps, fit_id);
	if (pgc_command(ps,
	        "UPDATE fits SET state = $2, fit = $3, measurements = $4, done_at = $5, "
	        "lease_until = NULL WHERE id = $1 AND state = 'running' AND owner = $6",
	        ARGS(NUM(fit_id), TXT(done ? "done" : "failed"), TXT(text), NUM(count),
	            NUM(pgc_now()), TXT(ps->node)),
	        &changed, "recording a fit", err) != 0)
		return -1;
	return changed ? 0
	               : err_set(err, ERR_CONFLICT, NULL,
	                     "fit %lld was taken over by another node (its lease lapsed)", fit_id);
}

/* fit_recover and fit_adopt: with several nodes, a running fit may be another live node's,
 * so nothing is reset; fit_claim takes over a fit once its lease has lapsed. */
static int pg_fit_adopt(void *ctx, json_t **ids, struct err *err)
{
	PGresult *r = pgc_query(ctx,
	    "SELECT DISTINCT calibration_id FROM fits WHERE state = 'pending' OR (state = "
	    "'running' AND (lease_until IS NULL OR lease_until <= extract(epoch FROM "
	    "now())::bigint)) ORDER BY calibration_id",
	    NO_ARGS, "reading pending fits", err);

	return r ? pgc_id_list(r, ids, err) : -1;
}

int pgstore_open(
    const char *url, int defer, pgstore_log_fn log, struct pgstore **out, struct err *err)
{
	struct pgstore *ps;
	pthread_condattr_t attr;
	unsigned char node[8];
	PQconninfoOption *options;
	char *why = NULL;
	struct pgc c;

	*out = NULL;
	/* a URL that can never work fails now, reachable server or not */
	options = PQconninfoParse(url, &why);
	if (!options) {
		/* (the URL itself is not repeated: it may hold a password) */
		err_set(err, ERR_BAD_VALUE, NULL, "store: a bad PostgreSQL URL: %.*s",
		    why ? (int)strcspn(why, "\r\n") : 13, why ? why : "out of memory");
		PQfreemem(why);
		return -1;
	}
	PQconninfoFree(options);
	if (sodium_init() < 0)
		return err_set(err, ERR_INTERNAL, NULL, "libsodium cannot start");
	ps = calloc(1, sizeof *ps);
	if (!ps || !(ps->url = strdup(url))) {
		free(ps);
		return pgc_oom(err);
	}
	ps->log = log;
	randombytes_buf(node, sizeof node);
	sodium_bin2hex(ps->node, sizeof ps->node, node, sizeof node);
	pthread_mutex_init(&ps->lock, NULL);
	pthread_mutex_init(&ps->migrating, NULL);
	ps->migrate = pgschema_migrate;
	ps->version = pgschema_migration_count;
	pthread_cond_init(&ps->freed, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ps->tick, &attr);
	pthread_condattr_destroy(&attr);
	if (pgc_acquire(ps, &c, err) == 0) {
		pgc_release(&c);
	} else if (!defer || ps->down_fatal) {
		pgstore_close(ps);
		return -1;
	} else {
		ps->deferred = 1;
	}
	if (pthread_create(&ps->renewer, NULL, pglisten_renewer, ps) != 0) {
		pgstore_close(ps);
		return err_set(err, ERR_INTERNAL, NULL, "store: cannot start the lease renewer");
	}
	ps->renewer_started = 1;
	*out = ps;
	return ps->deferred;
}

void pgstore_close(struct pgstore *ps)
{
	int i;

	if (!ps)
		return;
	pthread_mutex_lock(&ps->lock);
	ps->stopping = 1;
	pthread_cond_broadcast(&ps->tick);
	pthread_mutex_unlock(&ps->lock);
	if (ps->renewer_started)
		pthread_join(ps->renewer, NULL);
	if (ps->listener_started)
		pthread_join(ps->listener, NULL);
	for (i = 0; i < PGSTORE_POOL; i++)
		PQfinish(ps->slots[i].conn);
	pthread_cond_destroy(&ps->tick);
	pthread_cond_destroy(&ps->freed);
	pthread_mutex_destroy(&ps->migrating);
	pthread_mutex_destroy(&ps->lock);
	free(ps->url);
	free(ps);
}

const char *pgstore_node(const struct pgstore *ps)
{
	return ps->node;
}

int pgstore_reachable(struct pgstore *ps)
{
	int reachable;

	pthread_mutex_lock(&ps->lock);
	reachable = ps->reachable;
	pthread_mutex_unlock(&ps->lock);
	return reachable;
}

void pgstore_bind(struct calstore *cs, struct pgstore *ps)
{
	*cs = (struct calstore){
	    .ctx = ps,
	    .token_create = pgtok_create,
	    .token_rotate = pgtok_rotate,
	    .token_revoke = pgtok_revoke,
	    .token_get = pgtok_get,
	    .token_touch = pgtok_touch,
	    .token_list = pgtok_list,
	    .robot_lab = pgtok_robot_lab,
	    .create_begin = pg_create_begin,
	    .calibration_add = pg_calibration_add,
	    .calibration_count = pg_calibration_count,
	    .calibration_setup = pg_calibration_setup,
	    .calibration_get = pg_calibration_get,
	    .calibration_list = pg_calibration_list,
	    .measurements = pg_measurements,
	    .fit_latest = pg_fit_latest,
	    .fit_list = pg_fit_list,
	    .upload_begin = pg_upload_begin,
	    .idem_find = pg_idem_find,
	    .upload_add = pg_upload_add,
	    .upload_measurements = pg_upload_measurements,
	    .idem_keep = pg_idem_keep,
	    .write_end = pg_write_end,
	    .remove = pg_remove,
	    .fit_claim = pg_fit_claim,
	    .fit_finish = pg_fit_finish,
	    .fit_recover = pg_fit_adopt,
	    .secret = pgtok_secret,
	    .fit_adopt = pg_fit_adopt,
	    .announce = pglisten_announce,
	    .listen = pglisten_listen,
	};
}
