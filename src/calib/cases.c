/*
 * cases.c: the calibration use cases (see cases.h).
 */
#include "calib/cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/events.h"
#include "calib/idem.h"
#include "calib/setup.h"
#include "calib/work.h"
#include "calib/calreq.h"
#include "base/jtext.h"
#include "calib/knobs.h"

/* The token policy over what a read of calibration id found (found: 1, 0, or -1 when the read
 * failed): ERR_NOT_FOUND when p may not see it, the same as for an id that does not exist;
 * with write, ERR_FORBIDDEN when p may see but not write it. */
static int may(const struct caltoken_principal *p, long long id, int found,
    const char owner[CALSTORE_NAME_MAX], const char lab[CALSTORE_NAME_MAX], int write,
    struct err *err)
{
	if (found < 0)
		return -1;
	if (found == 0 || !caltoken_can_see(p, owner, lab))
		return err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
	return write ? caltoken_can_write(p, owner, err) : 0;
}

int calcase_visible(struct calstore *cs, const struct caltoken_principal *p, long long id,
    char owner[CALSTORE_NAME_MAX], struct err *err)
{
	char lab[CALSTORE_NAME_MAX];
	int found = cs->calibration_get(cs->ctx, id, owner, lab, NULL, err);

	return may(p, id, found, owner, lab, 0, err);
}

int calcase_writable(struct calstore *cs, const struct caltoken_principal *p, long long id,
    char owner[CALSTORE_NAME_MAX], struct err *err)
{
	char lab[CALSTORE_NAME_MAX];
	int found = cs->calibration_get(cs->ctx, id, owner, lab, NULL, err);

	return may(p, id, found, owner, lab, 1, err);
}

const char *calcase_shown_state(const char *state)
{
	return strcmp(state, "done") == 0  ? "done"
	    : strcmp(state, "failed") == 0 ? "failed"
	                                   : "pending";
}

json_t *calcase_fit_member(const struct calstore_fit *f)
{
	const char *state = calcase_shown_state(f->state);
	json_t *m = NULL, *stored = json_loads(f->text ? f->text : "null", JSON_DECODE_ANY, NULL);

	if (strcmp(state, "done") == 0 && json_is_object(stored)) {
		m = json_incref(stored);
	} else {
		m = json_object();
		if (m && strcmp(state, "failed") == 0)
			json_object_set(m, "error", stored ? stored : json_null());
		else if (m)
			json_object_set_new(m, "started", json_boolean(f->started_at > 0));
	}
	json_decref(stored);
	if (m &&
	    (json_object_set_new(m, "state", json_string(state)) != 0 ||
	        json_object_set_new(m, "id", json_integer(f->id)) != 0)) {
		json_decref(m);
		m = NULL;
	}
	return m;
}

json_t *calcase_latest_fit(
    struct calstore *cs, long long id, struct calstore_fit *f, struct err *err)
{
	struct calstore_fit local;
	int found;
	json_t *m;

	if (!f)
		f = &local;
	found = cs->fit_latest(cs->ctx, id, f, err);
	if (found < 0)
		return NULL;
	m = found ? calcase_fit_member(f) : json_null();
	if (!m)
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
	if (f == &local)
		calstore_fit_clear(&local);
	return m;
}

/* ---- create ---- */

struct setup_ctx {
	json_t *canon;
	const char *robot;
};

/* The canonical setup's text with its class, named after the id when not given (NULL: out of
 * memory). */
static char *setup_with_class(long long id, struct setup_ctx *c)
{
	char cls[CALREQ_CLASS_MAX];

	if (!json_object_get(c->canon, "class")) {
		snprintf(cls, sizeof cls, "%s%lld", CALIB_DEFAULT_CLASS_PREFIX, id);
		if (json_object_set_new(c->canon, "class", json_string(cls)) != 0)
			return NULL;
	}
	return jtext_line(c->canon);
}

