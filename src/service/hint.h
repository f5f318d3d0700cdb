/*
 * hint.h: the seed lesson's usual mistakes, recomputed, for grade's feedback.
 *
 * For one call of eval (its function and canonical args), each mistake a student
 * commonly makes is computed with the core's own functions, the mistake put in:
 * refsafe forgotten (the timeconst as given where MuJoCo raises it to 2h), dmax or
 * the impedance d where its square belongs (or the reverse), the impedance's power
 * and midpoint branch. grade compares a failing student number with these under
 * the function's tolerance; a match is the hint. No number is written in here: every
 * variant is the core's formula at the call's arguments.
 */
#ifndef CONTACTD_SERVICE_HINT_H
#define CONTACTD_SERVICE_HINT_H

#include <jansson.h>
#include <stddef.h>

#define HINT_TEXT_MAX 240 /* bytes of one hint's text, its NUL included */
#define HINT_MAX 12       /* variants of one call, at most */

/* One mistaken value of one output. */
struct hint_variant {
	const char *output;       /* the output it is a value of ("K", "value"): static */
	double value;             /* in the output's unit */
	char text[HINT_TEXT_MAX]; /* the mistake, for a student */
};

/*
 * The mistaken values of function (eval's name) at args (eval's canonical args: every
 * argument present and valid) under release (an mjver index) into out; returns how
 * many (0 for a function without recognisable mistakes, or arguments where none
 * differs: the direct solref form, no penetration). Non-finite variants are left out.
 */
size_t hint_variants(
    const char *function, const json_t *args, int release, struct hint_variant out[HINT_MAX]);

#endif
