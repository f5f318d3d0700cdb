/*
 * figure.h: what `contact --plot` and `contact plot` draw (as SVG, plot.h):
 *   a sweep answer: a line (one vary entry) of one answer field over the varied
 *     value, or a heat map (two entries) of it over the grid;
 *   a drop request: the height of the body's lowest point after every step, from
 *     the core's own step function (scene_step), decimated to at most
 *     PLOT_TRAJECTORY_POINTS points that keep each stretch's first, lowest,
 *     highest and last heights (so the drawn extremes are the answer's
 *     max_height and -peak_penetration, and its last point -final_penetration).
 */
#ifndef CONTACTD_CLI_FIGURE_H
#define CONTACTD_CLI_FIGURE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "base/error.h"

/*
 * Draw a sweep answer ({"query", "columns", "rows"}) to f. field names the
 * answer column to draw; NULL: the first column of reals after the varied
 * ones. Errors (bad_value) for a missing column, a non-numeric varied value or
 * a grid whose rows are not a full grid.
 */
int figure_sweep(FILE *f, const json_t *answer, const char *field, struct err *err);

/* Draw the trajectory of the drop request in body (len bytes, the JSON POST /v1/drop
 * takes) to f. Errors are the request's, as POST /v1/drop reports them. */
int figure_drop(FILE *f, const char *body, size_t len, struct err *err);

#endif
