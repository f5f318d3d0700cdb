/*
 * body.h: from the raw bytes of a request body to a JSON object, with the
 * contract's errors: malformed JSON, nesting too deep, numbers out of range.
 */
#ifndef CONTACTD_BASE_BODY_H
#define CONTACTD_BASE_BODY_H

#include <stddef.h>
#include <jansson.h>

#include "base/error.h"

/*
 * Parse len bytes of text (need not be NUL-terminated) as one JSON object.
 * Any length is parsed: the size limit (--max-body) is the caller's (svc_canonical(),
 * the HTTP layer). Errors: bad_json for malformed JSON,
 * invalid UTF-8, duplicate keys or trailing bytes; bad_value (with the field's
 * path) for a number no double or integer can hold; too_deep (with the path
 * of the first container too deep) past LIMIT_MAX_JSON_DEPTH; bad_type when
 * the document is not an object. On success *root is a new reference the
 * caller owns.
 */
int body_parse(const char *text, size_t len, json_t **root, struct err *err);

#endif
