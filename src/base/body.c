/*
 * body.c: parse a request body with jansson and turn its failures into the
 * contract's errors, each with the JSON Pointer of the offending field.
 */
#include "base/body.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonptr.h"
#include "base/knobs.h"

/* One open container while scanning the text for an overflowing number. */
struct scan_frame {
	int is_object;
	int want_key;    /* the next string in this object is a key */
	size_t index;    /* array: index of the current element */
	const char *key; /* object: the current key's raw token, quotes included */
	size_t key_len;
};

/* Length of the string token at text[0] == '"', quotes included; 0 if unterminated. */
static size_t string_token_length(const char *text, size_t len)
{
	size_t i;

	for (i = 1; i < len; i++) {
		if (text[i] == '\\')
			i++;
		else if (text[i] == '"')
			return i + 1;
	}
	return 0;
}

/* Does the number token overflow what jansson can hold (a double or a json_int_t)? */
static int number_overflows(const char *token, size_t len)
{
	char *copy = strndup(token, len);
	int overflow;

	if (!copy)
		return 0;
	errno = 0;
	if (strcspn(copy, ".eE") < len)
		overflow = isinf(strtod(copy, NULL));
	else
		overflow = (strtoll(copy, NULL, 10), errno == ERANGE);
	free(copy);
	return overflow;
}

/* Length of the run of number characters at text[0]. */
static size_t number_token_length(const char *text, size_t len)
{
	size_t n = 0;

	while (n < len && strchr("+-0123456789.eE", text[n]) && text[n] != '\0')
		n++;
	return n;
}

/* Append the frames' tokens to path: keys decoded (jansson does the unescaping) then re-escaped. */
static void frames_path(const struct scan_frame *frames, int depth, char *path, size_t size)
{
	int i;

	path[0] = '\0';
	for (i = 0; i < depth; i++) {
		if (!frames[i].is_object) {
			jptr_append_index(path, size, path, frames[i].index);
		} else if (frames[i].key) {
			json_t *key =
			    json_loadb(frames[i].key, frames[i].key_len, JSON_DECODE_ANY, NULL);
			jptr_append_key(
			    path, size, path, json_is_string(key) ? json_string_value(key) : "");
			json_decref(key);
		}
	}
}

/*
 * Find the path of the first number in text that overflows. jansson reports
 * only a byte position, so this rescans the text, which is valid JSON up to
 * that number. Returns 0 with path filled, or -1 when none is found.
 */
static int find_overflow(const char *text, size_t len, char *path, size_t size)
{
	struct scan_frame frames[LIMIT_MAX_JSON_DEPTH + 1];
	int depth = 0;
	size_t i = 0, n;

	while (i < len) {
		char c = text[i];
		struct scan_frame *top = depth > 0 ? &frames[depth - 1] : NULL;

		if (c == '{' || c == '[') {
			if (depth == LIMIT_MAX_JSON_DEPTH + 1)
				return -1;
			frames[depth].is_object = c == '{';
			frames[depth].want_key = c == '{';
			frames[depth].index = 0;
			frames[depth].key = NULL;
			frames[depth].key_len = 0;
			depth++;
			i++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return -1;
			depth--;
			i++;
		} else if (c == ',') {
			if (top && top->is_object)
				top->want_key = 1;
			else if (top)
				top->index++;
			i++;
		} else if (c == '"') {
			n = string_token_length(text + i, len - i);
			if (n == 0)
				return -1;
			if (top && top->is_object && top->want_key) {
				top->key = text + i;
				top->key_len = n;
				top->want_key = 0;
			}
			i += n;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			n = number_token_length(text + i, len - i);
			if (number_overflows(text + i, n)) {
				frames_path(frames, depth, path, size);
				return 0;
			}
			i += n;
		} else {
			i++; /* whitespace, ':' and the letters of true, false, null */
		}
	}
	return -1;
}

/* jansson quotes the offending input in its messages: keep only printable ASCII of it. */
static void printable(char *text)
{
	for (; *text; text++)
		if ((unsigned char)*text < 0x20 || (unsigned char)*text > 0x7e)
			*text = '?';
}

/* too_deep with the path of the first container nested deeper than the limit. */
static int check_depth(json_t *value, int depth, const char *path, struct err *err)
{
	char child[ERR_PATH_MAX];
	const char *key;
	json_t *member;
	size_t index;

	if (!json_is_object(value) && !json_is_array(value))
		return 0;
	if (depth > LIMIT_MAX_JSON_DEPTH)
		return err_set(err, ERR_TOO_DEEP, path, "JSON nested deeper than %d levels",
		    LIMIT_MAX_JSON_DEPTH);
	if (json_is_object(value)) {
		json_object_foreach (value, key, member) {
			jptr_append_key(child, sizeof child, path, key);
			if (check_depth(member, depth + 1, child, err) != 0)
				return -1;
		}
	} else {
		json_array_foreach (value, index, member) {
			jptr_append_index(child, sizeof child, path, index);
			if (check_depth(member, depth + 1, child, err) != 0)
				return -1;
		}
	}
	return 0;
}

int body_parse(const char *text, size_t len, json_t **root, struct err *err)
{
	json_error_t jerr;
	char path[ERR_PATH_MAX];
	json_t *doc = NULL;
	int rc = -1;

	/* duplicate keys are rejected: which one would count is not obvious to the sender */
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		enum json_error_code code = json_error_code(&jerr);

		printable(jerr.text);
		switch (code) {
		case json_error_stack_overflow:
			err_set(err, ERR_TOO_DEEP, "", "JSON nested deeper than %d levels",
			    LIMIT_MAX_JSON_DEPTH);
			break;
		case json_error_numeric_overflow:
			if (find_overflow(text, len, path, sizeof path) != 0)
				path[0] = '\0';
			err_set(err, ERR_BAD_VALUE, path, "number out of range (%s)", jerr.text);
			break;
		default:
			err_set(err, ERR_BAD_JSON, "", "malformed JSON at line %d, column %d: %s",
			    jerr.line, jerr.column, jerr.text);
			break;
		}
		goto out;
	}
	if (check_depth(doc, 1, "", err) != 0)
		goto out;
	if (!json_is_object(doc)) {
		err_set(err, ERR_BAD_TYPE, "", "the request must be a JSON object");
		goto out;
	}
	*root = doc;
	doc = NULL;
	rc = 0;
out:
	json_decref(doc);
	return rc;
}
