/*
 * http_calib.c: the calibration service's handlers (see http_calib.h for the seam): headers,
 * requests to the values of the calibration layer's use cases (src/calib/cases.h) and their
 * results to responses, and streaming. The use cases, the token policy, watch URLs and the
 * fit workers are the layer's; the routes are rows of the daemon's one table (routes.c);
 * errors map to statuses and headers in one place (status.h).
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
 * Every route needs "Authorization: Bearer <id>.<secret>" (401 with WWW-Authenticate:
 * Bearer otherwise) or, for the events only, a watch URL's signature (src/calib/token.h
 * says who may do what).
 *
 * Fits never run here: an upload or a deletion commits durably and answers at once with
 * the fit pending. ?wait=SECONDS or Prefer: wait=SECONDS answers when the fit is done
 * instead (at most CALIB_MAX_WAIT_S): the connection is suspended meanwhile, holding no
 * thread.
 *
 * Event streams and waits are "streams": a response whose content reader suspends its
 * connection while it has nothing to send. A fit's state change (a CALEVENT_FIT of
 * src/calib/events.h) resumes the streams of its calibration; a ticker resumes event streams
 * every DAEMON_EVENTS_KEEPALIVE_S for a keep-alive comment (which also notices closed
 * clients) and waits at their deadline. Every CALIB_STREAM_CHECK_MS the ticker also reads the
 * state of each open event stream's token from the store (so a revocation by the `contactd
 * token` command, another process, is seen) and looks at its watch URL's expiry: a stream
 * whose token was revoked, expired or rotated past its grace, or whose watch URL expired,
 * gets a last event, "event: closed" with data {"reason": ...}, and ends.
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

#include "calib/audit.h"
#include "calib/cases.h"
#include "calib/events.h"
#include "calib/idem.h"
#include "calib/log.h"
#include "calib/token.h"
#include "calib/watch.h"
#include "calib/work.h"
#include "http/log.h"
#include "http/status.h"
#include "base/body.h"
#include "service/service.h"
#include "tunables.h"

/* ---- streams: event streams and waits ---- */

enum stream_kind { STREAM_EVENTS, STREAM_WAIT };

