/*
 * log.c: the daemon's rate-limited log (log.h). Lines are told apart by their shape, the
 * line without its digits, hashed into DAEMON_LOG_SLOTS slots, each counting its window.
 */
#include "http/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "http/knobs.h"

/* One kind of log line (the line with its digits left out) and its current window. */
struct log_slot {
	unsigned long long shape; /* FNV-1a of the line's bytes but digits */
	long long window;         /* CLOCK_MONOTONIC window (DAEMON_LOG_WINDOW_S) of its counts */
	unsigned written;         /* lines written in that window */
	unsigned long suppressed; /* lines left out in that window */
	char example[120];        /* the first one left out */
};

static struct {
	pthread_mutex_t lock;
	struct log_slot slot[DAEMON_LOG_SLOTS];
	long long window; /* of written_total */
	unsigned written_total;
} log_limit = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* One write(2) per line, so lines from different threads never interleave. */
static void log_write(const char *line, size_t n)
{
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

static long long log_window(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec / DAEMON_LOG_WINDOW_S;
}

/* The summary of slot's suppressed lines into out (log_limit.lock held); its length, 0 if
 * none, and the slot's count reset. */
static size_t log_summary(struct log_slot *slot, char *out, size_t size)
{
	int n;

	if (!slot->suppressed)
		return 0;
	n = snprintf(
	    out, size, "log: suppressed %lu similar lines: %s\n", slot->suppressed, slot->example);
	slot->suppressed = 0;
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

void http_log_flush(void)
{
	long long now = log_window();
	char summary[256];

	for (size_t i = 0; i < DAEMON_LOG_SLOTS; i++) {
		size_t n = 0;

		pthread_mutex_lock(&log_limit.lock);
		if (log_limit.slot[i].window != now)
			n = log_summary(&log_limit.slot[i], summary, sizeof summary);
		pthread_mutex_unlock(&log_limit.lock);
		if (n)
			log_write(summary, n);
	}
}

void http_log(const char *fmt, ...)
{
	char line[DAEMON_LOG_LINE_MAX], summary[256];
	unsigned long long shape = 14695981039346656037ULL;
	long long now = log_window();
	struct log_slot *slot;
	size_t summary_len;
	va_list ap;
	int n, keep;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = sizeof line - 2;
	for (int i = 0; i < n; i++) {
		if (line[i] < '0' || line[i] > '9')
			shape = (shape ^ (unsigned char)line[i]) * 1099511628211ULL;
	}
	slot = &log_limit.slot[shape % DAEMON_LOG_SLOTS];
	pthread_mutex_lock(&log_limit.lock);
	summary_len = 0;
	if (slot->shape != shape || slot->window != now) {
		summary_len = log_summary(slot, summary, sizeof summary);
		slot->shape = shape;
		slot->window = now;
		slot->written = 0;
	}
	if (log_limit.window != now) {
		log_limit.window = now;
		log_limit.written_total = 0;
	}
	keep = slot->written < DAEMON_LOG_SIMILAR_PER_WINDOW &&
	    log_limit.written_total < DAEMON_LOG_LINES_PER_WINDOW;
	if (keep) {
		slot->written++;
		log_limit.written_total++;
	} else if (slot->suppressed++ == 0) {
		snprintf(slot->example, sizeof slot->example, "%.*s", n, line);
	}
	pthread_mutex_unlock(&log_limit.lock);
	if (summary_len)
		log_write(summary, summary_len);
	if (!keep)
		return;
	line[n++] = '\n';
	log_write(line, (size_t)n);
}

void http_log_safe(char *out, size_t size, const char *s)
{
	/* a blank would split the line's fields, a '%' be read as an escape */
	err_escape(out, size, s, " %\"");
}
