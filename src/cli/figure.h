/*
 * figure.h: what `contact --plot` and `contact plot` draw (as SVG, plot.h):
 *   a sweep answer: a line (one vary entry) of one answer field over the varied
 *     value, or a heat map (two entries) of it over the grid;
 *   a drop answer with its trajectory (POST /v1/drop's "trajectory": true): the
 *     height of the body's lowest point against time, the answer's own points.
 */
#ifndef CONTACTD_CLI_FIGURE_H
#define CONTACTD_CLI_FIGURE_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "base/error.h"

/*
 * Draw a sweep answer ({"query", "columns", "rows"}) to f. field names the
 * answer column to draw; NULL: the query's headline field (its row's in the endpoint
 * table: drop's rebound, ...), else the first column of reals after the varied ones.
 * An answer field's unit is its row's. Rows whose energy_gain is true (a drop whose contact gained
 * energy) are marked apart (plot.h). Errors (bad_value) for a missing column, a non-numeric varied
 * value or a grid whose rows are not a full grid.
 */
int figure_sweep(FILE *f, const json_t *answer, const char *field, struct err *err);

/* Draw the "trajectory" ({"t": [...], "z": [...]}) of a drop answer to f; a null
 * height (a diverged run) is a gap. */
int figure_drop(FILE *f, const json_t *answer, struct err *err);

/* Draw whichever of the two answer is (a drop's trajectory, or a sweep). */
int figure_answer(FILE *f, const json_t *answer, const char *field, struct err *err);

#endif
