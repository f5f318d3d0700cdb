/*
 * openapi.h: the OpenAPI 3 description of contactd's HTTP API (src/http/openapi.json,
 * assembled at build time from the parts in src/http/openapi/ by src/http/openapi.awk),
 * embedded by src/http/local.mk.
 */
#ifndef CONTACTD_HTTP_OPENAPI_H
#define CONTACTD_HTTP_OPENAPI_H

#include <stddef.h>

/* The file's bytes (NUL-terminated) and their number, without the NUL. */
extern const char openapi_json[];
extern const size_t openapi_json_len;

#endif
