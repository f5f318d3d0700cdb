/*
 * http_calib.c: the calibration service's routes (see http_calib.h for the seam).
 *
 *   POST   /v1/robots/{robot}/calibrations              start a calibration     201
 *   GET    /v1/robots/{robot}/calibrations              the robot's history     200
 *   GET    /v1/calibrations/{id}                        setup, measurements, fit 200
 *   POST   /v1/calibrations/{id}/measurements           upload                  200
 *   GET    /v1/calibrations/{id}/measurements           what landed, with ids   200
 *   DELETE /v1/calibrations/{id}/measurements/{mid}     remove one, refit       200
 *   DELETE /v1/calibrations/{id}/uploads/{uid}          remove an upload, refit 200
 *   GET    /v1/calibrations/{id}/events                 Server-Sent Events: every fit
 *   POST   /v1/calibrations/{id}/watch                  a signed, short-lived events URL
 *
 * Who may do what. Every route needs "Authorization: Bearer <id>.<secret>" (401 with
 * WWW-Authenticate: Bearer otherwise) or, for the events only, a watch URL's signature. A
 * robot's token reads and writes its robot's calibrations; a viewer's token reads those of
 * one robot or of every robot of a lab, and may not write (403). A calibration or robot
 * the token cannot see does not exist for it: 404, as for an unknown id, naming nobody.
 *
 * Fits never run here: an upload or a deletion commits durably and answers at once with
 * the fit pending (http_calib_work.h computes it). ?wait=SECONDS or Prefer: wait=SECONDS
 * answers when the fit is done instead (at most CALIB_MAX_WAIT_S): the connection is
 * suspended meanwhile, holding no thread. An upload's Idempotency-Key (IETF httpapi
 * draft) is remembered with its first answer, per robot: the same key and body again
 * answer that answer (Idempotent-Replayed: true) and store nothing; another body, 422.
 *
 * Event streams and waits are "streams": a response whose content reader suspends its
 * connection while it has nothing to send. A fit's state change resumes the streams of
 * its calibration; a ticker resumes event streams every DAEMON_EVENTS_KEEPALIVE_S for a keep-alive
 * comment (which also notices closed clients) and waits at their deadline.
 */
#include "http/http_calib.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sodium.h>

#include "http/http_calib_work.h"
#include "service/auth.h"
#include "service/body.h"
#include "service/calib.h"
#include "service/calreq.h"
#include "service/service.h"
#include "store/calstore.h"
#include "tunables.h"

static const char *const kind_lists[3] = {"drops", "presses", "trajectories"};

/* ---- streams: event streams and waits ---- */

enum stream_kind { STREAM_EVENTS, STREAM_WAIT };

struct stream {
	struct MHD_Connection *conn;
	struct store *st;
	enum stream_kind kind;
	long long calibration;
	long long last_fit; /* events: id and state of the last fit sent */
	char last_state[16];
	long long target; /* wait: until the calibration's newest fit, >= target, is settled */
	double deadline;  /* wait: monotonic seconds */
	json_t *ack;      /* wait: the answer, its "fit" to be filled; NULL: the calibration */
	int finished;     /* wait: its body is made */
	char *pending;    /* text not yet sent */
	size_t len, off;
	int suspended, keepalive, dirty;
	int gone;                       /* events: the client closed its side while it slept */
	char token_id[AUTH_ID_HEX + 1]; /* events: the token that opened it ("" for none) */
	struct stream *prev, *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* CLOCK_MONOTONIC */
	struct stream *streams;
	struct store *st;
	int stopping, ticker_running;
	pthread_t ticker;
	unsigned char watch_key[crypto_auth_KEYBYTES];
} hub = {.lock = PTHREAD_MUTEX_INITIALIZER};

static double monotonic_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Resume a stream's connection, to look again; the caller holds hub.lock. */
static void wake_stream(struct stream *s)
{
	s->dirty = 1;
	if (s->suspended) {
		s->suspended = 0;
		MHD_resume_connection(s->conn);
	}
}

/*
 * Has the client of a sleeping event stream closed its side? MHD does not watch a
 * suspended connection, so without this a closed client would hold its slot (and its
 * per-address and per-token count) until the next keep-alive. The caller holds
 * hub.lock, under which a suspended connection stays open.
 */
