/*
 * log.h: where the calibration layer writes what no caller is told (a fit that failed on a
 * worker thread, a token's last use that could not be recorded, a refusal). The front end
 * that runs the layer names its log (contactd: http_log()); until then lines go to stderr.
 */
#ifndef CONTACTD_CALIB_LOG_H
#define CONTACTD_CALIB_LOG_H

/* A log writer: one whole line per call, the newline added by it. */
typedef void (*callog_fn)(const char *fmt, ...);

/* Send the layer's lines to fn (NULL: back to stderr). Call before starting threads. */
void callog_set(callog_fn fn);

/* Write one line through the writer set by callog_set(). */
void callog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
