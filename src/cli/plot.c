/*
 * plot.c: line plots and heat maps as SVG text (plot.h).
 */
#include "cli/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/knobs.h"

/* The page: PLOT_WIDTH x PLOT_HEIGHT pixels, the data inside the margins. */
#define LEFT 90.0
#define RIGHT 30.0
#define TOP 40.0
#define BOTTOM 60.0
#define LEGEND 90.0 /* extra right margin of a heat map for its colour bar */
#define GAIN_COLOUR "#d62728"
/* what a marked point is, in the legend */
#define GAIN_TEXT "energy gained: unstable at this timestep, not a bounce"

/* Write s with XML's five special characters escaped. */
static void xml_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void text_at(
    FILE *f, double x, double y, const char *anchor, const char *extra, const char *s)
{
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
	xml_text(f, s);
	fputs("</text>\n", f);
}

static void open_document(FILE *f, double width, const struct plot_labels *l)
{
	fprintf(f,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
	    "height=\"%d\" viewBox=\"0 0 %.0f %d\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n",
	    width, PLOT_HEIGHT, width, PLOT_HEIGHT);
	fprintf(f, "<rect width=\"%.0f\" height=\"%d\" fill=\"white\"/>\n", width, PLOT_HEIGHT);
	if (l->title)
		text_at(f, width / 2, TOP / 2 + 4, "middle", " font-size=\"15\"", l->title);
	if (l->x)
		text_at(f, LEFT + (width - LEFT - RIGHT) / 2, PLOT_HEIGHT - 15, "middle", "", l->x);
	if (l->y) {
		char rotate[96];
		snprintf(rotate, sizeof rotate, " transform=\"rotate(-90 18 %.2f)\"",
		    TOP + (PLOT_HEIGHT - TOP - BOTTOM) / 2);
		text_at(f, 18, TOP + (PLOT_HEIGHT - TOP - BOTTOM) / 2, "middle", rotate, l->y);
	}
}

static int close_document(FILE *f)
{
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

/* A round tick step for a range: 1, 2 or 5 times a power of ten, about 5 ticks. */
static double tick_step(double range)
{
	double raw = range / 5, magnitude = pow(10, floor(log10(raw))), r = raw / magnitude;

	return magnitude * (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10);
}

/* [lo, hi] of the finite values, widened when they are all equal; 0 if none. */
static int finite_range(const double *v, size_t n, double *lo, double *hi)
{
	size_t i;
	int any = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		any = 1;
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
	}
	if (any && *lo == *hi) {
		double pad = *lo != 0 ? fabs(*lo) / 2 : 1;
		*lo -= pad;
		*hi += pad;
	}
	return any;
}

/* Pixel of value v on an axis mapping [lo, hi] to [p0, p1]. */
static double pixel(double v, double lo, double hi, double p0, double p1)
{
	return p0 + (v - lo) / (hi - lo) * (p1 - p0);
}

/* Ticks and grid lines of a numeric axis. vertical: the y axis. */
static void numeric_axis(FILE *f, int vertical, double lo, double hi, double width)
{
	double step = tick_step(hi - lo), v, p;
	double x0 = LEFT, x1 = width - RIGHT, y0 = PLOT_HEIGHT - BOTTOM, y1 = TOP;
	char label[32];
	int i;

	for (i = 0, v = ceil(lo / step) * step; v <= hi + step * 1e-9 && i < 50; i++, v += step) {
		/* -0 and 1e-18 are 0 on an axis */
		double shown = fabs(v) < step * 1e-9 ? 0 : v;
		snprintf(label, sizeof label, "%g", shown);
		if (vertical) {
			p = pixel(v, lo, hi, y0, y1);
			fprintf(f,
			    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			    "stroke=\"#dddddd\"/>\n",
			    x0, p, x1, p);
			text_at(f, x0 - 6, p + 4, "end", "", label);
		} else {
			p = pixel(v, lo, hi, x0, x1);
			fprintf(f,
			    "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
			    "stroke=\"#dddddd\"/>\n",
			    p, y0, p, y1);
			text_at(f, p, y0 + 18, "middle", "", label);
		}
	}
}

/* Whether point i is marked as energy-gaining. */
static int gained(const unsigned char *gain, size_t i)
{
	return gain && gain[i];
}