static int client_gone(struct stream *s)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(s->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct pollfd p;
	char byte;

	if (!info)
		return 0;
	p = (struct pollfd){.fd = info->connect_fd, .events = POLLIN | POLLRDHUP};
	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
		return 1;
	/* Readable: end of file, or bytes a stream's client has no reason to send. */
	return recv(info->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static void *ticker(void *arg)
{
	double next_keepalive = monotonic_now() + DAEMON_EVENTS_KEEPALIVE_S;
	struct stream *s;

	(void)arg;
	pthread_mutex_lock(&hub.lock);
	while (!hub.stopping) {
		double now = monotonic_now(), until = next_keepalive;
		struct timespec ts;

		if (now >= next_keepalive) {
			for (s = hub.streams; s; s = s->next)
				if (s->kind == STREAM_EVENTS) {
					s->keepalive = 1;
					wake_stream(s);
				}
			next_keepalive = now + DAEMON_EVENTS_KEEPALIVE_S;
			until = next_keepalive;
		}
		for (s = hub.streams; s; s = s->next) {
			if (s->kind == STREAM_EVENTS && s->suspended && client_gone(s)) {
				s->gone = 1;
				wake_stream(s);
			}
		}
		if (until > now + DAEMON_EVENTS_CLOSE_CHECK_MS / 1000.0)
			until = now + DAEMON_EVENTS_CLOSE_CHECK_MS / 1000.0;
		for (s = hub.streams; s; s = s->next) {
			if (s->kind != STREAM_WAIT || s->finished)
				continue;
			if (s->deadline <= now)
				wake_stream(s);
			else if (s->deadline < until)
				until = s->deadline;
		}
		ts.tv_sec = (time_t)until;
		ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&hub.wake, &hub.lock, &ts);
	}
	pthread_mutex_unlock(&hub.lock);
	return NULL;
}

/* The fits of calibration id changed: wake its streams. */
static void publish(long long id)
{
	struct stream *s;

	pthread_mutex_lock(&hub.lock);
	for (s = hub.streams; s; s = s->next)
		if (s->calibration == id)
			wake_stream(s);
	pthread_mutex_unlock(&hub.lock);
}

/* The state a client sees: pending (queued or running), done or failed. */
static const char *shown_state(const char *state)
{
	return strcmp(state, "done") == 0  ? "done"
	    : strcmp(state, "failed") == 0 ? "failed"
	                                   : "pending";
}

/*
 * The "fit" member of the answers and the events' data: the stored fit with its "state"
 * and "id"; while pending {"state": "pending", "id", "started"}; when failed
 * {"state": "failed", "id", "error": {"error", "message"}}. NULL when out of memory.
 */
static json_t *fit_member(const struct calstore_fit *f)
{
	const char *state = shown_state(f->state);
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

/* The newest fit of calibration id as fit_member(), or JSON null when it has none; its
 * record into *f (caller clears) when f is not NULL. NULL with err on failure. */
static json_t *latest_member(
    struct store *st, long long id, struct calstore_fit *f, struct err *err)
{
	struct calstore_fit local;
	int found;
	json_t *m;

	if (!f)
		f = &local;
	found = calstore_fit_latest(st, id, f, err);
	if (found < 0)
		return NULL;
	m = found ? fit_member(f) : json_null();
	if (!m)
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
	if (f == &local)
		calstore_fit_clear(&local);
	return m;
}

static json_t *calibration_json(struct store *st, long long id, struct err *err);

/* The next text of an events stream, or NULL when there is none. */
static char *next_event(struct stream *s, int keepalive)
{
	struct calstore_fit f;
	struct err err;
	char *text = NULL, *data;
	json_t *m;

	err_clear(&err);
	m = latest_member(s->st, s->calibration, &f, &err);
	if (m && f.id > 0 &&
	    (f.id != s->last_fit || strcmp(shown_state(f.state), s->last_state) != 0)) {
		data = svc_dump(m);
		if (data && asprintf(&text, "event: fit\nid: %lld\ndata: %s\n\n", f.id, data) < 0)
			text = NULL;
		if (text) {
			s->last_fit = f.id;
			snprintf(s->last_state, sizeof s->last_state, "%s", shown_state(f.state));
		}
		free(data);
	}
	json_decref(m);
	calstore_fit_clear(&f);
	if (!text && keepalive)
		text = strdup(": keep-alive\n\n");
	return text;
}

/* A wait's body once its fit is settled, its deadline passed or contactd stops; else NULL. */
static char *next_wait(struct stream *s, int stopping)
{
	struct calstore_fit f;
	struct err err;
	char *text = NULL;
	json_t *m, *body;
	int settled;

	err_clear(&err);
	m = latest_member(s->st, s->calibration, &f, &err);
	settled =
	    !m || f.id == 0 || (f.id >= s->target && strcmp(shown_state(f.state), "pending") != 0);
	if (settled || stopping || monotonic_now() >= s->deadline) {
		if (s->ack) {
			body = json_deep_copy(s->ack);
			if (body && m)
				json_object_set(body, "fit", m);
		} else {
			body = calibration_json(s->st, s->calibration, &err);
		}
		if (!body)
			body = err_to_json(&err);
		text = body ? svc_dump(body) : NULL;
		json_decref(body);
		s->finished = 1;
		if (!text)
			text = strdup("{}");
	}
	json_decref(m);
	calstore_fit_clear(&f);
	return text;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	ssize_t n;

	(void)pos;
	pthread_mutex_lock(&hub.lock);
	for (;;) {
		int keepalive, stopping;
		char *text;

		if (s->gone) {
			pthread_mutex_unlock(&hub.lock);
			return MHD_CONTENT_READER_END_WITH_ERROR; /* MHD closes it, the slot frees
			                                           */
		}
		if (s->pending) {
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
		if ((s->kind == STREAM_WAIT && s->finished) ||
		    (s->kind == STREAM_EVENTS && hub.stopping)) {
			pthread_mutex_unlock(&hub.lock);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		s->dirty = 0;
		keepalive = s->keepalive;
		s->keepalive = 0;
		stopping = hub.stopping;
		pthread_mutex_unlock(&hub.lock);
		/* the store is read without the lock: publish() never waits for it */
		text = s->kind == STREAM_EVENTS ? next_event(s, keepalive) : next_wait(s, stopping);
		pthread_mutex_lock(&hub.lock);
		if (text) {
			s->pending = text;
			s->len = strlen(text);
			s->off = 0;
			continue;
		}
		if (s->dirty)
			continue; /* woken while reading: look again */
		/* nothing to send: sleep until publish(), the ticker or shutdown wakes us */
		s->suspended = 1;
		MHD_suspend_connection(s->conn);
		pthread_mutex_unlock(&hub.lock);
		return 0;
	}
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
	json_decref(s->ack);
	free(s->pending);
	free(s);
}

/* Answer req with stream s (owned from now on) as a response of content_type. */
static enum MHD_Result respond_stream(struct MHD_Connection *conn, struct http_request *req,
    struct stream *s, const char *content_type, const char *extra_name, const char *extra_value)
{
	struct MHD_Response *resp;
	enum MHD_Result r;

	s->conn = conn;
	s->st = req->store;
	resp =
	    MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, s, stream_free);
	if (!resp) {
		json_decref(s->ack);
		free(s);
		return MHD_NO;
	}
	pthread_mutex_lock(&hub.lock);
	s->next = hub.streams;
	if (hub.streams)
		hub.streams->prev = s;
	hub.streams = s;
	pthread_cond_broadcast(&hub.wake); /* the ticker learns of a new deadline */
	pthread_mutex_unlock(&hub.lock);
	MHD_add_response_header(resp, "Content-Type", content_type);
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	if (extra_name)
		MHD_add_response_header(resp, extra_name, extra_value);
	r = http_respond(conn, req, 200, resp);
	MHD_destroy_response(resp);
	return r;
}

static void fit_done(long long id)
{
	publish(id);
}

int http_calib_start(struct store *st, struct err *err)
{
	pthread_condattr_t attr;

	hub.st = st;
	hub.stopping = 0;
	if (sodium_init() < 0 || calstore_secret(st, "watch", hub.watch_key, err) != 0)
		return err->code != ERR_NONE
		    ? -1
		    : err_set(err, ERR_INTERNAL, NULL, "libsodium cannot start");
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&hub.wake, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&hub.ticker, NULL, ticker, NULL) != 0)
		return err_set(err, ERR_INTERNAL, NULL, "cannot start the event-stream ticker");
	hub.ticker_running = 1;
	if (http_calib_work_start(st, fit_done, err) != 0) {
		http_calib_stop();
		return -1;
	}
	return 0;
}

void http_calib_stop(void)
{
	struct stream *s;

	http_calib_work_stop();
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

/* ---- who is asking ---- */

/* Who a bearer token (or the token behind a watch URL) speaks for. */
struct principal {
	char token_id[AUTH_ID_HEX + 1];
	enum calstore_role role;
	char robot[CALSTORE_NAME_MAX]; /* "" for a lab's viewer */
	char lab[CALSTORE_NAME_MAX];   /* a lab viewer's lab */
};

static enum MHD_Result respond_error(
    struct MHD_Connection *conn, struct http_request *req, const struct err *e)
{
	if (e->code == ERR_UNAUTHORIZED || e->code == ERR_FORBIDDEN)
		http_log("calibration: %s %s refused: %s", req->method, req->url, e->message);
	/* RFC 6750: a 401 names the scheme it wants, and whether the token given was bad */
	if (e->code == ERR_UNAUTHORIZED)
		http_add_header(req, "WWW-Authenticate",
		    req->authorization ? "Bearer realm=\"contactd\", error=\"invalid_token\""
		                       : "Bearer realm=\"contactd\"");
	return http_respond_error(conn, req, e);
}

static enum MHD_Result respond_code(
    struct MHD_Connection *conn, struct http_request *req, enum err_code code, const char *message)
{
	struct err err;

	err_set(&err, code, "", "%s", message);
	return respond_error(conn, req, &err);
}

/* The principal of token_id, once its secret (or a watch signature) has been checked. */
static int token_principal(struct store *st, const char *token_id, const char *secret,
    struct principal *p, struct err *err)
{
	struct calstore_token tok;
	long long now = (long long)time(NULL);
	int found = calstore_token_get(st, token_id, &tok, err);

	if (found < 0)
		return -1;
	/* verify even for unknown ids, so the answer takes the same time either way */
	if (found == 0)
		memset(tok.hash, 0, sizeof tok.hash);
	if ((secret && !auth_verify(secret, tok.hash)) || found == 0)
		return err_set(err, ERR_UNAUTHORIZED, NULL, "invalid bearer token %s", token_id);
	if (tok.revoked)
		return err_set(
		    err, ERR_UNAUTHORIZED, NULL, "bearer token %s was revoked", token_id);
	if (tok.expires_at > 0 && tok.expires_at <= now)
		return err_set(
		    err, ERR_UNAUTHORIZED, NULL, "bearer token %s has expired", token_id);
	if (tok.last_used_at < now - CALIB_TOKEN_USE_GRANULARITY_S) {
		struct err ignored;

		/* the use is a hint for the operator: a busy store must not refuse the request */
		if (calstore_token_touch(st, token_id, now, &ignored) != 0)
			http_log("calibration: token %s: %s", token_id, ignored.message);
	}
	snprintf(p->token_id, sizeof p->token_id, "%s", token_id);
	p->role = tok.role;
	snprintf(p->robot, sizeof p->robot, "%s", tok.robot);
	snprintf(p->lab, sizeof p->lab, "%s", tok.lab);
	return 0;
}

/* The principal of the request's bearer token, or ERR_UNAUTHORIZED. */
static int authenticate(struct http_request *req, struct principal *p, struct err *err)
{
	char id[AUTH_ID_HEX + 1], secret[AUTH_SECRET_HEX + 1];
	int rc;

	if (auth_bearer_parse(req->authorization, id, secret, err) != 0)
		return -1;
	rc = token_principal(req->store, id, secret, p, err);
	sodium_memzero(secret, sizeof secret);
	return rc;
}

/* May p read the calibrations of robot owner, of lab owner_lab ("" none)? */
static int can_see(const struct principal *p, const char *owner, const char *owner_lab)
{
	if (p->robot[0])
		return strcmp(p->robot, owner) == 0;
	return owner_lab[0] && strcmp(p->lab, owner_lab) == 0;
}

/* May p write robot owner's calibrations? ERR_FORBIDDEN for a viewer who can see them. */
static int can_write(const struct principal *p, const char *owner, struct err *err)
{
	if (p->role == CALSTORE_ROBOT && strcmp(p->robot, owner) == 0)
		return 0;
	return err_set(err, ERR_FORBIDDEN, NULL, "a viewer's token is read-only");
}

/* The calibration if p can see it (owner filled, *setup its text when setup is not NULL,
 * caller frees), else ERR_NOT_FOUND, the same as for an id that does not exist. */
static int find_visible(struct http_request *req, const struct principal *p, long long id,
    char owner[CALSTORE_NAME_MAX], char **setup, struct err *err)
{
	char lab[CALSTORE_NAME_MAX];
	int found = calstore_calibration_get(req->store, id, owner, lab, setup, err);

	if (found < 0)
		return -1;
	if (found == 0 || !can_see(p, owner, lab)) {
		if (setup) {
			free(*setup);
			*setup = NULL;
		}
		return err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
	}
	return 0;
}

/* A robot's routes: ERR_NOT_FOUND unless p can see robot. */
static int robot_visible(
    struct http_request *req, const struct principal *p, const char *robot, struct err *err)
{
	char lab[CALSTORE_NAME_MAX] = "";

	if (p->robot[0] && strcmp(p->robot, robot) == 0)
		return 0;
	if (!p->robot[0] && calstore_robot_lab(req->store, robot, lab, err) < 0)
		return -1;
	if (can_see(p, robot, lab))
		return 0;
	return err_set(err, ERR_NOT_FOUND, NULL, "no robot %s", robot);
}

static int parse_body(struct http_request *req, json_t **root, struct err *err)
{
	if (!http_body_is_json(req->content_type))
		return err_set(err, ERR_UNSUPPORTED_MEDIA, "",
		    "the body must be application/json, not %s", req->content_type);
	return body_parse(req->body, req->body_len, root, err);
}

/*
 * How long the client wants to wait for a fit, from ?wait=SECONDS or "Prefer: wait=SECONDS"
 * (RFC 7240), at most CALIB_MAX_WAIT_S: 0 when it asks for none. A malformed ?wait is
 * ERR_BAD_VALUE; a malformed preference is ignored, as preferences may be.
 */
static int wait_seconds(struct MHD_Connection *conn, double *wait, int *preferred, struct err *err)
{
	const char *arg = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "wait");
	const char *prefer = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Prefer");
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

/* Answer ack (its "fit" the newest fit) now, or, with a wait, once fit fit_id is settled. */
static enum MHD_Result respond_fit(struct MHD_Connection *conn, struct http_request *req,
    long long id, long long fit_id, json_t *ack, double wait, int preferred)
{
	struct stream *s;
	struct err err;
	char applied[48];
	json_t *m;
	enum MHD_Result r;

	err_clear(&err);
	if (wait <= 0) {
		r = http_respond_json(conn, req, 200, ack);
		json_decref(ack);
		return r;
	}
	s = calloc(1, sizeof *s);
	if (!s) {
		json_decref(ack);
		return respond_code(conn, req, ERR_INTERNAL, "out of memory");
	}
	s->kind = STREAM_WAIT;
	s->calibration = id;
	s->target = fit_id;
	s->deadline = monotonic_now() + wait;
	s->ack = ack;
	if (!ack) {
		/* a wait on the calibration: for its newest fit, if one is pending */
		m = latest_member(req->store, id, NULL, &err);
		s->target = json_is_object(m) ? json_integer_value(json_object_get(m, "id")) : 0;
		json_decref(m);
	}
	snprintf(applied, sizeof applied, "wait=%g", wait);
	return respond_stream(
	    conn, req, s, "application/json", preferred ? "Preference-Applied" : NULL, applied);
}

/* ---- the routes ---- */

struct setup_ctx {
	json_t *canon;
};

/* calstore_setup_fn: the canonical setup with its class, named after the id when not given. */
static char *setup_with_class(long long id, void *p)
{
	struct setup_ctx *c = p;
	char cls[CALREQ_CLASS_MAX];

	if (!json_object_get(c->canon, "class")) {
		snprintf(cls, sizeof cls, "%s%lld", CALIB_DEFAULT_CLASS_PREFIX, id);
		if (json_object_set_new(c->canon, "class", json_string(cls)) != 0)
			return NULL;
	}
	return svc_dump(c->canon);
}

static enum MHD_Result create_calibration(
    struct MHD_Connection *conn, struct http_request *req, const char *robot)
{
	struct principal p;
	struct err err;
	struct calreq_setup setup;
	struct setup_ctx ctx = {NULL};
	json_t *body = NULL, *answer = NULL;
	long long id;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 || robot_visible(req, &p, robot, &err) != 0 ||
	    can_write(&p, robot, &err) != 0 || parse_body(req, &body, &err) != 0 ||
	    calreq_setup_parse(body, &setup, &ctx.canon, &err) != 0 ||
	    calstore_calibration_create(req->store, robot, setup_with_class, &ctx, &id, &err) != 0)
		goto fail;
	answer = json_pack("{s:I, s:s, s:O, s:n}", "id", (json_int_t)id, "robot", robot, "setup",
	    ctx.canon, "fit");
	r = answer ? http_respond_json(conn, req, 201, answer)
	           : respond_code(conn, req, ERR_INTERNAL, "out of memory");
	goto out;
fail:
	r = respond_error(conn, req, &err);
out:
	json_decref(answer);
	json_decref(ctx.canon);
	json_decref(body);
	return r;
}

static enum MHD_Result list_calibrations(
    struct MHD_Connection *conn, struct http_request *req, const char *robot)
{
	struct principal p;
	struct err err;
	json_t *list = NULL, *answer, *row;
	size_t i;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 || robot_visible(req, &p, robot, &err) != 0 ||
	    calstore_calibration_list(req->store, robot, &list, &err) != 0)
		return respond_error(conn, req, &err);
	/* each row's fit as the other answers show it */
	json_array_foreach (list, i, row) {
		json_t *id = json_object_get(row, "fit_id"), *m = json_null();

		if (json_is_integer(id)) {
			struct calstore_fit f = {0};
			char *text = svc_dump(json_object_get(row, "fit"));

			f.id = json_integer_value(id);
			snprintf(f.state, sizeof f.state, "%s",
			    json_string_value(json_object_get(row, "fit_state")));
			f.started_at = json_is_true(json_object_get(row, "fit_started"));
			f.text = text;
			m = fit_member(&f);
			free(text);
		}
		json_object_set_new(row, "fit", m ? m : json_null());
		json_object_del(row, "fit_state");
		json_object_del(row, "fit_started");
	}
	answer = json_pack("{s:s, s:o}", "robot", robot, "calibrations", list);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

/* The limits of one calibration (calstore_check_fn): every measurement it would hold. */
static int check_limits(const json_t *all, void *ctx, struct err *err)
{
	const json_t *trajs = json_object_get(all, "trajectories"), *tr;
	struct calreq_data data;
	size_t samples = 0, i;
	int rc;

	(void)ctx;
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
	for (k = 0; k < 3; k++)
		json_object_set_new(json_object_get(ack, "accepted"), kind_lists[k],
		    json_integer(
		        (json_int_t)json_array_size(json_object_get(r->ids, kind_lists[k]))));
	return ack;
}

struct upload_ctx {
	long long id;
};

/* calstore_answer_fn: the first answer, kept with its Idempotency-Key. */
static char *answer_text(const struct calstore_receipt *r, void *p)
{
	const struct upload_ctx *c = p;
	json_t *ack = upload_ack(c->id, r);
	char *text = ack ? svc_dump(ack) : NULL;

	json_decref(ack);
	return text;
}

/*
 * The Idempotency-Key header into idem (absent: 0, nothing set): an sf-string ("...",
 * RFC 8941) or, leniently, the bare text, of 1 to CALIB_IDEMPOTENCY_KEY_MAX printable
 * ASCII characters; 1 when given, -1 with ERR_BAD_TYPE when malformed.
 */
static int idempotency_key(struct MHD_Connection *conn, char *key, size_t size, struct err *err)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Idempotency-Key");
	size_t n = 0;

	if (!v)
		return 0;
	if (*v == '"') {
		for (v++; *v && *v != '"'; v++) {
			if (*v == '\\' && (v[1] == '"' || v[1] == '\\'))
				v++;
			if (n + 1 >= size || (unsigned char)*v < 0x20 || (unsigned char)*v > 0x7e)
				break;
			key[n++] = *v;
		}
		if (*v != '"' || v[1])
			n = 0;
	} else {
		for (; *v && n + 1 < size && (unsigned char)*v > 0x20 && (unsigned char)*v <= 0x7e;
		     v++)
			key[n++] = *v;
		if (*v)
			n = 0;
	}
	key[n] = '\0';
	if (n == 0 || n > CALIB_IDEMPOTENCY_KEY_MAX)
		return err_set(err, ERR_BAD_TYPE, "",
		    "Idempotency-Key must be a quoted string of 1 to %d printable characters",
		    CALIB_IDEMPOTENCY_KEY_MAX);
	return 1;
}

