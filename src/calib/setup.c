/*
 * setup.c: the parsed setups (see setup.h): a small table, least recently used out.
 */
#include "calib/setup.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/calstore.h"
#include "calib/knobs.h"

struct entry {
	long long id; /* 0: free */
	unsigned long used;
	struct calreq_setup parsed;
	json_t *canonical;
};

static struct {
	pthread_mutex_t lock;
	struct entry slots[CALIB_SETUP_CACHE];
	unsigned long clock;
	long parses;
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Copy out the entry of id, if any; the caller holds cache.lock. */
static int lookup_locked(long long id, struct calreq_setup *parsed, json_t **canonical)
{
	int i;

	for (i = 0; i < CALIB_SETUP_CACHE; i++) {
		struct entry *e = &cache.slots[i];

		if (e->id != id)
			continue;
		e->used = ++cache.clock;
		if (parsed)
			*parsed = e->parsed;
		/* a copy: answers built on it may change it, on other threads */
		if (canonical)
			*canonical = json_deep_copy(e->canonical);
		return 1;
	}
	return 0;
}

void calsetup_put(long long id, const struct calreq_setup *parsed, json_t *canonical)
{
	struct entry *victim = &cache.slots[0];
	int i;

	pthread_mutex_lock(&cache.lock);
	for (i = 0; i < CALIB_SETUP_CACHE; i++) {
		struct entry *e = &cache.slots[i];

		if (e->id == id) {
			victim = e;
			break;
		}
		if (e->used < victim->used)
			victim = e;
	}
	json_decref(victim->canonical);
	victim->id = id;
	victim->used = ++cache.clock;
	victim->parsed = *parsed;
	victim->canonical = json_deep_copy(canonical);
	pthread_mutex_unlock(&cache.lock);
}

void calsetup_forget(void)
{
	int i;

	pthread_mutex_lock(&cache.lock);
	for (i = 0; i < CALIB_SETUP_CACHE; i++) {
		json_decref(cache.slots[i].canonical);
		cache.slots[i] = (struct entry){0};
	}
	pthread_mutex_unlock(&cache.lock);
}

long calsetup_parses(void)
{
	long n;

	pthread_mutex_lock(&cache.lock);
	n = cache.parses;
	pthread_mutex_unlock(&cache.lock);
	return n;
}

/* Parse text, calibration id's stored setup, and remember it: 0, or -1 with err. */
static int parse_stored(long long id, const char *text, struct calreq_setup *parsed,
    json_t **canonical, struct err *err)
{
	struct calreq_setup fresh;
	json_t *json = json_loads(text, 0, NULL);

	if (!json)
		return err_set(err, ERR_INTERNAL, NULL, "stored setup is not JSON");
	if (calreq_setup_parse(json, &fresh, NULL, err) != 0) {
		json_decref(json);
		return -1;
	}
	pthread_mutex_lock(&cache.lock);
	cache.parses++;
	pthread_mutex_unlock(&cache.lock);
	calsetup_put(id, &fresh, json);
	if (parsed)
		*parsed = fresh;
	if (canonical)
		*canonical = json_deep_copy(json);
	json_decref(json);
	return 0;
}

int calsetup_of_text(long long id, const char *text, struct calreq_setup *parsed, struct err *err)
{
	int found;

	pthread_mutex_lock(&cache.lock);
	found = lookup_locked(id, parsed, NULL);
	pthread_mutex_unlock(&cache.lock);
	return found ? 0 : parse_stored(id, text, parsed, NULL, err);
}

int calsetup_get(struct calstore *cs, long long id, struct calreq_setup *parsed, json_t **canonical,
    struct err *err)
{
	char robot[CALSTORE_NAME_MAX], *text = NULL;
	int found, rc;

	pthread_mutex_lock(&cache.lock);
	found = lookup_locked(id, parsed, canonical);
	pthread_mutex_unlock(&cache.lock);
	if (found)
		return 0;
	found = cs->calibration_get(cs->ctx, id, robot, NULL, &text, err);
	if (found <= 0)
		return found < 0 ? -1
		                 : err_set(err, ERR_NOT_FOUND, NULL, "no calibration %lld", id);
	rc = parse_stored(id, text, parsed, canonical, err);
	free(text);
	return rc;
}
