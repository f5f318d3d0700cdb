/*
 * http_calib.c: the calibration service's handlers (see http_calib.h for the seam): headers,
 * requests to the values of the calibration layer's use cases (src/calib/cases.h) and their
 * results to responses. The use cases, the token policy, watch URLs and the
 * fit workers are the layer's; the routes are rows of the daemon's one table (routes.c);
 * errors map to statuses and headers in one place (status.h).
 *
 *   POST   /v1/robots/{robot}/calibrations              start a calibration     201
 *   GET    /v1/robots/{robot}/calibrations              its history, by pages   200
 *   GET    /v1/calibrations/{id}                        setup, measurements, fit 200
 *   POST   /v1/calibrations/{id}/measurements           upload                  200
 *   GET    /v1/calibrations/{id}/measurements           what landed, with ids   200
 *   GET    /v1/calibrations/{id}/fits                   every done fit          200
 *   DELETE /v1/calibrations/{id}/measurements/{mid}     remove one, refit       200
 *   DELETE /v1/calibrations/{id}/uploads/{uid}          remove an upload, refit 200
 *
 * Every route needs "Authorization: Bearer <id>.<secret>" (401 with WWW-Authenticate:
 * Bearer otherwise) or, for the events only, a watch URL's signature (src/calib/token.h
 * says who may do what).
 *
 * Fits never run here: an upload or a deletion commits durably and answers at once with
 * the fit pending. ?wait=SECONDS or Prefer: wait=SECONDS answers when the fit is done
 * instead (at most CALIB_MAX_WAIT_S): the connection is suspended meanwhile, holding no
 * thread; a token holds at most DAEMON_WAITS_PER_TOKEN such waits (calib_stream.c).
 *
 *
 * The waits, the event streams, the service's life cycle and the routes of event streams
 * (GET /v1/calibrations/{id}/events, POST /v1/calibrations/{id}/watch) are calib_stream.c's
 * (calib_stream.h), as are the helpers both modules use (errors to responses, the bearer token).
 */
#include "http/http_calib.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calib/audit.h"
#include "calib/cases.h"
#include "calib/idem.h"
#include "calib/token.h"
#include "http/calib_stream.h"
#include "http/jobs.h"
#include "base/body.h"
#include "calib/knobs.h"
#include "http/knobs.h"

/* ---- requests and responses ---- */

static int parse_body(struct http_request *req, json_t **root, struct err *err)
{
	if (!http_body_is_json(req->content_type))
		return err_set(err, ERR_UNSUPPORTED_MEDIA, "",
		    "the body must be application/json, not %s",
		    http_content_type_shown(req->content_type));
	return body_parse(req->body, req->body_len, root, err);
}

/*
 * How long the client wants to wait for a fit, from ?wait=SECONDS or "Prefer: wait=SECONDS"
 * (RFC 7240), at most CALIB_MAX_WAIT_S: 0 when it asks for none. A malformed ?wait is
 * ERR_BAD_VALUE; a malformed preference is ignored, as preferences may be.
 */
static int wait_seconds(struct MHD_Connection *conn, const struct http_request *req, double *wait,
    int *preferred, struct err *err)
{
	const char *arg = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "wait");
	const char *prefer = req->prefer;
	char *end;
	double w = 0;

	*wait = 0;
	*preferred = 0;
	if (arg) {
		errno = 0;
		w = strtod(arg, &end);
		if (end == arg || *end || errno || !(w >= 0) || !isfinite(w))
			return err_set(err, ERR_BAD_VALUE, "",
			    "?wait must be a number of seconds from 0 to %d", CALIB_MAX_WAIT_S);
	} else if (prefer) {
		const char *at;

		for (at = prefer; (at = strcasestr(at, "wait")); at += 4) {
			if ((at == prefer || strchr(" ,;\t", at[-1])) && at[4] == '=') {
				w = strtod(at + 5, &end);
				if (end != at + 5 && w >= 0 && isfinite(w))
					*preferred = 1;
				else
					w = 0;
				break;
			}
		}
	}
	*wait = fmin(w, CALIB_MAX_WAIT_S);
	return 0;
}

