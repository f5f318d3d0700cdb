/*
 * http.h: contactd's HTTP front end on libmicrohttpd, as the daemon's main sees it: its
 * configuration, start, state line and shutdown. The rest is the front end's own modules:
 * log.h (the log), respond.h (requests and responders), status.h (errors' headers),
 * framing.h, routes.h, jobs.h, server.h (the state they share); none includes this header.
 *
 * MHD runs an epoll event loop in a pool of internal threads (one per core by
 * default); each request is handled start to finish on one pool thread, which
 * uses its own store connection (store.h, "Threading model").
 */
#ifndef CONTACTD_HTTP_HTTP_H
#define CONTACTD_HTTP_HTTP_H

#include "base/error.h"
#include "http/http_config.h"
#include "store/store.h"

struct http_server;

/*
 * Start serving. st is owned by the caller and must outlive the server; the calibration
 * service must be started (calstream_start()). On success *out is a new server the caller
 * ends with http_stop(). config is copied.
 */
int http_start(
    const struct http_config *config, struct store *st, struct http_server **out, struct err *err);

/* The port the server listens on (the chosen one when config.port was 0). */
unsigned http_port(const struct http_server *srv);

/*
 * Graceful shutdown: stop accepting, let requests in flight finish (at most
 * config.drain_s seconds), stop every thread and free srv. The store is left open.
 */
void http_stop(struct http_server *srv);

/* Log one line of the server's state: requests in flight, connections, overload counts
 * (contactd's answer to SIGUSR1). */
void http_log_stats(struct http_server *srv);

#endif