/* The answer to a new calibration: its setup as stored (after setup_with_class()). */
static json_t *create_answer(long long id, const struct setup_ctx *c)
{
	return json_pack("{s:I, s:s, s:O, s:n}", "id", (json_int_t)id, "robot", c->robot, "setup",
	    c->canon, "fit");
}

/* The answer's text, which an Idempotency-Key keeps (NULL: out of memory). */
static char *answer_text(long long id, const struct setup_ctx *c)
{
	json_t *a = create_answer(id, c);
	char *text = a ? jtext_line(a) : NULL;

	json_decref(a);
	return text;
}

/*
 * The create's work in its transaction w: what a create must satisfy, in order. 1 when idem
 * (NULL: none) replays a kept answer (into *replay; nothing to keep), 0 with *id when the
 * transaction is to be committed, -1 with err.
 */
static int create_in(struct calstore *cs, struct calstore_write *w, struct setup_ctx *ctx,
    const struct calstore_idem *idem, char **replay, long long *id, struct err *err)
{
	long long cid;
	char *text;
	int rc;

	if (idem && (rc = calidem_replay(cs, w, idem, replay, err)) != 0)
		return rc;
	if (cs->calibration_count(w, &cid, err) != 0)
		return -1;
	if (cid >= CALIB_MAX_CALIBRATIONS)
		return err_set(err, ERR_TOO_LARGE, NULL,
		    "robot %s holds %lld calibrations, the most one robot may (%d)", ctx->robot,
		    cid, CALIB_MAX_CALIBRATIONS);
	if (cs->calibration_add(w, &cid, err) != 0)
		return -1;
	/* the setup, once its id is known: it may name its class after it */
	text = setup_with_class(cid, ctx);
	if (!text)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	rc = cs->calibration_setup(w, cid, text, err);
	free(text);
	if (rc == 0 && idem) {
		/* the key's record: upload_id 0, a create's */
		text = answer_text(cid, ctx);
		if (!text)
			return err_set(err, ERR_INTERNAL, NULL, "out of memory");
		rc = cs->idem_keep(w, idem, 0, text, err);
		free(text);
	}
	if (rc == 0)
		*id = cid;
	return rc;
}

int calcase_create(struct calstore *cs, const struct caltoken_principal *p, const char *robot,
    json_t *body, const char *key, json_t **answer, char **replay, long long *id, struct err *err)
{
	struct calreq_setup setup;
	struct setup_ctx ctx = {NULL, robot};
	struct calstore_idem idem;
	struct calstore_write *w = NULL;
	char *canon_text = NULL;
	int rc = -1, found;

	*answer = NULL;
	*replay = NULL;
	if (caltoken_robot_visible(cs, p, robot, err) != 0 ||
	    caltoken_can_write(p, robot, err) != 0 ||
	    calreq_setup_parse(body, &setup, &ctx.canon, err) != 0)
		goto out;
	if (key) {
		/* the same key with the same setup (before its class is named) is a retry; id 0
		 * in the fingerprint: no upload's, whose id is a calibration's (1 on) */
		canon_text = jtext_line(ctx.canon);
		if (!canon_text) {
			err_set(err, ERR_INTERNAL, NULL, "out of memory");
			goto out;
		}
		calidem_make(&idem, key, 0, canon_text);
	}
	if (cs->create_begin(cs->ctx, robot, &w, err) != 0)
		goto out;
	found = create_in(cs, w, &ctx, key ? &idem : NULL, replay, id, err);
	/* a replay, like a failure, writes nothing */
	if (cs->write_end(w, found == 0, err) != 0)
		found = -1;
	if (found != 0) {
		rc = found > 0 ? 0 : -1;
		goto out;
	}
	/* the stored setup names its class: the parsed form does too, as a parse of it would */
	snprintf(setup.mjcf_class, sizeof setup.mjcf_class, "%s",
	    json_string_value(json_object_get(ctx.canon, "class")));
	calsetup_put(*id, &setup, ctx.canon);
	*answer = create_answer(*id, &ctx);
	if (!*answer)
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
	else
		rc = 0;
out:
	free(canon_text);
	json_decref(ctx.canon);
	return rc;
}

