/*
 * events.h: what happened to calibrations and tokens, told to whoever listens (the event
 * streams of the HTTP front end): a small publish/subscribe.
 *
 * Events carry ids only; a subscriber reads the store for the rest, so an event lost or
 * coalesced costs a moment, never a wrong answer. Publication calls every subscriber of the
 * process at once. With a store shared by several processes (PostgreSQL; calevents_share())
 * it is also announced through the store (LISTEN/NOTIFY), and the store's listener thread
 * in each other process delivers it to that process's subscribers through
 * calevents_deliver(). A process that shares only a SQLite file
 * (the `contactd token` command) publishes nothing to the daemon: what a subscriber must
 * not miss (a revocation) it also polls from the store (token.h caltoken_stream_state()).
 */
#ifndef CONTACTD_CALIB_EVENTS_H
#define CONTACTD_CALIB_EVENTS_H

#include "base/calstore.h"
#include "base/error.h"
#include "calib/auth.h"

enum calevent_kind {
	CALEVENT_FIT,   /* the fits of a calibration changed: pending, done or failed */
	CALEVENT_TOKEN, /* a token was revoked or rotated */
};

struct calevent {
	enum calevent_kind kind;
	long long calibration;          /* CALEVENT_FIT */
	char token_id[AUTH_ID_HEX + 1]; /* CALEVENT_TOKEN */
};

/* A subscriber: called on the publisher's thread; must return quickly and never publish. */
typedef void (*calevents_fn)(const struct calevent *ev, void *ctx);

/* Hear every event from now on. 0 with *handle set, -1 with err when out of memory. */
int calevents_subscribe(calevents_fn fn, void *ctx, int *handle, struct err *err);

/* Hear no more; after it returns fn is not running and will not be called. */
void calevents_unsubscribe(int handle);

/* Tell every subscriber (of this process, and of others once a shared backend is in). */
void calevents_publish(const struct calevent *ev);

/* The fits of calibration id changed: calevents_publish() of a CALEVENT_FIT. */
void calevents_fit(long long id);

/* Token token_id was revoked or rotated: calevents_publish() of a CALEVENT_TOKEN. */
void calevents_token(const char *token_id);

/* Hand ev to this process's subscribers only (what a shared backend's listener calls). */
void calevents_deliver(const struct calevent *ev);

/*
 * Share events with the other processes of cs (borrowed; it must outlive the sharing, or
 * NULL to stop): from now on publication is also announced through cs, and, with listen
 * set, what the other processes announce is delivered here. A store only one process
 * serves (no announce member) is left alone: 0. -1 with err when the listener cannot start.
 */
int calevents_share(struct calstore *cs, int listen, struct err *err);

#endif
