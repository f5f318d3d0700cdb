/*
 * calstore.c: the records of the calibration store interface (see calstore.h).
 */
#include "base/calstore.h"

#include <stdlib.h>
#include <string.h>

void calstore_fit_clear(struct calstore_fit *f)
{
	free(f->text);
	memset(f, 0, sizeof *f);
}

void calstore_receipt_clear(struct calstore_receipt *r)
{
	json_decref(r->ids);
	memset(r, 0, sizeof *r);
}
