/*
 * jsonptr.h: JSON Pointers (RFC 6901) into jansson values, and building them.
 *
 * A pointer is "" (the whole document) or a sequence of "/token"; in a token
 * "~1" stands for '/' and "~0" for '~'. Array tokens are decimal indexes
 * without leading zeros; "-" (past the end) is not supported.
 */
#ifndef CONTACTD_BASE_JSONPTR_H
#define CONTACTD_BASE_JSONPTR_H

#include <stddef.h>
#include <jansson.h>

#include "base/error.h"

/*
 * Find the value ptr points at in root. On success *found is a borrowed
 * reference (valid while root lives). Errors: bad_value for a malformed
 * pointer, unknown_field when it names nothing; err's path is `where` (the
 * request field holding the pointer).
 */
int jptr_get(json_t *root, const char *ptr, const char *where, json_t **found, struct err *err);

/*
 * Replace the value ptr points at with value (root keeps its own reference;
 * the caller keeps its reference to value). The parent must exist; an object
 * member is added if absent, an array element must exist. ptr "" (the whole
 * document) is refused. Errors as jptr_get.
 */
int jptr_set(json_t *root, const char *ptr, json_t *value, const char *where, struct err *err);

/* Write parent + "/" + key, with key escaped, to buf (NUL-terminated, truncated to size). */
void jptr_append_key(char *buf, size_t size, const char *parent, const char *key);

/* Write parent + "/" + index to buf (NUL-terminated, truncated to size). */
void jptr_append_index(char *buf, size_t size, const char *parent, size_t index);

#endif
