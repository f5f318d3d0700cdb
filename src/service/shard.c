/*
 * shard.c: which points a sweep's part holds, what the part says about itself, and
 * the merge of the parts into the whole answer (shard.h).
 */
#include "service/shard.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "service/knobs.h"

#define CSV_PREFIX "#part "

void shard_whole(struct shard_spec *s)
{
	s->sharded = 0;
	s->first = 0;
	s->count = 1;
}

int shard_parse(const struct field_ctx *c, const char *key, struct shard_spec *out)
{
	static const char *const known[] = {"index", "count", NULL};
	struct field_ctx obj;
	int index = 0, count = 0;

	shard_whole(out);
	if (!c->obj || !json_object_get(c->obj, key))
		return 0;
	if (!json_is_object(json_object_get(c->obj, key)))
		return field_fail(c, key, -1, ERR_BAD_TYPE,
		    "must be an object {\"index\": K, \"count\": N}: part K of N");
	if (field_object(c, key, &obj) != 0 || field_known(&obj, known) != 0 ||
	    field_require(&obj, "index") != 0 || field_require(&obj, "count") != 0 ||
	    field_int(&obj, "count", &count) != 0)
		return -1;
	if (count < 1 || count > LIMIT_MAX_SWEEP_SHARDS)
		return field_fail(&obj, "count", -1, ERR_BAD_VALUE,
		    "must be from 1 to %d parts, not %d", LIMIT_MAX_SWEEP_SHARDS, count);
	if (field_int(&obj, "index", &index) != 0)
		return -1;
	if (index < 1 || index > count)
		return field_fail(&obj, "index", -1, ERR_BAD_VALUE,
		    "must be from 1 to count (%d), not %d: parts are numbered from 1", count,
		    index);
	out->sharded = 1;
	out->first = (size_t)index - 1;
	out->count = (size_t)count;
	return 0;
}

json_t *shard_json(const struct shard_spec *s)
{
	return json_pack(
	    "{s:I, s:I}", "index", (json_int_t)(s->first + 1), "count", (json_int_t)s->count);
}

size_t shard_rows(const struct shard_spec *s, size_t npoints)
{
	return npoints > s->first ? (npoints - s->first + s->count - 1) / s->count : 0;
}

size_t shard_point(const struct shard_spec *s, size_t row)
{
	return s->first + row * s->count;
}

size_t shard_row(const struct shard_spec *s, size_t point)
{
	return (point - s->first) / s->count;
}

json_t *shard_part(const struct shard_spec *s, size_t npoints, json_t *request)
{
	return json_pack("{s:I, s:I, s:I, s:O}", "index", (json_int_t)(s->first + 1), "count",
	    (json_int_t)s->count, "points", (json_int_t)npoints, "request", request);
}

char *shard_csv_line(const json_t *part)
{
	char *text = jtext_dump(part, 0), *line;
	size_t len;

	if (!text)
		return NULL;
	len = strlen(text);
	line = malloc(sizeof CSV_PREFIX + len + 1);
	if (line)
		sprintf(line, "%s%s\n", CSV_PREFIX, text);
	free(text);
	return line;
}

/* ---- merge ---- */

enum part_kind { PART_JSON, PART_CSV };

/* One part read. */
struct part {
	const char *name;
	enum part_kind kind;
	size_t index, count, points; /* index 1-based */
	char *request;               /* the request's compact text */
	json_t *head;                /* JSON: the answer without "rows" and "part" */
	json_t *rows;                /* JSON: the rows */
	char *header;                /* CSV: the header line (borrowed from the text) */
	size_t header_len;
	const char **cells; /* CSV: each record's start in the text */
	size_t *cell_len;   /* and its length with its "\n" */
	size_t nrows;
};

static void part_clear(struct part *p)
{
	free(p->request);
	json_decref(p->head);
	json_decref(p->rows);
	free(p->cells);
	free(p->cell_len);
}

static int refuse(struct err *err, const char *name, const char *what)
{
	return err_set(
	    err, ERR_BAD_VALUE, "", "%s is not a part of a sharded sweep: %s", name, what);
}