/* ---- reads ---- */

int calcase_list(struct calstore *cs, const struct caltoken_principal *p, const char *robot,
    long long after, long long limit, json_t **answer, struct err *err)
{
	json_t *list = NULL, *row, *next = json_null();
	size_t i;

	/* one more than the page: is there a next? */
	if (caltoken_robot_visible(cs, p, robot, err) != 0 ||
	    cs->calibration_list(cs->ctx, robot, after, limit + 1, &list, err) != 0)
		return -1;
	if (json_array_size(list) > (size_t)limit) {
		json_array_remove(list, (size_t)limit);
		next = json_incref(json_object_get(json_array_get(list, (size_t)limit - 1), "id"));
	}
	/* each row's fit as the other answers show it */
	json_array_foreach (list, i, row) {
		json_t *fid = json_object_get(row, "fit_id"), *m = json_null();

		if (json_is_integer(fid)) {
			struct calstore_fit f = {0};
			char *text = jtext_line(json_object_get(row, "fit"));

			f.id = json_integer_value(fid);
			snprintf(f.state, sizeof f.state, "%s",
			    json_string_value(json_object_get(row, "fit_state")));
			f.started_at = json_is_true(json_object_get(row, "fit_started"));
			f.text = text;
			m = calcase_fit_member(&f);
			free(text);
		}
		json_object_set_new(row, "fit", m ? m : json_null());
		json_object_del(row, "fit_state");
		json_object_del(row, "fit_started");
	}
	*answer =
	    json_pack("{s:s, s:o, s:o*}", "robot", robot, "calibrations", list, "next_after", next);
	if (!*answer)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	return 0;
}

int calcase_show(struct calstore *cs, const struct caltoken_principal *p, long long id,
    json_t **answer, struct err *err)
{
	char owner[CALSTORE_NAME_MAX];
	json_t *all = NULL, *m = NULL, *setup = NULL;

	*answer = NULL;
	if (calcase_visible(cs, p, id, owner, err) != 0 ||
	    calsetup_get(cs, id, NULL, &setup, err) != 0)
		return -1;
	if (cs->measurements(cs->ctx, id, &all, err) == 0 &&
	    (m = calcase_latest_fit(cs, id, NULL, err)))
		*answer = json_pack("{s:I, s:s, s:o, s:O, s:O, s:o}", "id", (json_int_t)id, "robot",
		    owner, "setup", setup, "measurements", all, "fit", m, "fit_id",
		    json_is_object(m) ? json_incref(json_object_get(m, "id")) : json_null());
	else
		json_decref(setup);
	if (!*answer && err->code == ERR_NONE)
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
	json_decref(all);
	json_decref(m);
	return *answer ? 0 : -1;
}

/* {"calibration": id, name: what list() gives} of calibration id, if p can see it. */
static int listing(struct calstore *cs, const struct caltoken_principal *p, long long id,
    const char *name, int (*list)(void *ctx, long long id, json_t **out, struct err *err),
    int (*shape)(json_t *all), json_t **answer, struct err *err)
{
	char owner[CALSTORE_NAME_MAX];
	json_t *all = NULL;

	if (calcase_visible(cs, p, id, owner, err) != 0 || list(cs->ctx, id, &all, err) != 0)
		return -1;
	if (shape && shape(all) != 0) {
		json_decref(all);
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	}
	*answer = json_pack("{s:I, s:o}", "calibration", (json_int_t)id, name, all);
	if (!*answer)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	return 0;
}

int calcase_measurements(struct calstore *cs, const struct caltoken_principal *p, long long id,
    json_t **answer, struct err *err)
{
	return listing(cs, p, id, "measurements", cs->measurements, NULL, answer, err);
}

