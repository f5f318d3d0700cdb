/*
 * log.h: the daemon's log, rate-limited: one line a write, whole, from any thread.
 *
 * The lowest module of the front end: every other one (the guard, the routes, the
 * calibration routes, upkeep) writes its lines here, and it includes none of them.
 */
#ifndef CONTACTD_HTTP_LOG_H
#define CONTACTD_HTTP_LOG_H

#include <stddef.h>

/*
 * Write one line (a newline is added) to the log, whole, even from many threads. Lines
 * alike but for their digits (the same request again, the same error again) are written
 * at most DAEMON_LOG_SIMILAR_PER_WINDOW times in a window of DAEMON_LOG_WINDOW_S seconds,
 * and all lines at most DAEMON_LOG_LINES_PER_WINDOW times; the rest is counted, and one
 * line "log: suppressed N similar lines: EXAMPLE" follows once the window is over (see
 * http_log_flush()).
 */
void http_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write the summaries of suppressed lines whose window is over (called periodically, so
 * that a summary does not wait for the next line). */
void http_log_flush(void);

/* Copy s (NULL: "") into out (size > 4) with every byte that could forge a log field (a
 * blank, a control byte, non-ASCII, '%', '"') escaped as %XX; cut short to fit. */
void http_log_safe(char *out, size_t size, const char *s);

#endif
