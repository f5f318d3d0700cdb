/*
 * http_calib.c: the calibration service's routes (see http_calib.h for the seam).
 *
 *   POST /v1/robots/{robot}/calibrations        start a calibration      201 {"id", ...}
 *   GET  /v1/robots/{robot}/calibrations        the robot's history      200 {"calibrations"}
 *   POST /v1/calibrations/{id}/measurements     upload, refit            200 {"fit", ...}
 *   GET  /v1/calibrations/{id}                  measurements and fit     200
 *   GET  /v1/calibrations/{id}/events           Server-Sent Events: every new fit
 *
 * Every route needs "Authorization: Bearer <id>.<secret>" of the robot concerned: 401
 * without a valid token, 403 with another robot's; both are logged. An event stream
 * suspends its connection while it has nothing to send; an upload resumes the streams
 * of its calibration, and a ticker resumes all of them every DAEMON_EVENTS_KEEPALIVE_S so
 * that they send a keep-alive comment and notice closed clients.
 */
#include "http/http_calib.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/auth.h"
#include "service/body.h"
#include "service/calib.h"
#include "service/calreq.h"
#include "service/service.h"
#include "store/calstore.h"
#include "tunables.h"

/* One open event stream. */
struct stream {
	struct MHD_Connection *conn;
	struct store *st;
	long long calibration;
	long long last_fit; /* id of the last fit sent */
	char *pending;      /* event text not yet sent */
	size_t len, off;
	int suspended, keepalive;
	struct stream *prev, *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct stream *streams;
	struct store *st;
	int stopping, ticker_running;
	pthread_t ticker;
} hub = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0, 0};

/* Resume a stream's connection; the caller holds hub.lock. */
static void wake_stream(struct stream *s)
{
	if (s->suspended) {
		s->suspended = 0;
		MHD_resume_connection(s->conn);
	}
}

static void *ticker(void *arg)
{
	struct timespec until;
	struct stream *s;

	(void)arg;
	pthread_mutex_lock(&hub.lock);
	while (!hub.stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += DAEMON_EVENTS_KEEPALIVE_S;
		if (pthread_cond_timedwait(&hub.wake, &hub.lock, &until) == ETIMEDOUT) {
			for (s = hub.streams; s; s = s->next) {
				s->keepalive = 1;
				wake_stream(s);
			}
		}
	}
	pthread_mutex_unlock(&hub.lock);
	return NULL;
}

int http_calib_start(struct store *st, struct err *err)
{
	hub.st = st;
	hub.stopping = 0;
	if (pthread_create(&hub.ticker, NULL, ticker, NULL) != 0)
		return err_set(err, ERR_INTERNAL, NULL, "cannot start the event-stream ticker");
	hub.ticker_running = 1;
	return 0;
}

void http_calib_stop(void)
{
	struct stream *s;

	pthread_mutex_lock(&hub.lock);
	hub.stopping = 1;
	for (s = hub.streams; s; s = s->next)
		wake_stream(s);
	pthread_cond_broadcast(&hub.wake);
	pthread_mutex_unlock(&hub.lock);
	if (hub.ticker_running) {
		pthread_join(hub.ticker, NULL);
		hub.ticker_running = 0;
	}
}

/* A new fit of calibration id: wake its streams. */
static void publish(long long id)
{
	struct stream *s;

	pthread_mutex_lock(&hub.lock);
	for (s = hub.streams; s; s = s->next)
		if (s->calibration == id)
			wake_stream(s);
	pthread_mutex_unlock(&hub.lock);
}

