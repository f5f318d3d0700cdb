/*
 * drive.c: joints, actuators and keyframes as MuJoCo's compiler reads them (drive.h):
 * xml_native_reader.cc's OneJoint and OneActuator (2.2.2, and mjs_setToPosition 3.x),
 * mjCActuator's limits.
 */
#include "model/drive.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mjver.h"
#include "model/notes.h"

/* p grown, with room for one more of n elements (model.c's doubling). NULL when out of
 * memory, p unchanged. */
static void *room(void *p, int n, size_t size)
{
	if (n > 0 && (n & (n - 1)) != 0)
		return p;
	return realloc(p, (size_t)(n ? 2 * n : 1) * size);
}

/* "file:line: <name>" of el, for notes */
static void where(xmlNodePtr el, char *out, size_t len)
{
	snprintf(out, len, "%s:%ld: <%s>",
	    el->doc && el->doc->URL ? (const char *)el->doc->URL : "?", xmlGetLineNo(el),
	    (const char *)el->name);
}

/* The element holding attribute attr for el of kind (an element name in a <default>):
 * el itself, else the nearest class of its chain whose <kind> default sets it (MuJoCo's
 * defaults: a class inherits its parent's, its own elements override them). NULL when
 * none: MuJoCo's built-in default. */
static xmlNodePtr attr_holder(
    const struct mdrive_ctx *c, xmlNodePtr el, const char *kind, const char *attr)
{
	int k;

	if (el && xmlHasProp(el, (const xmlChar *)attr))
		return el;
	for (k = 0; k < c->nchain; k++) {
		struct mjcf_iter it = {.depth = -1};
		xmlNodePtr ch, found = NULL;
		while ((ch = mjcf_next(c->doc, c->chain[k], &it)))
			if (mjcf_is(ch, kind) && xmlHasProp(ch, (const xmlChar *)attr))
				found = ch; /* the last one a class gives wins */
		if (found)
			return found;
	}
	return NULL;
}

/* Up to n reals of attribute attr, resolved through the classes (attr_holder()); out
 * keeps its values when none sets it. */
static int class_reals(const struct mdrive_ctx *c, xmlNodePtr el, const char *kind,
    const char *attr, double *out, int n, int exact)
{
	xmlNodePtr h = attr_holder(c, el, kind, attr);
	return h && mjcf_reals(h, attr, out, n, exact, c->err) < 0 ? -1 : 0;
}

/* A keyword attribute resolved through the classes; *out keeps its value when none sets
 * it. */
static int class_word(const struct mdrive_ctx *c, xmlNodePtr el, const char *kind, const char *attr,
    const char *const words[], int *out)
{
	xmlNodePtr h = attr_holder(c, el, kind, attr);
	return h && mjcf_word(h, attr, words, out, c->err) < 0 ? -1 : 0;
}

/* Whether attribute attr is set on el or its classes. */
static int class_has(const struct mdrive_ctx *c, xmlNodePtr el, const char *kind, const char *attr)
{
	return attr_holder(c, el, kind, attr) != NULL;
}

