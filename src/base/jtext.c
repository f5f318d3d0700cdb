/*
 * jtext.c: the shortest round-tripping reals, and a JSON writer around them (jansson
 * cannot be told how to print one real, only with how many digits to print all).
 */
#include "base/jtext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *jtext_shortest(double x, char buf[JTEXT_REAL_MAX])
{
	int digits;

	/* 17 significant digits always round-trip a double; fewer often do */
	for (digits = 15; digits < 17; digits++) {
		snprintf(buf, JTEXT_REAL_MAX, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			return buf;
	}
	snprintf(buf, JTEXT_REAL_MAX, "%.17g", x);
	return buf;
}

char *jtext_real(double x, char buf[JTEXT_REAL_MAX])
{
	char *e, *digits, *end;

	jtext_shortest(x, buf);
	/* a '.' or an exponent, so that the text reads back as a real, not an integer */
	if (!strchr(buf, '.') && !strchr(buf, 'e')) {
		strcat(buf, ".0");
		return buf;
	}
	/* "e+05" -> "e5", "e-05" -> "e-5", as jansson writes exponents */
	e = strchr(buf, 'e');
	if (e) {
		digits = e + 1;
		if (*digits == '-')
			digits++;
		else if (*digits == '+')
			memmove(digits, digits + 1, strlen(digits));
		for (end = digits; *end == '0' && end[1]; end++)
			;
		memmove(digits, end, strlen(end) + 1);
	}
	return buf;
}

/* Write the string s (len bytes, valid UTF-8) quoted and escaped as jansson does. */
static void put_string(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04X", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

static int compare_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A line break and the indentation of depth, when pretty. */
static void newline(FILE *f, int flags, int depth)
{
	if (flags & JTEXT_PRETTY)
		fprintf(f, "\n%*s", 2 * depth, "");
}

static int put_value(FILE *f, const json_t *v, int flags, int depth);

static int put_object(FILE *f, const json_t *v, int flags, int depth)
{
	size_t n = json_object_size(v), i = 0;
	const char **keys;
	const char *key;
	json_t *member;
	int rc = 0;

	if (n == 0) {
		fputs("{}", f);
		return 0;
	}
	keys = malloc(n * sizeof *keys);
	if (!keys)
		return -1;
	json_object_foreach ((json_t *)v, key, member)
		keys[i++] = key;
	qsort(keys, n, sizeof *keys, compare_keys);
	fputc('{', f);
	for (i = 0; i < n && rc == 0; i++) {
		if (i > 0)
			fputc(',', f);
		newline(f, flags, depth + 1);
		put_string(f, keys[i], strlen(keys[i]));
		fputs(flags & JTEXT_PRETTY ? ": " : ":", f);
		rc = put_value(f, json_object_get(v, keys[i]), flags, depth + 1);
	}
	newline(f, flags, depth);
	fputc('}', f);
	free(keys);
	return rc;
}

static int put_array(FILE *f, const json_t *v, int flags, int depth)
{
	size_t n = json_array_size(v), i;
	int rc = 0;

	if (n == 0) {
		fputs("[]", f);
		return 0;
	}
	fputc('[', f);
	for (i = 0; i < n && rc == 0; i++) {
		if (i > 0)
			fputc(',', f);
		newline(f, flags, depth + 1);
		rc = put_value(f, json_array_get(v, i), flags, depth + 1);
	}
	newline(f, flags, depth);
	fputc(']', f);
	return rc;
}

static int put_value(FILE *f, const json_t *v, int flags, int depth)
{
	char real[JTEXT_REAL_MAX];

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return put_object(f, v, flags, depth);
	case JSON_ARRAY:
		return put_array(f, v, flags, depth);
	case JSON_STRING:
		put_string(f, json_string_value(v), json_string_length(v));
		return 0;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		fputs(jtext_real(json_real_value(v), real), f);
		return 0;
	case JSON_TRUE:
		fputs("true", f);
		return 0;
	case JSON_FALSE:
		fputs("false", f);
		return 0;
	default:
		fputs("null", f);
		return 0;
	}
}

char *jtext_dump(const json_t *v, int flags)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int rc;

	if (!v)
		return NULL;
	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	rc = put_value(f, v, flags, 0);
	/* fclose flushes: only now is text complete, or the stream's error known */
	if (fclose(f) != 0 || rc != 0) {
		free(text);
		return NULL;
	}
	return text;
}