/* The next event of s into s->pending, if there is one; the caller holds hub.lock. */
static void next_event(struct stream *s)
{
	struct err err;
	char *fit = NULL;
	long long fit_id;
	int n;

	err_clear(&err);
	if (calstore_fit_latest(s->st, s->calibration, &fit, &fit_id, &err) == 1 &&
	    fit_id > s->last_fit) {
		n = asprintf(&s->pending, "event: fit\nid: %lld\ndata: %s\n\n", fit_id, fit);
		if (n >= 0) {
			s->len = (size_t)n;
			s->off = 0;
			s->last_fit = fit_id;
		} else {
			s->pending = NULL;
		}
	} else if (s->keepalive) {
		s->pending = strdup(": keep-alive\n\n");
		s->len = s->pending ? strlen(s->pending) : 0;
		s->off = 0;
	}
	s->keepalive = 0;
	free(fit);
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	ssize_t n;

	(void)pos;
	pthread_mutex_lock(&hub.lock);
	if (!s->pending)
		next_event(s);
	if (!s->pending) {
		if (hub.stopping) {
			pthread_mutex_unlock(&hub.lock);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		/* nothing to send: sleep until publish(), the ticker or shutdown wakes us */
		s->suspended = 1;
		MHD_suspend_connection(s->conn);
		pthread_mutex_unlock(&hub.lock);
		return 0;
	}
	n = (ssize_t)(s->len - s->off < max ? s->len - s->off : max);
	memcpy(buf, s->pending + s->off, (size_t)n);
	s->off += (size_t)n;
	if (s->off == s->len) {
		free(s->pending);
		s->pending = NULL;
	}
	pthread_mutex_unlock(&hub.lock);
	return n;
}

static void stream_free(void *cls)
{
	struct stream *s = cls;

	pthread_mutex_lock(&hub.lock);
	if (s->prev)
		s->prev->next = s->next;
	else
		hub.streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	pthread_mutex_unlock(&hub.lock);
	free(s->pending);
	free(s);
}

static enum MHD_Result respond_error(
    struct MHD_Connection *conn, struct http_request *req, const struct err *e)
{
	if (e->code == ERR_UNAUTHORIZED || e->code == ERR_FORBIDDEN)
		http_log("calibration: %s %s refused: %s", req->method, req->url, e->message);
	return http_respond_error(conn, req, e);
}

/* The robot of a valid bearer token into robot, or ERR_UNAUTHORIZED. */
static int authenticate(struct http_request *req, char robot[CALSTORE_NAME_MAX], struct err *err)
{
	char id[AUTH_ID_HEX + 1], secret[AUTH_SECRET_HEX + 1];
	struct calstore_token tok;
	int found;

	if (auth_bearer_parse(req->authorization, id, secret, err) != 0)
		return -1;
	found = calstore_token_get(req->store, id, &tok, err);
	if (found < 0)
		return -1;
	/* verify even for unknown ids, so the answer takes the same time either way */
	if (found == 0)
		memset(tok.hash, 0, sizeof tok.hash);
	if (!auth_verify(secret, tok.hash) || found == 0)
		return err_set(err, ERR_UNAUTHORIZED, NULL, "invalid bearer token %s", id);
	if (tok.revoked)
		return err_set(err, ERR_UNAUTHORIZED, NULL, "bearer token %s was revoked", id);
	snprintf(robot, CALSTORE_NAME_MAX, "%s", tok.robot);
	return 0;
}

static int authorize(struct http_request *req, const char *owner, struct err *err)
{
	char robot[CALSTORE_NAME_MAX];

	if (authenticate(req, robot, err) != 0)
		return -1;
	if (strcmp(robot, owner) != 0)
		return err_set(err, ERR_FORBIDDEN, NULL, "robot %s may not use %s's calibrations",
		    robot, owner);
	return 0;
}

static int parse_body(struct http_request *req, json_t **root, struct err *err)
{
	if (!http_body_is_json(req->content_type))
		return err_set(err, ERR_UNSUPPORTED_MEDIA, "",
		    "the body must be application/json, not %s", req->content_type);
	return body_parse(req->body, req->body_len, root, err);
}

static enum MHD_Result create_calibration(
    struct MHD_Connection *conn, struct http_request *req, const char *robot)
{
	struct err err;
	struct calreq_setup setup;
	json_t *body = NULL, *canon = NULL, *answer = NULL;
	char *text = NULL;
	long long id;
	enum MHD_Result r;

	err_clear(&err);
	if (authorize(req, robot, &err) != 0 || parse_body(req, &body, &err) != 0 ||
	    calreq_setup_parse(body, &setup, &canon, &err) != 0)
		goto fail;
	text = svc_dump(canon);
	if (!text || calstore_calibration_create(req->store, robot, text, &id, &err) != 0) {
		if (!text)
			err_set(&err, ERR_INTERNAL, NULL, "out of memory");
		goto fail;
	}
	answer = json_pack(
	    "{s:I, s:s, s:O, s:n}", "id", (json_int_t)id, "robot", robot, "setup", canon, "fit");
	r = answer
	    ? http_respond_json(conn, req, 201, answer)
	    : (err_set(&err, ERR_INTERNAL, NULL, "out of memory"), respond_error(conn, req, &err));
	goto out;
fail:
	r = respond_error(conn, req, &err);
out:
	free(text);
	json_decref(answer);
	json_decref(canon);
	json_decref(body);
	return r;
}

static enum MHD_Result list_calibrations(
    struct MHD_Connection *conn, struct http_request *req, const char *robot)
{
	struct err err;
	json_t *list = NULL, *answer;
	enum MHD_Result r;

	err_clear(&err);
	if (authorize(req, robot, &err) != 0 ||
	    calstore_calibration_list(req->store, robot, &list, &err) != 0)
		return respond_error(conn, req, &err);
	answer = json_pack("{s:s, s:o}", "robot", robot, "calibrations", list);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

/* calstore_refit_fn: the fit of every measurement of a calibration, as canonical text. */
static int refit(const char *setup_text, const json_t *all, void *ctx, char **fit, struct err *err)
{
	struct calreq_setup setup;
	struct calreq_data data;
	struct calib_fit *f = NULL;
	json_t *setup_json = json_loads(setup_text, 0, NULL), *fj = NULL;
	int rc = -1;

	(void)ctx;
	memset(&data, 0, sizeof data);
	if (!setup_json) {
		err_set(err, ERR_INTERNAL, NULL, "stored setup is not JSON");
		goto out;
	}
	if (calreq_setup_parse(setup_json, &setup, NULL, err) != 0 ||
	    calreq_data(all, &data, err) != 0 || calib_fit(&setup.scene, &data.data, &f, err) != 0)
		goto out;
	fj = calib_fit_json(f, setup.mjcf_class);
	*fit = fj ? svc_dump(fj) : NULL;
	if (!*fit) {
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(fj);
	json_decref(setup_json);
	calib_fit_free(f);
	calreq_data_free(&data);
	return rc;
}

/* The calibration's owner and setup, or ERR_NOT_FOUND. */
static int find_calibration(struct http_request *req, long long id, char owner[CALSTORE_NAME_MAX],
    struct calreq_setup *setup, struct err *err)
{
	char *text = NULL;
	json_t *j;
	int found = calstore_calibration_get(req->store, id, owner, setup ? &text : NULL, err);

	if (found <= 0)
		return found == 0 ? err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id)
		                  : -1;
	if (!setup)
		return 0;
	j = json_loads(text, 0, NULL);
	free(text);
	found = j ? calreq_setup_parse(j, setup, NULL, err)
	          : err_set(err, ERR_INTERNAL, NULL, "bad setup");
	json_decref(j);
	return found;
}

static enum MHD_Result upload(struct MHD_Connection *conn, struct http_request *req, long long id)
{
	struct err err;
	struct calreq_setup setup;
	char owner[CALSTORE_NAME_MAX], *fit = NULL;
	json_t *body = NULL, *up = NULL, *answer = NULL, *fj;
	long long fit_id;
	enum MHD_Result r;

	err_clear(&err);
	/* authenticate before telling whether the calibration exists */
	if (authenticate(req, owner, &err) != 0)
		goto fail;
	if (find_calibration(req, id, owner, &setup, &err) != 0 ||
	    authorize(req, owner, &err) != 0 || parse_body(req, &body, &err) != 0 ||
	    calreq_upload_parse(body, &setup, &up, &err) != 0 ||
	    calstore_upload(req->store, id, up, refit, NULL, &fit, &fit_id, &err) != 0)
		goto fail;
	publish(id);
	fj = json_loads(fit, 0, NULL);
	answer = json_pack("{s:I, s:I, s:o, s:{s:I, s:I, s:I}}", "calibration", (json_int_t)id,
	    "fit_id", (json_int_t)fit_id, "fit", fj, "accepted", "drops",
	    (json_int_t)json_array_size(json_object_get(up, "drops")), "presses",
	    (json_int_t)json_array_size(json_object_get(up, "presses")), "trajectories",
	    (json_int_t)json_array_size(json_object_get(up, "trajectories")));
	r = http_respond_json(conn, req, 200, answer);
	goto out;
fail:
	r = respond_error(conn, req, &err);
out:
	free(fit);
	json_decref(answer);
	json_decref(up);
	json_decref(body);
	return r;
}

static enum MHD_Result show(struct MHD_Connection *conn, struct http_request *req, long long id)
{
	struct err err;
	char owner[CALSTORE_NAME_MAX], *fit = NULL, *setup_text = NULL;
	json_t *all = NULL, *answer = NULL;
	long long fit_id = 0;
	int has_fit;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, owner, &err) != 0)
		goto fail;
	if (calstore_calibration_get(req->store, id, owner, &setup_text, &err) != 1) {
		if (err.code == ERR_NONE)
			err_set(&err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
		goto fail;
	}
	if (authorize(req, owner, &err) != 0 ||
	    calstore_measurements(req->store, id, &all, &err) != 0 ||
	    (has_fit = calstore_fit_latest(req->store, id, &fit, &fit_id, &err)) < 0)
		goto fail;
	answer = json_pack("{s:I, s:s, s:o, s:O, s:o, s:o}", "id", (json_int_t)id, "robot", owner,
	    "setup", json_loads(setup_text, 0, NULL), "measurements", all, "fit",
	    has_fit ? json_loads(fit, 0, NULL) : json_null(), "fit_id",
	    has_fit ? json_integer(fit_id) : json_null());
	r = http_respond_json(conn, req, 200, answer);
	goto out;
fail:
	r = respond_error(conn, req, &err);
out:
	free(fit);
	free(setup_text);
	json_decref(all);
	json_decref(answer);
	return r;
}

static enum MHD_Result events(struct MHD_Connection *conn, struct http_request *req, long long id)
{
	struct err err;
	char owner[CALSTORE_NAME_MAX];
	struct stream *s;
	struct MHD_Response *resp;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, owner, &err) != 0 ||
	    find_calibration(req, id, owner, NULL, &err) != 0 || authorize(req, owner, &err) != 0)
		return respond_error(conn, req, &err);
	s = calloc(1, sizeof *s);
	if (!s) {
		err_set(&err, ERR_INTERNAL, NULL, "out of memory");
		return respond_error(conn, req, &err);
	}
	s->conn = conn;
	s->st = req->store;
	s->calibration = id;
	resp =
	    MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, s, stream_free);
	if (!resp) {
		free(s);
		err_set(&err, ERR_INTERNAL, NULL, "out of memory");
		return respond_error(conn, req, &err);
	}
	pthread_mutex_lock(&hub.lock);
	s->next = hub.streams;
	if (hub.streams)
		hub.streams->prev = s;
	hub.streams = s;
	pthread_mutex_unlock(&hub.lock);
	MHD_add_response_header(resp, "Content-Type", "text/event-stream");
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	r = http_respond(conn, req, 200, resp);
	MHD_destroy_response(resp);
	return r;
}

