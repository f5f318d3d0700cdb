/*
 * sweep_csv.c: a sweep answer as CSV, and the text of a streamed row's cells in
 * JSON or CSV, spelt exactly as the whole answer prints them.
 */
#include "service/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "service/shard.h"
#include "service/sweep_int.h"

/* Write s as one CSV cell, quoted when it holds a comma, quote or line break. */
static void csv_text(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int csv_cell(FILE *f, const json_t *v)
{
	char *text;

	if (jtext_put_scalar(f, v)) /* the JSON answer's spelling */
		return 0;
	switch (json_typeof(v)) {
	case JSON_NULL:
		return 0;
	case JSON_STRING:
		csv_text(f, json_string_value(v));
		return 0;
	default:
		text = jtext_dump(v, 0);
		if (!text)
			return -1;
		csv_text(f, text);
		free(text);
		return 0;
	}
}

static int csv_line(FILE *f, const json_t *cells)
{
	const json_t *cell;
	size_t i;

	json_array_foreach (cells, i, cell) {
		if (i > 0)
			fputc(',', f);
		if (csv_cell(f, cell) != 0)
			return -1;
	}
	fputc('\n', f);
	return 0;
}

/* A shard's CSV starts with its "part" (shard.h); nothing for a whole sweep (part NULL). */
static int csv_part_line(FILE *f, const json_t *part)
{
	char *line = part ? shard_csv_line(part) : NULL;
	int rc = part && (!line || fputs(line, f) == EOF) ? -1 : 0;

	free(line);
	return rc;
}

int sweep_csv(const json_t *answer, char **csv, struct err *err)
{
	const json_t *columns = json_object_get(answer, "columns");
	const json_t *rows = json_object_get(answer, "rows"), *row;
	char *text = NULL;
	size_t size = 0, i;
	FILE *f;
	int failed;

	if (!json_is_array(columns) || !json_is_array(rows))
		return err_set(err, ERR_INTERNAL, "", "not a sweep answer: no columns and rows");
	f = open_memstream(&text, &size);
	if (!f)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	failed =
	    csv_part_line(f, json_object_get(answer, "part")) != 0 || csv_line(f, columns) != 0;
	json_array_foreach (rows, i, row)
		if (!failed)
			failed = !json_is_array(row) || csv_line(f, row) != 0;
	/* fclose flushes: only now is text complete, or the stream's error known */
	if (fclose(f) != 0 || failed) {
		free(text);
		return err_set(err, ERR_INTERNAL, "", "cannot write the CSV");
	}
	*csv = text;
	return 0;
}

int sweep_csv_head(FILE *f, const json_t *part, const json_t *columns)
{
	return csv_part_line(f, part) != 0 || csv_line(f, columns) != 0 ? -1 : 0;
}

/* ---- streamed rows: one cell at a time ---- */

/* s as a JSON string, escaped as jtext writes it, at out; returns the end. */
static char *put_json_string(char *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	*out++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc = c == '"' ? "\\\""
		    : c == '\\'            ? "\\\\"
		    : c == '\b'            ? "\\b"
		    : c == '\f'            ? "\\f"
		    : c == '\n'            ? "\\n"
		    : c == '\r'            ? "\\r"
		    : c == '\t'            ? "\\t"
		                           : NULL;
		if (esc) {
			out = stpcpy(out, esc);
		} else if (c < 0x20) {
			out = stpcpy(out, "\\u00");
			*out++ = hex[c >> 4];
			*out++ = hex[c & 15];
		} else {
			*out++ = (char)c;
		}
	}
	*out++ = '"';
	return out;
}

/* s as one CSV cell (csv_text's rule), at out; returns the end. */
static char *put_csv_string(char *out, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")])
		return stpcpy(out, s);
	*out++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*out++ = '"';
		*out++ = *s;
	}
	*out++ = '"';
	return out;
}

/* v in decimal, as printf's "%ld" writes it, at out; returns the end (a row's
 * steps: printf's parsing of its format cost more than the rest of the cell). */
static char *put_long(char *out, long v)
{
	char digits[24];
	unsigned long u = v < 0 ? 0 - (unsigned long)v : (unsigned long)v;
	int n = 0;

	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*out++ = '-';
	while (n > 0)
		*out++ = digits[--n];
	*out = '\0';
	return out;
}

char *sweep_csv_put_field(char *out, const struct ans_field *f, enum sweep_format format)
{
	char real[JTEXT_REAL_MAX];

	switch (f->type) {
	case ANS_REAL:
		/* one spelling in JSON and CSV: the JSON answer's (csv_cell's rule too) */
		return stpcpy(out, jtext_real(f->real, real));
	case ANS_INTEGER:
		return put_long(out, f->integer);
	case ANS_BOOL:
		return stpcpy(out, f->integer ? "true" : "false");
	case ANS_STRING:
		return format == SWEEP_CSV ? put_csv_string(out, f->text)
		                           : put_json_string(out, f->text);
	default:
		return format == SWEEP_CSV ? out : stpcpy(out, "null");
	}
}

char *sweep_csv_value_cell(const json_t *v, enum sweep_format format)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int failed;

	if (format == SWEEP_JSON)
		return jtext_dump(v, 0);
	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	failed = csv_cell(f, v) != 0;
	if (fclose(f) != 0 || failed) {
		free(text);
		return NULL;
	}
	return text;
}