/* The store's done fits, [{"id", "text"}], each replaced by its calcase_fit_member(). */
static int fit_members(json_t *all)
{
	struct calstore_fit f = {.state = "done"};
	size_t i;
	json_t *e;

	json_array_foreach (all, i, e) {
		f.id = json_integer_value(json_object_get(e, "id"));
		f.text = (char *)json_string_value(json_object_get(e, "text"));
		if (json_array_set_new(all, i, calcase_fit_member(&f)) != 0)
			return -1;
	}
	return 0;
}

int calcase_fits(struct calstore *cs, const struct caltoken_principal *p, long long id,
    json_t **answer, struct err *err)
{
	return listing(cs, p, id, "fits", cs->fit_list, fit_members, answer, err);
}

/* ---- writes ---- */

/* The limits of one calibration over every measurement it would hold. */
static int check_limits(const json_t *all, struct err *err)
{
	const json_t *trajs = json_object_get(all, "trajectories"), *tr;
	struct calreq_data data;
	size_t samples = 0, i;
	int rc;

	json_array_foreach (trajs, i, tr)
		samples += json_array_size(json_object_get(tr, "t"));
	if (samples > CALIB_MAX_CALIBRATION_SAMPLES)
		return err_set(err, ERR_TOO_LARGE, "/trajectories",
		    "a calibration holds at most %d trajectory samples; with these it would hold "
		    "%zu",
		    CALIB_MAX_CALIBRATION_SAMPLES, samples);
	rc = calreq_data(all, &data, err);
	if (rc != 0 && err->code == ERR_TOO_LARGE)
		err->path[0] = '\0';
	calreq_data_free(&data);
	return rc;
}

/* The answer to an upload or a deletion before its fit: the fit pending. */
static json_t *fit_ack(long long id, long long fit_id)
{
	return json_pack("{s:I, s:I, s:{s:s, s:I, s:b}}", "calibration", (json_int_t)id, "fit_id",
	    (json_int_t)fit_id, "fit", "state", "pending", "id", (json_int_t)fit_id, "started", 0);
}

static json_t *upload_ack(long long id, const struct calstore_receipt *r)
{
	json_t *ack = fit_ack(id, r->fit_id);
	int k;

	if (!ack || json_object_set_new(ack, "upload", json_integer(r->upload_id)) != 0 ||
	    json_object_set(ack, "measurement_ids", r->ids) != 0 ||
	    json_object_set_new(ack, "accepted", json_object()) != 0) {
		json_decref(ack);
		return NULL;
	}
	for (k = 0; k < CALSTORE_KINDS; k++)
		json_object_set_new(json_object_get(ack, "accepted"), calstore_lists[k],
		    json_integer(
		        (json_int_t)json_array_size(json_object_get(r->ids, calstore_lists[k]))));
	return ack;
}

/* A fit of calibration id is pending: schedule it and tell the listeners. */
static void refit_scheduled(long long id)
{
	calwork_queue(id);
	calevents_fit(id);
}

/*
 * The upload's work in its transaction up (calibration id locked; owner, lab and its stored
 * setup text as read with the lock): what an upload must satisfy, in order. 1 when key
 * replays a kept answer (into out->replay; nothing to keep), 0 with *receipt when the
 * transaction is to be committed, -1 with err.
 */
static int upload_in(struct calstore *cs, struct calstore_write *w,
    const struct caltoken_principal *p, long long id, const char *owner, const char *lab,
    const char *setup_text, json_t *body, const char *key, const struct err *refused,
    struct calcase_upload *out, struct calstore_receipt *receipt, struct err *err)
{
	struct calreq_setup setup;
	struct calstore_idem idem;
	json_t *up_json = NULL, *all = NULL;
	char *up_text = NULL, *answer = NULL;
	int rc = -1, found;

