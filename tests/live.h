/*
 * live.h: a test harness around the real contactd: start it on a free port with a
 * temporary database, talk to it over HTTP (libcurl), read its log, stop it.
 *
 * For Check tests in fork mode: the live_ functions assert with ck_assert (from the
 * test's main thread only), except live_try_request(), which any thread may call.
 * A started daemon is killed when the test process dies (PR_SET_PDEATHSIG), so a
 * failed assertion never leaves one behind.
 */
#ifndef CONTACTD_TESTS_LIVE_H
#define CONTACTD_TESTS_LIVE_H

#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>

/* Upper bound in seconds on any wait: start-up, shutdown, a reply, a closed connection.
 * Generous (events take milliseconds) so a loaded 2-core machine never fails a test. */
#define LIVE_WAIT_S 60

struct live_daemon {
	pid_t pid; /* 0 when not running */
	unsigned port;
	char dir[256]; /* the test's temporary directory */
	char db[320];  /* dir/cache.db */
	char log[320]; /* dir/contactd.log: the daemon's stderr and stdout */
};

struct live_reply {
	long status;
	char *body; /* NUL-terminated; the caller frees with live_reply_free() */
	size_t len;
	char cache[16];         /* X-Cache */
	char content_type[128]; /* Content-Type */
	char allow[64];         /* Allow */
	char head[2048];        /* every header line of the reply, as received (truncated) */
};

/* "Content-Type: application/json", as a header list for live_request(). */
extern const char *const live_json_headers[];

/* Make d's temporary directory (mkdtemp under $TMPDIR or /tmp). */
void live_init(struct live_daemon *d);

/* Stop d if running (asserting it exits 0, as after a clean shutdown) and remove its
 * directory. */
void live_cleanup(struct live_daemon *d);

/*
 * Start contactd (the CONTACTD program) with --port 0 --db d->db and the given extra
 * arguments, a NULL-terminated list; wait for its "listening on" log line.
 */
void live_start(struct live_daemon *d, ...) __attribute__((sentinel));

/* SIGTERM the daemon and wait for it: its exit status, or -1 if a signal killed it. */
int live_stop(struct live_daemon *d);

/*
 * One request without assertions, safe from any thread. headers: NULL-terminated
 * "Name: value" strings or NULL; body may be NULL; chunked sends it with
 * Transfer-Encoding: chunked. Returns 0, or -1 when no HTTP reply came.
 */
int live_try_request(const struct live_daemon *d, const char *method, const char *path,
    const char *const headers[], const char *body, size_t len, int chunked, struct live_reply *r);

/* live_try_request(), asserting that a reply came. */
void live_request(const struct live_daemon *d, const char *method, const char *path,
    const char *const headers[], const char *body, size_t len, int chunked, struct live_reply *r);

/* POST a JSON body. */
void live_post(
    const struct live_daemon *d, const char *path, const char *body, struct live_reply *r);

/* GET path. */
void live_get(const struct live_daemon *d, const char *path, struct live_reply *r);

void live_reply_free(struct live_reply *r);

/* The value of the reply's header name (case-insensitive) into out; 1 if present, else 0. */
int live_header(const struct live_reply *r, const char *name, char *out, size_t size);

/* The reply's body parsed as JSON (asserting that it is). Caller owns it. */
json_t *live_json(const struct live_reply *r);

/* The reply is the contract's error: status, {"error": code, "message", "path"}, no more.
 * path NULL accepts any path. */
void live_assert_error(const struct live_reply *r, long status, const char *code, const char *path);

/* Number of occurrences of needle in the daemon's log. */
int live_log_count(const struct live_daemon *d, const char *needle);

/* A whole file, NUL-terminated (NULL if it cannot be read); *len its length if len. */
char *live_read_file(const char *path, size_t *len);

void live_write_file(const char *path, const char *text);

double live_now(void);

/* The value of the unlabelled metric name in d's /metrics; -1 when it is absent. */
double live_metric(const struct live_daemon *d, const char *name);

/* Poll d's /metrics until the metric name is at least at_least (asserting it gets there
 * within LIVE_WAIT_S): how a test knows that a request is being computed, not a sleep. */
void live_wait_metric(const struct live_daemon *d, const char *name, double at_least);

/* Poll d's /metrics until the metric name reads exactly value (at most LIVE_WAIT_S): 1 if it
 * did, else 0 (no assertion: the caller says what it means). */
int live_metric_becomes(const struct live_daemon *d, const char *name, double value);

/*
 * A sweep body of `points` drops of 5e6 steps each (duration 500 s at a 1e-4 s step;
 * the limit is 1e7 per point): about 0.16 s of work per point at -O2 on one sweep
 * thread, several times that under the sanitizers. The steps, not a measured time, set
 * the work; height makes requests distinct (no cache hit). Caller frees.
 */
char *live_long_sweep(int points, double height);

/* live_long_sweep() under `cone` ("pyramidal" or "elliptic"). The elliptic cone's points
 * go through the scalar core, several times slower than the SIMD lanes the pyramidal
 * cone's take: a test that needs a sweep still computing after a second uses it. */
char *live_long_sweep_cone(int points, double height, const char *cone);

/* A TCP socket connected to d (asserting that it connects). */
int live_connect(const struct live_daemon *d);

/* POST body (JSON) to path on a new connection to d, with extra header lines (each ending
 * in CRLF; "" for none), not reading the answer: the socket, the caller's to close. */
int live_post_raw(
    const struct live_daemon *d, const char *path, const char *extra, const char *body);

/* Read one whole HTTP response from fd into buf (headers, then Content-Length bytes of
 * body), NUL-terminated; its status, or 0 when none came whole within LIVE_WAIT_S. */
int live_read_response(int fd, char *buf, size_t size);

/* Read from fd up to the end of a response's headers (an event stream's, say); its
 * status, or 0 when they did not come within LIVE_WAIT_S. */
int live_read_headers(int fd, char *buf, size_t size);

/* Wait (at most LIVE_WAIT_S) until the peer closes fd, skipping any bytes; 1 if it did. */
int live_closed_by_peer(int fd);

void live_sleep_ms(long ms);

#endif
