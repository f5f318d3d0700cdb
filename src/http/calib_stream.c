/*
 * calib_stream.c: the calibration service's streams and its life cycle (calib_stream.h),
 * with the two routes that open event streams or the URLs for them: GET
 * /v1/calibrations/{id}/events (Server-Sent Events, every fit) and POST
 * /v1/calibrations/{id}/watch (a signed, short-lived events URL). The other routes are
 * http_calib.c's; the helpers both use (errors to responses, the bearer token) are here,
 * the lower of the two modules.
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
#include "http/calib_stream.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/jtext.h"
#include "calib/cases.h"
#include "calib/events.h"
#include "calib/log.h"
#include "calib/token.h"
#include "calib/watch.h"
#include "calib/work.h"
#include "http/log.h"
#include "http/status.h"
#include "service/service.h"
#include "calib/knobs.h"
#include "http/knobs.h"

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
	int gone;                       /* the client closed its side while it slept */
	char token_id[AUTH_ID_HEX + 1]; /* the token that opened it ("" for none) */
	long long watch_expires;        /* events: its watch URL's expiry (Unix s); 0: none */
	const char *closing;            /* events: why it must end (a static string), or NULL */
	struct stream *prev, *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* CLOCK_MONOTONIC */
	struct stream *streams;
	struct calstore *cs;          /* the daemon's store, as the calibration layer sees it */
	struct calstream_store store; /* it, and what /v1/health says of it */
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
 * Has the client of a sleeping stream closed its side? MHD does not watch a suspended
 * connection, so without this a closed client would hold its slot (and its per-address and
 * per-token count) until the next keep-alive, or a wait's until its deadline. The caller
 * holds hub.lock, under which a suspended connection stays open.
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
			if (s->suspended && !s->finished && client_gone(s)) {
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
		data = jtext_line(m);
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
		text = body ? jtext_line(body) : NULL;
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

json_t *calstream_health(void)
{
	return json_pack("{s:s, s:b}", "engine", hub.store.engine, "reachable",
	    hub.store.reachable(hub.store.ctx));
}

int calstream_start(const struct calstream_store *store, int fit_workers, struct err *err)
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
		calstream_stop();
		calstream_close();
		return err_set(err, ERR_INTERNAL, NULL, "cannot start the event-stream ticker");
	}
	hub.ticker_running = 1;
	if (calwork_start(hub.cs, fit_workers, err) != 0) {
		calstream_stop();
		calstream_close();
		return -1;
	}
	return 0;
}

void calstream_stop(void)
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

void calstream_close(void)
{
	calevents_share(NULL, 0, NULL);
}

/* ---- errors and tokens, for the routes of both modules ---- */