static enum MHD_Result upload(struct MHD_Connection *conn, struct http_request *req, long long id)
{
	struct principal p;
	struct err err;
	struct calreq_setup setup;
	struct calstore_receipt receipt = {0};
	struct calstore_idem idem;
	struct upload_ctx ctx = {id};
	char owner[CALSTORE_NAME_MAX], key[CALIB_IDEMPOTENCY_KEY_MAX + 2], *setup_text = NULL;
	char *up_text = NULL, id_text[32];
	json_t *body = NULL, *up = NULL, *setup_json = NULL, *ack;
	double wait;
	int preferred, has_key;
	enum MHD_Result r;

	err_clear(&err);
	/* authenticate before telling whether the calibration exists */
	if (authenticate(req, &p, &err) != 0 ||
	    find_visible(req, &p, id, owner, &setup_text, &err) != 0 ||
	    can_write(&p, owner, &err) != 0 || wait_seconds(conn, &wait, &preferred, &err) != 0 ||
	    (has_key = idempotency_key(conn, key, sizeof key, &err)) < 0 ||
	    parse_body(req, &body, &err) != 0)
		goto fail;
	setup_json = json_loads(setup_text, 0, NULL);
	if (!setup_json) {
		err_set(&err, ERR_INTERNAL, NULL, "stored setup is not JSON");
		goto fail;
	}
	if (calreq_setup_parse(setup_json, &setup, NULL, &err) != 0 ||
	    calreq_upload_parse(body, &setup, &up, &err) != 0)
		goto fail;
	if (has_key) {
		crypto_generichash_state h;

		up_text = svc_dump(up);
		if (!up_text) {
			err_set(&err, ERR_INTERNAL, NULL, "out of memory");
			goto fail;
		}
		/* the same key with the same upload to the same calibration is a retry */
		snprintf(id_text, sizeof id_text, "%lld", id);
		crypto_generichash_init(&h, NULL, 0, CALSTORE_HASH_BYTES);
		crypto_generichash_update(&h, (const unsigned char *)id_text, strlen(id_text) + 1);
		crypto_generichash_update(&h, (const unsigned char *)up_text, strlen(up_text));
		crypto_generichash_final(&h, idem.fingerprint, CALSTORE_HASH_BYTES);
		idem.key = key;
		idem.ttl_s = CALIB_IDEMPOTENCY_TTL_S;
	}
	if (calstore_upload(req->store, id, up, has_key ? &idem : NULL, check_limits, answer_text,
	        &ctx, &receipt, &err) != 0)
		goto fail;
	if (receipt.replay) {
		struct MHD_Response *resp = MHD_create_response_from_buffer(
		    strlen(receipt.replay), receipt.replay, MHD_RESPMEM_MUST_COPY);

		if (!resp) {
			r = MHD_NO;
			goto out;
		}
		MHD_add_response_header(resp, "Content-Type", "application/json");
		MHD_add_response_header(resp, "Idempotent-Replayed", "true");
		r = http_respond(conn, req, 200, resp);
		MHD_destroy_response(resp);
		goto out;
	}
	http_calib_work_queue(id);
	publish(id);
	ack = upload_ack(id, &receipt);
	r = ack ? respond_fit(conn, req, id, receipt.fit_id, ack, wait, preferred)
	        : respond_code(conn, req, ERR_INTERNAL, "out of memory");
	goto out;
fail:
	r = respond_error(conn, req, &err);
out:
	calstore_receipt_clear(&receipt);
	free(up_text);
	free(setup_text);
	json_decref(setup_json);
	json_decref(up);
	json_decref(body);
	return r;
}

