/*
 * figure.c: sweep answers and drop trajectories as plots (figure.h).
 */
#include "cli/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/plot.h"
#include "core/scene.h"
#include "core/sim.h"
#include "service/answer.h"
#include "service/body.h"
#include "service/service.h"
#include "tunables.h"

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
	size_t nvary = 0, n = json_array_size(rows), nx, i;
	double *a = NULL, *b = NULL, *v = NULL;
	struct plot_labels labels;
	char title[256];
	long c;
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
	c = pick_column(columns, rows, nvary, field, err);
	if (c < 0)
		return -1;
	a = calloc(n, sizeof *a);
	b = calloc(n, sizeof *b);
	v = calloc(n, sizeof *v);
	if (!a || !b || !v) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	if (column_values(rows, 0, 1, a, err) != 0 ||
	    (nvary == 2 && column_values(rows, 1, 1, b, err) != 0) ||
	    column_values(rows, (size_t)c, 0, v, err) != 0)
		goto out;
	snprintf(title, sizeof title, "%s: %s", query ? query : "sweep",
	    json_string_value(json_array_get(columns, (size_t)c)));
	labels.title = title;
	labels.y = json_string_value(json_array_get(columns, 0));
	labels.x = nvary == 2 ? json_string_value(json_array_get(columns, 1)) : labels.y;
	if (nvary == 1) {
		labels.y = json_string_value(json_array_get(columns, (size_t)c));
		rc = plot_line_svg(f, &labels, a, v, n);
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
	rc = plot_heat_svg(f, &labels, b, nx, a, n / nx, v);
	if (rc != 0)
		err_set(err, ERR_INTERNAL, "", "cannot write the plot");
out:
	free(a);
	free(b);
	free(v);
	return rc;
}

/* Keep the indexes of [begin, end) that matter to the eye: first, lowest, highest, last. */
static size_t keep_extremes(const double *y, size_t begin, size_t end, size_t *keep)
{
	size_t lo = begin, hi = begin, i, k = 0, picks[4];
	size_t j;

	for (i = begin; i < end; i++) {
		if (y[i] < y[lo])
			lo = i;
		if (y[i] > y[hi])
			hi = i;
	}
	picks[0] = begin;
	picks[1] = lo < hi ? lo : hi;
	picks[2] = lo < hi ? hi : lo;
	picks[3] = end - 1;
	for (j = 0; j < 4; j++)
		if (k == 0 || picks[j] > keep[k - 1])
			keep[k++] = picks[j];
	return k;
}

int figure_drop(FILE *f, const char *body, size_t len, struct err *err)
{
	struct ans_request req;
	struct scene_model m;
	struct plot_labels labels = {
	    "drop: height of the lowest point above the plane", "time (s)", "height (m)"};
	json_t *root = NULL;
	double *t = NULL, *y = NULL, *kt = NULL, *ky = NULL, z, vel = 0;
	size_t n, i, kept = 0, bucket, *keep = NULL;
	int rc = -1;

	if (body_parse(body, len, &root, err) != 0 ||
	    svc_endpoints[SVC_DROP].point(root, "", &req, err) != 0)
		goto out;
	scene_prepare(&req.u.scene.scene, &m);
	n = (size_t)sim_step_count(req.u.scene.scene.duration, m.timestep) + 1;
	t = malloc(n * sizeof *t);
	y = malloc(n * sizeof *y);
	kt = malloc(n * sizeof *kt);
	ky = malloc(n * sizeof *ky);
	keep = malloc(n * sizeof *keep);
	if (!t || !y || !kt || !ky || !keep) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto out;
	}
	/* the start, then the height after each step, as sim_drop records them */
	z = req.u.scene.scene.height + m.half_height;
	t[0] = 0;
	y[0] = req.u.scene.scene.height;
	for (i = 1; i < n; i++) {
		scene_step(&m, &z, &vel);
		t[i] = (double)i * m.timestep;
		y[i] = z - m.half_height;
	}
	bucket = n <= PLOT_TRAJECTORY_POINTS
	    ? 1
	    : (n + PLOT_TRAJECTORY_POINTS / 4 - 1) / (PLOT_TRAJECTORY_POINTS / 4);
	/* the start alone, so the steps' own highest height is never hidden behind it */
	keep[kept++] = 0;
	for (i = 1; i < n; i += bucket)
		kept += keep_extremes(y, i, i + bucket < n ? i + bucket : n, keep + kept);
	for (i = 0; i < kept; i++) {
		kt[i] = t[keep[i]];
		ky[i] = y[keep[i]];
	}
	rc = plot_line_svg(f, &labels, kt, ky, kept);
	if (rc != 0)
		err_set(err, ERR_INTERNAL, "", "cannot write the plot (the run diverged?)");
out:
	json_decref(root);
	free(t);
	free(y);
	free(kt);
	free(ky);
	free(keep);
	return rc;
}