/* Read the "part" member v into p. */
static int read_part_member(struct part *p, const json_t *v, struct err *err)
{
	const json_t *index = json_object_get(v, "index"), *count = json_object_get(v, "count");
	const json_t *points = json_object_get(v, "points"), *request;

	request = json_object_get(v, "request");
	if (!json_is_object(v) || !json_is_integer(index) || !json_is_integer(count) ||
	    !json_is_integer(points) || !json_is_object(request) || json_integer_value(count) < 1 ||
	    json_integer_value(count) > LIMIT_MAX_SWEEP_SHARDS || json_integer_value(index) < 1 ||
	    json_integer_value(index) > json_integer_value(count) || json_integer_value(points) < 0)
		return refuse(err, p->name, "its \"part\" is not {index, count, points, request}");
	p->index = (size_t)json_integer_value(index);
	p->count = (size_t)json_integer_value(count);
	p->points = (size_t)json_integer_value(points);
	p->request = jtext_dump(request, 0);
	return p->request ? 0 : err_set(err, ERR_INTERNAL, "", "out of memory");
}

/* The answer object v (a whole JSON part, or an NDJSON head) split into head and part. */
static int read_head(struct part *p, json_t *v, struct err *err)
{
	if (!json_is_object(v) || !json_is_array(json_object_get(v, "columns")))
		return refuse(err, p->name, "not a sweep answer (no \"columns\")");
	if (!json_object_get(v, "part"))
		return refuse(err, p->name,
		    "a whole sweep's answer (no \"part\": the request had no \"shard\")");
	if (read_part_member(p, json_object_get(v, "part"), err) != 0)
		return -1;
	p->head = json_copy(v);
	if (!p->head)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	json_object_del(p->head, "part");
	json_object_del(p->head, "rows");
	return 0;
}

/* The API's NDJSON stream: a head line, a row array per line, {"done":true,"count":N}. */
static int read_ndjson(struct part *p, const char *text, size_t len, struct err *err)
{
	const char *line = text, *end = text + len, *nl;
	json_error_t jerr;
	json_t *v;
	size_t lineno = 0;
	int done = 0, rc = 0;

	p->rows = json_array();
	if (!p->rows)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	while (rc == 0 && line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		lineno++;
		if (done)
			return refuse(err, p->name, "lines after its {\"done\"} line");
		v = json_loadb(line, (size_t)(nl - line), 0, &jerr);
		if (!v)
			return refuse(err, p->name, "neither JSON nor NDJSON nor a CSV part");
		if (lineno == 1) {
			rc = read_head(p, v, err);
		} else if (json_is_array(v)) {
			rc = json_array_append(p->rows, v) == 0
			    ? 0
			    : err_set(err, ERR_INTERNAL, "", "out of memory");
		} else if (json_is_object(v) && json_object_get(v, "error")) {
			rc = err_set(err, ERR_BAD_VALUE, "",
			    "%s: its stream ended with an error, not all of its rows", p->name);
		} else if (json_is_true(json_object_get(v, "done")) &&
		    json_is_integer(json_object_get(v, "count")) &&
		    (size_t)json_integer_value(json_object_get(v, "count")) ==
		        json_array_size(p->rows)) {
			done = 1;
		} else {
			rc = refuse(err, p->name, "an NDJSON line is neither a row nor its end");
		}
		json_decref(v);
		line = nl + 1;
	}
	if (rc == 0 && !done)
		rc = err_set(err, ERR_BAD_VALUE, "",
		    "%s: its stream is cut off (no {\"done\"} line after the rows)", p->name);
	return rc;
}

/* The end of the CSV record starting at s (after its "\n"); NULL when unterminated. */
static const char *csv_record_end(const char *s, const char *end)
{
	int quoted = 0;

	for (; s < end; s++) {
		if (*s == '"')
			quoted = !quoted; /* "" inside quotes toggles twice */
		else if (*s == '\n' && !quoted)
			return s + 1;
	}
	return NULL;
}