/* DELETE of one measurement (measurement_id) or one upload (upload_id). */
static enum MHD_Result delete_measurements(struct MHD_Connection *conn, struct http_request *req,
    long long id, long long measurement_id, long long upload_id)
{
	struct principal p;
	struct err err;
	char owner[CALSTORE_NAME_MAX];
	json_t *deleted = NULL, *ack;
	long long fit_id;
	double wait;
	int preferred;

	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 || find_visible(req, &p, id, owner, NULL, &err) != 0 ||
	    can_write(&p, owner, &err) != 0 || wait_seconds(conn, &wait, &preferred, &err) != 0 ||
	    calstore_delete(req->store, id, measurement_id, upload_id, &deleted, &fit_id, &err) !=
	        0)
		return respond_error(conn, req, &err);
	http_calib_work_queue(id);
	publish(id);
	ack = fit_ack(id, fit_id);
	if (!ack || json_object_set_new(ack, "deleted", deleted) != 0) {
		json_decref(ack);
		return respond_code(conn, req, ERR_INTERNAL, "out of memory");
	}
	return respond_fit(conn, req, id, fit_id, ack, wait, preferred);
}

/* The calibration as GET shows it: setup, measurements with ids, the newest fit. */
static json_t *calibration_json(struct store *st, long long id, struct err *err)
{
	char owner[CALSTORE_NAME_MAX], *setup_text = NULL;
	json_t *all = NULL, *m = NULL, *answer = NULL, *setup;

	if (calstore_calibration_get(st, id, owner, NULL, &setup_text, err) != 1) {
		if (err->code == ERR_NONE)
			err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
		return NULL;
	}
	setup = json_loads(setup_text, 0, NULL);
	free(setup_text);
	if (calstore_measurements(st, id, &all, err) == 0 && (m = latest_member(st, id, NULL, err)))
		answer = json_pack("{s:I, s:s, s:o, s:O, s:O, s:o}", "id", (json_int_t)id, "robot",
		    owner, "setup", setup ? setup : json_null(), "measurements", all, "fit", m,
		    "fit_id",
		    json_is_object(m) ? json_incref(json_object_get(m, "id")) : json_null());
	else
		json_decref(setup);
	if (!answer && err->code == ERR_NONE)
		err_set(err, ERR_INTERNAL, NULL, "out of memory");
	json_decref(all);
	json_decref(m);
	return answer;
}