enum MHD_Result calstream_respond_error(
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

enum MHD_Result calstream_respond_code(
    struct MHD_Connection *conn, struct http_request *req, enum err_code code, const char *message)
{
	struct err err;

	err_set(&err, code, "", "%s", message);
	return calstream_respond_error(conn, req, &err);
}

int calstream_authenticate(struct http_request *req, struct caltoken_principal *p, struct err *err)
{
	return caltoken_authenticate(hub.cs, req->authorization, (long long)time(NULL), p, err);
}

struct calstore *calstream_calstore(void)
{
	return hub.cs;
}

/* Open streams of kind of token token_id, not yet ending; the caller holds hub.lock. */
static int token_streams(const char *token_id, enum stream_kind kind)
{
	const struct stream *s;
	int n = 0;

	for (s = hub.streams; s; s = s->next)
		n += s->kind == kind && !s->gone && !s->finished &&
		    strcmp(s->token_id, token_id) == 0;
	return n;
}

/* A wait over its token's DAEMON_WAITS_PER_TOKEN: the answer now, as without a wait (ack,
 * owned from now on; NULL: the calibration as p sees it). */
static enum MHD_Result respond_unheld(struct MHD_Connection *conn, struct http_request *req,
    const struct caltoken_principal *p, long long id, json_t *ack)
{
	struct err err;
	enum MHD_Result r;

	err_clear(&err);
	if (!ack && calcase_show(hub.cs, p, id, &ack, &err) != 0)
		return calstream_respond_error(conn, req, &err);
	r = http_respond_json(conn, req, 200, ack);
	json_decref(ack);
	return r;
}

enum MHD_Result calstream_wait(struct MHD_Connection *conn, struct http_request *req,
    const struct caltoken_principal *p, long long id, long long fit_id, json_t *ack, double wait,
    int preferred)
{
	struct stream *s;
	struct err err;
	char applied[48];
	json_t *m;
	int held;

	/* One token cannot hold every connection with waits (counted, then held: racing
	 * requests may pass together, which bounds it all the same). Past the bound the answer
	 * comes now: an upload or a deletion is already committed, so a 503 would misreport it. */
	pthread_mutex_lock(&hub.lock);
	held = token_streams(p->token_id, STREAM_WAIT);
	pthread_mutex_unlock(&hub.lock);
	if (held >= DAEMON_WAITS_PER_TOKEN) {
		http_log("calibration: %s %s: this token holds %d waits; answered without waiting",
		    req->method, req->url, held);
		return respond_unheld(conn, req, p, id, ack);
	}
	err_clear(&err);
	s = calloc(1, sizeof *s);
	if (!s) {
		json_decref(ack);
		return calstream_respond_code(conn, req, ERR_INTERNAL, "out of memory");
	}
	s->kind = STREAM_WAIT;
	s->calibration = id;
	s->target = fit_id;
	s->deadline = monotonic_now() + wait;
	s->ack = ack;
	s->who = *p;
	snprintf(s->token_id, sizeof s->token_id, "%s", p->token_id);
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

/* ---- the routes of event streams ---- */

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

enum MHD_Result calstream_watch(struct MHD_Connection *conn, struct http_request *req, long long id)
{
	struct caltoken_principal p;
	struct calwatch key;
	struct err err;
	char owner[CALSTORE_NAME_MAX], url[256], param[CALWATCH_PARAM_MAX];
	long long now = (long long)time(NULL), lifetime;
	json_t *answer;
	enum MHD_Result r;

	err_clear(&err);
	if (calstream_authenticate(req, &p, &err) != 0 ||
	    calcase_visible(hub.cs, &p, id, owner, &err) != 0 ||
	    watch_lifetime(conn, &lifetime, &err) != 0 || watch_key(&key, &err) != 0)
		return calstream_respond_error(conn, req, &err);
	calwatch_sign(&key, id, p.token_id, now, now + lifetime, param);
	sodium_memzero(&key, sizeof key);
	snprintf(url, sizeof url, "/v1/calibrations/%lld/events?watch=%s", id, param);
	answer = json_pack("{s:s, s:I}", "url", url, "expires_in", (json_int_t)lifetime);
	r = http_respond_json(conn, req, 200, answer);
	json_decref(answer);
	return r;
}

enum MHD_Result calstream_events(
    struct MHD_Connection *conn, struct http_request *req, long long id)
{
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
		rc = calstream_authenticate(req, &p, &err);
	if (rc != 0 || calcase_visible(hub.cs, &p, id, owner, &err) != 0)
		return calstream_respond_error(conn, req, &err);
	/* One token cannot hold every connection with streams (counted, then opened: two
	 * racing requests may both pass, which bounds it all the same). */
	pthread_mutex_lock(&hub.lock);
	open = token_streams(p.token_id, STREAM_EVENTS);
	pthread_mutex_unlock(&hub.lock);
	if (open >= DAEMON_EVENTS_PER_TOKEN) {
		err_set(&err, ERR_UNAVAILABLE, NULL,
		    "this token has %d event streams open; close one first", open);
		http_add_header(req, "Retry-After", DAEMON_EVENTS_RETRY_AFTER);
		return calstream_respond_error(conn, req, &err);
	}
	s = calloc(1, sizeof *s);
	if (!s)
		return calstream_respond_code(conn, req, ERR_INTERNAL, "out of memory");
	s->kind = STREAM_EVENTS;
	s->calibration = id;
	s->watch_expires = expires;
	snprintf(s->token_id, sizeof s->token_id, "%s", p.token_id);
	return respond_stream(conn, req, s, "text/event-stream", NULL, NULL);
}