int plot_line_svg(FILE *f, const struct plot_labels *labels, const double *x, const double *y,
    const unsigned char *gain, size_t n)
{
	const double width = PLOT_WIDTH;
	double x0, x1, y0, y1, sx, sy;
	size_t i;
	int open = 0;

	if (!finite_range(x, n, &x0, &x1) || !finite_range(y, n, &y0, &y1))
		return -1;
	/* a little air above and below the data */
	y0 -= (y1 - y0) * 0.05;
	y1 += (y1 - y0) * 0.05;
	open_document(f, width, labels);
	numeric_axis(f, 0, x0, x1, width);
	numeric_axis(f, 1, y0, y1, width);
	fprintf(f,
	    "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
	    "stroke=\"black\"/>\n",
	    LEFT, TOP, width - LEFT - RIGHT, PLOT_HEIGHT - TOP - BOTTOM);
	/* data space to pixels: the points stay the data's own numbers */
	sx = (width - LEFT - RIGHT) / (x1 - x0);
	sy = -(PLOT_HEIGHT - TOP - BOTTOM) / (y1 - y0);
	fprintf(f, "<g transform=\"matrix(%.17g 0 0 %.17g %.17g %.17g)\">\n", sx, sy,
	    LEFT - x0 * sx, (PLOT_HEIGHT - BOTTOM) - y0 * sy);
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		if (!isfinite(y[i]) || gained(gain, i)) {
			if (open)
				fputs("\"/>\n", f);
			open = 0;
			continue;
		}
		if (!open)
			fputs("<polyline class=\"data\" fill=\"none\" stroke=\"#1f77b4\" "
			      "stroke-width=\"2\" vector-effect=\"non-scaling-stroke\" points=\"",
			    f);
		fprintf(f, "%s%.17g,%.17g", open ? " " : "", x[i], y[i]);
		open = 1;
	}
	if (open)
		fputs("\"/>\n", f);
	fputs("</g>\n", f);
	open = 0;
	/* few points: mark each, in pixels so the marks stay round */
	for (i = 0; n <= PLOT_MARKED_POINTS && i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]) && !gained(gain, i))
			fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"#1f77b4\"/>\n",
			    pixel(x[i], x0, x1, LEFT, width - RIGHT),
			    pixel(y[i], y0, y1, PLOT_HEIGHT - BOTTOM, TOP));
	/* energy-gaining points, however many: apart from the line, each with its numbers */
	for (i = 0; i < n; i++) {
		if (!gained(gain, i) || !isfinite(x[i]) || !isfinite(y[i]))
			continue;
		fprintf(f,
		    "<circle class=\"energy-gain\" cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"none\" "
		    "stroke=\"" GAIN_COLOUR "\" stroke-width=\"2\" data-x=\"%.17g\" "
		    "data-y=\"%.17g\"><title>%g, %g: " GAIN_TEXT "</title></circle>\n",
		    pixel(x[i], x0, x1, LEFT, width - RIGHT),
		    pixel(y[i], y0, y1, PLOT_HEIGHT - BOTTOM, TOP), x[i], y[i], x[i], y[i]);
		open = 2; /* a legend is due */
	}
	if (open == 2) {
		/* the legend above the plot's top right corner, clear of the data */
		fprintf(f,
		    "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"none\" stroke=\"" GAIN_COLOUR
		    "\" stroke-width=\"2\"/>\n",
		    width - RIGHT - 5, TOP - 9);
		text_at(f, width - RIGHT - 14, TOP - 5, "end",
		    " class=\"legend-energy-gain\" font-size=\"11\"", GAIN_TEXT);
	}
	return close_document(f);
}

