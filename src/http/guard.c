/*
 * guard.c: the connection guard of guard.h.
 */
#include "http/guard.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "http/log.h"
#include "http/knobs.h"

/* Where a connection's current request is. */
enum phase {
	PHASE_HEAD, /* its head is due (the deadline runs) */
	PHASE_BODY, /* its body is arriving (the rate is watched) */
	PHASE_BUSY, /* being answered: no deadline */
	PHASE_CUT,  /* refused or cut by the guard: its requests are not served */
};

/* One connection, from MHD's STARTED notification to its CLOSED one (its socket context). */
struct tracked {
	int fd;
	struct sockaddr_storage addr;
	int refused;
	atomic_int phase;
	atomic_llong since_ms;   /* when the current phase began (CLOCK_MONOTONIC) */
	atomic_llong request_ms; /* when the current request's head became due */
	atomic_llong body_bytes; /* of the current request */
	struct tracked *prev, *next;
};

struct guard {
	struct guard_config cfg;
	pthread_mutex_t lock; /* guards the list, and each socket until its CLOSED notification */
	pthread_cond_t wake;
	struct tracked *list;
	int stopping;
	pthread_t thread;
	atomic_ulong refused, head_timeouts, slow_bodies, lifetimes;
};

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Are a and b the same client address (the port aside)? */
static int same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return memcmp(&((const struct sockaddr_in *)a)->sin_addr,
		           &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr)) == 0;
	if (a->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		           &((const struct sockaddr_in6 *)b)->sin6_addr,
		           sizeof(struct in6_addr)) == 0;
	return 0;
}

/* Connections from t's address the guard has let in, and in all (g->lock held). */
static unsigned from_same_address(const struct guard *g, const struct tracked *t, unsigned *all)
{
	unsigned n = 0;

	*all = 0;
	for (const struct tracked *o = g->list; o; o = o->next) {
		n += !o->refused && same_address(&o->addr, &t->addr);
		*all += !o->refused;
	}
	return n;
}

/*
 * Why a new connection is refused (g->lock held; mine from its address, all in all), into
 * message; 0 when it is let in. The global limit, the per-address one, and under load (half
 * the global limit in use, and the per-address limit on) the address's share,
 * 1/DAEMON_LOAD_SHARE of the global limit (none below DAEMON_LOAD_SHARE connections).
 */
static int refusal(const struct guard *g, unsigned mine, unsigned all, char *message, size_t size)
{
	unsigned max = g->cfg.max_connections, share = max / DAEMON_LOAD_SHARE;

	if (max && all >= max)
		return snprintf(message, size,
		           "%u connections are open, the most the daemon takes (--max-connections)",
		           all) > 0;
	if (g->cfg.max_per_ip && mine >= g->cfg.max_per_ip)
		return snprintf(message, size,
		           "%u connections are open from this address (--max-connections-per-ip)",
		           g->cfg.max_per_ip) > 0;
	/* no share with the per-address limit off: behind a proxy, every client is its address */
	if (share && g->cfg.max_per_ip && all >= max / 2 && mine >= share)
		return snprintf(message, size,
		           "%u of %u connections are open, %u from this address: its share under "
		           "load (1/%d of --max-connections)",
		           all, max, mine, DAEMON_LOAD_SHARE) > 0;
	return 0;
}

static void client_name(const struct tracked *t, char *out, size_t size)
{
	if (getnameinfo((const struct sockaddr *)&t->addr,
	        t->addr.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
	                                      : sizeof(struct sockaddr_in),
	        out, size, NULL, 0, NI_NUMERICHOST) != 0)
		snprintf(out, size, "-");
}

/*
 * Answer on fd with status and a JSON error (code, message), then close both directions:
 * libmicrohttpd reads the end of the stream and closes the connection. The answer is
 * sent at once, without waiting; what the client already sent is read first, so that the
 * close does not reset the connection before the answer is read.
 */
