/*
 * static.h: the dashboard's files (src/http/www/ and Chart.js), embedded in contactd
 * at build time by src/http/embed-www.sh, so the pages work offline, need no CDN and
 * always match the daemon that serves them.
 */
#ifndef CONTACTD_HTTP_STATIC_H
#define CONTACTD_HTTP_STATIC_H

#include <stddef.h>
#include <microhttpd.h>

#include "http/respond.h"

struct static_file {
	const char *path; /* "/name.ext" */
	const char *type; /* Content-Type */
	const unsigned char *data;
	size_t len;
};

/* The generated table (static_files.c, built from the files by embed-www.sh). */
extern const struct static_file static_files[];
extern const size_t static_file_count;

/* The embedded file served at url ("/" is /index.html), or NULL. Static storage. */
const struct static_file *static_find(const char *url);

/*
 * Answer a GET or HEAD of f with its bytes and headers that keep the page to its own
 * scripts (Content-Security-Policy) and out of frames. Queued with http_respond().
 */
enum MHD_Result static_serve(
    struct MHD_Connection *conn, struct http_request *req, const struct static_file *f);

#endif
