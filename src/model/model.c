/*
 * model.c: MuJoCo's compiler, as far as contacts go (2.2.2's user_objects.cc and
 * xml_native_reader.cc; nothing read here changed up to 3.14.0 but the integrators a
 * release knows, checked against the WebAssembly builds 3.12.0-3.14.0): defaults,
 * classes, bodies, geoms, the contact section.
 */
#include "model/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/budget.h"
#include "core/knobs.h"
#include "model/drive.h"
#include "model/frame.h"
#include "model/knobs.h"
#include "model/notes.h"
#include "model/option.h"

static const char *const geom_types[] = {
    "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf", NULL};
static const char *const truth[] = {"false", "true", NULL};

const char *mdl_geom_type_name(enum mdl_geom_type t)
{
	return t < MDL_GEOM_TYPES ? geom_types[t] : "unknown";
}

const char *mdl_joint_type_name(enum mdl_joint_type t)
{
	static const char *const names[] = {"free", "ball", "slide", "hinge"};
	return (unsigned)t < 4 ? names[t] : "unknown";
}

const char *mdl_integrator_name(enum core_scene_integrator i)
{
	return mopt_integrator_name(i);
}

struct geom_in;

/* A default class: its name, its parent class and the <default> element holding it; the
 * <geom> and <pair> defaults it gives, worked out on first use (NULL before). */
struct klass {
	char *name;
	int parent;
	xmlNodePtr el;
	struct geom_in *geom;
	struct mdl_pair_spec *pair;
};

/* A geom's or a body's name and id, sorted by name to look names up (the contact section). */
struct named_id {
	const char *name;
	int id;
};

struct compiler {
	const struct mjcf_doc *doc;
	struct mdl_model *m;
	struct klass *classes;
	int nclass;
	int inertia_from_geom;  /* 0 false, 1 true, 2 auto */
	int group_lo, group_hi; /* compiler inertiagrouprange */
	char eulerseq[4];       /* compiler eulerseq: lowercase intrinsic, uppercase extrinsic */
	struct err *err;
	struct named_id *names[2]; /* the bodies' [0] and the geoms' [1] names, once asked */
	int nnames[2];
};

/* ---- option and compiler ---- */

static int read_compiler(struct compiler *c, xmlNodePtr el)
{
	static const char *const angles[] = {"radian", "degree", NULL};
	static const char *const inertia[] = {"false", "true", "auto", NULL};
	static const char *const coordinates[] = {"local", "global", NULL};
	struct err *err = c->err;
	double range[2];
	int v, rc;

	if ((rc = mjcf_word(el, "angle", angles, &v, err)) < 0)
		return -1;
	if (rc > 0)
		c->m->angle_degree = v;
	if ((rc = mjcf_word(el, "autolimits", truth, &v, err)) < 0)
		return -1;
	if (rc > 0)
		c->m->autolimits = v;
	if ((rc = mjcf_word(el, "inertiafromgeom", inertia, &v, err)) < 0)
		return -1;
	if (rc > 0)
		c->inertia_from_geom = v;
	if ((rc = mjcf_word(el, "coordinate", coordinates, &v, err)) < 0)
		return -1;
	if (rc > 0 && v == 1)
		return mjcf_fail(el, err, "coordinate=\"global\" is not read here");
	{
		char *seq = mjcf_attr(el, "eulerseq");
		if (seq && (strlen(seq) != 3 || strspn(seq, "xyzXYZ") != 3)) {
			xmlFree(seq);
			return mjcf_fail(el, err, "eulerseq must be 3 of x, y, z, X, Y, Z");
		}
		if (seq)
			memcpy(c->eulerseq, seq, 4);
		xmlFree(seq);
	}
	if ((rc = mjcf_reals(el, "inertiagrouprange", range, 2, 1, err)) < 0)
		return -1;
	if (rc > 0) {
		c->group_lo = (int)range[0];
		c->group_hi = (int)range[1];
	}
	{
		/* a body mass MuJoCo changes after summing its geoms: answered without it */
		char *s = mjcf_attr(el, "settotalmass");
		char *b = mjcf_attr(el, "boundmass");
		if (s || b)
			mnote_add(c->m,
			    "compiler boundmass or settotalmass is set: bodies' masses are "
			    "the geoms' and inertials' before it");
		xmlFree(s);
		xmlFree(b);
	}
	return 0;
}