/* Parse a decimal calibration id (1.. LLONG_MAX) ending at end or '/'. */
static int parse_id(const char *s, long long *id, const char **rest)
{
	char *end;

	if (*s < '1' || *s > '9')
		return -1;
	errno = 0;
	*id = strtoll(s, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != '/'))
		return -1;
	*rest = end;
	return 0;
}

int http_calib_route(struct MHD_Connection *conn, struct http_request *req, enum MHD_Result *result)
{
	static const char robots[] = "/v1/robots/", calibs[] = "/v1/calibrations/";
	const char *url = req->url, *rest;
	int post = strcmp(req->method, "POST") == 0, get = strcmp(req->method, "GET") == 0;
	struct err err;
	long long id;

	err_clear(&err);
	if (strncmp(url, robots, sizeof robots - 1) == 0) {
		char robot[CALSTORE_NAME_MAX];
		const char *name = url + sizeof robots - 1, *slash = strchr(name, '/');

		if (!slash || (size_t)(slash - name) >= sizeof robot ||
		    strcmp(slash, "/calibrations") != 0)
			return 0;
		memcpy(robot, name, (size_t)(slash - name));
		robot[slash - name] = '\0';
		if (!auth_robot_name_ok(robot))
			return 0;
		req->route = "calibrations";
		if (post)
			*result = create_calibration(conn, req, robot);
		else if (get)
			*result = list_calibrations(conn, req, robot);
		else
			*result = respond_error(
			    conn, req, (err_set(&err, ERR_METHOD, NULL, "use GET or POST"), &err));
		return 1;
	}
	if (strncmp(url, calibs, sizeof calibs - 1) != 0 ||
	    parse_id(url + sizeof calibs - 1, &id, &rest) != 0)
		return 0;
	if (strcmp(rest, "") == 0 && get) {
		req->route = "calibration";
		*result = show(conn, req, id);
	} else if (strcmp(rest, "/measurements") == 0 && post) {
		req->route = "measurements";
		*result = upload(conn, req, id);
	} else if (strcmp(rest, "/events") == 0 && get) {
		req->route = "events";
		*result = events(conn, req, id);
	} else if (strcmp(rest, "") == 0 || strcmp(rest, "/measurements") == 0 ||
	    strcmp(rest, "/events") == 0) {
		*result = respond_error(conn, req,
		    (err_set(&err, ERR_METHOD, NULL, "method %s not allowed here", req->method),
		        &err));
	} else {
		return 0;
	}
	return 1;
}

