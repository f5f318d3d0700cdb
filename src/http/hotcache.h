/*
 * hotcache.h: a small per-thread memory cache in front of the store, keyed by the
 * exact bytes of a request: a question asked again in the same words skips parsing,
 * validation, canonical printing and the database, and gets the same answer text.
 *
 * An answer depends only on the request and the core, which cannot change while the
 * process runs, so entries are never stale and never invalidated; only answers that
 * were given (never rejections) are kept. Each thread has its own direct-mapped table
 * (HOT_SLOTS entries, at most HOT_BUDGET bytes of answers), so there is no locking;
 * a thread's table is freed when the thread exits.
 */
#ifndef CONTACTD_HTTP_HOTCACHE_H
#define CONTACTD_HTTP_HOTCACHE_H

#include <stddef.h>

#include "http/knobs.h" /* HOT_SLOTS, HOT_MAX_ANSWER, HOT_BUDGET */

#define HOT_KEY_BYTES 32

/* BLAKE2b-256 of the endpoint and the request body (len bytes). */
void hot_key(const char *endpoint, const char *body, size_t len, unsigned char key[HOT_KEY_BYTES]);

/* The key of a body whose question another value completes (an application/xml model and
 * its ?mujoco= release, NULL when absent): never equal to hot_key()'s of a JSON body (a
 * byte no JSON text starts with sets it apart), nor to another qualifier's. */
void hot_key_qualified(const char *endpoint, const char *qualifier, const char *body, size_t len,
    unsigned char key[HOT_KEY_BYTES]);

/*
 * The calling thread's answer for key, or NULL; *len its length. The text belongs to
 * the cache and stays valid until this thread's next hot_put().
 */
const char *hot_get(const unsigned char key[HOT_KEY_BYTES], size_t *len);

/* Keep a copy of answer (len bytes) for key in the calling thread's table; best effort. */
void hot_put(const unsigned char key[HOT_KEY_BYTES], const char *answer, size_t len);

#endif
