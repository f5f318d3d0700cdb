/*
 * events.c: the in-process publish/subscribe of calibration events (see events.h).
 */
#include "calib/events.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/log.h"

struct subscriber {
	int handle;
	calevents_fn fn;
	void *ctx;
	struct subscriber *next;
};

static struct {
	pthread_mutex_t lock; /* held while delivering: unsubscribe waits for a delivery */
	struct subscriber *list;
	int next_handle;
} bus = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The store events are announced through, when it is shared (set before the threads that
 * publish start, cleared after they stop). */
static struct calstore *shared;

int calevents_subscribe(calevents_fn fn, void *ctx, int *handle, struct err *err)
{
	struct subscriber *s = calloc(1, sizeof *s);

	if (!s)
		return err_set(err, ERR_INTERNAL, NULL, "out of memory");
	s->fn = fn;
	s->ctx = ctx;
	pthread_mutex_lock(&bus.lock);
	s->handle = ++bus.next_handle;
	s->next = bus.list;
	bus.list = s;
	*handle = s->handle;
	pthread_mutex_unlock(&bus.lock);
	return 0;
}

void calevents_unsubscribe(int handle)
{
	struct subscriber **at, *gone = NULL;

	pthread_mutex_lock(&bus.lock);
	for (at = &bus.list; *at; at = &(*at)->next)
		if ((*at)->handle == handle) {
			gone = *at;
			*at = gone->next;
			break;
		}
	pthread_mutex_unlock(&bus.lock);
	free(gone);
}

void calevents_deliver(const struct calevent *ev)
{
	const struct subscriber *s;

	pthread_mutex_lock(&bus.lock);
	for (s = bus.list; s; s = s->next)
		s->fn(ev, s->ctx);
	pthread_mutex_unlock(&bus.lock);
}

void calevents_publish(const struct calevent *ev)
{
	char text[64];
	struct err err;

	calevents_deliver(ev);
	if (!shared)
		return;
	if (ev->kind == CALEVENT_FIT)
		snprintf(text, sizeof text, "fit %lld", ev->calibration);
	else
		snprintf(text, sizeof text, "token %s", ev->token_id);
	err_clear(&err);
	/* lost while the store is unreachable: the other nodes' streams also poll the store */
	if (shared->announce(shared->ctx, text, &err) != 0)
		callog("cannot announce '%s' to the other nodes: %s", text, err.message);
}

/* An announcement of another process: "fit ID" or "token ID". */
static void heard(const char *text, void *ctx)
{
	struct calevent ev = {.kind = CALEVENT_FIT};
	char *end;

	(void)ctx;
	if (strncmp(text, "fit ", 4) == 0) {
		ev.calibration = strtoll(text + 4, &end, 10);
		if (*end || ev.calibration <= 0)
			return;
	} else if (strncmp(text, "token ", 6) == 0 && strlen(text + 6) <= AUTH_ID_HEX) {
		ev.kind = CALEVENT_TOKEN;
		snprintf(ev.token_id, sizeof ev.token_id, "%s", text + 6);
	} else {
		return;
	}
	calevents_deliver(&ev);
}

int calevents_share(struct calstore *cs, int listen, struct err *err)
{
	if (!cs || !cs->announce) {
		shared = NULL;
		return 0;
	}
	if (listen && cs->listen(cs->ctx, heard, NULL, err) != 0)
		return -1;
	shared = cs;
	return 0;
}

void calevents_fit(long long id)
{
	struct calevent ev = {.kind = CALEVENT_FIT, .calibration = id};

	calevents_publish(&ev);
}

void calevents_token(const char *token_id)
{
	struct calevent ev = {.kind = CALEVENT_TOKEN};

	snprintf(ev.token_id, sizeof ev.token_id, "%s", token_id);
	calevents_publish(&ev);
}
