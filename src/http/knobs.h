/*
 * knobs.h: the daemon's knobs: its flags' defaults and bounds, connection and framing
 * limits, logging's rate limits, event streams, CORS, the per-thread answer memory, and
 * the calibration routes' waits.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_HTTP_KNOBS_H
#define CONTACTD_HTTP_KNOBS_H

/* The compute budget (service/budget.h): CPU seconds one question may take, all its
 * threads together (--max-cpu-seconds; 0: none). The largest drop sweep the service's
 * limits allow (service/knobs.h, LIMIT_MAX_SWEEP_STEPS) takes about 5-10 s; a hold with
 * noslip up to ~30 s. */
#define DAEMON_MAX_CPU_SECONDS 20.0

#define STREAM_CHUNK_BYTES 16384 /* the most a streamed sweep hands libmicrohttpd at once */

/* ---- daemon defaults: the README's first command serves this machine alone, from an
 * embedded SQLite file in the working directory ---- */
#define DAEMON_DEFAULT_PORT 8750        /* TCP port; free of the usual services' */
#define DAEMON_DEFAULT_BIND "127.0.0.1" /* loopback: a lab network is opted into */
#define DAEMON_DEFAULT_DB "contactd.db" /* the SQLite file, relative to the working directory */
#define DAEMON_CONNECTION_TIMEOUT 10 /* seconds of client silence before a connection is closed */
/* open connections (--max-connections), within a process's usual descriptor limit */
#define DAEMON_CONNECTION_LIMIT 1024
#define DAEMON_CONNECTION_MEMORY (64 * 1024) /* bytes per connection for headers and buffers */
#define DAEMON_DRAIN_TIMEOUT 30              /* seconds shutdown waits for requests in flight */

/* Questions admitted beyond the compute threads (waiting for one, their connections
 * suspended); one more is answered 503 with Retry-After: DAEMON_RETRY_AFTER seconds. */
#define DAEMON_COMPUTE_QUEUE 256
#define DAEMON_RETRY_AFTER "1"

/* One client's share of the compute pool (a client is the bearer token a request carries,
 * when it authenticates, else its address: admit.h): at most max(1, compute threads /
 * DAEMON_CLIENT_RUNNING_PART) of its jobs run at once, so that one client's slow work
 * leaves threads to the others, and at most --max-queued / DAEMON_CLIENT_QUEUE_PART more
 * wait (at least 1; 32 of the default 256: eight such clients to fill the queue, as
 * DAEMON_LOAD_SHARE for connections); one more is answered 503 with Retry-After:
 * DAEMON_RETRY_AFTER. The queue serves the clients in turn, so another client's question waits
 * behind at most one job of each, however long their queues. */
#define DAEMON_CLIENT_RUNNING_PART 2
#define DAEMON_CLIENT_QUEUE_PART 8

/* The store pool (offload.h): threads that run the calibration routes, which wait for the
 * store's disk and its other writers, off the HTTP threads; a few, as the store commits one
 * writer at a time and its readers are quick. Routes beyond them wait, up to
 * DAEMON_STORE_QUEUE; one more is answered 503 with Retry-After. */
#define DAEMON_STORE_THREADS 4
#define DAEMON_STORE_QUEUE 256

/* Open connections from one client address; 0 is no limit (behind a reverse proxy every
 * connection comes from the proxy's address). */
#define DAEMON_PER_IP_CONNECTION_LIMIT 256

/* libmicrohttpd's own limit is --max-connections plus DAEMON_REFUSAL_SLOTS: the guard
 * refuses past --max-connections itself, with a 503, so those slots hold the refusals in
 * the moment before they close (at libmicrohttpd's limit a new client would wait unanswered
 * in the listen backlog). Under load, once half of --max-connections are open, one address
 * may hold at most 1/DAEMON_LOAD_SHARE of them (and --max-connections-per-ip as ever; no
 * share when that is 0, behind a proxy, or below DAEMON_LOAD_SHARE connections): a few
 * addresses cannot take every slot. */
#define DAEMON_REFUSAL_SLOTS 64
#define DAEMON_LOAD_SHARE 8

/* The whole request head (from the connection's start or the previous answer) is due
 * within DAEMON_HEAD_TIMEOUT seconds however it trickles, and a body averages at least
 * DAEMON_MIN_BODY_RATE bytes/s once it had as long: 408 and a close otherwise (slowloris).
 * Twice the idle timeout, so an idle keep-alive connection is closed by that one first. */
#define DAEMON_HEAD_TIMEOUT 20
#define DAEMON_MIN_BODY_RATE 1024
#define DAEMON_GUARD_PERIOD_MS 250 /* how often the deadlines are checked */