static int read_csv(struct part *p, const char *text, size_t len, struct err *err)
{
	const char *end = text + len, *nl = memchr(text, '\n', len), *s, *next;
	json_error_t jerr;
	json_t *member;
	size_t cap = 0;
	int rc;

	p->kind = PART_CSV;
	if (!nl)
		return refuse(err, p->name, "its \"#part\" line has no end (a cut-off file?)");
	member = json_loadb(
	    text + strlen(CSV_PREFIX), (size_t)(nl - text) - strlen(CSV_PREFIX), 0, &jerr);
	if (!member)
		return refuse(err, p->name, "its \"#part\" line is not JSON");
	rc = read_part_member(p, member, err);
	json_decref(member);
	if (rc != 0)
		return -1;
	s = nl + 1;
	next = csv_record_end(s, end);
	if (!next)
		return refuse(err, p->name, "no header line after \"#part\"");
	p->header = (char *)s;
	p->header_len = (size_t)(next - s);
	for (s = next; s < end; s = next) {
		next = csv_record_end(s, end);
		if (!next)
			return err_set(err, ERR_BAD_VALUE, "",
			    "%s: its last line has no end (a cut-off file?)", p->name);
		if (p->nrows == cap) {
			size_t want = cap ? 2 * cap : 64;
			const char **cells = realloc(p->cells, want * sizeof *cells);
			size_t *lens = cells ? realloc(p->cell_len, want * sizeof *lens) : NULL;
			if (cells)
				p->cells = cells;
			if (!lens)
				return err_set(err, ERR_INTERNAL, "", "out of memory");
			p->cell_len = lens;
			cap = want;
		}
		p->cells[p->nrows] = s;
		p->cell_len[p->nrows++] = (size_t)(next - s);
	}
	return 0;
}

/* Read one part, whichever its kind. */
static int read_one(struct part *p, const struct shard_input *in, struct err *err)
{
	json_error_t jerr;
	json_t *v;
	int rc;

	memset(p, 0, sizeof *p);
	p->name = in->name;
	if (in->len == 0)
		return refuse(err, p->name, "it is empty");
	if (in->len >= strlen(CSV_PREFIX) && memcmp(in->text, CSV_PREFIX, strlen(CSV_PREFIX)) == 0)
		return read_csv(p, in->text, in->len, err);
	p->kind = PART_JSON;
	v = json_loadb(in->text, in->len, 0, &jerr);
	if (!v)
		return read_ndjson(p, in->text, in->len, err);
	rc = read_head(p, v, err);
	if (rc == 0 && !json_is_array(json_object_get(v, "rows")))
		rc = refuse(err, p->name, "no \"rows\"");
	if (rc == 0) {
		p->rows = json_object_get(v, "rows");
		json_incref(p->rows);
	}
	json_decref(v);
	return rc;
}

/* "K/N" of a part, for messages. */
#define SHARD_FMT "%zu/%zu"

/* Check the parts against the first and against their own shard; *by_index[k] is the
 * part of shard k + 1. */
