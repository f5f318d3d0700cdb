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
#include "model/knobs.h"

static const char *const geom_types[] = {
    "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf", NULL};
static const char *const integrators[] = {
    "Euler", "implicit", "implicitfast", "RK4", "discrete", NULL};
static const char *const cones[] = {"pyramidal", "elliptic", NULL};
static const char *const able[] = {"disable", "enable", NULL};
static const char *const truth[] = {"false", "true", NULL};
static const char *const collisions[] = {"all", "predefined", "dynamic", NULL};
static const char *const solvers[] = {"PGS", "CG", "Newton", NULL};

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
	return (unsigned)i < 5 ? integrators[i] : "unknown";
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

/* one line per kind: a note already made (a second sdf geom) is not repeated */
static void note(struct mdl_model *m, const char *text)
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

/* note() with a format: an element's own line ("scene.xml:31: <velocity> ...") */
static void notef(struct mdl_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notef(struct mdl_model *m, const char *fmt, ...)
{
	char text[sizeof m->notes[0]];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	note(m, text);
}

/* "file:line: <name>" of el, for notes */
static void where(xmlNodePtr el, char *out, size_t len)
{
	snprintf(out, len, "%s:%ld: <%s>",
	    el->doc && el->doc->URL ? (const char *)el->doc->URL : "?", xmlGetLineNo(el),
	    (const char *)el->name);
}

/* ---- option and compiler ---- */

static void option_default(struct mdl_option *o)
{
	memset(o, 0, sizeof *o);
	o->timestep = DEFAULT_TIMESTEP;
	o->integrator = CORE_SCENE_EULER;
	o->cone = CORE_CONE_PYRAMIDAL;
	o->impratio = DEFAULT_IMPRATIO;
	o->gravity[2] = -DEFAULT_GRAVITY;
	o->refsafe = o->filterparent = o->contact = o->constraint = o->gravity_on = 1;
	o->o_margin = 0;
	o->o_solref[0] = DEFAULT_TIMECONST;
	o->o_solref[1] = DEFAULT_DAMPRATIO;
	o->o_solimp[0] = DEFAULT_SOLIMP_D0;
	o->o_solimp[1] = DEFAULT_SOLIMP_DWIDTH;
	o->o_solimp[2] = DEFAULT_SOLIMP_WIDTH;
	o->o_solimp[3] = DEFAULT_SOLIMP_MIDPOINT;
	o->o_solimp[4] = DEFAULT_SOLIMP_POWER;
}

static int read_flag(xmlNodePtr el, const char *name, int *out, struct err *err)
{
	int v;
	int rc = mjcf_word(el, name, able, &v, err);
	if (rc > 0)
		*out = v;
	return rc < 0 ? -1 : 0;
}

static int read_option(struct compiler *c, xmlNodePtr el)
{
	struct mdl_option *o = &c->m->option;
	struct err *err = c->err;
	struct mjcf_iter it = {.depth = -1};
	xmlNodePtr f;
	int v, rc;

	if (mjcf_reals(el, "timestep", &o->timestep, 1, 1, err) < 0 ||
	    mjcf_reals(el, "impratio", &o->impratio, 1, 1, err) < 0 ||
	    mjcf_reals(el, "gravity", o->gravity, 3, 1, err) < 0 ||
	    mjcf_reals(el, "o_margin", &o->o_margin, 1, 1, err) < 0 ||
	    mjcf_reals(el, "o_solref", o->o_solref, 2, 0, err) < 0 ||
	    mjcf_reals(el, "o_solimp", o->o_solimp, 5, 0, err) < 0 ||
	    mjcf_int(el, "noslip_iterations", &o->noslip_iterations, err) < 0)
		return -1;
	if (!(o->timestep > 0))
		return mjcf_fail(el, err, "timestep must be positive");
	if (!(o->impratio > 0))
		return mjcf_fail(el, err, "impratio must be positive");
	rc = mjcf_word(el, "integrator", integrators, &v, err);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		o->integrator = (enum core_scene_integrator)v;
		if (o->integrator == CORE_SCENE_IMPLICITFAST &&
		    c->m->mujoco < core_mjver_find("2.3.3"))
			note(c->m,
			    "integrator implicitfast is MuJoCo 2.3.3+; this release refuses it "
			    "(its "
			    "contact rules are implicit's and Euler's)");
		if (o->integrator == CORE_SCENE_DISCRETE && c->m->mujoco < core_mjver_find("3.13.0"))
			return mjcf_fail(el, err,
			    "integrator \"discrete\" is MuJoCo 3.13.0+; MuJoCo %s refuses it",
			    core_mjver_name(c->m->mujoco));
	}
	rc = mjcf_word(el, "cone", cones, &v, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		o->cone = (enum core_cone)v;
	rc = mjcf_word(el, "solver", solvers, &v, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		c->m->solver_newton = v == 2;
	rc = mjcf_word(el, "collision", collisions, &v, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		o->collision = v;
	while ((f = mjcf_next(c->doc, el, &it))) {
		if (!mjcf_is(f, "flag"))
			continue;
		if (read_flag(f, "refsafe", &o->refsafe, err) ||
		    read_flag(f, "filterparent", &o->filterparent, err) ||
		    read_flag(f, "contact", &o->contact, err) ||
		    read_flag(f, "constraint", &o->constraint, err) ||
		    read_flag(f, "gravity", &o->gravity_on, err) ||
		    read_flag(f, "override", &o->override, err) ||
		    read_flag(f, "actuation", &c->m->flag_actuation, err) ||
		    read_flag(f, "clampctrl", &c->m->flag_clampctrl, err) ||
		    read_flag(f, "frictionloss", &c->m->flag_frictionloss, err) ||
		    read_flag(f, "damper", &c->m->flag_damper, err) ||
		    read_flag(f, "passive", &c->m->flag_damper, err) ||
		    read_flag(f, "eulerdamp", &c->m->flag_eulerdamp, err))
			return -1;
	}
	return 0;
}

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
			note(c->m,
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

/* Whether an orientation attribute of el leaves the frame as it is. */
static int orientation_identity(xmlNodePtr el, int *identity, struct err *err)
{
	double v[6];
	int n;

	*identity = 1;
	if ((n = mjcf_reals(el, "quat", v, 4, 1, err)) < 0)
		return -1;
	if (n > 0 && !(v[0] > 0 && v[1] == 0 && v[2] == 0 && v[3] == 0))
		*identity = 0;
	if ((n = mjcf_reals(el, "euler", v, 3, 1, err)) < 0)
		return -1;
	if (n > 0 && (v[0] != 0 || v[1] != 0 || v[2] != 0))
		*identity = 0;
	if ((n = mjcf_reals(el, "axisangle", v, 4, 1, err)) < 0)
		return -1;
	if (n > 0 && v[3] != 0)
		*identity = 0;
	if ((n = mjcf_reals(el, "zaxis", v, 3, 1, err)) < 0)
		return -1;
	if (n > 0 && !(v[0] == 0 && v[1] == 0 && v[2] > 0))
		*identity = 0;
	if ((n = mjcf_reals(el, "xyaxes", v, 6, 1, err)) < 0)
		return -1;
	if (n > 0 && !(v[0] > 0 && v[1] == 0 && v[2] == 0 && v[3] == 0 && v[4] > 0 && v[5] == 0))
		*identity = 0;
	return 0;
}

/* ---- frames: MuJoCo's orientation attributes as quaternions (user_util.cc) ---- */

static void quat_mul(const double a[4], const double b[4], double out[4])
{
	double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
	    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
	    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
	    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
	memcpy(out, r, sizeof r);
}

static void quat_normalize(double q[4])
{
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	int i;
	if (n < 1e-15) {
		q[0] = 1;
		q[1] = q[2] = q[3] = 0;
		return;
	}
	for (i = 0; i < 4; i++)
		q[i] /= n;
}

void mdl_quat_mat(const double q[4], double mat[9])
{
	double w = q[0], x = q[1], y = q[2], z = q[3];
	mat[0] = w * w + x * x - y * y - z * z;
	mat[1] = 2 * (x * y - w * z);
	mat[2] = 2 * (x * z + w * y);
	mat[3] = 2 * (x * y + w * z);
	mat[4] = w * w - x * x + y * y - z * z;
	mat[5] = 2 * (y * z - w * x);
	mat[6] = 2 * (x * z - w * y);
	mat[7] = 2 * (y * z + w * x);
	mat[8] = w * w - x * x - y * y + z * z;
}

/* The rotation of frame axes x, y, z (the columns of a rotation matrix) as a quaternion. */
static void frame_quat(const double x[3], const double y[3], const double z[3], double q[4])
{
	double m[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
	double t = m[0] + m[4] + m[8];
	if (t > 0) {
		double s = 0.5 / sqrt(t + 1);
		q[0] = 0.25 / s;
		q[1] = (m[7] - m[5]) * s;
		q[2] = (m[2] - m[6]) * s;
		q[3] = (m[3] - m[1]) * s;
	} else if (m[0] > m[4] && m[0] > m[8]) {
		double s = 2 * sqrt(1 + m[0] - m[4] - m[8]);
		q[0] = (m[7] - m[5]) / s;
		q[1] = 0.25 * s;
		q[2] = (m[1] + m[3]) / s;
		q[3] = (m[2] + m[6]) / s;
	} else if (m[4] > m[8]) {
		double s = 2 * sqrt(1 + m[4] - m[0] - m[8]);
		q[0] = (m[2] - m[6]) / s;
		q[1] = (m[1] + m[3]) / s;
		q[2] = 0.25 * s;
		q[3] = (m[5] + m[7]) / s;
	} else {
		double s = 2 * sqrt(1 + m[8] - m[0] - m[4]);
		q[0] = (m[3] - m[1]) / s;
		q[1] = (m[2] + m[6]) / s;
		q[2] = (m[5] + m[7]) / s;
		q[3] = 0.25 * s;
	}
	quat_normalize(q);
}

/* The rotation taking (0, 0, 1) to the direction v (mjuu_z2quat). */
static void z_to(const double v[3], double q[4])
{
	double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	double d[3] = {v[0] / n, v[1] / n, v[2] / n};
	double axis[3] = {-d[1], d[0], 0}, s = sqrt(axis[0] * axis[0] + axis[1] * axis[1]);
	double a;

	if (s < 1e-10) {
		/* along z: identity, or a half turn about x */
		q[0] = d[2] < 0 ? 0 : 1;
		q[1] = d[2] < 0 ? 1 : 0;
		q[2] = q[3] = 0;
		return;
	}
	a = acos(fmax(-1, fmin(1, d[2])));
	q[0] = cos(a / 2);
	q[1] = sin(a / 2) * axis[0] / s;
	q[2] = sin(a / 2) * axis[1] / s;
	q[3] = 0;
}

/* The orientation el's attributes give (quat, axisangle, euler, xyaxes, zaxis; the
 * identity when none), as the compiler's angle and eulerseq read them. */
static int orientation_quat(const struct compiler *c, xmlNodePtr el, double q[4], struct err *err)
{
	double v[6], unit = c->m->angle_degree ? M_PI / 180 : 1;
	int n, i;

	q[0] = 1;
	q[1] = q[2] = q[3] = 0;
	if ((n = mjcf_reals(el, "quat", v, 4, 1, err)) < 0)
		return -1;
	if (n > 0) {
		memcpy(q, v, 4 * sizeof *v);
		quat_normalize(q);
		return 0;
	}
	if ((n = mjcf_reals(el, "axisangle", v, 4, 1, err)) < 0)
		return -1;
	if (n > 0) {
		double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), a = v[3] * unit;
		if (len < 1e-15)
			return mjcf_fail(el, err, "axisangle's axis is zero");
		q[0] = cos(a / 2);
		for (i = 0; i < 3; i++)
			q[i + 1] = sin(a / 2) * v[i] / len;
		return 0;
	}
	if ((n = mjcf_reals(el, "euler", v, 3, 1, err)) < 0)
		return -1;
	if (n > 0) {
		for (i = 0; i < 3; i++) {
			char ax = c->eulerseq[i];
			double a = v[i] * unit, t[4] = {cos(a / 2), 0, 0, 0};
			t[1 + (ax == 'x' || ax == 'X' ? 0 : ax == 'y' || ax == 'Y' ? 1 : 2)] = sin(a / 2);
			if (ax >= 'a')
				quat_mul(q, t, q); /* intrinsic: about the rotated axis */
			else
				quat_mul(t, q, q);
		}
		quat_normalize(q);
		return 0;
	}
	if ((n = mjcf_reals(el, "xyaxes", v, 6, 1, err)) < 0)
		return -1;
	if (n > 0) {
		double *x = v, *y = v + 3, z[3], d, nx, ny;
		nx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
		for (i = 0; i < 3; i++)
			x[i] /= nx;
		d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
		for (i = 0; i < 3; i++)
			y[i] -= d * x[i];
		ny = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
		if (!(nx > 1e-15) || !(ny > 1e-15))
			return mjcf_fail(el, err, "xyaxes are degenerate");
		for (i = 0; i < 3; i++)
			y[i] /= ny;
		z[0] = x[1] * y[2] - x[2] * y[1];
		z[1] = x[2] * y[0] - x[0] * y[2];
		z[2] = x[0] * y[1] - x[1] * y[0];
		frame_quat(x, y, z, q);
		return 0;
	}
	if ((n = mjcf_reals(el, "zaxis", v, 3, 1, err)) < 0)
		return -1;
	if (n > 0) {
		if (!(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > 1e-30))
			return mjcf_fail(el, err, "zaxis is zero");
		z_to(v, q);
	}
	return 0;
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
	if (orientation_identity(el, &identity, err) != 0)
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
	if (orientation_quat(c, el, g->quat, err) != 0)
		return -1;
	if (g->condim != 1 && g->condim != 3 && g->condim != 4 && g->condim != 6)
		return mjcf_fail(el, err, "condim must be 1, 3, 4 or 6, not %d", g->condim);
	if (g->type == MDL_SDF || g->type == MDL_MESH || g->type == MDL_HFIELD || gi.has_mesh) {
		/* a shape from a file: its contact fields are known, its size and mass are not */
		g->answerable = 0;
		if (g->type == MDL_SDF && m->mujoco < core_mjver_find("3.0.0"))
			note(m, "sdf geoms are MuJoCo 3.x's; this release refuses them");
		else if (g->type == MDL_SDF)
			note(m,
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
			z_to(to, g->quat);
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

/* The element holding attribute attr for el of kind (an element name in a <default>):
 * el itself, else the nearest class from klass up whose <kind> default sets it (MuJoCo's
 * defaults: a class inherits its parent's, its own elements override them). NULL when
 * none: MuJoCo's built-in default. */
static xmlNodePtr attr_holder(
    const struct compiler *c, xmlNodePtr el, int klass, const char *kind, const char *attr)
{
	int k;

	if (el && xmlHasProp(el, (const xmlChar *)attr))
		return el;
	for (k = klass; k >= 0; k = c->classes[k].parent) {
		struct mjcf_iter it = {.depth = -1};
		xmlNodePtr ch, found = NULL;
		while (c->classes[k].el && (ch = mjcf_next(c->doc, c->classes[k].el, &it)))
			if (mjcf_is(ch, kind) && xmlHasProp(ch, (const xmlChar *)attr))
				found = ch; /* the last one a class gives wins */
		if (found)
			return found;
	}
	return NULL;
}

/* Up to n reals of attribute attr, resolved through the classes (attr_holder()); out
 * keeps its values when none sets it. */
static int class_reals(const struct compiler *c, xmlNodePtr el, int klass, const char *kind,
    const char *attr, double *out, int n, int exact)
{
	xmlNodePtr h = attr_holder(c, el, klass, kind, attr);
	return h && mjcf_reals(h, attr, out, n, exact, c->err) < 0 ? -1 : 0;
}

/* A keyword attribute resolved through the classes; *out keeps its value when none sets
 * it. */
static int class_word(const struct compiler *c, xmlNodePtr el, int klass, const char *kind,
    const char *attr, const char *const words[], int *out)
{
	xmlNodePtr h = attr_holder(c, el, klass, kind, attr);
	return h && mjcf_word(h, attr, words, out, c->err) < 0 ? -1 : 0;
}

/* Whether attribute attr is set on el or its classes. */
static int class_has(
    const struct compiler *c, xmlNodePtr el, int klass, const char *kind, const char *attr)
{
	return attr_holder(c, el, klass, kind, attr) != NULL;
}

static int add_joint(struct compiler *c, xmlNodePtr el, int body, int klass, int free_joint)
{
	static const char *const joint_types[] = {"free", "ball", "slide", "hinge", NULL};
	static const char *const limited[] = {"false", "true", "auto", NULL};
	struct mdl_model *m = c->m;
	struct mdl_joint j, *grown;
	double len;
	int type = MDL_HINGE, lim = 2;
	char *name;

	memset(&j, 0, sizeof j);
	j.body = body;
	j.el = el;
	j.axis[2] = 1;
	if (free_joint) {
		type = MDL_FREE;
	} else if (element_class(c, el, klass, &klass) != 0 ||
	    class_word(c, el, klass, "joint", "type", joint_types, &type) != 0 ||
	    class_reals(c, el, klass, "joint", "axis", j.axis, 3, 1) != 0 ||
	    class_reals(c, el, klass, "joint", "ref", &j.ref, 1, 1) != 0 ||
	    class_reals(c, el, klass, "joint", "stiffness", &j.stiffness, 1, 1) != 0 ||
	    class_reals(c, el, klass, "joint", "damping", &j.damping, 1, 1) != 0 ||
	    class_reals(c, el, klass, "joint", "armature", &j.armature, 1, 1) != 0 ||
	    class_reals(c, el, klass, "joint", "frictionloss", &j.frictionloss, 1, 1) != 0 ||
	    class_reals(c, el, klass, "joint", "margin", &j.margin, 1, 1) != 0 ||
	    class_reals(c, el, klass, "joint", "range", j.range, 2, 1) != 0 ||
	    class_word(c, el, klass, "joint", "limited", limited, &lim) != 0)
		return -1;
	j.type = (enum mdl_joint_type)type;
	len = sqrt(j.axis[0] * j.axis[0] + j.axis[1] * j.axis[1] + j.axis[2] * j.axis[2]);
	if (j.type != MDL_FREE && j.type != MDL_BALL && !(len > 1e-15))
		return mjcf_fail(el, c->err, "axis is zero");
	if (len > 1e-15)
		for (int i = 0; i < 3; i++)
			j.axis[i] /= len;
	/* auto: limited when a range is given, under autolimits (MuJoCo 3.0.0+'s default;
	 * before it the release refuses a range without limited) */
	j.limited = lim == 1 || (lim == 2 && (j.range[0] != 0 || j.range[1] != 0));
	j.friction_params = !free_joint &&
	    (class_has(c, el, klass, "joint", "solreffriction") ||
	        class_has(c, el, klass, "joint", "solimpfriction"));
	j.qposadr = m->nq;
	m->nq += j.type == MDL_FREE ? 7 : j.type == MDL_BALL ? 4 : 1;
	name = mjcf_attr(el, "name");
	if (name) {
		j.name = strdup(name);
		xmlFree(name);
		if (!j.name)
			return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	grown = room_for_one_more(m->joints, m->njoint, sizeof *grown);
	if (!grown) {
		free(j.name);
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	m->joints = grown;
	m->joints[m->njoint++] = j;
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
	    orientation_identity(el, &identity, err) || orientation_quat(c, el, b->quat, err))
		return -1;
	b->rotated = !identity;
	b->jntadr = c->m->njoint;
	while ((ch = mjcf_next(c->doc, el, &it))) {
		if (refuse_generators(ch, err) != 0)
			return -1;
		if (mjcf_is(ch, "freejoint") || mjcf_is(ch, "joint")) {
			if (add_joint(c, ch, id, klass, mjcf_is(ch, "freejoint")) != 0)
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
			    orientation_identity(ch, &identity, err))
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
		note(m,
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

/* ---- frames at qpos0 ---- */

static void world_frames(struct mdl_model *m)
{
	int b, i;

	for (b = 1; b < m->nbody; b++) {
		struct mdl_body *body = &m->bodies[b];
		const struct mdl_body *p = &m->bodies[body->parent];
		double r[9];

		mdl_quat_mat(p->xquat, r);
		for (i = 0; i < 3; i++)
			body->xpos[i] = p->xpos[i] + r[3 * i] * body->pos[0] +
			    r[3 * i + 1] * body->pos[1] + r[3 * i + 2] * body->pos[2];
		quat_mul(p->xquat, body->quat, body->xquat);
		quat_normalize(body->xquat);
	}
}

/* ---- actuators and keyframes ---- */

/* The actuator kinds this layer reads, and MuJoCo's others (2.2.0-3.14.0). */
static const char *const read_kinds[] = {"general", "motor", "position", NULL};
static const char *const other_kinds[] = {"velocity", "intvelocity", "damper", "cylinder",
    "muscle", "adhesion", "plugin", "dcmotor", "pid", "orientation", NULL};

static int is_kind(xmlNodePtr el, const char *const kinds[])
{
	int i;
	for (i = 0; kinds[i]; i++)
		if (mjcf_is(el, kinds[i]))
			return 1;
	return 0;
}

/* Apply one actuator element (a default's or the actuator's own) of a kind this layer
 * reads to *a, as MuJoCo's reader does (OneActuator: the attributes every kind has, then
 * the kind's own; xml_native_reader.cc 2.2.2, mjs_setToPosition 3.x). */
static int apply_actuator(struct compiler *c, xmlNodePtr el, struct mdl_actuator *a)
{
	static const char *const limited[] = {"false", "true", "auto", NULL};
	static const char *const gains[] = {"fixed", "affine", "muscle", "user", NULL};
	static const char *const biases[] = {"none", "affine", "muscle", "user", NULL};
	static const char *const dyns[] = {
	    "none", "integrator", "filter", "filterexact", "muscle", "user", NULL};
	struct err *err = c->err;
	double gear[6] = {a->gear, 0, 0, 0, 0, 0}, v;
	int n, w;

	if (mjcf_word(el, "ctrllimited", limited, &a->ctrllimited, err) < 0 ||
	    mjcf_word(el, "forcelimited", limited, &a->forcelimited, err) < 0 ||
	    mjcf_reals(el, "ctrlrange", a->ctrlrange, 2, 1, err) < 0 ||
	    mjcf_reals(el, "forcerange", a->forcerange, 2, 1, err) < 0 ||
	    (n = mjcf_reals(el, "gear", gear, 6, 0, err)) < 0)
		return -1;
	if (n > 0) {
		a->gear = gear[0];
		a->gear_other = gear[1] != 0 || gear[2] != 0 || gear[3] != 0 || gear[4] != 0 ||
		    gear[5] != 0;
	}
	if (mjcf_is(el, "general")) {
		if ((n = mjcf_word(el, "gaintype", gains, &w, err)) < 0)
			return -1;
		if (n > 0)
			a->gaintype = w == 0 ? MDL_GAIN_FIXED : MDL_GAIN_OTHER;
		if ((n = mjcf_word(el, "biastype", biases, &w, err)) < 0)
			return -1;
		if (n > 0)
			a->biastype = w == 0 ? MDL_BIAS_NONE : w == 1 ? MDL_BIAS_AFFINE : MDL_BIAS_OTHER;
		if ((n = mjcf_word(el, "dyntype", dyns, &w, err)) < 0)
			return -1;
		if (n > 0)
			a->dynamic = w != 0;
		if (mjcf_reals(el, "gainprm", a->gainprm, 3, 0, err) < 0 ||
		    mjcf_reals(el, "biasprm", a->biasprm, 3, 0, err) < 0)
			return -1;
	} else if (mjcf_is(el, "motor")) {
		a->gainprm[0] = 1;
		a->gaintype = MDL_GAIN_FIXED;
		a->biastype = MDL_BIAS_NONE;
		a->dynamic = 0;
	} else if (mjcf_is(el, "position")) {
		int modern = c->m->mujoco >= core_mjver_find("3.1.0");
		char at[200];

		if (mjcf_reals(el, "kp", &a->gainprm[0], 1, 1, err) < 0)
			return -1;
		if (!modern) /* 2.x and 3.0.x clear the bias: kv is 3.1.0's */
			a->biasprm[0] = a->biasprm[2] = 0;
		a->biasprm[1] = -a->gainprm[0];
		if ((n = mjcf_reals(el, "kv", &v, 1, 1, err)) < 0)
			return -1;
		where(el, at, sizeof at);
		if (n > 0 && !(v >= 0))
			return mjcf_fail(el, err, "kv cannot be negative");
		if (n > 0) {
			a->biasprm[2] = -v;
			if (!modern)
				notef(c->m,
				    "%s: kv is MuJoCo 3.1.0+'s; MuJoCo %s refuses it (read as "
				    "written)",
				    at, core_mjver_name(c->m->mujoco));
		}
		if (xmlHasProp(el, (const xmlChar *)"dampratio"))
			a->dampratio = 1;
		if ((n = mjcf_reals(el, "timeconst", &v, 1, 1, err)) < 0)
			return -1;
		if (n > 0)
			a->dynamic = v > 0;
		else if (!modern)
			a->dynamic = 0;
		a->gaintype = MDL_GAIN_FIXED;
		a->biastype = MDL_BIAS_AFFINE;
	}
	return 0;
}

/* The transmission el names: a joint's id into *joint (-1 for a tendon, site, body or
 * slider-crank), 0; -1 with err when the joint named is not in the model. */
static int actuator_joint(struct compiler *c, xmlNodePtr el, int *joint, char *other, size_t len)
{
	static const char *const others[] = {
	    "jointinparent", "tendon", "site", "body", "cranksite", NULL};
	char *name = mjcf_attr(el, "joint");
	int i;

	*joint = -1;
	*other = '\0';
	if (!name) {
		for (i = 0; others[i]; i++)
			if (xmlHasProp(el, (const xmlChar *)others[i])) {
				snprintf(other, len, "%s", others[i]);
				return 0;
			}
		snprintf(other, len, "no transmission");
		return 0;
	}
	for (i = 0; i < c->m->njoint; i++)
		if (c->m->joints[i].name && strcmp(c->m->joints[i].name, name) == 0)
			*joint = i;
	if (*joint < 0) {
		int rc = mjcf_fail(el, c->err, "joint \"%s\" names no joint", name);
		xmlFree(name);
		return rc;
	}
	xmlFree(name);
	return 0;
}

static int add_actuator(struct compiler *c, xmlNodePtr el)
{
	struct mdl_model *m = c->m;
	struct mdl_actuator a, *grown;
	int chain[64], depth = 0, klass, k, lim[2];
	char at[200], other[32];
	char *name;

	memset(&a, 0, sizeof a);
	a.el = el;
	a.gear = 1;
	a.gainprm[0] = 1; /* mjCActuator's constructor: a unit fixed gain, no bias */
	a.ctrllimited = a.forcelimited = 2;
	a.kind = (const char *)el->name;
	where(el, at, sizeof at);
	if (element_class(c, el, 0, &klass) != 0)
		return -1;
	for (k = klass; k >= 0 && depth < 64; k = c->classes[k].parent)
		chain[depth++] = k;
	a.read = is_kind(el, read_kinds);
	/* the class's actuator defaults, from the root class down, each in document order */
	while (a.read && depth-- > 0) {
		struct mjcf_iter it = {.depth = -1};
		xmlNodePtr ch;
		k = chain[depth];
		while (c->classes[k].el && (ch = mjcf_next(c->doc, c->classes[k].el, &it))) {
			if (is_kind(ch, other_kinds)) {
				a.read = 0;
				snprintf(a.unread, sizeof a.unread,
				    "its class \"%s\" sets <%s> defaults, which are not read",
				    c->classes[k].name, (const char *)ch->name);
			} else if (is_kind(ch, read_kinds) && apply_actuator(c, ch, &a) != 0) {
				return -1;
			}
		}
	}
	if (is_kind(el, read_kinds) && apply_actuator(c, el, &a) != 0)
		return -1;
	if (actuator_joint(c, el, &a.joint, other, sizeof other) != 0)
		return -1;
	if (!is_kind(el, read_kinds))
		snprintf(a.unread, sizeof a.unread, "a %s actuator is not read", a.kind);
	else if (a.joint < 0 && a.read) {
		a.read = 0;
		snprintf(a.unread, sizeof a.unread, "its transmission (%s) is not a joint", other);
	}
	/* auto limits: limited when a range is given (autolimits, MuJoCo 3.0.0+'s default) */
	lim[0] = a.ctrlrange[0] != 0 || a.ctrlrange[1] != 0;
	lim[1] = a.forcerange[0] != 0 || a.forcerange[1] != 0;
	if ((a.ctrllimited == 2 && lim[0]) || (a.forcelimited == 2 && lim[1])) {
		if (!c->m->autolimits && c->m->mujoco < core_mjver_find("3.0.0"))
			notef(m,
			    "%s: a range without ctrllimited or forcelimited is refused by MuJoCo "
			    "%s unless compiler autolimits=\"true\" (read as limited)",
			    at, core_mjver_name(m->mujoco));
	}
	if (a.ctrllimited == 2)
		a.ctrllimited = lim[0];
	if (a.forcelimited == 2)
		a.forcelimited = lim[1];
	if (a.ctrllimited && !(a.ctrlrange[0] < a.ctrlrange[1]))
		return mjcf_fail(el, c->err, "invalid control range");
	if (a.forcelimited && !(a.forcerange[0] < a.forcerange[1]))
		return mjcf_fail(el, c->err, "invalid force range");
	name = mjcf_attr(el, "name");
	if (name) {
		a.name = strdup(name);
		xmlFree(name);
		if (!a.name)
			return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	if (!a.read)
		notef(m, "%s%s%s%s: not read: %s; its force is in no answer", at,
		    a.name ? " \"" : "", a.name ? a.name : "", a.name ? "\"" : "", a.unread);
	grown = room_for_one_more(m->actuators, m->nu, sizeof *grown);
	if (!grown) {
		free(a.name);
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	m->actuators = grown;
	m->actuators[m->nu++] = a;
	return 0;
}

static int actuator_section(struct compiler *c, xmlNodePtr el)
{
	struct mjcf_iter it = {.depth = -1};
	xmlNodePtr ch;

	while ((ch = mjcf_next(c->doc, el, &it)))
		if ((is_kind(ch, read_kinds) || is_kind(ch, other_kinds)) && add_actuator(c, ch) != 0)
			return -1;
	return 0;
}

/* The first <key> giving ctrl: what a grasp's actuators are asked (mj_resetData's ctrl is
 * 0); whether its qpos (when given) is qpos0 at every joint. */
static int keyframe_section(struct compiler *c, xmlNodePtr el)
{
	struct mjcf_iter it = {.depth = -1};
	struct mdl_model *m = c->m;
	xmlNodePtr ch;

	while (!m->key && (ch = mjcf_next(c->doc, el, &it))) {
		int n, nq = m->nq > 0 ? m->nq : 1;
		double *qpos;

		if (!mjcf_is(ch, "key") || !xmlHasProp(ch, (const xmlChar *)"ctrl"))
			continue;
		m->key_ctrl = calloc((size_t)(m->nu > 0 ? m->nu : 1), sizeof *m->key_ctrl);
		qpos = calloc((size_t)nq, sizeof *qpos);
		if (!m->key_ctrl || !qpos) {
			free(qpos);
			return err_set(c->err, ERR_INTERNAL, "", "out of memory");
		}
		if (m->nu == 0 || (n = mjcf_reals(ch, "ctrl", m->key_ctrl, m->nu, 1, c->err)) < 0) {
			free(qpos);
			return m->nu == 0 ? mjcf_fail(ch, c->err, "ctrl given, but no actuator")
			                  : -1;
		}
		m->nkey_ctrl = n;
		m->key = ch;
		if ((n = mjcf_reals(ch, "qpos", qpos, m->nq, 1, c->err)) < 0) {
			free(qpos);
			return -1;
		}
		if (n > 0) {
			int j, k;
			m->key_qpos = 1;
			for (j = 0; j < m->njoint; j++) {
				const struct mdl_joint *jt = &m->joints[j];
				const struct mdl_body *b = &m->bodies[jt->body];
				double q0[7] = {jt->ref};
				int len = jt->type == MDL_FREE ? 7 : jt->type == MDL_BALL ? 4 : 1;
				if (jt->type == MDL_FREE) {
					memcpy(q0, b->pos, sizeof b->pos);
					memcpy(q0 + 3, b->quat, sizeof b->quat);
				} else if (jt->type == MDL_BALL) {
					q0[0] = 1;
				}
				for (k = 0; k < len; k++)
					if (fabs(qpos[jt->qposadr + k] - q0[k]) > 1e-12 * (1 + fabs(q0[k])))
						m->key_qpos_differs = 1;
			}
		}
		free(qpos);
	}
	return 0;
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
	option_default(&m->option);
	m->angle_degree = 1;
	m->flag_actuation = m->flag_clampctrl = m->flag_frictionloss = m->flag_damper = 1;
	m->flag_eulerdamp = m->solver_newton = 1;
	if (sections(&c, "compiler", read_compiler) != 0 ||
	    sections(&c, "option", read_option) != 0 || sections(&c, "default", top_default) != 0)
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
	world_frames(m);
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