static enum MHD_Result show(struct MHD_Connection *conn, struct http_request *req, long long id)
{
	struct principal p;
	struct err err;
	char owner[CALSTORE_NAME_MAX];
	json_t *answer;
	double wait;
	int preferred;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 || find_visible(req, &p, id, owner, NULL, &err) != 0 ||
	    wait_seconds(conn, &wait, &preferred, &err) != 0)
		return respond_error(conn, req, &err);
	if (wait > 0)
		return respond_fit(conn, req, id, 0, NULL, wait, preferred);
	answer = calibration_json(req->store, id, &err);
	if (!answer)
		return respond_error(conn, req, &err);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

static enum MHD_Result list_measurements(
    struct MHD_Connection *conn, struct http_request *req, long long id)
{
	struct principal p;
	struct err err;
	char owner[CALSTORE_NAME_MAX];
	json_t *all = NULL, *answer;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 || find_visible(req, &p, id, owner, NULL, &err) != 0 ||
	    calstore_measurements(req->store, id, &all, &err) != 0)
		return respond_error(conn, req, &err);
	answer = json_pack("{s:I, s:o}", "calibration", (json_int_t)id, "measurements", all);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

/* The MAC of a watch URL: calibration id, the token it was made for, its expiry. */
static void watch_mac(
    long long id, const char *token_id, long long expires, unsigned char mac[crypto_auth_BYTES])
{
	char message[96];
	int n =
	    snprintf(message, sizeof message, "contactd-watch:%lld:%s:%lld", id, token_id, expires);

	crypto_auth(mac, (const unsigned char *)message, (unsigned long long)n, hub.watch_key);
}

