/*
 * hotcache.c: the per-thread answer table of hotcache.h.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "http/hotcache.h"
#include "http/knobs.h"

struct slot {
	unsigned char key[HOT_KEY_BYTES];
	char *answer; /* NULL: empty */
	size_t len;
};

struct table {
	struct slot slots[HOT_SLOTS];
	size_t bytes; /* sum of the answers' lengths */
};

static pthread_key_t table_key;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void table_free(void *p)
{
	struct table *t = p;
	size_t i;

	for (i = 0; i < HOT_SLOTS; i++)
		free(t->slots[i].answer);
	free(t);
}

static void init(void)
{
	/* Never deleted: the key lives as long as the process, the tables as their threads. */
	if (sodium_init() < 0 || pthread_key_create(&table_key, table_free) != 0)
		abort();
}

/* The calling thread's table, created on first use; NULL when out of memory. */
static struct table *table_get(void)
{
	struct table *t;

	pthread_once(&init_once, init);
	t = pthread_getspecific(table_key);
	if (!t && (t = calloc(1, sizeof *t)) && pthread_setspecific(table_key, t) != 0) {
		free(t);
		t = NULL;
	}
	return t;
}

void hot_key(const char *endpoint, const char *body, size_t len, unsigned char key[HOT_KEY_BYTES])
{
	crypto_generichash_state h;

	pthread_once(&init_once, init);
	crypto_generichash_init(&h, NULL, 0, HOT_KEY_BYTES);
	crypto_generichash_update(&h, (const unsigned char *)endpoint, strlen(endpoint) + 1);
	crypto_generichash_update(&h, (const unsigned char *)body, len);
	crypto_generichash_final(&h, key, HOT_KEY_BYTES);
}

void hot_key_qualified(const char *endpoint, const char *qualifier, const char *body, size_t len,
    unsigned char key[HOT_KEY_BYTES])
{
	static const unsigned char apart = 0xff, absent = 0, present = 1;
	crypto_generichash_state h;

	pthread_once(&init_once, init);
	crypto_generichash_init(&h, NULL, 0, HOT_KEY_BYTES);
	crypto_generichash_update(&h, (const unsigned char *)endpoint, strlen(endpoint) + 1);
	crypto_generichash_update(&h, &apart, 1);
	crypto_generichash_update(&h, qualifier ? &present : &absent, 1);
	if (qualifier)
		crypto_generichash_update(
		    &h, (const unsigned char *)qualifier, strlen(qualifier) + 1);
	crypto_generichash_update(&h, (const unsigned char *)body, len);
	crypto_generichash_final(&h, key, HOT_KEY_BYTES);
}

/* The slot of key: its first bytes are uniformly distributed, being a hash. */
static struct slot *slot_of(struct table *t, const unsigned char key[HOT_KEY_BYTES])
{
	size_t index;

	memcpy(&index, key, sizeof index);
	return &t->slots[index % HOT_SLOTS];
}

const char *hot_get(const unsigned char key[HOT_KEY_BYTES], size_t *len)
{
	struct table *t = table_get();
	struct slot *s;

	if (!t)
		return NULL;
	s = slot_of(t, key);
	if (!s->answer || memcmp(s->key, key, HOT_KEY_BYTES) != 0)
		return NULL;
	*len = s->len;
	return s->answer;
}

void hot_put(const unsigned char key[HOT_KEY_BYTES], const char *answer, size_t len)
{
	struct table *t = table_get();
	struct slot *s;
	char *copy;

	if (!t || len > HOT_MAX_ANSWER)
		return;
	s = slot_of(t, key);
	t->bytes -= s->len;
	free(s->answer);
	s->answer = NULL;
	s->len = 0;
	if (t->bytes + len > HOT_BUDGET || !(copy = malloc(len + 1)))
		return;
	memcpy(copy, answer, len);
	copy[len] = '\0';
	memcpy(s->key, key, HOT_KEY_BYTES);
	s->answer = copy;
	s->len = len;
	t->bytes += len;
}
