/*
 * plot.h: a small SVG writer for the `contact` tool: a line (a sweep over one
 * field, a drop's trajectory) or a heat map (a sweep over a grid).
 *
 * The documents are self-contained SVG 1.1 with no scripts or external
 * references. A line's <polyline class="data"> carries the data's own values
 * (printed with %.17g) as its points, drawn through a transform, so a reader
 * of the file gets the numbers back exactly; a heat map's cells carry theirs in
 * data-x, data-y and data-value attributes.
 */
#ifndef CONTACTD_CLI_PLOT_H
#define CONTACTD_CLI_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* The words around a plot; any may be NULL. Copied out (escaped) while writing.
 * value names a heat map's colour bar ("growth per step"). */
struct plot_labels {
	const char *title, *x, *y, *value;
};

/*
 * Write a line plot of the n points (x[i], y[i]) to f. A non-finite y breaks the
 * line (a null answer); points with a non-finite x are skipped. gain (NULL: none)
 * marks points whose contact gained energy (a drop's energy_gain): not a physical
 * answer, so each breaks the line and is drawn apart, a red ring of class
 * "energy-gain" carrying its numbers in data-x and data-y, with a legend saying
 * why. Returns 0, or -1 when f fails or no point is finite.
 */
int plot_line_svg(FILE *f, const struct plot_labels *labels, const double *x, const double *y,
    const unsigned char *gain, size_t n);

/*
 * Write a heat map to f: ny rows (ys, drawn bottom to top) of nx cells (xs),
 * values[i * nx + j] at (xs[j], ys[i]); a non-finite value is drawn grey. gain
 * (NULL: none), in the same order, marks cells whose contact gained energy: drawn
 * hatched in red (class "energy-gain", data-energy-gain="true"), with a legend, and
 * left out of the colour scale, which spans the other finite values. Returns 0, or
 * -1 when f fails.
 */
int plot_heat_svg(FILE *f, const struct plot_labels *labels, const double *xs, size_t nx,
    const double *ys, size_t ny, const double *values, const unsigned char *gain);

#endif
