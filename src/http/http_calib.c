/*
 * http_calib.c: the default calibration seam, which serves nothing. The calibration
 * layer replaces this file; see http_calib.h for the contract.
 */
#include <stdio.h>

#include "http/http_calib.h"

int http_calib_start(struct store *st, struct err *err)
{
	(void)st;
	(void)err;
	return 0;
}

int http_calib_route(struct MHD_Connection *conn, struct http_request *req,
    enum MHD_Result *result)
{
	(void)conn;
	(void)req;
	(void)result;
	return 0;
}

void http_calib_stop(void)
{
}

int calib_token_command(int argc, char **argv, const char *db_path)
{
	(void)argc;
	(void)argv;
	(void)db_path;
	fprintf(stderr, "contactd: token: not available in this build\n");
	return 1;
}