static void cut(
    int fd, const char *status, const char *code, const char *extra_header, const char *message)
{
	char body[320], answer[640], drain[4096];
	int body_len, len;

	for (int i = 0; i < 16 && recv(fd, drain, sizeof drain, MSG_DONTWAIT) > 0; i++)
		continue;
	body_len = snprintf(body, sizeof body,
	    "{\"error\":\"%s\",\"message\":\"%s\",\"path\":\"\"}\n", code, message);
	if (body_len < 0 || (size_t)body_len >= sizeof body)
		body_len = 0;
	len = snprintf(answer, sizeof answer,
	    "HTTP/1.1 %s\r\nConnection: close\r\n%sContent-Type: application/json\r\n"
	    "Content-Length: %d\r\n\r\n%.*s",
	    status, extra_header, body_len, body_len, body);
	/* Not waiting: a client that is gone or does not read misses it, nothing worse. */
	if (len > 0 && (size_t)len < sizeof answer)
		(void)send(fd, answer, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
	shutdown(fd, SHUT_RDWR);
}

/*
 * Why t, in phase, is cut now, into message, and the counter of that; NULL when it is not:
 * its request past its lifetime, its head past its deadline, its body below the rate.
 */
static atomic_ulong *overdue(
    struct guard *g, struct tracked *t, int phase, long long now, char *message, size_t size)
{
	long long elapsed = now - atomic_load(&t->since_ms);
	long long head_ms = (long long)g->cfg.head_timeout_s * 1000;

	if (phase != PHASE_HEAD && phase != PHASE_BODY)
		return NULL;
	if (g->cfg.request_s &&
	    now - atomic_load(&t->request_ms) > (long long)g->cfg.request_s * 1000) {
		snprintf(message, size,
		    "the request was not in whole within %u s (--request-timeout)",
		    g->cfg.request_s);
		return &g->lifetimes;
	}
	if (!head_ms || elapsed <= head_ms)
		return NULL;
	if (phase == PHASE_HEAD) {
		snprintf(message, size, "the request head took over %u s (--head-timeout)",
		    g->cfg.head_timeout_s);
		return &g->head_timeouts;
	}
	if (g->cfg.min_body_rate &&
	    atomic_load(&t->body_bytes) * 1000 < (long long)g->cfg.min_body_rate * elapsed) {
		snprintf(message, size, "the body arrived slower than %u bytes/s (--min-body-rate)",
		    g->cfg.min_body_rate);
		return &g->slow_bodies;
	}
	return NULL;
}

/* One pass over the connections: cut those overdue(), with a 408. */
static void sweep(struct guard *g)
{
	long long now = now_ms();
	char message[160], who[64];

	pthread_mutex_lock(&g->lock);
	for (struct tracked *t = g->list; t; t = t->next) {
		int phase = atomic_load(&t->phase);
		atomic_ulong *count = overdue(g, t, phase, now, message, sizeof message);

		if (!count || !atomic_compare_exchange_strong(&t->phase, &phase, PHASE_CUT))
			continue;
		cut(t->fd, "408 Request Timeout", "timeout", "", message);
		atomic_fetch_add(count, 1);
		client_name(t, who, sizeof who);
		http_log("guard: %s: %s; closed", who, message);
	}
	pthread_mutex_unlock(&g->lock);
}

static void *guard_thread(void *p)
{
	struct guard *g = p;
	struct timespec until;

	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += DAEMON_GUARD_PERIOD_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&g->wake, &g->lock, &until) != ETIMEDOUT)
			continue;
		pthread_mutex_unlock(&g->lock);
		sweep(g);
		http_log_flush(); /* summaries of suppressed lines, also when the log went quiet */
		pthread_mutex_lock(&g->lock);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int guard_start(const struct guard_config *config, struct guard **out, struct err *err)
{
	struct guard *g = calloc(1, sizeof *g);

	if (!g)
		return err_set(err, ERR_UNAVAILABLE, NULL, "out of memory");
	g->cfg = *config;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->wake, NULL);
	if (pthread_create(&g->thread, NULL, guard_thread, g) != 0) {
		pthread_cond_destroy(&g->wake);
		pthread_mutex_destroy(&g->lock);
		free(g);
		return err_set(err, ERR_UNAVAILABLE, NULL, "cannot start the connection guard");
	}
	*out = g;
	return 0;
}

