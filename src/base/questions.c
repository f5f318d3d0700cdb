/*
 * questions.c: the questions the front end bound (questions.h).
 */
#include "base/questions.h"

#include <stddef.h>

/* Set once at start-up, before the threads that read it exist. */
static const struct questions *bound;

void questions_bind(const struct questions *q)
{
	bound = q;
}

const struct questions *questions_bound(struct err *err)
{
	if (!bound)
		err_set(err, ERR_INTERNAL, "",
		    "no questions are bound to the calibration layer (questions_bind)");
	return bound;
}