/* The principal behind a watch parameter "<expires>.<token id>.<mac hex>" for calibration
 * id, if its signature holds, it has not expired and its token is still valid. */
static int watch_principal(
    struct http_request *req, const char *watch, long long id, struct principal *p, struct err *err)
{
	unsigned char mac[crypto_auth_BYTES], given[crypto_auth_BYTES];
	char token_id[AUTH_ID_HEX + 1];
	long long expires;
	int used = 0;
	size_t bin = 0;

	if (sscanf(watch, "%lld.%16[0-9a-f].%n", &expires, token_id, &used) != 2 || used == 0 ||
	    strlen(token_id) != AUTH_ID_HEX ||
	    sodium_hex2bin(
	        given, sizeof given, watch + used, strlen(watch + used), NULL, &bin, NULL) != 0 ||
	    bin != sizeof given)
		return err_set(err, ERR_UNAUTHORIZED, NULL, "malformed watch URL");
	watch_mac(id, token_id, expires, mac);
	if (crypto_verify_32(mac, given) != 0)
		return err_set(
		    err, ERR_UNAUTHORIZED, NULL, "the watch URL's signature does not hold");
	if (expires <= (long long)time(NULL))
		return err_set(err, ERR_UNAUTHORIZED, NULL, "the watch URL has expired");
	return token_principal(req->store, token_id, NULL, p, err);
}

static enum MHD_Result watch(struct MHD_Connection *conn, struct http_request *req, long long id)
{
	struct principal p;
	struct err err;
	char owner[CALSTORE_NAME_MAX], url[256], hex[2 * crypto_auth_BYTES + 1];
	unsigned char mac[crypto_auth_BYTES];
	long long expires = (long long)time(NULL) + CALIB_WATCH_TTL_S;
	json_t *answer;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 || find_visible(req, &p, id, owner, NULL, &err) != 0)
		return respond_error(conn, req, &err);
	watch_mac(id, p.token_id, expires, mac);
	sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
	snprintf(url, sizeof url, "/v1/calibrations/%lld/events?watch=%lld.%s.%s", id, expires,
	    p.token_id, hex);
	answer = json_pack("{s:s, s:i}", "url", url, "expires_in", CALIB_WATCH_TTL_S);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

/* Open event streams of token token_id; the caller holds hub.lock. */
static int token_streams(const char *token_id)
{
	const struct stream *s;
	int n = 0;

	for (s = hub.streams; s; s = s->next)
		n += s->kind == STREAM_EVENTS && strcmp(s->token_id, token_id) == 0;
	return n;
}

