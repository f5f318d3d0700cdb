/*
 * log.c: the calibration layer's log writer (see log.h).
 */
#include "calib/log.h"

#include <stdarg.h>
#include <stdio.h>

static callog_fn writer;

void callog_set(callog_fn fn)
{
	writer = fn;
}

void callog(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (writer)
		writer("%s", line);
	else
		fprintf(stderr, "%s\n", line);
}
