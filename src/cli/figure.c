/*
 * figure.c: sweep answers and drop trajectories as plots (figure.h).
 */
#include "cli/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plot.h"
#include "service/endpoint.h"

/* Physical names and units of request fields (JSON Pointers), the dashboard's
 * (src/http/www/common.js, CD.quantities): the first match names it. */
enum match { EXACT, SUFFIX, PREFIX };
static const struct quantity {
	enum match match;
	const char *key, *name, *unit; /* name NULL: the key's last part */
} quantities[] = {
    {SUFFIX, "solref/0", "timeconst", "s"},
    {SUFFIX, "solref/1", "dampratio", ""},
    {SUFFIX, "solimp/0", "solimp d0", ""},
    {SUFFIX, "solimp/1", "solimp dwidth", ""},
    {SUFFIX, "solimp/2", "solimp width", "m"},
    {SUFFIX, "solimp/3", "solimp midpoint", ""},
    {SUFFIX, "solimp/4", "solimp power", ""},
    {EXACT, "/option/timestep", "timestep", "s"},
    {EXACT, "/option/gravity", "gravity", "m/s²"},
    {EXACT, "/option/impratio", "impratio", ""},
    {EXACT, "/grip_force", "grip force", "N"},
    {EXACT, "/object/mass", "object mass", "kg"},
    {EXACT, "/object/size", "object radius", "m"},
    {EXACT, "/pad/mass", "pad mass", "kg"},
    {EXACT, "slip_limit", NULL, "m"},
    {EXACT, "/impedance", "impedance d", ""},
    {EXACT, "/height", "drop height", "m"},
    {EXACT, "/duration", "duration", "s"},
    {EXACT, "/body/mass", "mass", "kg"},
    {PREFIX, "/body/size", "half-size or radius", "m"},
    {SUFFIX, "/margin", NULL, "m"},
    {SUFFIX, "/gap", NULL, "m"},
    {SUFFIX, "friction/0", "sliding friction", ""},
};

/* Physical names of answer fields, the dashboard's too, where the field's own name is
 * not one; their units are the endpoint table's (svc_endpoint_def.fields). */
static const struct {
	const char *field, *name;
} answer_names[] = {
    {"creep_velocity", "creep velocity"},
    {"growth", "growth per step"},
    {"h_omega", "timestep / (timeconst × dampratio)"},
    {"timeconst_used", "timeconst used"},
    {"error_reduction", "error reduction per step"},
    {"impedance", "impedance d"},
    {"K", "stiffness K"},
    {"B", "damping B"},
    {"max_height", "highest point"},
};

/* "timeconst (s)" for "/geom/solref/0", "rebound (m)" for query's field rebound, into buf:
 * the label of an axis or a scale. query: the sweep's row (NULL: none known). */
static const char *quantity_label(
    const struct svc_endpoint_def *query, const char *key, char *buf, size_t size)
{
	const struct svc_field *field = query ? svc_endpoint_field(query, key) : NULL;
	size_t i, n = strlen(key), k;
	const char *name = NULL, *unit = "", *squared;
	char plain[128];

	if (field) {
		for (i = 0; i < sizeof answer_names / sizeof answer_names[0]; i++)
			if (strcmp(key, answer_names[i].field) == 0)
				name = answer_names[i].name;
		unit = field->unit ? field->unit : "";
	}
	for (i = 0; !field && i < sizeof quantities / sizeof quantities[0]; i++) {
		const struct quantity *q = &quantities[i];
		size_t m = strlen(q->key);
		if ((q->match == EXACT && strcmp(key, q->key) == 0) ||
		    (q->match == SUFFIX && n >= m && strcmp(key + n - m, q->key) == 0) ||
		    (q->match == PREFIX && strncmp(key, q->key, m) == 0)) {
			name = q->name;
			unit = q->unit;
			break;
		}
	}
	if (!name) {
		/* the last part of a pointer, or the field's name, without underscores */
		const char *last = strrchr(key, '/');
		snprintf(plain, sizeof plain, "%s", last ? last + 1 : key);
		for (k = 0; plain[k]; k++)
			if (plain[k] == '_')
				plain[k] = ' ';
		name = plain;
	}
	/* the table's ASCII "1/s^2" as "1/s²" */
	squared = strstr(unit, "^2");
	snprintf(buf, size, "%s%s%s%.*s%s%s%s", strncmp(key, "/floor/", 7) == 0 ? "floor " : "",
	    name, unit[0] ? " (" : "", squared ? (int)(squared - unit) : (int)strlen(unit), unit,
	    squared ? "²" : "", squared ? squared + 2 : "", unit[0] ? ")" : "");
	return buf;
}

