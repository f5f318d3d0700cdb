/*
 * holdtab.c: the hold and grasp tables' shared pieces (holdtab.h).
 */
#include "holdtab.h"

#include <stdlib.h>
#include <string.h>

void holdtab_pair_geom(struct core_pair_geom *to, const struct hold_scene_geom *from)
{
	memcpy(to->solref, from->solref, sizeof to->solref);
	memcpy(to->solimp, from->solimp, sizeof to->solimp);
	to->condim = from->condim;
	memcpy(to->friction, from->friction, sizeof to->friction);
	to->margin = from->margin;
	to->gap = from->gap;
	to->solmix = from->solmix;
	to->priority = from->priority;
}

int holdtab_read_geom(FILE *f, const char *tag, struct core_pair_geom *g)
{
	char line[HOLDTAB_LINE], name[16];

	return fgets(line, sizeof line, f) &&
	        sscanf(line, "%15s %lf %lf %lf %lf %lf %lf %lf %d %lf %lf %lf %lf %lf %lf %d", name,
	            &g->solref[0], &g->solref[1], &g->solimp[0], &g->solimp[1], &g->solimp[2],
	            &g->solimp[3], &g->solimp[4], &g->condim, &g->friction[0], &g->friction[1],
	            &g->friction[2], &g->margin, &g->gap, &g->solmix, &g->priority) == 16 &&
	        strcmp(name, tag) == 0
	    ? 0
	    : -1;
}

long holdtab_read_series(FILE *f, const char *tag, long *stride, double *v, long max)
{
	char line[HOLDTAB_LINE], *p, *end;
	size_t taglen = strlen(tag);
	long n = 0;

	if (!fgets(line, sizeof line, f) || strncmp(line, tag, taglen) != 0 || line[taglen] != ' ')
		return -1;
	p = line + taglen;
	*stride = strtol(p, &end, 10);
	for (p = end; n < max; p = end) {
		v[n] = strtod(p, &end);
		if (end == p)
			break;
		n++;
	}
	return n;
}
