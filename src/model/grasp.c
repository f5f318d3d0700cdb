/*
 * grasp.c: recognising the hold question's scene in a compiled model (grasp.h).
 */
#include "model/grasp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "core/mjver.h"
#include "model/frame.h"
#include "model/knobs.h"

/* a number in its shortest form, for the messages */
#define N(x) JTEXT_NUM(x)

static void line(char (*lines)[MGRASP_LINE], int *n, const char *fmt, va_list ap)
{
	if (*n < MGRASP_LINES)
		vsnprintf(lines[(*n)++], MGRASP_LINE, fmt, ap);
}

/* A difference from the question (the question offered is the nearest). */
static void diff(struct mgrasp *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diff(struct mgrasp *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	line(g->diffs, &g->ndiff, fmt, ap);
	va_end(ap);
}

/* What the question took from where. */
static void told(struct mgrasp *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void told(struct mgrasp *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	line(g->notes, &g->nnotes, fmt, ap);
	va_end(ap);
}

/* No question: why. Returns 0 (the grasp is done). */
static int refuse(struct mgrasp *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(struct mgrasp *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->why, sizeof g->why, fmt, ap);
	va_end(ap);
	g->offered = 0;
	return 0;
}

static const char *body_name(const struct mdl_model *m, int b)
{
	return m->bodies[b].name ? m->bodies[b].name : "(unnamed)";
}

static const char *joint_name(const struct mdl_model *m, int j)
{
	return m->joints[j].name ? m->joints[j].name : "(unnamed)";
}

/* Whether a and b are equal within MODEL_GRASP_TOL of their size. */
static int near(double a, double b)
{
	return fabs(a - b) <= MODEL_GRASP_TOL * fmax(1e-3, fmax(fabs(a), fabs(b)));
}

/*
 * The world half-extents of an axis-aligned box (size s) under rotation r: 1 and ext
 * filled when r is a signed permutation (within MODEL_GRASP_TOL); *identity when it is
 * the identity.
 */
static int aligned(const double r[9], const double s[3], double ext[3], int *identity)
{
	int i, j;

	*identity = 1;
	for (i = 0; i < 3; i++) {
		int found = -1;
		for (j = 0; j < 3; j++) {
			double v = fabs(r[3 * i + j]);
			if (fabs(v - 1) <= MODEL_GRASP_TOL)
				found = j;
			else if (v > MODEL_GRASP_TOL)
				return 0;
		}
		if (found < 0)
			return 0;
		ext[i] = s[found];
		if (found != i || r[3 * i + i] < 0)
			*identity = 0;
	}
	return 1;
}

/* The rotation of geom gid in the world, at qpos0. */
static void geom_rotation(const struct mdl_model *m, int gid, double r[9])
{
	const struct mdl_geom *g = &m->geoms[gid];
	double q[4];

	mframe_mul(m->bodies[g->body].xquat, g->quat, q);
	mframe_mat(q, r);
}

/* The centre of geom gid in the world, at qpos0. */
static void geom_centre(const struct mdl_model *m, int gid, double c[3])
{
	const struct mdl_geom *g = &m->geoms[gid];
	const struct mdl_body *b = &m->bodies[g->body];
	double r[9];
	int i;

	mframe_mat(b->xquat, r);
	for (i = 0; i < 3; i++)
		c[i] = b->xpos[i] + r[3 * i] * g->pos[0] + r[3 * i + 1] * g->pos[1] +
		    r[3 * i + 2] * g->pos[2];
}

static int same_geom(const struct core_pair_geom *a, const struct core_pair_geom *b)
{
	return memcmp(a->solref, b->solref, sizeof a->solref) == 0 &&
	    memcmp(a->solimp, b->solimp, sizeof a->solimp) == 0 && a->condim == b->condim &&
	    memcmp(a->friction, b->friction, sizeof a->friction) == 0 && a->margin == b->margin &&
	    a->gap == b->gap && a->solmix == b->solmix && a->priority == b->priority;
}

/* The pair of geoms a and b in the list, -1 when they do not collide. */
static int pair_of(const struct mpair_list *pairs, int a, int b)
{
	int i;
	for (i = 0; i < pairs->count; i++) {
		const struct mpair_pair *p = &pairs->pairs[i];
		if ((p->geom1 == a && p->geom2 == b) || (p->geom1 == b && p->geom2 == a))
			return i;
	}
	return -1;
}

/* One pad as the question reads it: its actuator's drive toward the object. */
struct pad_drive {
	struct core_hold_actuator act;
	double grip; /* motor: the force toward the object, N */
	double ctrl; /* the ctrl used, after the clamp */
};

/* The ctrl actuator a gets: the <key>'s (the first giving ctrl) or mj_resetData's 0,
 * clamped to ctrlrange as mj_step does (unless clampctrl is disabled). */
static double actuator_ctrl(const struct mdl_model *m, int a, struct mgrasp *g)
{
	const struct mdl_actuator *act = &m->actuators[a];
	double ctrl = m->key ? m->key_ctrl[a] : 0;

	if (act->ctrllimited && m->flag_clampctrl &&
	    (ctrl < act->ctrlrange[0] || ctrl > act->ctrlrange[1])) {
		double c = fmin(fmax(ctrl, act->ctrlrange[0]), act->ctrlrange[1]);
		told(g,
		    "actuator %s's ctrl %s is clamped by its ctrlrange [%s, %s] to "
		    "%s, as mj_step clamps it",
		    act->name ? act->name : "(unnamed)", N(ctrl), N(act->ctrlrange[0]),
		    N(act->ctrlrange[1]), N(c));
		ctrl = c;
	}
	return ctrl;
}

/*
 * The drive of pad side (0 left, 1 right) whose joint axis points toward the object
 * (toward 1) or away (-1): a motor's force, or a servo's gains with its ctrl and force
 * range mirrored into the pad's toward-the-object coordinate (a negation: exact). 1 when
 * read, 0 with g->why when not.
 */
static int pad_drive(
    const struct mdl_model *m, struct mgrasp *g, int side, int toward, struct pad_drive *d)
{
	const struct mdl_actuator *a;
	int i, found = -1, count = 0;

	memset(d, 0, sizeof *d);
	for (i = 0; i < m->nu; i++)
		if (m->actuators[i].joint == g->joint[side]) {
			found = i;
			count++;
		}
	if (count == 0)
		return refuse(
		    g, "no actuator drives the pad joint %s", joint_name(m, g->joint[side]));
	if (count > 1)
		return refuse(g, "%d actuators drive the pad joint %s; the hold scene has one",
		    count, joint_name(m, g->joint[side]));
	g->actuator[side] = found;
	a = &m->actuators[found];
	if (!a->read)
		return refuse(g, "the actuator on pad joint %s is not read: %s",
		    joint_name(m, g->joint[side]), a->unread);
	if (a->dynamic)
		return refuse(g,
		    "the actuator on pad joint %s has activation dynamics (dyntype or timeconst): "
		    "the hold scene's force follows its ctrl at once",
		    joint_name(m, g->joint[side]));
	if (a->dampratio)
		return refuse(g,
		    "the actuator on pad joint %s gives its kv as dampratio, which MuJoCo's "
		    "compiler turns into kv from the joint's inertia; give kv",
		    joint_name(m, g->joint[side]));
	if (a->gaintype != MDL_GAIN_FIXED)
		return refuse(g, "the actuator on pad joint %s has a gain other than fixed",
		    joint_name(m, g->joint[side]));
	d->ctrl = actuator_ctrl(m, found, g);
	if (a->biastype == MDL_BIAS_NONE) {
		/* a motor: force gain * ctrl, clamped to forcerange, times gear (exact in the
		 * order MuJoCo multiplies) */
		double f = a->gainprm[0] * d->ctrl;
		if (a->forcelimited)
			f = fmin(fmax(f, a->forcerange[0]), a->forcerange[1]);
		f = a->gear * f;
		d->act.type = CORE_HOLD_MOTOR;
		d->grip = toward > 0 ? f : -f;
		return 1;
	}
	if (a->biastype != MDL_BIAS_AFFINE || a->biasprm[0] != 0 ||
	    a->biasprm[1] != -a->gainprm[0] || !(a->biasprm[2] <= 0) || !(a->gainprm[0] > 0))
		return refuse(g,
		    "the actuator on pad joint %s is not a motor or a position servo (gain "
		    "%s, bias [%s, %s, %s]; a servo's bias is [0, -kp, -kv])",
		    joint_name(m, g->joint[side]), N(a->gainprm[0]), N(a->biasprm[0]),
		    N(a->biasprm[1]), N(a->biasprm[2]));
	if (a->gear != 1 && a->gear != -1)
		return refuse(g,
		    "the position servo on pad joint %s has gear %s: the hold scene's servo "
		    "has gear 1 (its length and force are the joint's)",
		    joint_name(m, g->joint[side]), N(a->gear));
	d->act.type = CORE_HOLD_POSITION;
	d->act.kp = a->gainprm[0];
	d->act.kv = a->biasprm[2] == 0 ? 0 : -a->biasprm[2]; /* not -0 */
	d->act.forcelimited = a->forcelimited;
	/* the servo's length is gear * q: toward the object when gear * toward is 1 */
	if (a->gear * toward > 0) {
		d->act.squeeze = d->ctrl;
		d->act.forcerange[0] = a->forcelimited ? a->forcerange[0] : 0;
		d->act.forcerange[1] = a->forcelimited ? a->forcerange[1] : 0;
	} else {
		d->act.squeeze = -d->ctrl;
		d->act.forcerange[0] = a->forcelimited ? -a->forcerange[1] : 0;
		d->act.forcerange[1] = a->forcelimited ? -a->forcerange[0] : 0;
	}
	return 1;
}

/* The joint's checks: 1 read into *j, 0 with g->why. */
static int pad_joint(
    const struct mdl_model *m, struct mgrasp *g, int side, double w, struct core_hold_joint *j)
{
	const struct mdl_joint *jt = &m->joints[g->joint[side]];
	const char *name = joint_name(m, g->joint[side]);

	if (jt->stiffness != 0)
		return refuse(g, "the pad joint %s has stiffness %s: the hold scene's has none",
		    name, N(jt->stiffness));
	if (jt->ref != 0)
		return refuse(g,
		    "the pad joint %s has ref %s: the hold question's joint zero is the "
		    "touching pose",
		    name, N(jt->ref));
	if (jt->friction_params && jt->frictionloss > 0 && m->flag_frictionloss)
		return refuse(g,
		    "the pad joint %s sets solreffriction or solimpfriction: the hold scene's "
		    "frictionloss row takes MuJoCo's defaults",
		    name);
	/* a limit row exists while the joint is within its margin of the range's end; the
	 * pads leave the hold scene (crushed) before they pass the object's half-width */
	if (jt->limited && !(jt->range[0] < -(w + jt->margin) && jt->range[1] > w + jt->margin))
		return refuse(g,
		    "the pad joint %s's range [%s, %s] (margin %s) can bind within the "
		    "object's half-width %s of the touching pose: the hold scene's joints have "
		    "no limit",
		    name, N(jt->range[0]), N(jt->range[1]), N(jt->margin), N(w));
	j->damping = m->flag_damper ? jt->damping : 0;
	j->armature = jt->armature;
	j->frictionloss = m->flag_frictionloss ? jt->frictionloss : 0;
	if (!m->flag_damper && jt->damping != 0 && side == 0)
		told(g, "the damper flag is disabled: the pads' joint damping is 0");
	if (!m->flag_frictionloss && jt->frictionloss != 0 && side == 0)
		told(g, "the frictionloss flag is disabled: the pads' frictionloss is 0");
	return 1;
}

/* The object's shape and size, and its half-extents in the world. 1, or 0 with why. */
static int object_shape(const struct mdl_model *m, struct mgrasp *g, double ext[3])
{
	const struct mdl_geom *geom = &m->geoms[g->geom];
	double r[9];
	int identity;

	geom_rotation(m, g->geom, r);
	switch (geom->type) {
	case MDL_SPHERE:
		g->hold.shape = CORE_HOLD_SPHERE;
		g->hold.size[0] = geom->size[0];
		ext[0] = ext[1] = ext[2] = geom->size[0];
		return 1;
	case MDL_CAPSULE:
		/* its axis is the frame's z: along +-y (MJCF euler="90 0 0"); a capsule is the
		 * same body turned about its axis or end for end */
		if (fabs(fabs(r[4 + 1]) - 1) > MODEL_GRASP_TOL)
			return refuse(g,
			    "its capsule's axis is (%.6g, %.6g, %.6g), not along y: the hold "
			    "question's capsule lies along y (MJCF euler=\"90 0 0\")",
			    r[2], r[5], r[8]);
		g->hold.shape = CORE_HOLD_CAPSULE;
		g->hold.size[0] = geom->size[0];
		g->hold.size[1] = geom->size[1];
		ext[0] = ext[2] = geom->size[0];
		ext[1] = geom->size[0] + geom->size[1];
		return 1;
	case MDL_BOX:
		if (!aligned(r, geom->size, ext, &identity))
			return refuse(g,
			    "its box is rotated off the world's axes: the hold question's box is "
			    "axis-aligned");
		if (!identity)
			diff(g,
			    "its box is turned by quarter turns: the question's is unrotated with "
			    "the "
			    "same extents, half-sizes [%s, %s, %s] (MuJoCo's arithmetic may "
			    "differ in the last digits)",
			    N(ext[0]), N(ext[1]), N(ext[2]));
		g->hold.shape = CORE_HOLD_BOX;
		memcpy(g->hold.size, ext, sizeof g->hold.size);
		return 1;
	default:
		return refuse(g,
		    "its geom is a %s: the hold question's object is a sphere, a capsule or a box",
		    mdl_geom_type_name(geom->type));
	}
}

/* The two pads: bodies on one slide joint whose geom pairs with the object's. 1 with
 * g->pad, g->pad_geom and g->joint set (left first), 0 with why. */
static int find_pads(const struct mdl_model *m, const struct mpair_list *pairs, struct mgrasp *g,
    const double centre[3])
{
	int cand[2], cgeom[2], n = 0, moving = 0, i;

	for (i = 0; i < pairs->count; i++) {
		const struct mpair_pair *p = &pairs->pairs[i];
		int other, b;
		if (p->geom1 != g->geom && p->geom2 != g->geom)
			continue;
		other = p->geom1 == g->geom ? p->geom2 : p->geom1;
		b = m->geoms[other].body;
		if (m->bodies[b].jntnum == 1 && m->joints[m->bodies[b].jntadr].type == MDL_SLIDE) {
			if (n < 2) {
				cand[n] = b;
				cgeom[n] = other;
			}
			n++;
		} else if (m->bodies[b].weld != 0) {
			moving++;
		}
	}
	if (n == 0)
		return refuse(g,
		    "no body on one slide joint pairs with its geom%s: the hold scene's pads "
		    "slide along x",
		    moving ? " (bodies on other joints do: a hinged gripper is not the hold scene)"
		           : "");
	if (n != 2)
		return refuse(g,
		    "%d geoms of bodies on one slide joint pair with its geom; the hold scene has "
		    "two pads",
		    n);
	for (i = 0; i < 2; i++) {
		double c[3];
		geom_centre(m, cgeom[i], c);
		if (c[0] < centre[0] && g->pad[0] < 0) {
			g->pad[0] = cand[i];
			g->pad_geom[0] = cgeom[i];
		} else if (c[0] > centre[0] && g->pad[1] < 0) {
			g->pad[1] = cand[i];
			g->pad_geom[1] = cgeom[i];
		}
	}
	if (g->pad[0] < 0 || g->pad[1] < 0)
		return refuse(g,
		    "its two slide-joint pads (bodies %s and %s) are not one on each side of it "
		    "along x",
		    body_name(m, cand[0]), body_name(m, cand[1]));
	for (i = 0; i < 2; i++)
		g->joint[i] = m->bodies[g->pad[i]].jntadr;
	return 1;
}

/* The pad of side i: its box's world extents into ext, its axis's direction toward the
 * object into *toward. 1, or 0 with why. */
static int pad_frame(const struct mdl_model *m, struct mgrasp *g, int i, double ext[3], int *toward)
{
	const struct mdl_body *b = &m->bodies[g->pad[i]];
	const struct mdl_geom *geom = &m->geoms[g->pad_geom[i]];
	const struct mdl_joint *jt = &m->joints[g->joint[i]];
	double r[9], axis[3];
	int identity, k;

	if (geom->type != MDL_BOX)
		return refuse(g, "the pad %s's geom is a %s: the hold scene's pads are boxes",
		    body_name(m, g->pad[i]), mdl_geom_type_name(geom->type));
	if (b->children)
		return refuse(g, "the pad %s has child bodies", body_name(m, g->pad[i]));
	if (m->bodies[b->parent].weld != 0)
		return refuse(g,
		    "the pad %s hangs from a body that moves: the hold scene's pads slide on the "
		    "world",
		    body_name(m, g->pad[i]));
	if (!(b->mass > 0) || !isfinite(b->mass))
		return refuse(g, "the pad %s's mass is not positive", body_name(m, g->pad[i]));
	geom_rotation(m, g->pad_geom[i], r);
	if (!aligned(r, geom->size, ext, &identity))
		return refuse(
		    g, "the pad %s's box is rotated off the world's axes", body_name(m, g->pad[i]));
	if (!identity)
		diff(g,
		    "the pad %s's box is turned by quarter turns: the question's is unrotated, "
		    "half-sizes [%s, %s, %s]",
		    body_name(m, g->pad[i]), N(ext[0]), N(ext[1]), N(ext[2]));
	mframe_mat(b->xquat, r);
	for (k = 0; k < 3; k++)
		axis[k] = r[3 * k] * jt->axis[0] + r[3 * k + 1] * jt->axis[1] +
		    r[3 * k + 2] * jt->axis[2];
	if (fabs(fabs(axis[0]) - 1) > MODEL_GRASP_TOL)
		return refuse(g,
		    "the pad joint %s slides along (%.6g, %.6g, %.6g), not x: the hold scene's "
		    "pads slide along x",
		    joint_name(m, g->joint[i]), axis[0], axis[1], axis[2]);
	/* toward the object: +x for the left pad, -x for the right */
	*toward = (axis[0] > 0) == (i == 0) ? 1 : -1;
	return 1;
}

/* The option's checks and the question's option. 1, or 0 with why. */
static int grasp_option(const struct mdl_model *m, struct mgrasp *g)
{
	const struct mdl_option *o = &m->option;
	struct core_scene_option *h = &g->hold.option;

	if (!o->gravity_on || o->gravity[0] != 0 || o->gravity[1] != 0 || !(o->gravity[2] < 0))
		return refuse(g,
		    "gravity is not along -z (or its flag is disabled): the hold scene's pulls the "
		    "object along the pads' faces, -z");
	if (!o->contact || !o->constraint)
		return refuse(g, "contacts or constraints are disabled");
	if (!m->flag_actuation)
		return refuse(g, "the actuation flag is disabled: the pads are not driven");
	if (o->integrator == CORE_SCENE_RK4)
		return refuse(g, "the integrator is RK4, which the hold question does not answer");
	if (!m->flag_eulerdamp && o->integrator == CORE_SCENE_EULER)
		return refuse(g,
		    "the eulerdamp flag is disabled: Euler then integrates joint damping "
		    "explicitly, and the hold scene's Euler integrates it implicitly");
	core_scene_option_default(h);
	h->timestep = o->timestep;
	h->refsafe = o->refsafe;
	h->gravity = -o->gravity[2];
	h->impratio = o->impratio;
	h->integrator = o->integrator;
	h->cone = o->cone;
	h->mujoco = m->mujoco;
	g->hold.noslip_iterations = o->noslip_iterations;
	if (!m->solver_newton)
		diff(g,
		    "its solver is not Newton: the question is answered as Newton's converged "
		    "solution (MuJoCo's default solver)");
	return 1;
}

/* The contact parameters: the geoms' own, or an explicit <pair>'s (or the override's)
 * carried on the object's geom as rest.c carries them. 1, or 0 with why. */
static int grasp_contact(
    const struct mdl_model *m, const struct mpair_list *pairs, struct mgrasp *g)
{
	const struct mpair_pair *p[2];
	int i, k[2];

	for (i = 0; i < 2; i++) {
		k[i] = pair_of(pairs, g->geom, g->pad_geom[i]);
		p[i] = &pairs->pairs[k[i]];
	}
	if (p[0]->explicit_pair < 0 && p[1]->explicit_pair < 0 && !m->option.override) {
		mpair_geom(&m->geoms[g->geom], &g->hold.object);
		mpair_geom(&m->geoms[g->pad_geom[0]], &g->hold.pad);
		{
			struct core_pair_geom right;
			mpair_geom(&m->geoms[g->pad_geom[1]], &right);
			if (!same_geom(&g->hold.pad, &right))
				return refuse(g,
				    "the pads' geoms differ in their contact parameters: the hold "
				    "scene's pads are one geom mirrored");
		}
		return 1;
	}
	for (i = 0; i < 2; i++)
		if (p[i]->friction[0] != p[i]->friction[1] ||
		    p[i]->friction[3] != p[i]->friction[4])
			return refuse(g,
			    "the object's contact with a pad is a <pair> whose friction is not "
			    "(slide, slide, spin, roll, roll)");
	if (p[0]->condim != p[1]->condim ||
	    memcmp(p[0]->friction, p[1]->friction, 5 * sizeof(double)) ||
	    memcmp(p[0]->solref, p[1]->solref, 2 * sizeof(double)) ||
	    memcmp(p[0]->solimp, p[1]->solimp, 5 * sizeof(double)) ||
	    p[0]->margin != p[1]->margin || p[0]->gap != p[1]->gap)
		return refuse(g, "the object's contacts with its two pads differ");
	/* equal weights mix a value with itself to itself, and a margin of 0 adds nothing
	 * whether the release takes the max or the sum */
	core_pair_geom_default(&g->hold.object);
	memcpy(g->hold.object.solref, p[0]->solref, sizeof g->hold.object.solref);
	memcpy(g->hold.object.solimp, p[0]->solimp, sizeof g->hold.object.solimp);
	g->hold.object.condim = p[0]->condim;
	g->hold.object.friction[0] = p[0]->friction[0];
	g->hold.object.friction[1] = p[0]->friction[2];
	g->hold.object.friction[2] = p[0]->friction[3];
	g->hold.object.margin = p[0]->margin;
	g->hold.object.gap = p[0]->gap;
	g->hold.object.solmix = 1;
	g->hold.object.priority = 0;
	g->hold.pad = g->hold.object;
	g->hold.pad.margin = g->hold.pad.gap = 0;
	if (p[0]->solreffriction[0] != 0 || p[0]->solreffriction[1] != 0)
		return refuse(g,
		    "the object's contact with a pad is a <pair> with solreffriction: the hold "
		    "scene's friction rows use solref");
	told(g,
	    "the contacts are %s: the question's object geom carries their mixed parameters, "
	    "the pads' the same with no margin",
	    m->option.override ? "overridden by <option> o_solref, o_solimp, o_margin"
	                       : "an explicit <pair>'s");
	return 1;
}

/* Under the releases whose broadphase pairs a touching start's pads in float32
 * (core_mjver_rules' sap_float_tie), which pad MuJoCo pairs first depends on the bodies'
 * coordinates and order: a difference unless the model is the question's three bodies. */
static void broadphase_start(
    const struct mdl_model *m, struct mgrasp *g, const double centre[3], double offset)
{
	struct core_mjver_rules rules;
	int b, bodies = 0;

	core_mjver_rules(m->mujoco, &rules);
	if (!rules.sap_float_tie)
		return;
	for (b = 0; b < m->nbody; b++)
		if (m->bodies[b].geomnum > 0)
			bodies++;
	if (bodies == 3 && g->object < g->pad[0] && g->pad[0] < g->pad[1] && centre[0] == 0 &&
	    centre[1] == 0 && centre[2] == 0 && m->bodies[g->pad[0]].xpos[0] == -offset &&
	    m->bodies[g->pad[1]].xpos[0] == offset)
		return;
	diff(g,
	    "MuJoCo %s's broadphase pairs a touching start's pads in float32 at the scene's own "
	    "coordinates and body order (docs/hold.md): the question's scene is the object at "
	    "the origin, then the left pad, then the right, and nothing else, so its first steps "
	    "may pair the pads otherwise than this model's",
	    core_mjver_name(m->mujoco));
}

static int one(const struct mdl_model *m, const struct mpair_list *pairs, struct mgrasp *g)
{
	const struct mdl_body *ob = &m->bodies[g->object];
	double ext[3], pad_ext[2][3], centre[3], offset, gap[2];
	struct pad_drive drive[2];
	struct core_hold_joint joint[2];
	int toward[2], i;

	core_hold_default(&g->hold);
	g->offered = 1;
	if (m->geoms[g->geom].pos[0] != 0 || m->geoms[g->geom].pos[1] != 0 ||
	    m->geoms[g->geom].pos[2] != 0 || ob->inertial_offset)
		return refuse(g, "its geom or inertial is off the body's origin");
	if (!(ob->mass > 0) || !isfinite(ob->mass))
		return refuse(g, "its mass is not positive");
	if (!object_shape(m, g, ext) || !grasp_option(m, g))
		return 0;
	g->hold.mass = ob->mass;
	geom_centre(m, g->geom, centre);
	if (!find_pads(m, pairs, g, centre))
		return 0;
	for (i = 0; i < 2; i++)
		if (!pad_frame(m, g, i, pad_ext[i], &toward[i]))
			return 0;
	for (i = 0; i < 3; i++)
		if (!near(pad_ext[0][i], pad_ext[1][i]))
			return refuse(g, "the pads' boxes differ in size");
	if (!near(m->bodies[g->pad[0]].mass, m->bodies[g->pad[1]].mass))
		return refuse(g, "the pads' masses differ (%s and %s kg)",
		    N(m->bodies[g->pad[0]].mass), N(m->bodies[g->pad[1]].mass));
	memcpy(g->hold.pad_size, pad_ext[0], sizeof g->hold.pad_size);
	g->hold.pad_mass = m->bodies[g->pad[0]].mass;
	/* placement: each pad's box centred on the object in y and z, its inner face on the
	 * object's side */
	offset = ext[0] + pad_ext[0][0];
	for (i = 0; i < 2; i++) {
		double c[3];
		geom_centre(m, g->pad_geom[i], c);
		if (!near(c[1], centre[1]) || !near(c[2], centre[2]))
			return refuse(g,
			    "the pad %s's box is centred %.6g m off the object's centre in y and "
			    "%.6g "
			    "in z: the hold scene's pads face the object's centre",
			    body_name(m, g->pad[i]), c[1] - centre[1], c[2] - centre[2]);
		gap[i] = (i == 0 ? centre[0] - c[0] : c[0] - centre[0]) - offset;
	}
	if (!near(gap[0] + offset, gap[1] + offset))
		return refuse(g,
		    "the pads start at different distances from the object (gaps %.6g and %.6g m): "
		    "the hold scene is mirror-symmetric",
		    gap[0], gap[1]);
	if (!near(gap[0] + offset, offset))
		diff(g,
		    "its pads start %.6g m %s the object: the question starts them just touching "
		    "it (each joint's zero)",
		    fabs(gap[0]), gap[0] > 0 ? "apart from" : "into");
	for (i = 0; i < 2; i++)
		if (!pad_joint(m, g, i, ext[0], &joint[i]) ||
		    !pad_drive(m, g, i, toward[i], &drive[i]))
			return 0;
	if (memcmp(&joint[0], &joint[1], sizeof joint[0]) != 0)
		return refuse(g,
		    "the pads' joints differ (damping, armature or frictionloss): the hold "
		    "scene's are one joint mirrored");
	if (drive[0].act.type != drive[1].act.type || drive[0].grip != drive[1].grip ||
	    drive[0].act.kp != drive[1].act.kp || drive[0].act.kv != drive[1].act.kv ||
	    drive[0].act.squeeze != drive[1].act.squeeze ||
	    drive[0].act.forcelimited != drive[1].act.forcelimited ||
	    drive[0].act.forcerange[0] != drive[1].act.forcerange[0] ||
	    drive[0].act.forcerange[1] != drive[1].act.forcerange[1])
		return refuse(g,
		    "the pads' actuators differ (type, gains, force range or the ctrl toward the "
		    "object): the hold scene's are one actuator mirrored");
	g->hold.joint = joint[0];
	g->hold.actuator = drive[0].act;
	if (m->key) {
		char *kname = mjcf_attr(m->key, "name");
		told(g, "ctrl %s is the first <key> giving ctrl (%s%s%sline %ld)", N(drive[0].ctrl),
		    kname ? "\"" : "", kname ? kname : "", kname ? "\", " : "",
		    xmlGetLineNo(m->key));
		xmlFree(kname);
	} else
		told(g,
		    "no <key> gives ctrl: ctrl is mj_resetData's 0; set the squeeze or grip_force "
		    "in the question");
	if (m->key && m->key_qpos && m->key_qpos_differs)
		diff(g,
		    "its <key>'s qpos is not qpos0: the question starts from the model's own "
		    "configuration, the pads touching");
	if (drive[0].act.type == CORE_HOLD_MOTOR) {
		if (!(drive[0].grip > 0))
			return refuse(g,
			    "the motors push the pads with %s N toward the object (ctrl %s): "
			    "the hold question needs a positive grip_force; give a <key> with ctrl",
			    N(drive[0].grip), N(drive[0].ctrl));
		g->hold.grip_force = drive[0].grip;
	} else if (!(drive[0].act.squeeze >= 0)) {
		return refuse(g,
		    "the servos' ctrl puts the pads %s m back from touching: the hold question's "
		    "squeeze is at least 0",
		    N(-drive[0].act.squeeze));
	}
	if (!grasp_contact(m, pairs, g))
		return 0;
	if (ob->has_inertial)
		diff(g,
		    "its <inertial> sets its mass and inertia: the question's inertia is the solid "
		    "geom's of that mass");
	for (i = 0; i < pairs->count; i++) {
		const struct mpair_pair *p = &pairs->pairs[i];
		int mine[2], k;
		for (k = 0; k < 2; k++) {
			int geom = k ? p->geom2 : p->geom1;
			mine[k] = geom == g->geom || m->geoms[geom].body == g->pad[0] ||
			    m->geoms[geom].body == g->pad[1];
		}
		if ((mine[0] || mine[1]) && !(mine[0] && mine[1]))
			g->other_pairs++;
	}
	if (g->other_pairs)
		diff(g,
		    "%d other pairs involve the object or the pads: the question has nothing but "
		    "the object and its pads; they are assumed never to touch",
		    g->other_pairs);
	broadphase_start(m, g, centre, offset);
	return 1;
}

int mgrasp_find(const struct mdl_model *m, const struct mpair_list *pairs, struct mgrasp **out,
    int *count, struct err *err)
{
	int b, n = 0;

	*out = NULL;
	*count = 0;
	for (b = 1; b < m->nbody; b++) {
		const struct mdl_body *body = &m->bodies[b];
		if (body->parent == 0 && body->free && !body->children && body->geomnum == 1)
			n++;
	}
	if (n == 0)
		return 0;
	if (!(*out = calloc((size_t)n, sizeof **out)))
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	for (b = 1; b < m->nbody; b++) {
		const struct mdl_body *body = &m->bodies[b];
		struct mgrasp *g;
		if (!(body->parent == 0 && body->free && !body->children && body->geomnum == 1))
			continue;
		g = &(*out)[(*count)++];
		g->object = b;
		g->geom = body->geomadr;
		g->pad[0] = g->pad[1] = g->pad_geom[0] = g->pad_geom[1] = -1;
		g->joint[0] = g->joint[1] = g->actuator[0] = g->actuator[1] = -1;
		one(m, pairs, g);
	}
	return 0;
}