static int check_parts(struct part *parts, size_t n, struct part **by_index, struct err *err)
{
	struct part *a = &parts[0];
	char missing[160];
	size_t i, k, nmissing = 0, used = 0;

	for (i = 1; i < n; i++) {
		struct part *b = &parts[i];
		if (b->kind != a->kind)
			return err_set(err, ERR_BAD_VALUE, "",
			    "%s is a %s part but %s a %s one: merge parts of one format", a->name,
			    a->kind == PART_CSV ? "CSV" : "JSON", b->name,
			    b->kind == PART_CSV ? "CSV" : "JSON");
		if (strcmp(a->request, b->request) != 0)
			return err_set(err, ERR_BAD_VALUE, "",
			    "%s and %s are parts of different sweeps (their requests differ)",
			    a->name, b->name);
		if (a->count != b->count)
			return err_set(err, ERR_BAD_VALUE, "",
			    "%s is shard " SHARD_FMT " but %s is shard " SHARD_FMT
			    ": the parts of one run share their count",
			    a->name, a->index, a->count, b->name, b->index, b->count);
		if (a->points != b->points)
			return err_set(err, ERR_BAD_VALUE, "",
			    "%s says the sweep has %zu points but %s says %zu", a->name, a->points,
			    b->name, b->points);
		if (a->kind == PART_JSON ? !json_equal(a->head, b->head)
		                         : a->header_len != b->header_len ||
		            memcmp(a->header, b->header, a->header_len) != 0)
			return err_set(err, ERR_BAD_VALUE, "",
			    "%s and %s have different columns (a different release of contact?)",
			    a->name, b->name);
	}
	for (i = 0; i < n; i++) {
		struct part *p = &parts[i];
		size_t want =
		    shard_rows(&(struct shard_spec){1, p->index - 1, p->count}, p->points);
		size_t have = p->kind == PART_JSON ? json_array_size(p->rows) : p->nrows;
		if (by_index[p->index - 1])
			return err_set(err, ERR_BAD_VALUE, "",
			    "shard " SHARD_FMT " is given twice: %s and %s", p->index, p->count,
			    by_index[p->index - 1]->name, p->name);
		if (have != want)
			return err_set(err, ERR_BAD_VALUE, "",
			    "%s: shard " SHARD_FMT " of %zu points holds %zu rows, not %zu",
			    p->name, p->index, p->count, p->points, have, want);
		by_index[p->index - 1] = p;
	}
	missing[0] = '\0';
	for (k = 0; k < a->count; k++) {
		if (by_index[k])
			continue;
		if (nmissing++ < 8 && used < sizeof missing)
			used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%zu",
			    nmissing > 1 ? ", " : "", k + 1);
	}
	if (nmissing)
		return err_set(err, ERR_BAD_VALUE, "",
		    "%zu of the %zu parts %s missing: shard%s %s%s (of %zu)", nmissing, a->count,
		    nmissing > 1 ? "are" : "is", nmissing > 1 ? "s" : "", missing,
		    nmissing > 8 ? ", ..." : "", a->count);
	return 0;
}

/* The whole answer from checked JSON parts. */
static int merge_json(
    struct part **by_index, size_t count, size_t points, json_t **answer, struct err *err)
{
	json_t *out = json_copy(by_index[0]->head), *rows = json_array();
	size_t i;

	for (i = 0; out && rows && i < points; i++)
		if (json_array_append(rows, json_array_get(by_index[i % count]->rows, i / count)) !=
		    0)
			break;
	if (!out || !rows || i < points || json_object_set_new(out, "rows", rows) != 0) {
		json_decref(out);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	*answer = out;
	return 0;
}

/* The whole CSV from checked CSV parts. */
static int merge_csv(
    struct part **by_index, size_t count, size_t points, char **csv, struct err *err)
{
	size_t size = by_index[0]->header_len + 1, i, at;
	char *out;

	for (i = 0; i < points; i++)
		size += by_index[i % count]->cell_len[i / count];
	out = malloc(size);
	if (!out)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	memcpy(out, by_index[0]->header, by_index[0]->header_len);
	at = by_index[0]->header_len;
	for (i = 0; i < points; i++) {
		const struct part *p = by_index[i % count];
		memcpy(out + at, p->cells[i / count], p->cell_len[i / count]);
		at += p->cell_len[i / count];
	}
	out[at] = '\0';
	*csv = out;
	return 0;
}

int shard_merge(
    const struct shard_input *inputs, size_t n, json_t **answer, char **csv, struct err *err)
{
	struct part *parts = calloc(n ? n : 1, sizeof *parts), **by_index = NULL;
	size_t i, read = 0;
	int rc = -1;

	*answer = NULL;
	*csv = NULL;
	if (!parts)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	if (n == 0) {
		err_set(err, ERR_BAD_VALUE, "", "no parts to merge");
		goto out;
	}
	for (read = 0; read < n; read++)
		if (read_one(&parts[read], &inputs[read], err) != 0) {
			read++;
			goto out;
		}
	by_index = calloc(parts[0].count, sizeof *by_index);
	if (!by_index) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (check_parts(parts, n, by_index, err) != 0)
		goto out;
	rc = parts[0].kind == PART_JSON
	    ? merge_json(by_index, parts[0].count, parts[0].points, answer, err)
	    : merge_csv(by_index, parts[0].count, parts[0].points, csv, err);
out:
	for (i = 0; i < read; i++)
		part_clear(&parts[i]);
	free(parts);
	free(by_index);
	return rc;
}