/* The whole request, head and body, is due within DAEMON_REQUEST_TIMEOUT seconds
 * (--request-timeout), counted as the head's deadline is: 408 and a close otherwise, however
 * fast it trickles (the rate alone let a 5 MB body at 1,100 B/s hold its connection 78
 * minutes). The largest body the daemon takes, an eval or grade batch of 5,120,000 bytes
 * (LIMIT_MAX_EVAL_CALLS times LIMIT_EVAL_CALL_BYTES), then needs 43 kB/s (340 kbit/s), a
 * third of the slowest Wi-Fi rate (802.11b's 1 Mbit/s). */
#define DAEMON_REQUEST_TIMEOUT 120

/* A body over --max-body by at most this much is read and dropped before the 413, so that a
 * client still sending reads the answer. A declared one larger is answered at once; a
 * chunked one (no length declared) is cut when it gets this far over: a 413 written on the
 * socket, then a close, as libmicrohttpd queues no response mid-upload. */
#define DAEMON_DISCARD_BODY_MAX (16 * 1024 * 1024)

/* Request body bytes all connections hold at once, in MiB (--body-memory-mb; 0: no bound):
 * a body past it is answered 503 with Retry-After, at once when its client waits for "100
 * Continue", else at its end, read and dropped meanwhile. 100 connections with 5 MB bodies took the
 * daemon from 137 to 815 MB; 128 MiB holds 25 of the largest eval batches or 128 bodies of the
 * default --max-body, more than the compute threads work through while they wait. */
#define DAEMON_BODY_MEMORY_MB 128

#define CORS_MAX_ORIGINS 32 /* --cors-origin given at most this often */
#define CORS_MAX_AGE 600    /* seconds a browser may reuse a preflight */

/* The request headers a cross-origin page may send (preflight answer). */
#define CORS_ALLOW_HEADERS "Content-Type, Authorization, Idempotency-Key, Accept"

/* The answer headers a cross-origin page may read. */
#define CORS_EXPOSE_HEADERS "X-Cache, Content-Length"

/* The largest values contactd's flags accept. */
#define DAEMON_MAX_THREADS 1024        /* --threads, --sweep-threads */
#define DAEMON_MAX_TIMEOUT 86400       /* --timeout, --drain-timeout: seconds */
#define DAEMON_MAX_CONNECTIONS 1000000 /* --max-connections */
#define DAEMON_LOG_LINE_MAX 1024       /* bytes of one log line, newline included */

/* Per window of DAEMON_LOG_WINDOW_S seconds: log lines alike but for their digits written
 * (the rest counted and summed up), all lines written; slots telling kinds of lines apart.
 * A repeated error (10 a second on a full disk) comes to about 2 lines a second. */
#define DAEMON_LOG_WINDOW_S 10
#define DAEMON_LOG_SIMILAR_PER_WINDOW 20
#define DAEMON_LOG_LINES_PER_WINDOW 5000
#define DAEMON_LOG_SLOTS 256
#define DAEMON_EVENTS_KEEPALIVE_S 15 /* seconds between comments on an idle event stream */

/* How often sleeping event streams are checked for a client that closed its side. */
#define DAEMON_EVENTS_CLOSE_CHECK_MS 500
#define DAEMON_EVENTS_PER_TOKEN 32    /* event streams one token may hold open; 503 beyond */
#define DAEMON_EVENTS_RETRY_AFTER "5" /* seconds: Retry-After of that 503 */

#define DAEMON_UPKEEP_MS 100     /* period of the WAL and cache upkeep */
#define DAEMON_CACHE_MAX_MB 1024 /* --cache-max-mb: answer bytes the cache keeps; 0: no bound */

/* ?wait=SECONDS (or Prefer: wait=SECONDS) on an upload, a deletion or GET of a calibration
 * blocks (its connection suspended, no thread held) at most this long for the fit. */
#define CALIB_MAX_WAIT_S 300

/* Waits one token may hold at once, as many as its event streams: past it a request with a
 * wait is answered at once, as without one (its fit maybe pending), never 503: an upload or
 * a deletion asking to wait is already committed. A wait whose client left frees its slot
 * within DAEMON_EVENTS_CLOSE_CHECK_MS. */
#define DAEMON_WAITS_PER_TOKEN 32

/* How often an open event stream's token (revoked? expired? its rotation's grace over?) and
 * watch URL (expired?) are looked at: a stream ends within this long of either. The token is
 * read from the store, so a revocation by another process (`contactd token`) is seen too. */
#define CALIB_STREAM_CHECK_MS 500

/* A calibration request answered 503 because the store is unreachable says Retry-After: */
#define CALIB_RETRY_AFTER_S 2

/* ---- the daemon's per-thread memory cache of answers (src/http/hotcache.h) ---- */
#define HOT_SLOTS 1024                /* direct-mapped entries per thread */
#define HOT_MAX_ANSWER (64 * 1024)    /* larger answers (big sweeps) are not kept */
#define HOT_BUDGET (16 * 1024 * 1024) /* answer bytes per thread */

#endif
