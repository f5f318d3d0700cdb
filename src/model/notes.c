/*
 * notes.c: a compiled model's notes (notes.h).
 */
#include "model/notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* one line per kind: a note already made (a second sdf geom) is not repeated */
void mnote_add(struct mdl_model *m, const char *text)
{
	int i;
	for (i = 0; i < m->nnotes; i++)
		if (strncmp(m->notes[i], text, sizeof m->notes[0] - 1) == 0)
			return;
	if (m->nnotes < (int)(sizeof m->notes / sizeof m->notes[0]))
		snprintf(m->notes[m->nnotes++], sizeof m->notes[0], "%s", text);
	else
		m->notes_dropped++;
}

void mnote_addf(struct mdl_model *m, const char *fmt, ...)
{
	char text[sizeof m->notes[0]];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	mnote_add(m, text);
}
