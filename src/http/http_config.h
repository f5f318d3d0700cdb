/*
 * http_config.h: what the daemon is started with (contactd's command line), apart from
 * http.h so that the front end's modules read it without including the server's header.
 */
#ifndef CONTACTD_HTTP_HTTP_CONFIG_H
#define CONTACTD_HTTP_HTTP_CONFIG_H

#include <stddef.h>

#include "http/cors.h"

/* What the daemon is started with (contactd's command line). */
struct http_config {
	const char *bind;          /* numeric IPv4 or IPv6 address to listen on */
	unsigned port;             /* 0: any free port (see http_port()) */
	int threads;               /* MHD pool threads, >= 1 */
	int sweep_threads;         /* worker threads of one sweep, >= 1 */
	unsigned timeout_s;        /* idle seconds before a connection is closed */
	unsigned max_connections;  /* open connections at once */
	unsigned max_per_ip;       /* open connections from one address; 0: no limit */
	unsigned head_timeout_s;   /* a request head's deadline, a body's grace; 0: none */
	unsigned min_body_rate;    /* bytes/s a body averages after its grace; 0: none */
	unsigned request_s;        /* --request-timeout: head and body due within; 0: none */
	int compute_threads;       /* threads computing questions that miss the caches, >= 1 */
	int fit_workers;           /* calibration fits computed at once; 0: none on this node */
	long max_queued;           /* questions waiting for a compute thread; 503 beyond */
	long long cache_max_bytes; /* answer bytes the store's cache keeps; 0: no bound */
	size_t max_body;           /* request body bytes; 413 beyond */
	size_t body_memory;        /* body bytes all requests hold at once; 503 beyond; 0: none */
	long max_sweep_points;     /* points in one sweep; 413 beyond */
	long max_eval_calls;       /* calls in one eval batch; 413 beyond */
	double max_cpu_seconds;    /* CPU seconds of one question (service/budget.h); 0: none */
	unsigned drain_s;          /* seconds shutdown waits for requests in flight */
	const char *core_version;  /* part of every cache key; CORE_VERSION but for tests */
	struct cors_config cors;   /* --cors-origin: who may call from another origin */
};

/* Fill c with the defaults of http/knobs.h. */
void http_config_default(struct http_config *c);

#endif
