/*
 * http_config.c: the daemon's defaults (http_config.h).
 */
#include "http/http_config.h"

#include <unistd.h>

#include "core/knobs.h"
#include "service/knobs.h"
#include "calib/knobs.h"
#include "http/knobs.h"

void http_config_default(struct http_config *c)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	c->bind = DAEMON_DEFAULT_BIND;
	c->port = DAEMON_DEFAULT_PORT;
	c->threads = cores > 0 ? (int)cores : 1;
	c->sweep_threads = c->threads;
	c->timeout_s = DAEMON_CONNECTION_TIMEOUT;
	c->max_connections = DAEMON_CONNECTION_LIMIT;
	c->max_per_ip = DAEMON_PER_IP_CONNECTION_LIMIT;
	c->head_timeout_s = DAEMON_HEAD_TIMEOUT;
	c->min_body_rate = DAEMON_MIN_BODY_RATE;
	c->request_s = DAEMON_REQUEST_TIMEOUT;
	c->compute_threads = c->threads;
	c->fit_workers = CALIB_FIT_WORKERS;
	c->max_queued = DAEMON_COMPUTE_QUEUE;
	c->cache_max_bytes = (long long)DAEMON_CACHE_MAX_MB * 1024 * 1024;
	c->max_body = LIMIT_MAX_BODY_BYTES;
	c->body_memory = (size_t)DAEMON_BODY_MEMORY_MB * 1024 * 1024;
	c->max_sweep_points = LIMIT_MAX_SWEEP_POINTS;
	c->max_eval_calls = LIMIT_MAX_EVAL_CALLS;
	c->max_cpu_seconds = DAEMON_MAX_CPU_SECONDS;
	c->drain_s = DAEMON_DRAIN_TIMEOUT;
	c->core_version = CORE_VERSION;
	c->cors.origins = NULL;
	c->cors.count = 0;
}