/* A colour of the viridis scale at t in [0, 1], by linear steps between five stops. */
static void colour(double t, char out[8])
{
	static const unsigned char stops[5][3] = {
	    {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
	double u = fmin(fmax(t, 0), 1) * 4;
	int k = u >= 4 ? 3 : (int)u, c;
	unsigned rgb[3];

	for (c = 0; c < 3; c++)
		rgb[c] = (unsigned)lround(stops[k][c] + (u - k) * (stops[k + 1][c] - stops[k][c]));
	snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 255u, rgb[1] & 255u, rgb[2] & 255u);
}

/* The labels of the x categories (one per cell), at most about ten of them. */
static void category_axis(FILE *f, const double *v, size_t n, double cell)
{
	size_t every = n > 10 ? (n + 9) / 10 : 1, i;
	char label[32];

	for (i = 0; i < n; i += every) {
		snprintf(label, sizeof label, "%g", v[i]);
		text_at(f, LEFT + (i + 0.5) * cell, PLOT_HEIGHT - BOTTOM + 18, "middle", "", label);
	}
}

/* The lowest and highest finite values of cells not marked gained (0 if none). */
static int scale_range(const double *v, const unsigned char *gain, size_t n, double *lo, double *hi)
{
	double *kept = malloc(n * sizeof *kept);
	size_t i;
	int any;

	if (!kept)
		return finite_range(v, n, lo, hi);
	for (i = 0; i < n; i++)
		kept[i] = gained(gain, i) ? NAN : v[i];
	any = finite_range(kept, n, lo, hi);
	free(kept);
	return any;
}

int plot_heat_svg(FILE *f, const struct plot_labels *labels, const double *xs, size_t nx,
    const double *ys, size_t ny, const double *values, const unsigned char *gain)
{
	const double width = PLOT_WIDTH + LEGEND;
	double plot_w = width - LEFT - RIGHT - LEGEND, plot_h = PLOT_HEIGHT - TOP - BOTTOM;
	double cw = plot_w / (double)nx, ch = plot_h / (double)ny, lo, hi, bar_x;
	char fill[8];
	size_t i, j, ngain = 0;
	int k;

	if (!scale_range(values, gain, nx * ny, &lo, &hi))
		lo = 0, hi = 1;
	open_document(f, width, labels);
	/* energy-gaining cells: red hatching, apart from the colour scale */
	fputs("<defs><pattern id=\"energy-gain\" width=\"8\" height=\"8\" "
	      "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
	      "<rect width=\"8\" height=\"8\" fill=\"white\"/>"
	      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"" GAIN_COLOUR
	      "\" stroke-width=\"3\"/></pattern></defs>\n",
	    f);
	for (i = 0; i < ny; i++) {
		for (j = 0; j < nx; j++) {
			double v = values[i * nx + j];
			int g = gained(gain, i * nx + j);
			ngain += (size_t)g;
			if (isfinite(v))
				colour((v - lo) / (hi - lo), fill);
			else
				strcpy(fill, "#bbbbbb");
			/* row 0 at the bottom, as on a y axis */
			fprintf(f,
			    "<rect class=\"cell%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			    "height=\"%.2f\" fill=\"%s\"%s data-x=\"%.17g\" data-y=\"%.17g\" "
			    "data-value=\"",
			    g ? " energy-gain" : "", LEFT + j * cw, TOP + (ny - 1 - i) * ch, cw, ch,
			    g ? "url(#energy-gain)" : fill, g ? " data-energy-gain=\"true\"" : "",
			    xs[j], ys[i]);
			if (isfinite(v))
				fprintf(f, "%.17g\"><title>%g, %g: %g%s</title></rect>\n", v, xs[j],
				    ys[i], v, g ? " (" GAIN_TEXT ")" : "");
			else
				fprintf(
				    f, "null\"><title>%g, %g: null</title></rect>\n", xs[j], ys[i]);
		}
	}
	category_axis(f, xs, nx, cw);
	/* the y categories from the bottom up */
	for (i = 0; i<ny; i += ny> 10 ? (ny + 9) / 10 : 1) {
		char label[32];
		snprintf(label, sizeof label, "%g", ys[i]);
		text_at(f, LEFT - 6, TOP + (ny - 1 - i + 0.5) * ch + 4, "end", "", label);
	}
	/* the colour bar: a gradient of the same stops, its ends labelled */
	bar_x = LEFT + plot_w + 25;
	fputs("<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">", f);
	for (k = 0; k <= 4; k++) {
		colour(k / 4.0, fill);
		fprintf(f, "<stop offset=\"%g\" stop-color=\"%s\"/>", k / 4.0, fill);
	}
	fputs("</linearGradient></defs>\n", f);
	fprintf(f,
	    "<rect x=\"%.2f\" y=\"%.2f\" width=\"16\" height=\"%.2f\" fill=\"url(#scale)\" "
	    "stroke=\"black\"/>\n",
	    bar_x, TOP, plot_h);
	{
		char label[32];
		snprintf(label, sizeof label, "%g", hi);
		text_at(f, bar_x + 20, TOP + 10, "start", "", label);
		snprintf(label, sizeof label, "%g", lo);
		text_at(f, bar_x + 20, TOP + plot_h, "start", "", label);
	}
	if (labels->value)
		text_at(f, bar_x + 8, TOP - 8, "middle", " class=\"scale-title\"", labels->value);
	if (ngain) {
		/* the legend under the colour bar: a hatched swatch, and what it means */
		fprintf(f,
		    "<rect x=\"%.2f\" y=\"%.2f\" width=\"14\" height=\"14\" "
		    "fill=\"url(#energy-gain)\" stroke=\"black\"><title>" GAIN_TEXT
		    " (left out of the colour scale)</title></rect>\n",
		    bar_x, TOP + plot_h + 12);
		text_at(f, bar_x + 18, TOP + plot_h + 24, "start",
		    " class=\"legend-energy-gain\" font-size=\"11\"", "energy gain");
	}
	return close_document(f);
}
