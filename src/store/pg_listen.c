/*
 * pg_listen.c: the PostgreSQL store's events and threads (see pg_listen.h).
 */
#include "store/pg_listen.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "base/knobs.h"
#include "store/knobs.h"

/* The running fits this process computes: their leases are renewed. */
void pglisten_running_add(struct pgstore *ps, long long fit_id)
{
	pthread_mutex_lock(&ps->lock);
	if (ps->nrunning < MAX_RUNNING)
		ps->running[ps->nrunning++] = fit_id;
	pthread_mutex_unlock(&ps->lock);
}

void pglisten_running_remove(struct pgstore *ps, long long fit_id)
{
	int i;

	pthread_mutex_lock(&ps->lock);
	for (i = 0; i < ps->nrunning; i++)
		if (ps->running[i] == fit_id) {
			ps->running[i] = ps->running[--ps->nrunning];
			break;
		}
	pthread_mutex_unlock(&ps->lock);
}

/* An announcement is "NODE TEXT": each listener skips its own process's. */
int pglisten_announce(void *ctx, const char *text, struct err *err)
{
	struct pgstore *ps = ctx;
	char payload[256];

	snprintf(payload, sizeof payload, "%s %s", ps->node, text);
	return pgc_command(ps, "SELECT pg_notify($1, $2)", ARGS(TXT(CHANNEL), TXT(payload)), NULL,
	    "announcing an event", err);
}

/* The listener thread: its own connection, LISTENing, reconnected after a failure. */
static void *listener(void *arg)
{
	struct pgstore *ps = arg;
	PGconn *conn = NULL;
	PGnotify *n;
	char why[160];
	int fatal;
	size_t len = strlen(ps->node);
	struct pollfd pfd;

	pthread_mutex_lock(&ps->lock);
	while (!ps->stopping) {
		pthread_mutex_unlock(&ps->lock);
		if (!conn) {
			conn = pgc_connect(ps->url, &fatal, why, sizeof why);
			if (conn) {
				PGresult *r = PQexec(conn, "LISTEN " CHANNEL);

				if (PQresultStatus(r) != PGRES_COMMAND_OK) {
					PQfinish(conn);
					conn = NULL;
				}
				PQclear(r);
			}
			pthread_mutex_lock(&ps->lock);
			/* back: reachable once the pool has migrated (fit_adopt polls do) */
			if (conn && ps->ready)
				ps->reachable = 1;
			if (!conn) {
				if (!ps->stopping)
					pgc_nap_locked(ps, PGSTORE_RETRY_S);
				continue;
			}
			pthread_mutex_unlock(&ps->lock);
		}
		pfd.fd = PQsocket(conn);
		pfd.events = POLLIN;
		pfd.revents = 0;
		if ((poll(&pfd, 1, 250) < 0 && errno != EINTR) || !PQconsumeInput(conn) ||
		    PQstatus(conn) != CONNECTION_OK) {
			/* the server closed it (stopped, restarted): health says so at once */
			PQfinish(conn);
			conn = NULL;
			pthread_mutex_lock(&ps->lock);
			ps->reachable = 0;
			pthread_mutex_unlock(&ps->lock);
		} else {
			while ((n = PQnotifies(conn)) != NULL) {
				if (strncmp(n->extra, ps->node, len) != 0 && n->extra[len] == ' ')
					ps->heard(n->extra + len + 1, ps->heard_ctx);
				PQfreemem(n);
			}
		}
		pthread_mutex_lock(&ps->lock);
	}
	pthread_mutex_unlock(&ps->lock);
	PQfinish(conn);
	return NULL;
}

int pglisten_listen(
    void *ctx, void (*heard)(const char *text, void *heard_ctx), void *heard_ctx, struct err *err)
{
	struct pgstore *ps = ctx;

	if (ps->listener_started)
		return err_set(err, ERR_INTERNAL, NULL, "store: already listening");
	ps->heard = heard;
	ps->heard_ctx = heard_ctx;
	if (pthread_create(&ps->listener, NULL, listener, ps) != 0)
		return err_set(err, ERR_INTERNAL, NULL, "store: cannot start the listener");
	ps->listener_started = 1;
	return 0;
}

/* The lease renewer: every CALIB_FIT_LEASE_S / 4, the leases of the fits this process
 * computes. */
void *pglisten_renewer(void *arg)
{
	struct pgstore *ps = arg;
	char ids[MAX_RUNNING * 24 + 3];
	struct err err;
	size_t n;
	int i;

	pthread_mutex_lock(&ps->lock);
	while (!ps->stopping) {
		pgc_nap_locked(ps, CALIB_FIT_LEASE_S / 4.0);
		if (ps->stopping || ps->nrunning == 0)
			continue;
		n = (size_t)snprintf(ids, sizeof ids, "{");
		for (i = 0; i < ps->nrunning; i++)
			n += (size_t)snprintf(
			    ids + n, sizeof ids - n, "%s%lld", i ? "," : "", ps->running[i]);
		snprintf(ids + n, sizeof ids - n, "}");
		pthread_mutex_unlock(&ps->lock);
		err_clear(&err);
		pgc_command(ps,
		    "UPDATE fits SET lease_until = extract(epoch FROM now())::bigint + $3::bigint "
		    "WHERE owner = $1 AND state = 'running' AND id = ANY($2::bigint[])",
		    ARGS(TXT(ps->node), TXT(ids), NUM(CALIB_FIT_LEASE_S)), NULL, "renewing leases",
		    &err);
		pthread_mutex_lock(&ps->lock);
	}
	pthread_mutex_unlock(&ps->lock);
	return NULL;
}
