/*
 * knobs.h: the `contact` command's knobs: streamed output and plots.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_CLI_KNOBS_H
#define CONTACTD_CLI_KNOBS_H

#define STREAM_FLUSH_SECONDS 0.02 /* a streamed sweep's rows wait at most this long in a buffer */
#define STREAM_BUFFER_BYTES                                                                        \
	65536 /* `contact sweep`'s output buffer (a file or pipe, not a terminal) */

/* ---- `contact --plot` (src/cli/plot.h) ---- */
#define PLOT_WIDTH 720 /* pixels of a line plot (a heat map adds its colour bar) */
#define PLOT_HEIGHT 480
#define PLOT_MARKED_POINTS 60 /* lines of at most this many points mark each one */
#endif
