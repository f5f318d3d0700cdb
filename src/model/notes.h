/*
 * notes.h: a compiled model's notes: what the document asks that the release does not
 * have, and what the layer does not read, one line each, for the answer's notes.
 */
#ifndef CONTACTD_MODEL_NOTES_H
#define CONTACTD_MODEL_NOTES_H

#include "model/types.h"

/* Add text to m's notes, once (a line already there is not repeated); past the notes
 * kept, counted in m->notes_dropped. */
void mnote_add(struct mdl_model *m, const char *text);

/* mnote_add() with a format. */
void mnote_addf(struct mdl_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