/* The array p of n elements (of size bytes each), grown only here, with room for one more:
 * its capacity doubles at each power of two. (A realloc per element copied the whole array
 * each time under the sanitizers, whose realloc never grows in place: 20,000 <pair>s took
 * 150 s.) NULL when out of memory, p unchanged. */
static void *room_for_one_more(void *p, int n, size_t size)
{
	if (n > 0 && (n & (n - 1)) != 0)
		return p;
	return realloc(p, (size_t)(n ? 2 * n : 1) * size);
}
/* ---- default classes ---- */

static int find_class(const struct compiler *c, const char *name)
{
	int i;
	for (i = 0; i < c->nclass; i++)
		if (strcmp(c->classes[i].name, name) == 0)
			return i;
	return -1;
}

static int add_classes(struct compiler *c, xmlNodePtr el, int parent)
{
	struct mjcf_iter it = {.depth = -1};
	char *name = mjcf_attr(el, "class");
	struct klass *grown;
	xmlNodePtr ch;
	int id;

	if (!name && parent >= 0) {
		return mjcf_fail(el, c->err, "a nested default needs a class");
	}
	if (parent < 0 && name && strcmp(name, "main") != 0) {
		xmlFree(name);
		return mjcf_fail(el, c->err, "the top-level default is class \"main\"");
	}
	if (find_class(c, name ? name : "main") >= 0) {
		int rc =
		    mjcf_fail(el, c->err, "repeated default class \"%s\"", name ? name : "main");
		xmlFree(name);
		return rc;
	}
	if (c->nclass >= MODEL_MAX_CLASSES) {
		xmlFree(name);
		return err_set(
		    c->err, ERR_TOO_LARGE, "", "more than %d default classes", MODEL_MAX_CLASSES);
	}
	grown = room_for_one_more(c->classes, c->nclass, sizeof *grown);
	if (!grown) {
		xmlFree(name);
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	c->classes = grown;
	id = c->nclass++;
	c->classes[id].geom = NULL;
	c->classes[id].pair = NULL;
	c->classes[id].name = strdup(name ? name : "main");
	xmlFree(name);
	c->classes[id].parent = parent;
	c->classes[id].el = el;
	if (!c->classes[id].name)
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	while ((ch = mjcf_next(c->doc, el, &it)))
		if (mjcf_is(ch, "default") && add_classes(c, ch, id) != 0)
			return -1;
	return 0;
}

/* The class an element uses: its own class attribute, else inherited (childclass). */
static int element_class(struct compiler *c, xmlNodePtr el, int inherited, int *out)
{
	char *name = mjcf_attr(el, "class");
	int id;

	if (!name) {
		*out = inherited;
		return 0;
	}
	id = find_class(c, name);
	if (id < 0) {
		int rc = mjcf_fail(el, c->err, "unknown default class \"%s\"", name);
		xmlFree(name);
		return rc;
	}
	xmlFree(name);
	*out = id;
	return 0;
}

/* ---- geoms ---- */

struct geom_in {
	struct mdl_geom g;
	double fromto[6];
	int has_fromto;
	double density;
	double mass; /* NaN: not given */
	int has_pos;
	int has_mesh;
};

static void geom_default(struct geom_in *gi)
{
	struct core_pair_geom p;
	memset(gi, 0, sizeof *gi);
	core_pair_geom_default(&p);
	gi->g.type = MDL_SPHERE;
	gi->g.contype = gi->g.conaffinity = 1;
	gi->g.condim = p.condim;
	gi->g.solmix = p.solmix;
	memcpy(gi->g.solref, p.solref, sizeof p.solref);
	memcpy(gi->g.solimp, p.solimp, sizeof p.solimp);
	memcpy(gi->g.friction, p.friction, sizeof p.friction);
	gi->density = 1000;
	gi->mass = NAN;
}

/* Overlay the attributes of one <geom> element (in a default or in a body). */
static int geom_attrs(xmlNodePtr el, struct geom_in *gi, struct err *err)
{
	struct mdl_geom *g = &gi->g;
	int v, rc, identity;
	char *s;

	if ((rc = mjcf_word(el, "type", geom_types, &v, err)) < 0)
		return -1;
	if (rc > 0)
		g->type = (enum mdl_geom_type)v;
	if (mjcf_reals(el, "size", g->size, 3, 0, err) < 0 ||
	    mjcf_int(el, "contype", &g->contype, err) < 0 ||
	    mjcf_int(el, "conaffinity", &g->conaffinity, err) < 0 ||
	    mjcf_int(el, "condim", &g->condim, err) < 0 ||
	    mjcf_int(el, "group", &g->group, err) < 0 ||
	    mjcf_int(el, "priority", &g->priority, err) < 0 ||
	    mjcf_reals(el, "friction", g->friction, 3, 0, err) < 0 ||
	    mjcf_reals(el, "solmix", &g->solmix, 1, 1, err) < 0 ||
	    mjcf_reals(el, "solref", g->solref, 2, 0, err) < 0 ||
	    mjcf_reals(el, "solimp", g->solimp, 5, 0, err) < 0 ||
	    mjcf_reals(el, "margin", &g->margin, 1, 1, err) < 0 ||
	    mjcf_reals(el, "gap", &g->gap, 1, 1, err) < 0 ||
	    mjcf_reals(el, "density", &gi->density, 1, 1, err) < 0 ||
	    mjcf_reals(el, "mass", &gi->mass, 1, 1, err) < 0)
		return -1;
	if ((rc = mjcf_reals(el, "fromto", gi->fromto, 6, 1, err)) < 0)
		return -1;
	if (rc > 0)
		gi->has_fromto = 1;
	if ((rc = mjcf_reals(el, "pos", g->pos, 3, 1, err)) < 0)
		return -1;
	if (rc > 0 && (g->pos[0] != 0 || g->pos[1] != 0 || g->pos[2] != 0))
		gi->has_pos = 1;
	if (mframe_identity(el, &identity, err) != 0)
		return -1;
	if (!identity)
		g->rotated = 1;
	if ((s = mjcf_attr(el, "mesh")) || (s = mjcf_attr(el, "hfield"))) {
		gi->has_mesh = 1;
		xmlFree(s);
	}
	return 0;
}

/* Set *gi to the defaults a geom of class id starts from: MuJoCo's, then the class's
 * <geom> defaults, its ancestors' first. Worked out once per class: a <default> may hold
 * many elements, and many geoms use it. */
static int class_geom(struct compiler *c, int id, struct geom_in *gi)
{
	struct mjcf_iter it = {.depth = -1};
	struct geom_in *r;
	xmlNodePtr ch;

	if (id < 0) {
		geom_default(gi);
		return 0;
	}
	if (!c->classes[id].geom) {
		if (!(r = malloc(sizeof *r)))
			return err_set(c->err, ERR_INTERNAL, "", "out of memory");
		if (class_geom(c, c->classes[id].parent, r) != 0) {
			free(r);
			return -1;
		}
		/* the implicit class main of a document without <default> has no element */
		while (c->classes[id].el && (ch = mjcf_next(c->doc, c->classes[id].el, &it)))
			if (mjcf_is(ch, "geom") && geom_attrs(ch, r, c->err) != 0) {
				free(r);
				return -1;
			}
		c->classes[id].geom = r;
	}
	*gi = *c->classes[id].geom;
	return 0;
}

static double geom_volume(const struct mdl_geom *g)
{
	const double *s = g->size;
	switch (g->type) {
	case MDL_SPHERE:
		return 4 * M_PI * s[0] * s[0] * s[0] / 3;
	case MDL_CAPSULE:
		return M_PI * (s[0] * s[0] * (2 * s[1]) + 4 * s[0] * s[0] * s[0] / 3);
	case MDL_CYLINDER:
		return M_PI * s[0] * s[0] * (2 * s[1]);
	case MDL_ELLIPSOID:
		return 4 * M_PI * s[0] * s[1] * s[2] / 3;
	case MDL_BOX:
		return s[0] * s[1] * s[2] * 8;
	default:
		return 0;
	}
}

static int add_geom(struct compiler *c, xmlNodePtr el, int body, int klass)
{
	static const int positive[MDL_GEOM_TYPES] = {0, 0, 1, 2, 3, 2, 3, 0, 0};
	struct mdl_model *m = c->m;
	struct err *err = c->err;
	struct geom_in gi;
	struct mdl_geom *g, *grown;
	char *name;
	int i;

	if (m->ngeom >= MODEL_MAX_GEOMS)
		return err_set(err, ERR_TOO_LARGE, "", "more than %d geoms", MODEL_MAX_GEOMS);
	if (class_geom(c, klass, &gi) != 0 || geom_attrs(el, &gi, err) != 0)
		return -1;
	g = &gi.g;
	if (mframe_orientation(el, c->m->angle_degree, c->eulerseq, g->quat, err) != 0)
		return -1;
	if (g->condim != 1 && g->condim != 3 && g->condim != 4 && g->condim != 6)
		return mjcf_fail(el, err, "condim must be 1, 3, 4 or 6, not %d", g->condim);
	if (g->type == MDL_SDF || g->type == MDL_MESH || g->type == MDL_HFIELD || gi.has_mesh) {
		/* a shape from a file: its contact fields are known, its size and mass are not */
		g->answerable = 0;
		if (g->type == MDL_SDF && m->mujoco < core_mjver_find("3.0.0"))
			mnote_add(m, "sdf geoms are MuJoCo 3.x's; this release refuses them");
		else if (g->type == MDL_SDF)
			mnote_add(m,
			    "the pairs of sdf geoms are not listed (MuJoCo collides them through "
			    "their SDF plugin, which is not read here)");
	} else {
		g->answerable = 1;
	}
	if ((g->type == MDL_PLANE || g->type == MDL_HFIELD) && m->bodies[body].weld != 0)
		return mjcf_fail(el, err, "plane and hfield only allowed in static bodies");
	if (gi.has_fromto) {
		double v[3] = {gi.fromto[0] - gi.fromto[3], gi.fromto[1] - gi.fromto[4],
		    gi.fromto[2] - gi.fromto[5]};
		double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		if (g->type != MDL_CAPSULE && g->type != MDL_CYLINDER && g->type != MDL_ELLIPSOID &&
		    g->type != MDL_BOX)
			return mjcf_fail(
			    el, err, "fromto requires capsule, cylinder, box or ellipsoid");
		if (gi.has_pos)
			return mjcf_fail(el, err, "both pos and fromto defined");
		g->size[1] = len / 2;
		if (g->size[1] < 1e-6)
			return mjcf_fail(el, err, "fromto points too close");
		if (g->type == MDL_ELLIPSOID || g->type == MDL_BOX) {
			g->size[2] = g->size[1];
			g->size[1] = g->size[0];
		}
		for (i = 0; i < 3; i++)
			g->pos[i] = (gi.fromto[i] + gi.fromto[i + 3]) / 2;
		g->rotated = !(v[0] == 0 && v[1] == 0);
		{
			double to[3] = {-v[0], -v[1], -v[2]};
			mframe_z_to(to, g->quat);
		}
	}
	if (g->answerable)
		for (i = 0; i < positive[g->type]; i++)
			if (!(g->size[i] > 0))
				return mjcf_fail(el, err, "a %s needs %d positive sizes",
				    geom_types[g->type], positive[g->type]);
	if (!g->answerable)
		g->mass = NAN;
	else if (!isnan(gi.mass))
		g->mass = gi.mass;
	else
		g->mass = gi.density * geom_volume(g);
	if (g->mass < 0)
		return mjcf_fail(el, err, "mass or density is negative");
	name = mjcf_attr(el, "name");
	if (name) {
		for (i = 0; i < m->ngeom; i++)
			if (m->geoms[i].name && strcmp(m->geoms[i].name, name) == 0) {
				int rc = mjcf_fail(el, err, "repeated geom name \"%s\"", name);
				xmlFree(name);
				return rc;
			}
		g->name = strdup(name);
		xmlFree(name);
		if (!g->name)
			return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	g->body = body;
	g->el = el;
	grown = room_for_one_more(m->geoms, m->ngeom, sizeof *grown);
	if (!grown) {
		free(g->name);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	m->geoms = grown;
	m->geoms[m->ngeom++] = *g;
	return 0;
}

/* ---- bodies ---- */

static int refuse_generators(xmlNodePtr el, struct err *err)
{
	static const char *const generators[] = {
	    "composite", "flexcomp", "replicate", "frame", "attach", NULL};
	int i;
	for (i = 0; generators[i]; i++)
		if (mjcf_is(el, generators[i]))
			return mjcf_fail(el, err,
			    "%s generates bodies or geoms this reader does not "
			    "model; expand it first",
			    generators[i]);
	return 0;
}

static int new_body(struct compiler *c, xmlNodePtr el, int parent)
{
	struct mdl_model *m = c->m;
	struct mdl_body *grown, *b;
	char *name = el ? mjcf_attr(el, "name") : NULL;
	int i;

	if (m->nbody >= MODEL_MAX_BODIES) {
		xmlFree(name);
		return err_set(c->err, ERR_TOO_LARGE, "", "more than %d bodies", MODEL_MAX_BODIES);
	}
	if (name)
		for (i = 0; i < m->nbody; i++)
			if (m->bodies[i].name && strcmp(m->bodies[i].name, name) == 0) {
				int rc = mjcf_fail(el, c->err, "repeated body name \"%s\"", name);
				xmlFree(name);
				return rc;
			}
	grown = room_for_one_more(m->bodies, m->nbody, sizeof *grown);
	if (!grown) {
		xmlFree(name);
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	m->bodies = grown;
	b = &m->bodies[m->nbody];
	memset(b, 0, sizeof *b);
	b->quat[0] = b->xquat[0] = 1;
	b->name = strdup(parent < 0 ? "world" : name ? name : "");
	xmlFree(name);
	if (!b->name)
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	if (parent >= 0 && !*b->name) {
		free(b->name);
		b->name = NULL;
	}
	b->parent = parent;
	b->el = el;
	b->geomadr = m->ngeom;
	return m->nbody++;
}

/* The context drive.h reads an element of class klass in. */
static int drive_ctx(struct compiler *c, int klass, struct mdrive_ctx *d)
{
	int k;

	d->doc = c->doc;
	d->m = c->m;
	d->err = c->err;
	d->nchain = 0;
	for (k = klass; k >= 0; k = c->classes[k].parent) {
		if (!c->classes[k].el)
			continue; /* the implicit class main */
		if (d->nchain == MDRIVE_CHAIN)
			return err_set(c->err, ERR_TOO_LARGE, "", "default classes nest deeper than %d",
			    MDRIVE_CHAIN);
		d->chain[d->nchain++] = c->classes[k].el;
	}
	return 0;
}

/* The body element's joints, inertial and own frame; klass the class its elements use. */
static int body_parts(struct compiler *c, xmlNodePtr el, int id, int klass)
{
	struct mjcf_iter it = {.depth = -1};
	struct err *err = c->err;
	struct mdl_body *b = &c->m->bodies[id];
	xmlNodePtr ch;
	int identity, free_joints = 0;

	if (mjcf_reals(el, "pos", b->pos, 3, 1, err) < 0 ||
	    mframe_identity(el, &identity, err) || mframe_orientation(el, c->m->angle_degree, c->eulerseq, b->quat, err))
		return -1;
	b->rotated = !identity;
	b->jntadr = c->m->njoint;
	while ((ch = mjcf_next(c->doc, el, &it))) {
		if (refuse_generators(ch, err) != 0)
			return -1;
		if (mjcf_is(ch, "freejoint") || mjcf_is(ch, "joint")) {
			struct mdrive_ctx d;
			int jk = klass;
			if ((mjcf_is(ch, "joint") && element_class(c, ch, klass, &jk) != 0) ||
			    drive_ctx(c, jk, &d) != 0 ||
			    mdrive_joint(&d, ch, id, mjcf_is(ch, "freejoint")) != 0)
				return -1;
			b = &c->m->bodies[id];
			b->joints++;
			if (c->m->joints[c->m->njoint - 1].type == MDL_FREE)
				free_joints++;
		} else if (mjcf_is(ch, "inertial")) {
			double pos[3] = {0, 0, 0};
			b->has_inertial = 1;
			if (mjcf_reals(ch, "mass", &b->mass, 1, 1, err) < 0 ||
			    mjcf_reals(ch, "pos", pos, 3, 1, err) < 0 ||
			    mframe_identity(ch, &identity, err))
				return -1;
			b->inertial_offset = pos[0] != 0 || pos[1] != 0 || pos[2] != 0;
		}
	}
	b->jntnum = c->m->njoint - b->jntadr;
	b->free = b->joints == 1 && free_joints == 1;
	return 0;
}

static int add_body(struct compiler *c, xmlNodePtr el, int parent, int childclass);

/* A body's geoms (before any child body, so its geom ids are consecutive), then its
 * child bodies in document order. container is one element of the body (the body, or
 * one of the world's <worldbody> sections). */
static int body_geoms(struct compiler *c, xmlNodePtr container, int id, int childclass)
{
	struct mjcf_iter it = {.depth = -1};
	xmlNodePtr ch;
	int klass;

	while ((ch = mjcf_next(c->doc, container, &it))) {
		if (refuse_generators(ch, c->err) != 0)
			return -1;
		if (!mjcf_is(ch, "geom"))
			continue;
		if (element_class(c, ch, childclass, &klass) != 0 ||
		    add_geom(c, ch, id, klass) != 0)
			return -1;
	}
	c->m->bodies[id].geomnum = c->m->ngeom - c->m->bodies[id].geomadr;
	return 0;
}

static int body_children(struct compiler *c, xmlNodePtr container, int id, int childclass)
{
	struct mjcf_iter it = {.depth = -1};
	xmlNodePtr ch;

	while ((ch = mjcf_next(c->doc, container, &it)))
		if (mjcf_is(ch, "body")) {
			c->m->bodies[id].children++;
			if (add_body(c, ch, id, childclass) != 0)
				return -1;
		}
	return 0;
}

/* The mass MuJoCo gives a body: its <inertial>'s, else its geoms' in the group range. */
static void body_mass(struct compiler *c, struct mdl_body *b)
{
	int i;
	if (b->has_inertial && c->inertia_from_geom != 1)
		return;
	b->mass = 0;
	for (i = b->geomadr; i < b->geomadr + b->geomnum; i++) {
		const struct mdl_geom *g = &c->m->geoms[i];
		if (g->group < c->group_lo || g->group > c->group_hi)
			continue;
		b->mass += g->mass; /* NaN from a mesh: unknown */
	}
}

static int add_body(struct compiler *c, xmlNodePtr el, int parent, int childclass)
{
	struct mdl_body *b;
	int id = new_body(c, el, parent), klass = childclass;
	char *cc;

	if (id < 0)
		return -1;
	cc = mjcf_attr(el, "childclass");
	if (cc) {
		klass = find_class(c, cc);
		if (klass < 0) {
			int rc = mjcf_fail(el, c->err, "unknown default class \"%s\"", cc);
			xmlFree(cc);
			return rc;
		}
		xmlFree(cc);
	}
	if (body_parts(c, el, id, klass) != 0)
		return -1;
	b = &c->m->bodies[id];
	b->weld = b->joints > 0 ? id : c->m->bodies[parent].weld;
	if (body_geoms(c, el, id, klass) != 0)
		return -1;
	body_mass(c, &c->m->bodies[id]);
	return body_children(c, el, id, klass);
}

/* ---- the contact section ---- */

static int cmp_named(const void *x, const void *y)
{
	return strcmp(((const struct named_id *)x)->name, ((const struct named_id *)y)->name);
}

/* The id of the geom (geoms 1) or body (0) called name, -1 when none; through a sorted
 * index made on first use, so that many <pair>s and <exclude>s cost n log n, not n^2.
 * Names are unique (add_geom(), new_body()). */
static int find_named(struct compiler *c, int geoms, const char *name, int *out)
{
	const struct mdl_model *m = c->m;
	struct named_id key = {name, -1}, *hit;
	int i, n = geoms ? m->ngeom : m->nbody;

	if (!c->names[geoms]) {
		if (!(c->names[geoms] = malloc((size_t)(n ? n : 1) * sizeof *c->names[geoms])))
			return err_set(c->err, ERR_INTERNAL, "", "out of memory");
		for (i = 0; i < n; i++) {
			const char *s = geoms ? m->geoms[i].name : m->bodies[i].name;
			if (s)
				c->names[geoms][c->nnames[geoms]++] = (struct named_id){s, i};
		}
		qsort(c->names[geoms], (size_t)c->nnames[geoms], sizeof key, cmp_named);
	}
	hit = bsearch(&key, c->names[geoms], (size_t)c->nnames[geoms], sizeof key, cmp_named);
	*out = hit ? hit->id : -1;
	return 0;
}

static int named(struct compiler *c, xmlNodePtr el, const char *attr, int geoms, int *out)
{
	char *name = mjcf_attr(el, attr);
	if (!name)
		return mjcf_fail(el, c->err, "%s is required", attr);
	if (find_named(c, geoms, name, out) != 0) {
		xmlFree(name);
		return -1;
	}
	if (*out < 0) {
		int rc = mjcf_fail(
		    el, c->err, "%s \"%s\" names no %s", attr, name, geoms ? "geom" : "body");
		xmlFree(name);
		return rc;
	}
	xmlFree(name);
	return 0;
}

static int pair_attrs(xmlNodePtr el, struct mdl_pair_spec *p, struct err *err)
{
	if (mjcf_int(el, "condim", &p->condim, err) < 0 ||
	    mjcf_reals(el, "friction", p->friction, 5, 0, err) < 0 ||
	    mjcf_reals(el, "solref", p->solref, 2, 0, err) < 0 ||
	    mjcf_reals(el, "solimp", p->solimp, 5, 0, err) < 0 ||
	    mjcf_reals(el, "margin", &p->margin, 1, 1, err) < 0 ||
	    mjcf_reals(el, "gap", &p->gap, 1, 1, err) < 0 ||
	    mjcf_reals(el, "solreffriction", p->solreffriction, 2, 0, err) < 0)
		return -1;
	return 0;
}

/* mjCPair's constructor */
static void pair_default(struct mdl_pair_spec *p)
{
	struct core_pair_geom d;

	memset(p, 0, sizeof *p);
	core_pair_geom_default(&d);
	p->condim = 3;
	p->friction[0] = p->friction[1] = 1;
	p->friction[2] = 0.005;
	p->friction[3] = p->friction[4] = 0.0001;
	memcpy(p->solref, d.solref, sizeof p->solref);
	memcpy(p->solimp, d.solimp, sizeof p->solimp);
}

/* Set *p to the defaults a <pair> of class id starts from (class_geom()'s way). */
static int class_pair(struct compiler *c, int id, struct mdl_pair_spec *p)
{
	struct mjcf_iter it = {.depth = -1};
	struct mdl_pair_spec *r;
	xmlNodePtr ch;

	if (id < 0) {
		pair_default(p);
		return 0;
	}
	if (!c->classes[id].pair) {
		if (!(r = malloc(sizeof *r)))
			return err_set(c->err, ERR_INTERNAL, "", "out of memory");
		if (class_pair(c, c->classes[id].parent, r) != 0) {
			free(r);
			return -1;
		}
		while (c->classes[id].el && (ch = mjcf_next(c->doc, c->classes[id].el, &it)))
			if (mjcf_is(ch, "pair") && pair_attrs(ch, r, c->err) != 0) {
				free(r);
				return -1;
			}
		c->classes[id].pair = r;
	}
	*p = *c->classes[id].pair;
	return 0;
}

static int add_pair(struct compiler *c, xmlNodePtr el)
{
	struct mdl_model *m = c->m;
	struct mdl_pair_spec p, *grown;
	int klass;

	if (m->npair >= MODEL_MAX_PAIRS)
		return err_set(c->err, ERR_TOO_LARGE, "", "more than %d pairs", MODEL_MAX_PAIRS);
	/* mjCPair's constructor, then the class's <pair> defaults */
	if (element_class(c, el, 0, &klass) != 0 || class_pair(c, klass, &p) != 0 ||
	    pair_attrs(el, &p, c->err) != 0 || named(c, el, "geom1", 1, &p.geom1) != 0 ||
	    named(c, el, "geom2", 1, &p.geom2) != 0)
		return -1;
	if (p.condim != 1 && p.condim != 3 && p.condim != 4 && p.condim != 6)
		return mjcf_fail(el, c->err, "condim must be 1, 3, 4 or 6, not %d", p.condim);
	if ((p.solreffriction[0] != 0 || p.solreffriction[1] != 0) &&
	    m->mujoco < core_mjver_find("2.3.6"))
		mnote_add(m,
		    "a <pair>'s solreffriction is MuJoCo 2.3.6+; this release refuses it (it "
		    "changes only the elliptic cone's friction rows)");
	if (m->geoms[p.geom1].body > m->geoms[p.geom2].body) {
		int t = p.geom1;
		p.geom1 = p.geom2;
		p.geom2 = t;
	}
	p.el = el;
	grown = room_for_one_more(m->pairs, m->npair, sizeof *grown);
	if (!grown)
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	m->pairs = grown;
	m->pairs[m->npair++] = p;
	return 0;
}

static int add_exclude(struct compiler *c, xmlNodePtr el)
{
	struct mdl_model *m = c->m;
	struct mdl_exclude e, *grown;
	int b1, b2;

	if (named(c, el, "body1", 0, &b1) != 0 || named(c, el, "body2", 0, &b2) != 0)
		return -1;
	e.body1 = b1 < b2 ? b1 : b2;
	e.body2 = b1 < b2 ? b2 : b1;
	grown = room_for_one_more(m->excludes, m->nexclude, sizeof *grown);
	if (!grown)
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	m->excludes = grown;
	m->excludes[m->nexclude++] = e;
	return 0;
}

static int actuator_section(struct compiler *c, xmlNodePtr el)
{
	struct mjcf_iter it = {.depth = -1};
	struct mdrive_ctx d;
	xmlNodePtr ch;
	int k;

	while ((ch = mjcf_next(c->doc, el, &it)))
		if (mdrive_is_actuator(ch) && (element_class(c, ch, 0, &k) != 0 ||
		                                  drive_ctx(c, k, &d) != 0 || mdrive_actuator(&d, ch) != 0))
			return -1;
	return 0;
}

static int keyframe_section(struct compiler *c, xmlNodePtr el)
{
	struct mdrive_ctx d;
	return drive_ctx(c, -1, &d) != 0 ? -1 : mdrive_keyframe(&d, el);
}

/* ---- the whole ---- */

/* Each section of the root, in document order with the includes spliced in. */
static int sections(
    struct compiler *c, const char *name, int (*each)(struct compiler *, xmlNodePtr))
{
	struct mjcf_iter it = {.depth = -1};
	xmlNodePtr el;

	while ((el = mjcf_next(c->doc, c->doc->root, &it)))
		if (mjcf_is(el, name) && each(c, el) != 0)
			return -1;
	return 0;
}

static int option_section(struct compiler *c, xmlNodePtr el)
{
	return mopt_read(c->doc, c->m, el, c->err);
}

static int top_default(struct compiler *c, xmlNodePtr el)
{
	return add_classes(c, el, -1);
}

static int world_geoms(struct compiler *c, xmlNodePtr el)
{
	return body_geoms(c, el, 0, 0);
}

static int world_children(struct compiler *c, xmlNodePtr el)
{
	return body_children(c, el, 0, 0);
}

static int contact_section(struct compiler *c, xmlNodePtr el)
{
	struct mjcf_iter it = {.depth = -1};
	xmlNodePtr ch;

	while ((ch = mjcf_next(c->doc, el, &it))) {
		if (mjcf_is(ch, "pair") && add_pair(c, ch) != 0)
			return -1;
		if (mjcf_is(ch, "exclude") && add_exclude(c, ch) != 0)
			return -1;
	}
	return 0;
}

int mdl_compile(const struct mjcf_doc *doc, int mujoco, struct mdl_model *m, struct err *err)
{
	struct compiler c = {.doc = doc, .m = m, .inertia_from_geom = 2, .group_lo = 0,
	    .group_hi = 5, .eulerseq = "xyz", .err = err};
	int rc = -1, i, world_geomnum;

	memset(m, 0, sizeof *m);
	m->mujoco = mujoco;
	mopt_default(m);
	m->angle_degree = 1;
	if (sections(&c, "compiler", read_compiler) != 0 ||
	    sections(&c, "option", option_section) != 0 || sections(&c, "default", top_default) != 0)
		goto done;
	if (c.nclass == 0) {
		/* MuJoCo's class "main" exists without a <default> element */
		c.classes = calloc(1, sizeof *c.classes);
		if (!c.classes || !(c.classes[0].name = strdup("main"))) {
			err_set(err, ERR_INTERNAL, "", "out of memory");
			goto done;
		}
		c.classes[0].parent = -1;
		c.nclass = 1;
	}
	if (new_body(&c, NULL, -1) != 0)
		goto done;
	/* the world's geoms are every <worldbody> section's, before any body's */
	if (sections(&c, "worldbody", world_geoms) != 0)
		goto done;
	world_geomnum = m->ngeom;
	if (sections(&c, "worldbody", world_children) != 0)
		goto done;
	m->bodies[0].geomadr = 0;
	m->bodies[0].geomnum = world_geomnum;
	m->bodies[0].mass = 0;
	if (sections(&c, "contact", contact_section) != 0)
		goto done;
	mframe_world(m);
	if (sections(&c, "actuator", actuator_section) != 0 ||
	    sections(&c, "keyframe", keyframe_section) != 0)
		goto done;
	/* a walk the budget stopped ended early: what was compiled is not the model */
	rc = core_budget_stopped() ? mjcf_stopped(err) : 0;
done:
	for (i = 0; i < c.nclass; i++) {
		free(c.classes[i].name);
		free(c.classes[i].geom);
		free(c.classes[i].pair);
	}
	free(c.classes);
	free(c.names[0]);
	free(c.names[1]);
	if (rc != 0)
		mdl_free(m);
	return rc;
}

void mdl_free(struct mdl_model *m)
{
	int i;
	for (i = 0; i < m->nbody; i++)
		free(m->bodies[i].name);
	for (i = 0; i < m->ngeom; i++)
		free(m->geoms[i].name);
	free(m->bodies);
	free(m->geoms);
	free(m->pairs);
	free(m->excludes);
	for (i = 0; i < m->njoint; i++)
		free(m->joints[i].name);
	for (i = 0; i < m->nu; i++)
		free(m->actuators[i].name);
	free(m->joints);
	free(m->actuators);
	free(m->key_ctrl);
	memset(m, 0, sizeof *m);
}