int mdrive_joint(struct mdrive_ctx *c, xmlNodePtr el, int body, int free_joint)
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
	} else if (class_word(c, el, "joint", "type", joint_types, &type) != 0 ||
	    class_reals(c, el, "joint", "axis", j.axis, 3, 1) != 0 ||
	    class_reals(c, el, "joint", "ref", &j.ref, 1, 1) != 0 ||
	    class_reals(c, el, "joint", "stiffness", &j.stiffness, 1, 1) != 0 ||
	    class_reals(c, el, "joint", "damping", &j.damping, 1, 1) != 0 ||
	    class_reals(c, el, "joint", "armature", &j.armature, 1, 1) != 0 ||
	    class_reals(c, el, "joint", "frictionloss", &j.frictionloss, 1, 1) != 0 ||
	    class_reals(c, el, "joint", "margin", &j.margin, 1, 1) != 0 ||
	    class_reals(c, el, "joint", "range", j.range, 2, 1) != 0 ||
	    class_word(c, el, "joint", "limited", limited, &lim) != 0)
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
	    (class_has(c, el, "joint", "solreffriction") ||
	        class_has(c, el, "joint", "solimpfriction"));
	j.qposadr = m->nq;
	m->nq += j.type == MDL_FREE ? 7 : j.type == MDL_BALL ? 4 : 1;
	name = mjcf_attr(el, "name");
	if (name) {
		j.name = strdup(name);
		xmlFree(name);
		if (!j.name)
			return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	grown = room(m->joints, m->njoint, sizeof *grown);
	if (!grown) {
		free(j.name);
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	m->joints = grown;
	m->joints[m->njoint++] = j;
	return 0;
}

/* The actuator kinds this layer reads, and MuJoCo's others (2.2.0-3.14.0). */
static const char *const read_kinds[] = {"general", "motor", "position", NULL};
static const char *const other_kinds[] = {"velocity", "intvelocity", "damper", "cylinder", "muscle",
    "adhesion", "plugin", "dcmotor", "pid", "orientation", NULL};

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
static int apply_actuator(struct mdrive_ctx *c, xmlNodePtr el, struct mdl_actuator *a)
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
		a->gear_other =
		    gear[1] != 0 || gear[2] != 0 || gear[3] != 0 || gear[4] != 0 || gear[5] != 0;
	}
	if (mjcf_is(el, "general")) {
		if ((n = mjcf_word(el, "gaintype", gains, &w, err)) < 0)
			return -1;
		if (n > 0)
			a->gaintype = w == 0 ? MDL_GAIN_FIXED : MDL_GAIN_OTHER;
		if ((n = mjcf_word(el, "biastype", biases, &w, err)) < 0)
			return -1;
		if (n > 0)
			a->biastype = w == 0 ? MDL_BIAS_NONE
			    : w == 1         ? MDL_BIAS_AFFINE
			                     : MDL_BIAS_OTHER;
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
				mnote_addf(c->m,
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
static int actuator_joint(struct mdrive_ctx *c, xmlNodePtr el, int *joint, char *other, size_t len)
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

int mdrive_actuator(struct mdrive_ctx *c, xmlNodePtr el)
{
	struct mdl_model *m = c->m;
	struct mdl_actuator a, *grown;
	int depth = c->nchain, lim[2];
	char at[200], other[32];
	char *name;

	memset(&a, 0, sizeof a);
	a.el = el;
	a.gear = 1;
	a.gainprm[0] = 1; /* mjCActuator's constructor: a unit fixed gain, no bias */
	a.ctrllimited = a.forcelimited = 2;
	a.kind = (const char *)el->name;
	where(el, at, sizeof at);
	a.read = is_kind(el, read_kinds);
	/* the class's actuator defaults, from the root class down, each in document order */
	while (a.read && depth-- > 0) {
		struct mjcf_iter it = {.depth = -1};
		xmlNodePtr ch;
		xmlNodePtr def = c->chain[depth];
		while ((ch = mjcf_next(c->doc, def, &it))) {
			if (is_kind(ch, other_kinds)) {
				char *cls = mjcf_attr(def, "class");
				a.read = 0;
				snprintf(a.unread, sizeof a.unread,
				    "its class \"%s\" sets <%s> defaults, which are not read",
				    cls ? cls : "main", (const char *)ch->name);
				xmlFree(cls);
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
			mnote_addf(m,
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
		mnote_addf(m, "%s%s%s%s: not read: %s; its force is in no answer", at,
		    a.name ? " \"" : "", a.name ? a.name : "", a.name ? "\"" : "", a.unread);
	grown = room(m->actuators, m->nu, sizeof *grown);
	if (!grown) {
		free(a.name);
		return err_set(c->err, ERR_INTERNAL, "", "out of memory");
	}
	m->actuators = grown;
	m->actuators[m->nu++] = a;
	return 0;
}

int mdrive_is_actuator(xmlNodePtr el)
{
	return is_kind(el, read_kinds) || is_kind(el, other_kinds);
}

int mdrive_keyframe(struct mdrive_ctx *c, xmlNodePtr el)
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
					if (fabs(qpos[jt->qposadr + k] - q0[k]) >
					    1e-12 * (1 + fabs(q0[k])))
						m->key_qpos_differs = 1;
			}
		}
		free(qpos);
	}
	return 0;
}
