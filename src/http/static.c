/*
 * static.c: the embedded dashboard files (static.h).
 */
#include <string.h>

#include "http/static.h"

/* The pages load only their own scripts, styles and API: no inline code, no CDN. */
static const char page_policy[] = "default-src 'self'; img-src 'self' data:; "
                                  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const struct static_file *static_find(const char *url)
{
	size_t i;

	if (strcmp(url, "/") == 0)
		url = "/index.html";
	for (i = 0; i < static_file_count; i++)
		if (strcmp(static_files[i].path, url) == 0)
			return &static_files[i];
	return NULL;
}

enum MHD_Result static_serve(
    struct MHD_Connection *conn, struct http_request *req, const struct static_file *f)
{
	struct MHD_Response *resp =
	    MHD_create_response_from_buffer(f->len, (void *)f->data, MHD_RESPMEM_PERSISTENT);

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, f->type);
	MHD_add_response_header(resp, "Content-Security-Policy", page_policy);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	/* revalidate every time: a new daemon may serve new pages at the same names */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	req->route = "page";
	return http_respond(conn, req, MHD_HTTP_OK, resp);
}