/* Answer ack (its "fit" the newest fit) now, or, with a wait, once fit fit_id is settled;
 * without ack, the calibration as p sees it. */
static enum MHD_Result respond_fit(struct MHD_Connection *conn, struct http_request *req,
    const struct caltoken_principal *p, long long id, long long fit_id, json_t *ack, double wait,
    int preferred)
{
	enum MHD_Result r;

	if (wait <= 0) {
		r = http_respond_json(conn, req, 200, ack);
		json_decref(ack);
		return r;
	}
	return calstream_wait(conn, req, p, id, fit_id, ack, wait, preferred);
}

/* ---- the routes ---- */

/* "." and "..": a URL path's dot segments, which a proxy or client may resolve away (to
 * another robot's URL); not robot names, but refused with a 422 rather than a 404. */
static int dot_segment(const char *robot)
{
	return strcmp(robot, ".") == 0 || strcmp(robot, "..") == 0;
}

/* 1 with the 422 of a dot segment in *r, or 0 (the robot is a name). */
static int refuse_dots(
    struct MHD_Connection *conn, struct http_request *req, const char *robot, enum MHD_Result *r)
{
	if (!dot_segment(robot))
		return 0;
	*r = calstream_respond_code(conn, req, ERR_BAD_VALUE,
	    "robot: '.' and '..' are not robot names (dot segments of a URL path)");
	return 1;
}

/* The first answer an Idempotency-Key kept, again: 200, marked replayed. */
static enum MHD_Result respond_replay(
    struct MHD_Connection *conn, struct http_request *req, const char *replay)
{
	struct MHD_Response *resp =
	    MHD_create_response_from_buffer(strlen(replay), (void *)replay, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result r = MHD_NO;

	if (resp) {
		MHD_add_response_header(resp, "Content-Type", "application/json");
		MHD_add_response_header(resp, "Idempotent-Replayed", "true");
		r = http_respond(conn, req, 200, resp);
	}
	return r;
}

int http_calib_robot_ok(const char *robot)
{
	return auth_robot_name_ok(robot) || dot_segment(robot);
}

enum MHD_Result http_calib_create(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	const char *robot = t->robot;
	struct caltoken_principal p;
	struct err err;
	json_t *body = NULL, *answer = NULL;
	char key[CALIB_IDEMPOTENCY_KEY_MAX + 2], *replay = NULL;
	int has_key = 0;
	long long id;
	enum MHD_Result r;

	if (refuse_dots(conn, req, robot, &r))
		return r;
	err_clear(&err);
	if (calstream_authenticate(req, &p, &err) != 0 ||
	    caltoken_robot_visible(calstream_calstore(), &p, robot, &err) != 0 ||
	    caltoken_can_write(&p, robot, &err) != 0 ||
	    (has_key = calidem_key(req->idempotency_key, key, sizeof key, &err)) < 0 ||
	    parse_body(req, &body, &err) != 0 ||
	    calcase_create(calstream_calstore(), &p, robot, body, has_key ? key : NULL, &answer,
	        &replay, &id, &err) != 0)
		r = calstream_respond_error(conn, req, &err);
	else if (replay)
		r = respond_replay(conn, req, replay);
	else
		r = http_respond_json(conn, req, 201, answer);
	free(replay);
	json_decref(answer);
	json_decref(body);
	return r;
}

/* Query argument name, a whole number from low to high, into *out (fallback when absent);
 * ERR_BAD_VALUE otherwise. */
static int query_whole(struct MHD_Connection *conn, const char *name, long long low, long long high,
    long long fallback, long long *out, struct err *err)
{
	const char *arg = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);
	char *end;

	*out = fallback;
	if (!arg)
		return 0;
	errno = 0;
	*out = strtoll(arg, &end, 10);
	if (end == arg || *end || errno || *out < low || *out > high)
		return err_set(err, ERR_BAD_VALUE, "",
		    "?%s must be a whole number from %lld to %lld", name, low, high);
	return 0;
}