static enum MHD_Result events(struct MHD_Connection *conn, struct http_request *req, long long id)
{
	const char *w = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "watch");
	struct principal p;
	struct err err;
	char owner[CALSTORE_NAME_MAX];
	struct stream *s;
	int open;

	err_clear(&err);
	if ((w && !req->authorization ? watch_principal(req, w, id, &p, &err)
	                              : authenticate(req, &p, &err)) != 0 ||
	    find_visible(req, &p, id, owner, NULL, &err) != 0)
		return respond_error(conn, req, &err);
	/* One token cannot hold every connection with streams (counted, then opened: two
	 * racing requests may both pass, which bounds it all the same). */
	pthread_mutex_lock(&hub.lock);
	open = token_streams(p.token_id);
	pthread_mutex_unlock(&hub.lock);
	if (open >= DAEMON_EVENTS_PER_TOKEN) {
		err_set(&err, ERR_UNAVAILABLE, NULL,
		    "this token has %d event streams open; close one first", open);
		return respond_error(conn, req, &err);
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return respond_code(conn, req, ERR_INTERNAL, "out of memory");
	s->kind = STREAM_EVENTS;
	s->calibration = id;
	snprintf(s->token_id, sizeof s->token_id, "%s", p.token_id);
	return respond_stream(conn, req, s, "text/event-stream", NULL, NULL);
}

/* Parse a decimal id (1.. LLONG_MAX) ending at the end or at '/'. */
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

/* 405 naming the methods of the route (static string). */
static enum MHD_Result not_allowed(
    struct MHD_Connection *conn, struct http_request *req, const char *allow)
{
	struct err err;

	http_add_header(req, "Allow", allow);
	err_set(&err, ERR_METHOD, "", "%s takes %s, not %s", req->url, allow, req->method);
	return respond_error(conn, req, &err);
}

int http_calib_route(struct MHD_Connection *conn, struct http_request *req, enum MHD_Result *result)
{
	static const char robots[] = "/v1/robots/", calibs[] = "/v1/calibrations/";
	const char *url = req->url, *rest, *m = req->method;
	int post = strcmp(m, "POST") == 0, get = strcmp(m, "GET") == 0;
	int del = strcmp(m, "DELETE") == 0;
	long long id, sub;

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
		*result = post ? create_calibration(conn, req, robot)
		    : get      ? list_calibrations(conn, req, robot)
		               : not_allowed(conn, req, "GET, POST");
		return 1;
	}
	if (strncmp(url, calibs, sizeof calibs - 1) != 0 ||
	    parse_id(url + sizeof calibs - 1, &id, &rest) != 0)
		return 0;
	if (strcmp(rest, "") == 0) {
		req->route = "calibration";
		*result = get ? show(conn, req, id) : not_allowed(conn, req, "GET");
	} else if (strcmp(rest, "/measurements") == 0) {
		req->route = "measurements";
		*result = post ? upload(conn, req, id)
		    : get      ? list_measurements(conn, req, id)
		               : not_allowed(conn, req, "GET, POST");
	} else if (strncmp(rest, "/measurements/", 14) == 0 &&
	    parse_id(rest + 14, &sub, &url) == 0 && !*url) {
		req->route = "measurement";
		*result = del ? delete_measurements(conn, req, id, sub, 0)
		              : not_allowed(conn, req, "DELETE");
	} else if (strncmp(rest, "/uploads/", 9) == 0 && parse_id(rest + 9, &sub, &url) == 0 &&
	    !*url) {
		req->route = "upload";
		*result = del ? delete_measurements(conn, req, id, 0, sub)
		              : not_allowed(conn, req, "DELETE");
	} else if (strcmp(rest, "/events") == 0) {
		req->route = "events";
		*result = get ? events(conn, req, id) : not_allowed(conn, req, "GET");
	} else if (strcmp(rest, "/watch") == 0) {
		req->route = "watch";
		*result = post ? watch(conn, req, id) : not_allowed(conn, req, "POST");
	} else {
		return 0;
	}
	return 1;
}

/* ---- contactd token ... ---- */

static const char token_usage[] =
    "usage: contactd token create ROBOT [--lab LAB] [--expires SECONDS]\n"
    "       contactd token create --viewer ROBOT | --viewer --lab LAB [--expires SECONDS]\n"
    "       contactd token rotate TOKEN_ID [--expires SECONDS] [--grace SECONDS]\n"
    "       contactd token revoke TOKEN_ID\n"
    "       contactd token list\n"
    "create and rotate print the token labelled, list a table with ISO 8601 times (UTC);\n"
    "--json prints either as one JSON object (times in Unix seconds), for scripts\n";

/* The id part of a token id or of a whole token (never its secret) into id, or -1. */
static int token_id_arg(const char *arg, char id[AUTH_ID_HEX + 1])
{
	size_t n = strcspn(arg, ".");
	size_t i;

	if (n != AUTH_ID_HEX)
		return -1;
	for (i = 0; i < n; i++)
		if (!((arg[i] >= '0' && arg[i] <= '9') || (arg[i] >= 'a' && arg[i] <= 'f')))
			return -1;
	memcpy(id, arg, AUTH_ID_HEX);
	id[AUTH_ID_HEX] = '\0';
	return 0;
}

/* A new token, shown once: labelled for people, or {"id", "token"} with as_json. */
static void token_print_secret(const struct auth_token *tok, int as_json)
{
	if (as_json)
		printf("{\"id\":\"%s\",\"token\":\"%s\"}\n", tok->id, tok->text);
	else
		printf("token: %s\n"
		       "       the bearer token (Authorization: Bearer TOKEN), shown this once:\n"
		       "       only its hash is stored\n"
		       "id:    %s\n",
		    tok->text, tok->id);
}

/* A time in Unix seconds as ISO 8601 UTC ("2026-12-02T04:20:00Z"), or empty_text for
 * null. Returns buf. */
