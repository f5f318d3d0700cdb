/*
 * routes.h: the daemon's one route table: the questions (a row for every row of the
 * service's endpoint table), health, the OpenAPI document, the metrics, the calibration
 * routes and the dashboard's pages, with what each answers to OPTIONS.
 */
#ifndef CONTACTD_HTTP_ROUTES_H
#define CONTACTD_HTTP_ROUTES_H

#include <microhttpd.h>

#include "http/server.h"

/* The whole request is in (or its body is over the limit): find its route and answer it
 * (404 when none, 405 naming the methods its route takes). */
enum MHD_Result http_routes_dispatch(struct MHD_Connection *conn, struct exchange *x);

#endif
