/*
 * events.c: the in-process publish/subscribe of calibration events (see events.h).
 */
#include "calib/events.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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
	/* in-process: publication is delivery */
	calevents_deliver(ev);
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