enum MHD_Result http_calib_list(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	const char *robot = t->robot;
	struct caltoken_principal p;
	struct err err;
	json_t *answer = NULL;
	long long limit, after;
	enum MHD_Result r;

	if (refuse_dots(conn, req, robot, &r))
		return r;
	err_clear(&err);
	if (calstream_authenticate(req, &p, &err) != 0 ||
	    query_whole(conn, "limit", 1, CALIB_LIST_MAX, CALIB_LIST_DEFAULT, &limit, &err) != 0 ||
	    query_whole(conn, "after", 0, LLONG_MAX, 0, &after, &err) != 0 ||
	    calcase_list(calstream_calstore(), &p, robot, after, limit, &answer, &err) != 0)
		return calstream_respond_error(conn, req, &err);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

/*
 * What an upload says besides its URL and token, read from the request before the
 * calibration layer is asked anything: the wait, the Idempotency-Key, the body. The first
 * of their errors waits for its turn, after the token's and the calibration's (authenticate
 * before telling whether the calibration exists), as when they were read in between.
 */
struct upload_values {
	double wait;
	int preferred, has_key, failed;
	char key[CALIB_IDEMPOTENCY_KEY_MAX + 2];
	json_t *body; /* ours */
	struct err err;
};

static void upload_read(
    struct MHD_Connection *conn, struct http_request *req, struct upload_values *v)
{
	err_clear(&v->err);
	v->body = NULL;
	v->has_key = 0;
	v->failed = wait_seconds(conn, req, &v->wait, &v->preferred, &v->err) != 0 ||
	    (v->has_key = calidem_key(req->idempotency_key, v->key, sizeof v->key, &v->err)) < 0 ||
	    parse_body(req, &v->body, &v->err) != 0;
}

/* The error kept from reading the request into err (-1) when failed, else 0. */
static int deferred(int failed, const struct err *kept, struct err *err)
{
	if (!failed)
		return 0;
	*err = *kept;
	return -1;
}

enum MHD_Result http_calib_upload(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	long long id = t->id;
	struct caltoken_principal p;
	struct err err;
	struct calcase_upload done = {0};
	struct upload_values v;
	enum MHD_Result r;

	/* the request into values first, then the calibration layer (one read of the calibration,
	 * in the upload's transaction, which reports v's error after the token policy's), then
	 * the response */
	upload_read(conn, req, &v);
	err_clear(&err);
	if (calstream_authenticate(req, &p, &err) != 0 ||
	    calcase_upload(calstream_calstore(), &p, id, v.body, v.has_key ? v.key : NULL,
	        v.failed ? &v.err : NULL, &done, &err) != 0) {
		r = calstream_respond_error(conn, req, &err);
	} else if (done.replay) {
		r = respond_replay(conn, req, done.replay);
	} else {
		r = respond_fit(
		    conn, req, &p, id, done.fit_id, json_incref(done.answer), v.wait, v.preferred);
	}
	calcase_upload_clear(&done);
	json_decref(v.body);
	return r;
}

/* DELETE of one measurement (measurement_id) or one upload (upload_id). */
static enum MHD_Result delete_measurements(struct MHD_Connection *conn, struct http_request *req,
    long long id, long long measurement_id, long long upload_id)
{
	struct caltoken_principal p;
	struct err err, wait_err;
	char owner[CALSTORE_NAME_MAX];
	json_t *ack = NULL;
	long long fit_id;
	double wait;
	int preferred, wait_failed;

	/* the wait read first; its error after the token's and the calibration's */
	err_clear(&wait_err);
	wait_failed = wait_seconds(conn, req, &wait, &preferred, &wait_err) != 0;
	err_clear(&err);
	if (calstream_authenticate(req, &p, &err) != 0 ||
	    calcase_writable(calstream_calstore(), &p, id, owner, &err) != 0 ||
	    deferred(wait_failed, &wait_err, &err) != 0 ||
	    calcase_delete(
	        calstream_calstore(), &p, id, measurement_id, upload_id, &ack, &fit_id, &err) != 0)
		return calstream_respond_error(conn, req, &err);
	return respond_fit(conn, req, &p, id, fit_id, ack, wait, preferred);
}

enum MHD_Result http_calib_delete_measurement(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	return delete_measurements(conn, req, t->id, t->sub, 0);
}

enum MHD_Result http_calib_delete_upload(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	return delete_measurements(conn, req, t->id, 0, t->sub);
}

enum MHD_Result http_calib_show(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	long long id = t->id;
	struct caltoken_principal p;
	struct err err;
	char owner[CALSTORE_NAME_MAX];
	json_t *answer = NULL;
	double wait;
	int preferred;
	enum MHD_Result r;

	err_clear(&err);
	if (calstream_authenticate(req, &p, &err) != 0 ||
	    calcase_visible(calstream_calstore(), &p, id, owner, &err) != 0 ||
	    wait_seconds(conn, req, &wait, &preferred, &err) != 0)
		return calstream_respond_error(conn, req, &err);
	if (wait > 0)
		return respond_fit(conn, req, &p, id, 0, NULL, wait, preferred);
	if (calcase_show(calstream_calstore(), &p, id, &answer, &err) != 0)
		return calstream_respond_error(conn, req, &err);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

/* A GET of calibration id's listing: the use case's answer, 200. */
static enum MHD_Result respond_listing(struct MHD_Connection *conn, struct http_request *req,
    long long id,
    int (*listing)(struct calstore *cs, const struct caltoken_principal *p, long long id,
        json_t **answer, struct err *err))
{
	struct caltoken_principal p;
	struct err err;
	json_t *answer = NULL;
	enum MHD_Result r;

	err_clear(&err);
	if (calstream_authenticate(req, &p, &err) != 0 ||
	    listing(calstream_calstore(), &p, id, &answer, &err) != 0)
		return calstream_respond_error(conn, req, &err);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

enum MHD_Result http_calib_measurements(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	return respond_listing(conn, req, t->id, calcase_measurements);
}

enum MHD_Result http_calib_fits(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	return respond_listing(conn, req, t->id, calcase_fits);
}

/* An audit to compute, as values (calib/audit.h). */
struct evaluation {
	struct caltoken_principal p;
	long long id;
	double solref[2];
};

/* The audit on a compute thread (jobs.h): its answer's text. */
static int evaluate_task(void *ctx, char **text, struct err *err)
{
	const struct evaluation *e = ctx;
	json_t *answer = NULL;

	*text = NULL;
	if (calaudit_evaluate(calstream_calstore(), &e->p, e->id, e->solref, &answer, err) != 0)
		return -1;
	*text = jtext_line(answer);
	json_decref(answer);
	if (!*text)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	return 0;
}

enum MHD_Result http_calib_evaluate(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	struct evaluation *e = calloc(1, sizeof *e);
	struct err err;
	char owner[CALSTORE_NAME_MAX], client[sizeof "token " + sizeof e->p.token_id];
	json_t *body = NULL;
	int failed;

	/* the token and the calibration first, as for reading it; then the body */
	err_clear(&err);
	if (!e)
		err_set(&err, ERR_INTERNAL, NULL, "out of memory");
	failed = !e || calstream_authenticate(req, &e->p, &err) != 0 ||
	    calcase_visible(calstream_calstore(), &e->p, t->id, owner, &err) != 0 ||
	    parse_body(req, &body, &err) != 0 || calaudit_parse(body, e->solref, &err) != 0;
	json_decref(body);
	if (failed) {
		free(e);
		return calstream_respond_error(conn, req, &err);
	}
	/* computed in the pool on the token's share, under the budget (it may take long: a
	 * small timestep, many presses) */
	e->id = t->id;
	snprintf(client, sizeof client, "token %s", e->p.token_id);
	return http_jobs_run(conn, req, client,
	    &(struct http_task){.compute = evaluate_task,
	        .respond_error = calstream_respond_error,
	        .free_ctx = free,
	        .ctx = e});
}