/* A cell as a number: reals and integers as they are, booleans 0 or 1, else NaN. */
static double cell_number(const json_t *v)
{
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_boolean(v))
		return json_is_true(v) ? 1 : 0;
	return NAN;
}

/* The column of the field to draw, after the nvary varied ones; -1 with err. */
static long pick_column(
    const json_t *columns, const json_t *rows, size_t nvary, const char *field, struct err *err)
{
	size_t c, r;

	for (c = nvary; c < json_array_size(columns); c++) {
		const char *name = json_string_value(json_array_get(columns, c));
		if (field) {
			if (name && strcmp(name, field) == 0)
				return (long)c;
			continue;
		}
		/* the first column that holds a real somewhere */
		for (r = 0; r < json_array_size(rows); r++)
			if (json_is_real(json_array_get(json_array_get(rows, r), c)))
				return (long)c;
	}
	if (field)
		return err_set(err, ERR_BAD_VALUE, "", "the answer has no column \"%s\"", field);
	return err_set(err, ERR_BAD_VALUE, "", "the answer has no column of numbers to draw");
}

/* The index of column name, or -1. */
static long column_named(const json_t *columns, const char *name)
{
	size_t c;

	for (c = 0; c < json_array_size(columns); c++) {
		const char *s = json_string_value(json_array_get(columns, c));
		if (s && strcmp(s, name) == 0)
			return (long)c;
	}
	return -1;
}

/* Column c of every row into out (n rows); -1 unless every varied value is a number. */
static int column_values(const json_t *rows, size_t c, int varied, double *out, struct err *err)
{
	size_t r;

	for (r = 0; r < json_array_size(rows); r++) {
		const json_t *v = json_array_get(json_array_get(rows, r), c);
		out[r] = cell_number(v);
		if (varied && !json_is_number(v))
			return err_set(err, ERR_BAD_VALUE, "",
			    "varied value %zu is not a number: only numbers can be an axis", r);
	}
	return 0;
}