	if (may(p, id, 1, owner, lab, 1, err) != 0)
		goto out;
	if (refused && refused->code != ERR_NONE) {
		*err = *refused;
		goto out;
	}
	if (calsetup_of_text(id, setup_text, &setup, err) != 0 ||
	    calreq_upload_parse(body, &setup, &up_json, err) != 0)
		goto out;
	if (key) {
		up_text = jtext_line(up_json);
		if (!up_text) {
			err_set(err, ERR_INTERNAL, NULL, "out of memory");
			goto out;
		}
		/* the same key with the same upload to the same calibration is a retry */
		calidem_make(&idem, key, id, up_text);
		found = calidem_replay(cs, w, &idem, &out->replay, err);
		if (found != 0) {
			rc = found > 0 ? 1 : -1;
			goto out;
		}
	}
	if (cs->upload_add(w, up_json, receipt, err) != 0 ||
	    cs->upload_measurements(w, &all, err) != 0 || check_limits(all, err) != 0)
		goto out;
	if (key) {
		json_t *ack = upload_ack(id, receipt);

		answer = ack ? jtext_line(ack) : NULL;
		json_decref(ack);
		if (!answer) {
			err_set(err, ERR_INTERNAL, NULL, "out of memory");
			goto out;
		}
		if (cs->idem_keep(w, &idem, receipt->upload_id, answer, err) != 0)
			goto out;
	}
	rc = 0;
out:
	free(answer);
	free(up_text);
	json_decref(all);
	json_decref(up_json);
	return rc;
}

int calcase_upload(struct calstore *cs, const struct caltoken_principal *p, long long id,
    json_t *body, const char *key, const struct err *refused, struct calcase_upload *out,
    struct err *err)
{
	struct calstore_receipt receipt = {0};
	struct calstore_write *w = NULL;
	char owner[CALSTORE_NAME_MAX], lab[CALSTORE_NAME_MAX], *setup_text = NULL;
	int found, rc;

	memset(out, 0, sizeof *out);
	/* one read: the lock's tells who may write and what the setup is */
	found = cs->upload_begin(cs->ctx, id, owner, lab, &setup_text, &w, err);
	if (found <= 0)
		return may(p, id, found, owner, lab, 1, err);
	rc =
	    upload_in(cs, w, p, id, owner, lab, setup_text, body, key, refused, out, &receipt, err);
	free(setup_text);
	/* only a new upload is kept; a replay, like a refusal, writes nothing */
	if (cs->write_end(w, rc == 0, err) != 0)
		rc = -1;
	if (rc == 0) {
		refit_scheduled(id);
		out->fit_id = receipt.fit_id;
		out->answer = upload_ack(id, &receipt);
		if (!out->answer)
			rc = err_set(err, ERR_INTERNAL, NULL, "out of memory");
	}
	calstore_receipt_clear(&receipt);
	if (rc < 0) {
		free(out->replay);
		out->replay = NULL;
		return -1;
	}
	return 0;
}

void calcase_upload_clear(struct calcase_upload *u)
{
	json_decref(u->answer);
	free(u->replay);
	memset(u, 0, sizeof *u);
}

int calcase_delete(struct calstore *cs, const struct caltoken_principal *p, long long id,
    long long measurement_id, long long upload_id, json_t **answer, long long *fit_id,
    struct err *err)
{
	char owner[CALSTORE_NAME_MAX];
	json_t *deleted = NULL;

	*answer = NULL;
	if (calcase_writable(cs, p, id, owner, err) != 0 ||
	    cs->remove(cs->ctx, id, measurement_id, upload_id, &deleted, fit_id, err) != 0)
		return -1;
	refit_scheduled(id);
	*answer = fit_ack(id, *fit_id);
	if (!*answer)
		json_decref(deleted);
	if (!*answer || json_object_set_new(*answer, "deleted", deleted) != 0) {
		json_decref(*answer);
		*answer = NULL;
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	}
	return 0;
}