void guard_stop(struct guard *g)
{
	struct tracked *t, *next;

	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stopping = 1;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	for (t = g->list; t; t = next) { /* none once MHD stopped; freed all the same */
		next = t->next;
		free(t);
	}
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static void start_connection(struct guard *g, struct MHD_Connection *conn, void **socket_context)
{
	const union MHD_ConnectionInfo *fd =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	const union MHD_ConnectionInfo *addr =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	struct tracked *t = calloc(1, sizeof *t);
	char who[64], message[160];
	unsigned mine, all;

	if (!t || !fd) { /* untracked: served, without the guard's deadlines */
		free(t);
		return;
	}
	t->fd = fd->connect_fd;
	if (addr && addr->client_addr)
		memcpy(&t->addr, addr->client_addr,
		    addr->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
		                                             : sizeof(struct sockaddr_in));
	atomic_init(&t->phase, PHASE_HEAD);
	atomic_init(&t->since_ms, now_ms());
	atomic_init(&t->request_ms, atomic_load(&t->since_ms));
	atomic_init(&t->body_bytes, 0);
	pthread_mutex_lock(&g->lock);
	mine = from_same_address(g, t, &all);
	t->refused = refusal(g, mine, all, message, sizeof message);
	if (t->refused)
		atomic_store(&t->phase, PHASE_CUT);
	t->next = g->list;
	if (g->list)
		g->list->prev = t;
	g->list = t;
	pthread_mutex_unlock(&g->lock);
	*socket_context = t;
	if (!t->refused)
		return;
	cut(t->fd, "503 Service Unavailable", "unavailable",
	    "Retry-After: " DAEMON_RETRY_AFTER "\r\n", message);
	atomic_fetch_add(&g->refused, 1);
	client_name(t, who, sizeof who);
	http_log("guard: %s: 503: %s", who, message);
}

void guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
    enum MHD_ConnectionNotificationCode code)
{
	struct guard *g = cls;
	struct tracked *t = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		start_connection(g, conn, socket_context);
		return;
	}
	if (!t)
		return;
	/* Unlinked before libmicrohttpd closes the socket: the sweep never cuts another's. */
	pthread_mutex_lock(&g->lock);
	if (t->prev)
		t->prev->next = t->next;
	else
		g->list = t->next;
	if (t->next)
		t->next->prev = t->prev;
	pthread_mutex_unlock(&g->lock);
	*socket_context = NULL;
	free(t);
}

static struct tracked *tracked_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info ? info->socket_context : NULL;
}

/* Move t from phase from to phase to; -1 when the guard cut it meanwhile. */
static int advance(struct tracked *t, int from, int to)
{
	int phase = from;

	if (atomic_compare_exchange_strong(&t->phase, &phase, to))
		return 0;
	if (phase == PHASE_CUT)
		return -1;
	atomic_store(&t->phase, to); /* pipelined or unusual order: take the new phase */
	return 0;
}

int guard_head_in(struct MHD_Connection *conn)
{
	struct tracked *t = tracked_of(conn);

	if (!t)
		return 0;
	atomic_store(&t->body_bytes, 0);
	atomic_store(&t->since_ms, now_ms());
	return advance(t, PHASE_HEAD, PHASE_BODY);
}

void guard_body_in(struct MHD_Connection *conn, size_t n)
{
	struct tracked *t = tracked_of(conn);

	if (t)
		atomic_fetch_add(&t->body_bytes, (long long)n);
}

int guard_request_in(struct MHD_Connection *conn)
{
	struct tracked *t = tracked_of(conn);

	return t ? advance(t, PHASE_BODY, PHASE_BUSY) : 0;
}

void guard_request_done(struct MHD_Connection *conn)
{
	struct tracked *t = tracked_of(conn);
	int phase;

	if (!t)
		return;
	atomic_store(&t->since_ms, now_ms());
	atomic_store(&t->request_ms, atomic_load(&t->since_ms));
	phase = atomic_load(&t->phase);
	while (phase != PHASE_CUT && !atomic_compare_exchange_weak(&t->phase, &phase, PHASE_HEAD))
		continue;
}

void guard_cut(
    struct MHD_Connection *conn, const char *status, const char *code, const char *message)
{
	const union MHD_ConnectionInfo *fd =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct tracked *t = tracked_of(conn);

	if (t) {
		int phase = atomic_load(&t->phase);

		/* the sweep's cut or this one, never both */
		while (phase != PHASE_CUT &&
		    !atomic_compare_exchange_weak(&t->phase, &phase, PHASE_CUT))
			continue;
		if (phase == PHASE_CUT)
			return;
	}
	if (fd)
		cut(fd->connect_fd, status, code, "", message);
}

struct guard_counts guard_counts(struct guard *g)
{
	return (struct guard_counts){
	    .refused = atomic_load(&g->refused),
	    .head_timeouts = atomic_load(&g->head_timeouts),
	    .slow_bodies = atomic_load(&g->slow_bodies),
	    .lifetimes = atomic_load(&g->lifetimes),
	};
}
