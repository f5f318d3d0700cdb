/*
 * holdtab.h: the pieces of the hold and grasp reference tables (tests/mjref/README.md)
 * that tests/test_hold.c and tests/test_grasp.c share: reading a geom line and a series
 * line, and a drawn scene's geom as the core's.
 */
#ifndef CONTACTD_TESTS_HOLDTAB_H
#define CONTACTD_TESTS_HOLDTAB_H

#include <stdio.h>

#include "core/pair.h"
#include "mjref/hold_scene.h"

/* The longest line of a table: a series of 17 numbers of 25 characters, and room. */
#define HOLDTAB_LINE 2048

/* Copy a drawn geom (hold_scene.h) into the core's. */
void holdtab_pair_geom(struct core_pair_geom *to, const struct hold_scene_geom *from);

/* Read the line "TAG SOLREF0 SOLREF1 SOLIMP0..4 CONDIM FRICTION0..2 MARGIN GAP SOLMIX
 * PRIORITY" from f into *g. Returns 0, or -1 when the line is not that. */
int holdtab_read_geom(FILE *f, const char *tag, struct core_pair_geom *g);

/* Read the series line "TAG STRIDE V..." from f: the stride into *stride and at most max
 * values into v. Returns the number of values, or -1 when the line is not TAG's. */
long holdtab_read_series(FILE *f, const char *tag, long *stride, double *v, long max);

#endif