int figure_sweep(FILE *f, const json_t *answer, const char *field, struct err *err)
{
	const json_t *columns = json_object_get(answer, "columns");
	const json_t *rows = json_object_get(answer, "rows");
	const char *query = json_string_value(json_object_get(answer, "query"));
	const struct svc_endpoint_def *row = NULL;
	enum svc_endpoint ep;
	struct err unknown;
	size_t nvary = 0, n = json_array_size(rows), nx, i;
	double *a = NULL, *b = NULL, *v = NULL;
	unsigned char *gain = NULL;
	struct plot_labels labels = {0};
	char title[256], x_label[160], y_label[160], value_label[160];
	long c, gain_column;
	int rc = -1;

	if (!json_is_array(columns) || !json_is_array(rows) || n == 0)
		return err_set(err, ERR_BAD_VALUE, "", "not a sweep answer: no columns and rows");
	/* the varied columns are the JSON Pointers, which the answer fields never are */
	while (nvary < 2 && nvary < json_array_size(columns) &&
	    json_string_value(json_array_get(columns, nvary)) &&
	    json_string_value(json_array_get(columns, nvary))[0] == '/')
		nvary++;
	if (nvary == 0)
		return err_set(err, ERR_BAD_VALUE, "", "not a sweep answer: no varied column");
	/* the query's headline field (drop: rebound), when --field names none */
	if (query && svc_endpoint_parse(query, &ep, &unknown) == 0)
		row = svc_endpoints[ep];
	if (!field && row && row->headline && column_named(columns, row->headline) >= 0)
		field = row->headline;
	c = pick_column(columns, rows, nvary, field, err);
	if (c < 0)
		return -1;
	a = calloc(n, sizeof *a);
	b = calloc(n, sizeof *b);
	v = calloc(n, sizeof *v);
	gain = calloc(n, 1);
	if (!a || !b || !v || !gain) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	/* a drop whose contact gained energy is no physical answer: marked apart */
	gain_column = column_named(columns, "energy_gain");
	for (i = 0; gain_column >= 0 && i < n; i++)
		gain[i] =
		    json_is_true(json_array_get(json_array_get(rows, i), (size_t)gain_column));
	if (column_values(rows, 0, 1, a, err) != 0 ||
	    (nvary == 2 && column_values(rows, 1, 1, b, err) != 0) ||
	    column_values(rows, (size_t)c, 0, v, err) != 0)
		goto out;
	quantity_label(row, json_string_value(json_array_get(columns, (size_t)c)), value_label,
	    sizeof value_label);
	snprintf(title, sizeof title, "%s: %s", query ? query : "sweep", value_label);
	labels.title = title;
	labels.value = value_label;
	labels.y = quantity_label(
	    row, json_string_value(json_array_get(columns, 0)), y_label, sizeof y_label);
	labels.x = nvary == 2 ? quantity_label(row, json_string_value(json_array_get(columns, 1)),
	                            x_label, sizeof x_label)
	                      : labels.y;
	if (nvary == 1) {
		labels.y = value_label;
		rc = plot_line_svg(f, &labels, a, v, gain, n);
		if (rc != 0)
			err_set(err, ERR_BAD_VALUE, "",
			    "nothing to draw: no finite value, or a write error");
		goto out;
	}
	/* row-major, the first varied field slowest: a row of the grid is a run of equal
	 * first values */
	for (nx = 1; nx < n && a[nx] == a[0]; nx++)
		;
	for (i = 0; i < n; i++) {
		if (n % nx != 0 || b[i] != b[i % nx] || a[i] != a[i - i % nx]) {
			err_set(err, ERR_BAD_VALUE, "", "the rows are not a full grid");
			goto out;
		}
	}
	for (i = 0; i < n / nx; i++)
		a[i] = a[i * nx]; /* the y values, one per grid row */
	rc = plot_heat_svg(f, &labels, b, nx, a, n / nx, v, gain);
	if (rc != 0)
		err_set(err, ERR_INTERNAL, "", "cannot write the plot");
out:
	free(a);
	free(b);
	free(v);
	free(gain);
	return rc;
}

int figure_drop(FILE *f, const json_t *answer, struct err *err)
{
	const json_t *trajectory = json_object_get(answer, "trajectory");
	const json_t *t = json_object_get(trajectory, "t"), *z = json_object_get(trajectory, "z");
	struct plot_labels labels = {"drop: height of the lowest point above the plane", "time (s)",
	    "bottom height (m)", NULL};
	size_t n = json_array_size(t), i;
	double *x, *y;
	int rc = -1;

	if (!json_is_array(t) || !json_is_array(z) || json_array_size(z) != n || n == 0)
		return err_set(err, ERR_BAD_VALUE, "", "not a drop answer with its trajectory");
	x = calloc(n, sizeof *x);
	y = calloc(n, sizeof *y);
	if (x && y) {
		for (i = 0; i < n; i++) {
			x[i] = cell_number(json_array_get(t, i));
			y[i] = cell_number(json_array_get(z, i)); /* null (diverged): a gap */
		}
		rc = plot_line_svg(f, &labels, x, y, NULL, n);
		if (rc != 0)
			err_set(err, ERR_BAD_VALUE, "", "nothing to draw: no finite height");
	} else {
		err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	free(x);
	free(y);
	return rc;
}

int figure_answer(FILE *f, const json_t *answer, const char *field, struct err *err)
{
	if (json_object_get(answer, "trajectory"))
		return figure_drop(f, answer, err);
	if (json_object_get(answer, "columns"))
		return figure_sweep(f, answer, field, err);
	return err_set(err, ERR_BAD_VALUE, "",
	    "nothing to draw: not a sweep answer, nor a drop answer with its trajectory");
}