int http_calib_token_command(int argc, char **argv, const char *db_path)
{
	struct store *st = NULL;
	struct auth_token tok;
	struct err err;
	json_t *list = NULL;
	int rc = 1;

	err_clear(&err);
	if (argc < 2 || (strcmp(argv[1], "list") != 0 && argc != 3)) {
		fprintf(stderr, "usage: contactd token create ROBOT | revoke TOKEN_ID | list\n");
		return 2;
	}
	if (store_open(db_path, &st, &err) != 0)
		goto out;
	if (strcmp(argv[1], "create") == 0) {
		if (!auth_robot_name_ok(argv[2])) {
			fprintf(
			    stderr, "contactd: token: robot names are 1-64 of A-Z a-z 0-9 _ . -\n");
			goto out;
		}
		if (auth_token_new(&tok, &err) != 0 ||
		    calstore_token_create(st, argv[2], tok.id, tok.hash, &err) != 0)
			goto out;
		/* shown once: only its hash is stored */
		printf("%s\n", tok.text);
		fflush(stdout);
		rc = 0;
	} else if (strcmp(argv[1], "revoke") == 0) {
		if (calstore_token_revoke(st, argv[2], &err) != 0)
			goto out;
		rc = 0;
	} else if (strcmp(argv[1], "list") == 0) {
		char *text;

		if (calstore_token_list(st, &list, &err) != 0)
			goto out;
		text = svc_dump(list);
		if (text)
			fputs(text, stdout);
		free(text);
		rc = text ? 0 : 1;
	} else {
		fprintf(stderr, "usage: contactd token create ROBOT | revoke TOKEN_ID | list\n");
		rc = 2;
	}
out:
	if (rc == 1 && err.code != ERR_NONE)
		fprintf(stderr, "contactd: token: %s\n", err.message);
	json_decref(list);
	store_close(st);
	return rc;
}