static const char *token_time_text(const json_t *when, const char *empty_text, char buf[32])
{
	time_t t;
	struct tm tm;

	if (!json_is_integer(when))
		return empty_text;
	t = (time_t)json_integer_value(when);
	if (!gmtime_r(&t, &tm) || strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, 32, "%lld", (long long)t);
	return buf;
}

/* calstore_token_list's tokens: one line each under a header, times in ISO 8601 (UTC),
 * "-" for none; or as_json, the list as stored (times in Unix seconds). */
static int token_print_list(const json_t *list, int as_json)
{
	const json_t *t;
	char created[32], expires[32], used[32], revoked[32], *text;
	size_t i;

	if (as_json) {
		text = svc_dump(list);
		if (text)
			fputs(text, stdout);
		free(text);
		return text ? 0 : -1;
	}
	printf("%-16s  %-6s  %-16s  %-12s  %-20s  %-20s  %-20s  %-20s  %s\n", "ID", "ROLE", "ROBOT",
	    "LAB", "CREATED", "EXPIRES", "LAST USED", "REVOKED", "REPLACES");
	json_array_foreach (list, i, t) {
		const char *robot = json_string_value(json_object_get(t, "robot"));
		const char *lab = json_string_value(json_object_get(t, "lab"));
		const char *replaces = json_string_value(json_object_get(t, "replaces"));

		printf("%-16s  %-6s  %-16s  %-12s  %-20s  %-20s  %-20s  %-20s  %s\n",
		    json_string_value(json_object_get(t, "id")),
		    json_string_value(json_object_get(t, "role")), robot ? robot : "-",
		    lab ? lab : "-",
		    token_time_text(json_object_get(t, "created_at"), "-", created),
		    token_time_text(json_object_get(t, "expires_at"), "never", expires),
		    token_time_text(json_object_get(t, "last_used_at"), "-", used),
		    token_time_text(json_object_get(t, "revoked_at"), "-", revoked),
		    replaces ? replaces : "-");
	}
	if (json_array_size(list) == 0)
		printf("(no tokens)\n");
	return 0;
}

/* A whole number of seconds, 1 .. 100 years. */
static int seconds_arg(const char *arg, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 3155760000LL)
		return -1;
	*out = v;
	return 0;
}

int http_calib_token_command(int argc, char **argv, const char *db_path)
{
	struct store *st = NULL;
	struct auth_token tok;
	struct err err;
	json_t *list = NULL;
	const char *robot = NULL, *lab = NULL, *verb = argc > 1 ? argv[1] : "";
	char id[AUTH_ID_HEX + 1] = "";
	long long expires = 0, grace = 0, now = (long long)time(NULL);
	int viewer = 0, i, rc = 1, has_expires = 0, as_json = 0;

	err_clear(&err);
	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--viewer") == 0) {
			viewer = 1;
		} else if (strcmp(argv[i], "--json") == 0) {
			as_json = 1;
		} else if (strcmp(argv[i], "--lab") == 0 && i + 1 < argc) {
			lab = argv[++i];
		} else if (strcmp(argv[i], "--expires") == 0 && i + 1 < argc) {
			if (seconds_arg(argv[++i], &expires) != 0)
				goto usage;
			has_expires = 1;
		} else if (strcmp(argv[i], "--grace") == 0 && i + 1 < argc) {
			if (seconds_arg(argv[++i], &grace) != 0)
				goto usage;
		} else if (argv[i][0] != '-' && !robot) {
			robot = argv[i];
		} else {
			goto usage;
		}
	}
	if (strcmp(verb, "list") == 0 ? robot || lab || viewer
	        : strcmp(verb, "create") == 0
	        ? (!robot && !(viewer && lab)) || (viewer && robot && lab)
	        : strcmp(verb, "rotate") == 0 || strcmp(verb, "revoke") == 0
	        ? !robot || lab || viewer
	        : 1)
		goto usage;
	if ((strcmp(verb, "rotate") == 0 || strcmp(verb, "revoke") == 0) &&
	    token_id_arg(robot, id) != 0) {
		/* never echo the argument: it may be a whole token, secret and all */
		fprintf(stderr, "contactd: token: not a token id (16 hex digits)\n");
		return 2;
	}
	if ((robot && strcmp(verb, "create") == 0 && !auth_robot_name_ok(robot)) ||
	    (lab && !auth_robot_name_ok(lab))) {
		fprintf(
		    stderr, "contactd: token: robot and lab names are 1-64 of A-Z a-z 0-9 _ . -\n");
		return 2;
	}
	if (store_open(db_path, &st, &err) != 0)
		goto out;
	if (strcmp(verb, "create") == 0 || strcmp(verb, "rotate") == 0) {
		if (auth_token_new(&tok, &err) != 0)
			goto out;
		if (strcmp(verb, "create") == 0
		        ? calstore_token_create(st, viewer ? CALSTORE_VIEWER : CALSTORE_ROBOT,
		              viewer && lab ? NULL : robot, lab, has_expires ? now + expires : 0,
		              tok.id, tok.hash, &err) != 0
		        : calstore_token_rotate(st, id, tok.id, tok.hash,
		              has_expires ? now + expires : 0, now + grace, &err) != 0) {
			sodium_memzero(&tok, sizeof tok);
			goto out;
		}
		/* shown once: only its hash is stored */
		token_print_secret(&tok, as_json);
		fflush(stdout);
		sodium_memzero(&tok, sizeof tok);
		rc = 0;
	} else if (strcmp(verb, "revoke") == 0) {
		if (calstore_token_revoke(st, id, &err) != 0)
			goto out;
		printf("revoked %s\n", id);
		rc = 0;
	} else {
		if (calstore_token_list(st, &list, &err) != 0)
			goto out;
		rc = token_print_list(list, as_json) == 0 ? 0 : 1;
	}
out:
	if (rc == 1 && err.code != ERR_NONE)
		fprintf(stderr, "contactd: token: %s\n", err.message);
	json_decref(list);
	store_close(st);
	return rc;
usage:
	fputs(token_usage, stderr);
	return 2;
}
