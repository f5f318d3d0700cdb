/*
 * cache.h: the answer cache as the service layer sees it: two function pointers
 * over a context, so the service can run the cache-aside pipeline (canonical
 * request -> lookup -> answer -> store) without knowing what stores the answers.
 * The daemon passes the store's implementation (store_cache_bind()); the CLI
 * passes none.
 */
#ifndef CONTACTD_BASE_CACHE_H
#define CONTACTD_BASE_CACHE_H

#include <stddef.h>

#include "base/error.h"

struct cache {
	void *ctx; /* the implementation's, passed back to get and put */
	/*
	 * Look up the answer to the canonical request text of endpoint. Returns 1 on
	 * a hit with *answer a new NUL-terminated copy (caller frees with free()) and
	 * *len its length; 0 on a miss; -1 with err when the cache failed.
	 */
	int (*get)(void *ctx, const char *endpoint, const char *canonical, char **answer,
	    size_t *len, struct err *err);
	/* Keep answer (len bytes) for the canonical request of endpoint: 0 when kept, 1 when
	 * not kept for a reason that is no failure (the store busy; err untouched), -1 with
	 * err. */
	int (*put)(void *ctx, const char *endpoint, const char *canonical, const char *answer,
	    size_t len, struct err *err);
};

#endif
