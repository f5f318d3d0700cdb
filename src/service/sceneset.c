/*
 * sceneset.c: a validated scene request with a few fields set in place, under
 * the rules req_scene_parse() applies to them (request.c), so a sweep's point
 * costs no JSON copy and no full validation. A value the rules might refuse is
 * left to the full parse: this module only ever has to say "the same request".
 */
#include "service/sceneset.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/knobs.h"
#include "service/knobs.h"

/* The geom fields in the order of req_scene.floor_given's bits (request.c's geom_fields),
 * then the other covered members. */
enum target {
	T_SOLREF,
	T_SOLIMP,
	T_CONDIM,
	T_FRICTION,
	T_MARGIN,
	T_GAP,
	T_SOLMIX,
	T_PRIORITY,
	T_GEOM_FIELDS, /* count of the above */
	T_TIMESTEP = T_GEOM_FIELDS,
	T_GRAVITY,
	T_IMPRATIO,
	T_HEIGHT,
	T_DURATION,
};

static const struct {
	const char *name;
	int length; /* array length; 0 for a scalar */
} geom_members[T_GEOM_FIELDS] = {
    [T_SOLREF] = {"solref", 2},
    [T_SOLIMP] = {"solimp", 5},
    [T_CONDIM] = {"condim", 0},
    [T_FRICTION] = {"friction", 3},
    [T_MARGIN] = {"margin", 0},
    [T_GAP] = {"gap", 0},
    [T_SOLMIX] = {"solmix", 0},
    [T_PRIORITY] = {"priority", 0},
};

static const struct {
	const char *ptr;
	enum target target;
} scalar_members[] = {
    {"/option/timestep", T_TIMESTEP},
    {"/option/gravity", T_GRAVITY},
    {"/option/impratio", T_IMPRATIO},
    {"/height", T_HEIGHT},
    {"/duration", T_DURATION},
};

int sceneset_path(const char *ptr, struct sceneset_path *out)
{
	const char *rest;
	size_t i, len;

	for (i = 0; i < sizeof scalar_members / sizeof scalar_members[0]; i++) {
		if (strcmp(ptr, scalar_members[i].ptr) == 0) {
			out->target = (int)scalar_members[i].target;
			out->floor = 0;
			out->index = -1;
			return 1;
		}
	}
	if (strncmp(ptr, "/geom/", 6) == 0) {
		out->floor = 0;
		rest = ptr + 6;
	} else if (strncmp(ptr, "/floor/", 7) == 0) {
		out->floor = 1;
		rest = ptr + 7;
	} else {
		return 0;
	}
	for (i = 0; i < T_GEOM_FIELDS; i++) {
		len = strlen(geom_members[i].name);
		if (strncmp(rest, geom_members[i].name, len) != 0)
			continue;
		rest += len;
		out->target = (int)i;
		if (geom_members[i].length == 0 && rest[0] == '\0') {
			out->index = -1;
			return 1;
		}
		/* one digit, in range: the only spelling of an element this module takes */
		if (geom_members[i].length > 0 && rest[0] == '/' && rest[1] >= '0' &&
		    rest[1] < '0' + geom_members[i].length && rest[2] == '\0') {
			out->index = rest[1] - '0';
			return 1;
		}
		return 0;
	}
	return 0;
}

/* field_int's rule: a whole number within int */
static int whole(double x, int *out)
{
	if (x != floor(x) || x < INT_MIN || x > INT_MAX)
		return -1;
	*out = (int)x;
	return 0;
}

/* parse_geom's rule for one field of g set to x */
static int set_geom(struct core_pair_geom *g, enum target t, int index, double x)
{
	switch (t) {
	case T_SOLREF: /* any finite solref: a mixed-sign one falls back later, in the core */
		g->solref[index] = x;
		return 0;
	case T_SOLIMP:
		g->solimp[index] = x;
		return 0;
	case T_CONDIM:
		if (whole(x, &g->condim) != 0)
			return -1;
		return g->condim == 1 || g->condim == 3 || g->condim == 4 || g->condim == 6 ? 0
		                                                                            : -1;
	case T_FRICTION:
		g->friction[index] = x;
		return x >= 0 ? 0 : -1;
	case T_MARGIN:
		g->margin = x;
		return x >= 0 ? 0 : -1;
	case T_GAP:
		g->gap = x;
		return x >= 0 ? 0 : -1;
	case T_SOLMIX:
		g->solmix = x;
		return x >= 0 ? 0 : -1;
	case T_PRIORITY:
		return whole(x, &g->priority);
	default:
		return -1;
	}
}

/* Field t of the floor takes the geom's (the floor did not set it). */
static void follow_geom(struct core_scene *s, enum target t)
{
	struct core_pair_geom *f = &s->floor;
	const struct core_pair_geom *g = &s->geom;

	switch (t) {
	case T_SOLREF:
		memcpy(f->solref, g->solref, sizeof f->solref);
		break;
	case T_SOLIMP:
		memcpy(f->solimp, g->solimp, sizeof f->solimp);
		break;
	case T_CONDIM:
		f->condim = g->condim;
		break;
	case T_FRICTION:
		memcpy(f->friction, g->friction, sizeof f->friction);
		break;
	case T_MARGIN:
		f->margin = g->margin;
		break;
	case T_GAP:
		f->gap = g->gap;
		break;
	case T_SOLMIX:
		f->solmix = g->solmix;
		break;
	default:
		f->priority = g->priority;
		break;
	}
}

/* One value at one path: its member's own rule. */
static int set_one(struct req_scene *r, const struct sceneset_path *path, const json_t *value)
{
	struct core_scene *s = &r->scene;
	enum target t = (enum target)path->target;
	double x;

	/* canonical values are reals; anything else (a string, null, an array) is the
	 * parser's to refuse */
	if (!json_is_number(value))
		return -1;
	x = json_number_value(value);
	if (!isfinite(x))
		return -1;
	x = x == 0 ? 0.0 : x; /* -0 is 0, as the full parse reads it (base/field.c) */
	if (t < T_GEOM_FIELDS) {
		if (path->floor) {
			/* vary_set makes the field the floor's own: a given one from now on */
			r->floor_given |= 1u << t;
			return set_geom(&s->floor, t, path->index, x);
		}
		if (set_geom(&s->geom, t, path->index, x) != 0)
			return -1;
		if (!(r->floor_given & (1u << t)))
			follow_geom(s, t);
		return 0;
	}
	switch (t) {
	case T_TIMESTEP:
		s->option.timestep = x;
		return x > 0 ? 0 : -1;
	case T_GRAVITY:
		s->option.gravity = x;
		return 0;
	case T_IMPRATIO:
		s->option.impratio = x;
		return x > 0 ? 0 : -1;
	case T_HEIGHT:
		s->height = x;
		return x >= 0 && x <= LIMIT_MAX_HEIGHT ? 0 : -1;
	case T_DURATION:
		s->duration = x;
		return x >= 0 ? 0 : -1;
	default:
		return -1;
	}
}

int sceneset_apply(
    struct req_scene *r, const struct sceneset_path path[], json_t *const value[], size_t n)
{
	size_t i;
	int pass;

	/* the floor's fields last, so a geom value they do not set is the point's */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (path[i].floor == pass && set_one(r, &path[i], value[i]) != 0)
				return -1;
	/* the one rule across covered fields: round(duration / timestep) within the limit */
	if (!(r->scene.duration / r->scene.option.timestep < LIMIT_MAX_STEPS + 0.5))
		return -1;
	return 0;
}
