/*
 * guard.h: the connection guard, what libmicrohttpd's idle timeout and per-address limit
 * leave open. Its --timeout counts silence, so a client that trickles one header line
 * every few seconds holds its connection for ever (slowloris); and a connection over its
 * per-address limit is closed without a word. The guard gives
 *
 * - a deadline for the whole request head, counted from the connection's start or the
 *   end of its previous request, however the bytes trickle: past it the client reads a
 *   408 and the connection is closed;
 * - a minimum average rate for a request body, after a grace of the same length;
 * - a lifetime for the whole request, head and body, counted as the head's deadline is:
 *   past it, 408 and a close as well, however fast the body trickles;
 * - a short 503 with Retry-After, then a close, to a connection over the per-address
 *   limit (which the guard counts itself; libmicrohttpd's is left off), over the global
 *   limit (libmicrohttpd's is set DAEMON_REFUSAL_SLOTS higher, so that it still accepts the
 *   connections the guard refuses), or, once half the global limit is in use, from an
 *   address that holds 1/DAEMON_LOAD_SHARE of it (its share under load).
 *
 * The HTTP layer passes guard_notify() as MHD_OPTION_NOTIFY_CONNECTION and reports each
 * request's phases; a thread checks the deadlines every DAEMON_GUARD_PERIOD_MS. A
 * connection is cut with shutdown(2) on its socket, under the lock that its close
 * notification takes, so the socket is never one that libmicrohttpd already closed.
 */
#ifndef CONTACTD_HTTP_GUARD_H
#define CONTACTD_HTTP_GUARD_H

#include <microhttpd.h>

#include "base/error.h"

struct guard;

struct guard_config {
	unsigned max_connections; /* open connections at once; 0: no limit (libmicrohttpd's) */
	unsigned max_per_ip;      /* open connections from one address; 0: no limit */
	unsigned head_timeout_s;  /* the request head's deadline and a body's grace; 0: none */
	unsigned min_body_rate;   /* bytes per second a body averages after its grace; 0: none */
	unsigned request_s;       /* the whole request's lifetime, head and body; 0: none */
};

/* What the guard refused or cut, since it started (counters). */
struct guard_counts {
	unsigned long refused;       /* connections over a limit or share, answered 503 */
	unsigned long head_timeouts; /* request heads past their deadline, answered 408 */
	unsigned long slow_bodies;   /* bodies below the minimum rate, answered 408 */
	unsigned long lifetimes;     /* requests not in whole within their lifetime, 408 */
};

/* Start a guard with config's limits and its thread. On success *out is the caller's,
 * ended with guard_stop() after libmicrohttpd stopped. */
int guard_start(const struct guard_config *config, struct guard **out, struct err *err);

/* Stop the thread and free g. NULL is a no-op. */
void guard_stop(struct guard *g);

/* MHD_NotifyConnectionCallback (cls: the guard): tracks every connection from its start
 * to its close, and refuses one over the per-address limit. */
void guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
    enum MHD_ConnectionNotificationCode code);

/* The request's head is in (the first call of the request handler): its body's rate is
 * watched from now. 0, or -1 when the guard already cut the connection (answer MHD_NO). */
int guard_head_in(struct MHD_Connection *conn);

/* n more bytes of the request's body arrived. */
void guard_body_in(struct MHD_Connection *conn, size_t n);

/* The whole request is in and being answered: no deadline until it completes. 0, or -1
 * when the guard already cut the connection. */
int guard_request_in(struct MHD_Connection *conn);

/* The request completed: the next one's head is due within the deadline from now. */
void guard_request_done(struct MHD_Connection *conn);

/*
 * End conn's request at once, from its request handler, where libmicrohttpd (0.9.75)
 * would queue no response (in the middle of its body): status (e.g. "413 Content Too
 * Large") and the contract's JSON error (code, message: no quotes or backslashes) are
 * written on its socket, which is then shut down; the handler returns MHD_NO. A client
 * that stopped sending reads the answer; one still sending may see a reset. Nothing is
 * written when the guard cut the connection already.
 */
void guard_cut(
    struct MHD_Connection *conn, const char *status, const char *code, const char *message);

/* The counters so far. */
struct guard_counts guard_counts(struct guard *g);

#endif
