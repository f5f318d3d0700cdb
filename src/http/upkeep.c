/*
 * upkeep.c: the store upkeep thread of upkeep.h.
 */
#include "http/upkeep.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "http/log.h"
#include "store/knobs.h"
#include "http/knobs.h"

struct upkeep {
	struct store *st;
	long long cache_max_bytes;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stopping;
	pthread_t thread;
};

/* One pass: bound the cache, then checkpoint a WAL that has grown. Failures are logged:
 * upkeep costs space, never an answer. */
static void upkeep_pass(struct upkeep *u)
{
	struct err e;
	long evicted = 0;

	if (store_cache_evict(u->st, u->cache_max_bytes, &evicted, &e) < 0)
		http_log("upkeep: %s", e.message);
	if (store_wal_bytes(u->st) > STORE_WAL_CHECKPOINT_BYTES && store_checkpoint(u->st, &e) < 0)
		http_log("upkeep: %s", e.message);
}

static void *upkeep_thread(void *p)
{
	struct upkeep *u = p;
	struct timespec until;

	pthread_mutex_lock(&u->lock);
	while (!u->stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += DAEMON_UPKEEP_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&u->wake, &u->lock, &until) != ETIMEDOUT)
			continue;
		pthread_mutex_unlock(&u->lock);
		upkeep_pass(u);
		pthread_mutex_lock(&u->lock);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

int upkeep_start(struct store *st, long long cache_max_bytes, struct upkeep **out, struct err *err)
{
	struct upkeep *u = calloc(1, sizeof *u);

	if (!u)
		return err_set(err, ERR_UNAVAILABLE, NULL, "out of memory");
	u->st = st;
	u->cache_max_bytes = cache_max_bytes;
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->wake, NULL);
	if (pthread_create(&u->thread, NULL, upkeep_thread, u) != 0) {
		free(u);
		return err_set(err, ERR_UNAVAILABLE, NULL, "cannot start the upkeep thread");
	}
	*out = u;
	return 0;
}

void upkeep_stop(struct upkeep *u)
{
	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	u->stopping = 1;
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
	pthread_join(u->thread, NULL);
	pthread_cond_destroy(&u->wake);
	pthread_mutex_destroy(&u->lock);
	free(u);
}
