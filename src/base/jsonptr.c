/*
 * jsonptr.c: RFC 6901 JSON Pointers over jansson values.
 */
#include "base/jsonptr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Decode the reference token starting at *cursor (just after its '/') into
 * token (at least strlen(*cursor) + 1 bytes) and advance *cursor to the next
 * '/' or the end. Returns 0, or -1 on an invalid '~' escape.
 */
static int next_token(const char **cursor, char *token)
{
	const char *p = *cursor;
	size_t n = 0;

	for (; *p && *p != '/'; p++) {
		if (*p != '~') {
			token[n++] = *p;
			continue;
		}
		/* decoding left to right makes "~01" the literal "~1", as RFC 6901 §4 requires */
		if (p[1] == '0')
			token[n++] = '~';
		else if (p[1] == '1')
			token[n++] = '/';
		else
			return -1;
		p++;
	}
	token[n] = '\0';
	*cursor = p;
	return 0;
}

/* An RFC 6901 array index: "0" or digits without a leading zero, within size_t. */
static int parse_index(const char *token, size_t *index)
{
	size_t value = 0;
	const char *p;

	if (token[0] == '\0' || (token[0] == '0' && token[1] != '\0'))
		return -1;
	for (p = token; *p; p++) {
		if (*p < '0' || *p > '9' || value > ((size_t)-1 - 9) / 10)
			return -1;
		value = value * 10 + (size_t)(*p - '0');
	}
	*index = value;
	return 0;
}

/*
 * Walk ptr from root. With stop_at_parent, stop before the last token: *found
 * is the parent and last_token receives the decoded final token.
 */
static int walk(json_t *root, const char *ptr, const char *where, int stop_at_parent,
    json_t **found, char **last_token, struct err *err)
{
	const char *cursor = ptr;
	char *token = NULL;
	json_t *node = root;
	size_t index;
	int rc = -1;

	if (ptr[0] != '\0' && ptr[0] != '/') {
		/* name the fault in this pointer, and the pointer it most likely meant */
		err_set(err, ERR_BAD_VALUE, where,
		    "\"%s\": a JSON Pointer starts with \"/\"; did you mean \"/%s\"?", ptr, ptr);
		goto out;
	}
	token = malloc(strlen(ptr) + 1);
	if (!token) {
		err_set(err, ERR_INTERNAL, where, "out of memory");
		goto out;
	}
	while (*cursor == '/') {
		cursor++;
		if (next_token(&cursor, token) != 0) {
			err_set(err, ERR_BAD_VALUE, where,
			    "invalid escape in JSON Pointer \"%s\": '~' must be followed by 0 or 1",
			    ptr);
			goto out;
		}
		if (stop_at_parent && *cursor == '\0')
			break;
		if (json_is_object(node)) {
			node = json_object_get(node, token);
		} else if (json_is_array(node)) {
			node = parse_index(token, &index) == 0 ? json_array_get(node, index) : NULL;
		} else {
			node = NULL;
		}
		if (!node) {
			err_set(err, ERR_UNKNOWN_FIELD, where, "JSON Pointer \"%s\" names no field",
			    ptr);
			goto out;
		}
	}
	*found = node;
	if (last_token) {
		*last_token = token;
		token = NULL;
	}
	rc = 0;
out:
	free(token);
	return rc;
}

int jptr_get(json_t *root, const char *ptr, const char *where, json_t **found, struct err *err)
{
	return walk(root, ptr, where, 0, found, NULL, err);
}

int jptr_set(json_t *root, const char *ptr, json_t *value, const char *where, struct err *err)
{
	json_t *parent;
	char *token = NULL;
	size_t index;
	int rc = -1;

	if (ptr[0] == '\0') {
		err_set(err, ERR_BAD_VALUE, where,
		    "the JSON Pointer \"\" (the whole request) cannot be set");
		goto out;
	}
	if (walk(root, ptr, where, 1, &parent, &token, err) != 0)
		goto out;
	if (json_is_object(parent)) {
		rc = json_object_set(parent, token, value);
	} else if (json_is_array(parent) && parse_index(token, &index) == 0 &&
	    index < json_array_size(parent)) {
		rc = json_array_set(parent, index, value);
	} else {
		err_set(err, ERR_UNKNOWN_FIELD, where, "JSON Pointer \"%s\" names no field", ptr);
		goto out;
	}
	if (rc != 0)
		err_set(err, ERR_INTERNAL, where, "out of memory");
out:
	free(token);
	return rc;
}

void jptr_append_key(char *buf, size_t size, const char *parent, const char *key)
{
	size_t n;
	const char *k;

	if (size == 0)
		return;
	/* parent may alias buf: copy it first only when it is a different string */
	if (parent != buf)
		snprintf(buf, size, "%s", parent);
	n = strlen(buf);
	if (n + 1 < size)
		buf[n++] = '/';
	for (k = key; *k && n + 1 < size; k++) {
		if (*k == '~' || *k == '/') {
			if (n + 2 >= size)
				break;
			buf[n++] = '~';
			buf[n++] = *k == '~' ? '0' : '1';
		} else {
			buf[n++] = *k;
		}
	}
	buf[n] = '\0';
}

void jptr_append_index(char *buf, size_t size, const char *parent, size_t index)
{
	char token[32];

	snprintf(token, sizeof token, "%zu", index);
	jptr_append_key(buf, size, parent, token);
}