struct stream {
	struct MHD_Connection *conn;
	enum stream_kind kind;
	long long calibration;
	long long last_fit; /* events: id and state of the last fit sent */
	char last_state[16];
	long long target; /* wait: until the calibration's newest fit, >= target, is settled */
	double deadline;  /* wait: monotonic seconds */
	json_t *ack;      /* wait: the answer, its "fit" to be filled; NULL: the calibration */
	struct caltoken_principal who; /* wait: who asked (to show the calibration) */
	int finished;                  /* wait: its body is made; events: its closing event is */
	char *pending;                 /* text not yet sent */
	size_t len, off;
	int suspended, keepalive, dirty;
	int gone;                       /* events: the client closed its side while it slept */
	char token_id[AUTH_ID_HEX + 1]; /* events: the token that opened it ("" for none) */
	long long watch_expires;        /* events: its watch URL's expiry (Unix s); 0: none */
	const char *closing;            /* events: why it must end (a static string), or NULL */
	struct stream *prev, *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* CLOCK_MONOTONIC */
	struct stream *streams;
	struct calstore *cs;           /* the daemon's store, as the calibration layer sees it */
	struct http_calib_store store; /* it, and what /v1/health says of it */
	int stopping, ticker_running, check_now, subscribed, subscription;
	pthread_t ticker;
	struct calwatch watch; /* valid once watch_ready: loaded from the store on first need */
	int watch_ready;
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

/* End event stream s with a last event naming reason (static); the caller holds hub.lock. */
static void close_stream(struct stream *s, const char *reason)
{
	if (s->kind != STREAM_EVENTS || s->closing)
		return;
	s->closing = reason;
	wake_stream(s);
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

/*
 * Close the event streams whose watch URL expired or whose token is no longer valid. The
 * caller holds hub.lock; it is let go while the store is read (one read per token, not per
 * stream), so nothing of the list is kept across that but token ids.
 */
static void check_streams(void)
{
	long long now = (long long)time(NULL);
	char(*ids)[AUTH_ID_HEX + 1] = NULL;
	const char **reasons = NULL;
	size_t n = 0, cap = 0, i;
	struct stream *s;

	for (s = hub.streams; s; s = s->next) {
		if (s->kind != STREAM_EVENTS || s->closing)
			continue;
		if (s->watch_expires > 0 && s->watch_expires <= now) {
			close_stream(s, "watch_expired");
			continue;
		}
		for (i = 0; i < n && strcmp(ids[i], s->token_id) != 0; i++)
			;
		if (i < n)
			continue;
		if (n == cap) {
			size_t grown_cap = cap ? 2 * cap : 16;
			void *grown = realloc(ids, grown_cap * sizeof *ids);

			if (!grown)
				break; /* the rest at the next check */
			ids = grown;
			cap = grown_cap;
		}
		snprintf(ids[n++], sizeof *ids, "%s", s->token_id);
	}
	if (n == 0 || !(reasons = calloc(n, sizeof *reasons))) {
		free(ids);
		return;
	}
	pthread_mutex_unlock(&hub.lock);
	for (i = 0; i < n; i++)
		reasons[i] = caltoken_close_reason(hub.cs, ids[i], now);
	pthread_mutex_lock(&hub.lock);
	for (s = hub.streams; s; s = s->next)
		for (i = 0; i < n; i++)
			if (reasons[i] && s->kind == STREAM_EVENTS &&
			    strcmp(ids[i], s->token_id) == 0)
				close_stream(s, reasons[i]);
	free(reasons);
	free(ids);
}

static void *ticker(void *arg)
{
	double next_keepalive = monotonic_now() + DAEMON_EVENTS_KEEPALIVE_S;
	double next_check = monotonic_now() + CALIB_STREAM_CHECK_MS / 1000.0;
	struct stream *s;

	(void)arg;
	pthread_mutex_lock(&hub.lock);
	while (!hub.stopping) {
		double now = monotonic_now(), until = next_keepalive;
		struct timespec ts;

		if (now >= next_check || hub.check_now) {
			hub.check_now = 0;
			check_streams();
			now = monotonic_now();
			next_check = now + CALIB_STREAM_CHECK_MS / 1000.0;
		}
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
		if (until > next_check)
			until = next_check;
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
		if (!hub.check_now)
			pthread_cond_timedwait(&hub.wake, &hub.lock, &ts);
	}
	pthread_mutex_unlock(&hub.lock);
	return NULL;
}

/* calevents_fn: a calibration's fits changed (wake its streams), or a token was revoked or
 * rotated (have the ticker look at the streams' tokens now). */
static void on_event(const struct calevent *ev, void *ctx)
{
	struct stream *s;

	(void)ctx;
	pthread_mutex_lock(&hub.lock);
	if (ev->kind == CALEVENT_FIT) {
		for (s = hub.streams; s; s = s->next)
			if (s->calibration == ev->calibration)
				wake_stream(s);
	} else {
		hub.check_now = 1;
		pthread_cond_broadcast(&hub.wake);
	}
	pthread_mutex_unlock(&hub.lock);
}

/* The next text of an events stream, or NULL when there is none. */
static char *next_event(struct stream *s, int keepalive)
{
	struct calstore_fit f;
	struct err err;
	char *text = NULL, *data;
	json_t *m;

	err_clear(&err);
	m = calcase_latest_fit(hub.cs, s->calibration, &f, &err);
	if (m && f.id > 0 &&
	    (f.id != s->last_fit || strcmp(calcase_shown_state(f.state), s->last_state) != 0)) {
		data = svc_dump(m);
		if (data && asprintf(&text, "event: fit\nid: %lld\ndata: %s\n\n", f.id, data) < 0)
			text = NULL;
		if (text) {
			s->last_fit = f.id;
			snprintf(s->last_state, sizeof s->last_state, "%s",
			    calcase_shown_state(f.state));
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
	json_t *m, *body = NULL;
	int settled;

	err_clear(&err);
	m = calcase_latest_fit(hub.cs, s->calibration, &f, &err);
	settled = !m || f.id == 0 ||
	    (f.id >= s->target && strcmp(calcase_shown_state(f.state), "pending") != 0);
	if (settled || stopping || monotonic_now() >= s->deadline) {
		if (s->ack) {
			body = json_deep_copy(s->ack);
			if (body && m)
				json_object_set(body, "fit", m);
		} else {
			calcase_show(hub.cs, &s->who, s->calibration, &body, &err);
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

/* An event stream's last event: why it ends. */
static char *closing_event(const char *reason)
{
	char *text = NULL;

	if (asprintf(&text, "event: closed\ndata: {\"reason\":\"%s\"}\n\n", reason) < 0)
		return NULL;
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
		if (s->finished || (s->kind == STREAM_EVENTS && hub.stopping)) {
			pthread_mutex_unlock(&hub.lock);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		if (s->closing) {
			/* no fit after the token or URL is gone: only the reason */
			s->finished = 1;
			s->pending = closing_event(s->closing);
			if (s->pending) {
				s->len = strlen(s->pending);
				s->off = 0;
			}
			continue;
		}
		s->dirty = 0;
		keepalive = s->keepalive;
		s->keepalive = 0;
		stopping = hub.stopping;
		pthread_mutex_unlock(&hub.lock);
		/* the store is read without the lock: a publisher never waits for it */
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
		/* nothing to send: sleep until an event, the ticker or shutdown wakes us */
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

/* The watch-URL key into *out (NULL: only load it), loaded from the store the first time
 * (ERR_UNAVAILABLE while a PostgreSQL store has not been reached). */
static int watch_key(struct calwatch *out, struct err *err)
{
	struct calwatch w;
	int ready;

	pthread_mutex_lock(&hub.lock);
	ready = hub.watch_ready;
	if (ready && out)
		*out = hub.watch;
	pthread_mutex_unlock(&hub.lock);
	if (ready)
		return 0;
	/* racing loads read the same key: the store makes it once */
	if (calwatch_init(hub.cs, &w, err) != 0)
		return -1;
	pthread_mutex_lock(&hub.lock);
	hub.watch = w;
	hub.watch_ready = 1;
	pthread_mutex_unlock(&hub.lock);
	if (out)
		*out = w;
	sodium_memzero(&w, sizeof w);
	return 0;
}

json_t *http_calib_health(void)
{
	return json_pack("{s:s, s:b}", "engine", hub.store.engine, "reachable",
	    hub.store.reachable(hub.store.ctx));
}

int http_calib_start(const struct http_calib_store *store, struct err *err)
{
	pthread_condattr_t attr;

	hub.stopping = 0;
	hub.watch_ready = 0;
	hub.store = *store;
	hub.cs = store->cs;
	callog_set(http_log);
	/* the watch-URL key: now if the store is there, else at the first watch URL */
	if ((!store->deferred && watch_key(NULL, err) != 0) || calevents_share(hub.cs, 1, err) != 0)
		return -1;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&hub.wake, &attr);
	pthread_condattr_destroy(&attr);
	if (calevents_subscribe(on_event, NULL, &hub.subscription, err) != 0)
		return -1;
	hub.subscribed = 1;
	if (pthread_create(&hub.ticker, NULL, ticker, NULL) != 0) {
		http_calib_stop();
		http_calib_close();
		return err_set(err, ERR_INTERNAL, NULL, "cannot start the event-stream ticker");
	}
	hub.ticker_running = 1;
	if (calwork_start(hub.cs, err) != 0) {
		http_calib_stop();
		http_calib_close();
		return -1;
	}
	return 0;
}

void http_calib_stop(void)
{
	struct stream *s;

	calwork_stop();
	if (hub.subscribed) {
		calevents_unsubscribe(hub.subscription);
		hub.subscribed = 0;
	}
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

void http_calib_close(void)
{
	calevents_share(NULL, 0, NULL);
}

/* ---- requests and responses ---- */

static enum MHD_Result respond_error(
    struct MHD_Connection *conn, struct http_request *req, const struct err *e)
{
	const char *header, *value;
	struct err shown;

	if (e->code == ERR_UNAUTHORIZED || e->code == ERR_FORBIDDEN)
		http_log("calibration: %s %s refused: %s", req->method, req->url, e->message);
	/* the store is unreachable (PostgreSQL restarting): nothing was done, try again soon.
	 * Its text (libpq's: the database's host and port) goes to the log only; the client,
	 * maybe not even authenticated, reads that the store is unreachable. */
	if (e->code == ERR_UNAVAILABLE)
		http_log("calibration: %s %s: %s", req->method, req->url, e->message);
	if (e->code == ERR_UNAVAILABLE && strncmp(e->message, "store:", 6) == 0) {
		err_set(&shown, ERR_UNAVAILABLE, e->path,
		    "the calibration store cannot be reached (the daemon's log says why); nothing "
		    "was done, retry later");
		e = &shown;
	}
	/* Retry-After of that 503, WWW-Authenticate of a 401: the status table's */
	header = http_status_header(e->code, req->authorization != NULL, &value);
	if (header)
		http_add_header(req, header, value);
	return http_respond_error(conn, req, e);
}

static enum MHD_Result respond_code(
    struct MHD_Connection *conn, struct http_request *req, enum err_code code, const char *message)
{
	struct err err;

	err_set(&err, code, "", "%s", message);
	return respond_error(conn, req, &err);
}

/* The principal of the request's bearer token, or ERR_UNAUTHORIZED. */
static int authenticate(struct http_request *req, struct caltoken_principal *p, struct err *err)
{
	return caltoken_authenticate(hub.cs, req->authorization, (long long)time(NULL), p, err);
}

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

/* Answer ack (its "fit" the newest fit) now, or, with a wait, once fit fit_id is settled;
 * without ack, the calibration as p sees it. */
static enum MHD_Result respond_fit(struct MHD_Connection *conn, struct http_request *req,
    const struct caltoken_principal *p, long long id, long long fit_id, json_t *ack, double wait,
    int preferred)
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
	s->who = *p;
	if (!ack) {
		/* a wait on the calibration: for its newest fit, if one is pending */
		m = calcase_latest_fit(hub.cs, id, NULL, &err);
		s->target = json_is_object(m) ? json_integer_value(json_object_get(m, "id")) : 0;
		json_decref(m);
	}
	snprintf(applied, sizeof applied, "wait=%g", wait);
	return respond_stream(
	    conn, req, s, "application/json", preferred ? "Preference-Applied" : NULL, applied);
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
	*r = respond_code(conn, req, ERR_BAD_VALUE,
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
		MHD_destroy_response(resp);
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
	if (authenticate(req, &p, &err) != 0 ||
	    caltoken_robot_visible(hub.cs, &p, robot, &err) != 0 ||
	    caltoken_can_write(&p, robot, &err) != 0 ||
	    (has_key = calidem_key(
	         MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Idempotency-Key"), key,
	         sizeof key, &err)) < 0 ||
	    parse_body(req, &body, &err) != 0 ||
	    calcase_create(
	        hub.cs, &p, robot, body, has_key ? key : NULL, &answer, &replay, &id, &err) != 0)
		r = respond_error(conn, req, &err);
	else if (replay)
		r = respond_replay(conn, req, replay);
	else
		r = http_respond_json(conn, req, 201, answer);
	free(replay);
	json_decref(answer);
	json_decref(body);
	return r;
}

enum MHD_Result http_calib_list(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	const char *robot = t->robot;
	struct caltoken_principal p;
	struct err err;
	json_t *answer = NULL;
	enum MHD_Result r;

	if (refuse_dots(conn, req, robot, &r))
		return r;
	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 || calcase_list(hub.cs, &p, robot, &answer, &err) != 0)
		return respond_error(conn, req, &err);
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
	v->failed = wait_seconds(conn, &v->wait, &v->preferred, &v->err) != 0 ||
	    (v->has_key = calidem_key(
	         MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Idempotency-Key"), v->key,
	         sizeof v->key, &v->err)) < 0 ||
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
	if (authenticate(req, &p, &err) != 0 ||
	    calcase_upload(hub.cs, &p, id, v.body, v.has_key ? v.key : NULL,
	        v.failed ? &v.err : NULL, &done, &err) != 0) {
		r = respond_error(conn, req, &err);
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
	wait_failed = wait_seconds(conn, &wait, &preferred, &wait_err) != 0;
	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 ||
	    calcase_writable(hub.cs, &p, id, owner, &err) != 0 ||
	    deferred(wait_failed, &wait_err, &err) != 0 ||
	    calcase_delete(hub.cs, &p, id, measurement_id, upload_id, &ack, &fit_id, &err) != 0)
		return respond_error(conn, req, &err);
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
	if (authenticate(req, &p, &err) != 0 || calcase_visible(hub.cs, &p, id, owner, &err) != 0 ||
	    wait_seconds(conn, &wait, &preferred, &err) != 0)
		return respond_error(conn, req, &err);
	if (wait > 0)
		return respond_fit(conn, req, &p, id, 0, NULL, wait, preferred);
	if (calcase_show(hub.cs, &p, id, &answer, &err) != 0)
		return respond_error(conn, req, &err);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

enum MHD_Result http_calib_measurements(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	long long id = t->id;
	struct caltoken_principal p;
	struct err err;
	json_t *answer = NULL;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 ||
	    calcase_measurements(hub.cs, &p, id, &answer, &err) != 0)
		return respond_error(conn, req, &err);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

enum MHD_Result http_calib_evaluate(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	struct caltoken_principal p;
	struct err err;
	char owner[CALSTORE_NAME_MAX];
	json_t *body = NULL, *answer = NULL;
	double solref[2];
	enum MHD_Result r;

	/* the token and the calibration first, as for reading it; then the body */
	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 ||
	    calcase_visible(hub.cs, &p, t->id, owner, &err) != 0 ||
	    parse_body(req, &body, &err) != 0 || calaudit_parse(body, solref, &err) != 0 ||
	    calaudit_evaluate(hub.cs, &p, t->id, solref, &answer, &err) != 0)
		r = respond_error(conn, req, &err);
	else
		r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	json_decref(body);
	return r;
}

/* ?expires_in=SECONDS of a watch request into *requested (0: not given); a whole number from
 * 1, else ERR_BAD_VALUE. Beyond CALIB_WATCH_MAX_S it is clamped (calwatch_lifetime()). */
static int watch_lifetime(struct MHD_Connection *conn, long long *granted, struct err *err)
{
	const char *arg = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "expires_in");
	long long requested = 0;
	char *end;

	if (arg) {
		errno = 0;
		requested = strtoll(arg, &end, 10);
		if (end == arg || *end || errno || requested < 1)
			return err_set(err, ERR_BAD_VALUE, "",
			    "?expires_in must be a whole number of seconds from 1 (at most %d are "
			    "granted)",
			    CALIB_WATCH_MAX_S);
	}
	return calwatch_lifetime(requested, "", granted, err);
}

enum MHD_Result http_calib_watch(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	long long id = t->id;
	struct caltoken_principal p;
	struct calwatch key;
	struct err err;
	char owner[CALSTORE_NAME_MAX], url[256], param[CALWATCH_PARAM_MAX];
	long long now = (long long)time(NULL), lifetime;
	json_t *answer;
	enum MHD_Result r;

	err_clear(&err);
	if (authenticate(req, &p, &err) != 0 || calcase_visible(hub.cs, &p, id, owner, &err) != 0 ||
	    watch_lifetime(conn, &lifetime, &err) != 0 || watch_key(&key, &err) != 0)
		return respond_error(conn, req, &err);
	calwatch_sign(&key, id, p.token_id, now, now + lifetime, param);
	sodium_memzero(&key, sizeof key);
	snprintf(url, sizeof url, "/v1/calibrations/%lld/events?watch=%s", id, param);
	answer = json_pack("{s:s, s:I}", "url", url, "expires_in", (json_int_t)lifetime);
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

enum MHD_Result http_calib_events(
    struct MHD_Connection *conn, struct http_request *req, const struct http_calib_target *t)
{
	long long id = t->id;
	const char *w = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "watch");
	struct caltoken_principal p;
	struct calwatch key;
	struct err err;
	char owner[CALSTORE_NAME_MAX], token_id[AUTH_ID_HEX + 1];
	struct stream *s;
	long long now = (long long)time(NULL), expires = 0;
	int open, rc;

	err_clear(&err);
	if (w && !req->authorization) /* a watch URL: its key is the store's */
		rc = watch_key(&key, &err) != 0 ||
		        calwatch_verify(&key, w, id, now, token_id, &expires, &err) != 0 ||
		        caltoken_principal(hub.cs, token_id, NULL, now, &p, &err) != 0
		    ? -1
		    : 0;
	else
		rc = authenticate(req, &p, &err);
	if (rc != 0 || calcase_visible(hub.cs, &p, id, owner, &err) != 0)
		return respond_error(conn, req, &err);
	/* One token cannot hold every connection with streams (counted, then opened: two
	 * racing requests may both pass, which bounds it all the same). */
	pthread_mutex_lock(&hub.lock);
	open = token_streams(p.token_id);
	pthread_mutex_unlock(&hub.lock);
	if (open >= DAEMON_EVENTS_PER_TOKEN) {
		err_set(&err, ERR_UNAVAILABLE, NULL,
		    "this token has %d event streams open; close one first", open);
		http_add_header(req, "Retry-After", DAEMON_EVENTS_RETRY_AFTER);
		return respond_error(conn, req, &err);
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return respond_code(conn, req, ERR_INTERNAL, "out of memory");
	s->kind = STREAM_EVENTS;
	s->calibration = id;
	s->watch_expires = expires;
	snprintf(s->token_id, sizeof s->token_id, "%s", p.token_id);
	return respond_stream(conn, req, s, "text/event-stream", NULL, NULL);
}
