/*
 * mjhold.c: the hold scene in real MuJoCo 2.2.2, exactly as issues 21 and 48 define it:
 * no floor; the object (sphere, capsule along y, or box) a free body at the origin; two
 * box pads on slide joints along x at -(w+HX) and +(w+HX), w the object's half-width,
 * just touching, each pushed toward the object by its actuator, a motor with ctrl = F or
 * a position servo with ctrl = squeeze (left joint axis +x, right -x); gravity -z.
 */
#include "mjhold.h"
#include "mjscene.h"

#include "core/mjver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MJHOLD_XML_MAX 8192
#define MJHOLD_VFS_NAME "contactd-hold.xml"

static int pad(char *buf, size_t len, size_t *used, const struct core_hold *h, const char *name,
    double x, int axis)
{
	return mjscene_append(buf, len, used,
	           "    <body name=\"%s\" pos=\"%.17g 0 0\">\n"
	           "      <joint name=\"%s\" type=\"slide\" axis=\"%d 0 0\" damping=\"%.17g\""
	           " armature=\"%.17g\" frictionloss=\"%.17g\"/>\n"
	           "      <geom type=\"box\" size=\"%.17g %.17g %.17g\" mass=\"%.17g\"",
	           name, x, name, axis, h->joint.damping, h->joint.armature,
	           h->joint.frictionloss, h->pad_size[0], h->pad_size[1], h->pad_size[2],
	           h->pad_mass) ||
	    mjscene_geom_params(buf, len, used, &h->pad) ||
	    mjscene_append(buf, len, used, "/>\n    </body>\n");
}

/* The object's geom type, size and orientation: the capsule lies along y. */
static int object(char *buf, size_t len, size_t *used, const struct core_hold *h)
{
	const double *z = h->size;

	if (h->shape == CORE_HOLD_CAPSULE)
		return mjscene_append(buf, len, used,
		    "type=\"capsule\" size=\"%.17g %.17g\" euler=\"90 0 0\"", z[0], z[1]);
	if (h->shape == CORE_HOLD_BOX)
		return mjscene_append(
		    buf, len, used, "type=\"box\" size=\"%.17g %.17g %.17g\"", z[0], z[1], z[2]);
	return mjscene_append(buf, len, used, "type=\"sphere\" size=\"%.17g\"", z[0]);
}

/* One pad's actuator: a motor, or a position servo as MJCF's <general> (2.2.2's
 * <position> has no kv; this is the same actuator in every release). */
static int actuator(char *buf, size_t len, size_t *used, const struct core_hold *h, const char *joint)
{
	const struct core_hold_actuator *a = &h->actuator;

	if (a->type == CORE_HOLD_MOTOR)
		return mjscene_append(
		    buf, len, used, "    <motor joint=\"%s\" ctrllimited=\"false\"/>\n", joint);
	return mjscene_append(buf, len, used,
	           "    <general joint=\"%s\" gaintype=\"fixed\" biastype=\"affine\""
	           " gainprm=\"%.17g\" biasprm=\"0 %.17g %.17g\" ctrllimited=\"false\"",
	           joint, a->kp, -a->kp, -a->kv) ||
	    (a->forcelimited ? mjscene_append(buf, len, used,
	                           " forcelimited=\"true\" forcerange=\"%.17g %.17g\"/>\n",
	                           a->forcerange[0], a->forcerange[1])
	                     : mjscene_append(buf, len, used, " forcelimited=\"false\"/>\n"));
}

/* MJCF's integrator for h in 2.2.2, or NULL. 2.2.2 has no implicitfast: it is implicit's
 * step only while no smooth force depends on the velocity (no joint damping, no kv). */
static const char *integrator(const struct core_hold *h)
{
	switch (h->option.integrator) {
	case CORE_SCENE_EULER:
		return "Euler";
	case CORE_SCENE_RK4:
		return "RK4";
	case CORE_SCENE_IMPLICITFAST:
		if (h->joint.damping != 0 ||
		    (h->actuator.type == CORE_HOLD_POSITION && h->actuator.kv != 0))
			return NULL;
		return "implicit";
	default:
		return "implicit";
	}
}

int mjhold_xml(const struct core_hold *h, char *buf, size_t len)
{
	const struct core_scene_option *o = &h->option;
	const char *integ = integrator(h);
	size_t used = 0;
	double x = h->size[0] + h->pad_size[0];

	if (len == 0 || !integ)
		return -1;
	buf[0] = '\0';
	if (mjscene_append(buf, len, &used,
	        "<mujoco model=\"contactd-hold\">\n"
	        "  <option timestep=\"%.17g\" gravity=\"0 0 %.17g\" impratio=\"%.17g\""
	        " cone=\"%s\" noslip_iterations=\"%d\" integrator=\"%s\">\n"
	        "    <flag refsafe=\"%s\"/>\n"
	        "  </option>\n"
	        "  <worldbody>\n"
	        "    <body name=\"object\" pos=\"0 0 0\">\n"
	        "      <freejoint/>\n"
	        "      <geom ",
	        o->timestep, -o->gravity, o->impratio,
	        o->cone == CORE_CONE_ELLIPTIC ? "elliptic" : "pyramidal", h->noslip_iterations,
	        integ, o->refsafe ? "enable" : "disable") ||
	    object(buf, len, &used, h) ||
	    mjscene_append(buf, len, &used, " mass=\"%.17g\"", h->mass) ||
	    mjscene_geom_params(buf, len, &used, &h->object) ||
	    mjscene_append(buf, len, &used, "/>\n    </body>\n") ||
	    pad(buf, len, &used, h, "left", -x, 1) || pad(buf, len, &used, h, "right", x, -1) ||
	    mjscene_append(buf, len, &used, "  </worldbody>\n  <actuator>\n") ||
	    actuator(buf, len, &used, h, "left") || actuator(buf, len, &used, h, "right") ||
	    mjscene_append(buf, len, &used, "  </actuator>\n</mujoco>\n"))
		return -1;
	return 0;
}

/* MuJoCo's warnings (a run gone unstable) to stderr: its default handler writes
 * MUJOCO_LOG.TXT into the working directory, which a build tree must not keep */
static void warn_stderr(const char *msg)
{
	fprintf(stderr, "MuJoCo warning: %s\n", msg);
}

int mjhold_open(struct mjhold *mh, const struct core_hold *h, char *errbuf, size_t errlen)
{
	char xml[MJHOLD_XML_MAX];
	char loaderr[512] = "";
	mjVFS *vfs = NULL;
	mjModel *model = NULL;
	mjData *data = NULL;
	int file, rc = -1;
	size_t xmllen;

	mju_user_warning = warn_stderr;

	if (mjhold_xml(h, xml, sizeof xml) != 0) {
		snprintf(errbuf, errlen, "no MJCF of at most %d bytes (or an integrator 2.2.2 lacks)",
		    MJHOLD_XML_MAX);
		goto out;
	}
	xmllen = strlen(xml);
	vfs = malloc(sizeof *vfs); /* about 2 MB: heap, not stack */
	if (!vfs) {
		snprintf(errbuf, errlen, "out of memory");
		goto out;
	}
	mj_defaultVFS(vfs);
	if (mj_makeEmptyFileVFS(vfs, MJHOLD_VFS_NAME, (int)xmllen) != 0 ||
	    (file = mj_findFileVFS(vfs, MJHOLD_VFS_NAME)) < 0) {
		snprintf(errbuf, errlen, "cannot make the virtual MJCF file");
		goto out;
	}
	memcpy(vfs->filedata[file], xml, xmllen);
	model = mj_loadXML(MJHOLD_VFS_NAME, vfs, loaderr, sizeof loaderr);
	if (!model) {
		snprintf(errbuf, errlen, "mj_loadXML: %s", loaderr);
		goto out;
	}
	data = mj_makeData(model);
	if (!data) {
		snprintf(errbuf, errlen, "mj_makeData failed");
		goto out;
	}
	data->ctrl[0] = data->ctrl[1] =
	    h->actuator.type == CORE_HOLD_POSITION ? h->actuator.squeeze : h->grip_force;
	mh->model = model;
	mh->data = data;
	model = NULL;
	data = NULL;
	rc = 0;
out:
	if (data)
		mj_deleteData(data);
	if (model)
		mj_deleteModel(model);
	if (vfs) {
		mj_deleteVFS(vfs);
		free(vfs);
	}
	return rc;
}

void mjhold_close(struct mjhold *mh)
{
	if (mh->data)
		mj_deleteData(mh->data);
	if (mh->model)
		mj_deleteModel(mh->model);
	mh->data = NULL;
	mh->model = NULL;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

void mjhold_sample(const struct mjhold *mh, struct mjhold_sample *out)
{
	const mjtNum *qpos = mh->data->qpos, *qvel = mh->data->qvel;
	double asym;

	out->z = qpos[2];
	out->vz = qvel[2];
	out->q = qpos[8];
	out->vq = qvel[7];
	asym = max2(fabs(qpos[0]), fabs(qpos[1]));
	asym = max2(asym, max2(fabs(qvel[3]), max2(fabs(qvel[4]), fabs(qvel[5]))));
	asym = max2(asym, fabs(qpos[7] - qpos[8]));
	out->asym = asym;
}

void mjhold_issue_scene(struct core_hold *h, enum core_cone cone, double impratio)
{
	/* the request's defaults are the issue's scene, but for its 5 ms step and release */
	core_hold_default(h);
	h->option.timestep = 0.005;
	h->option.impratio = impratio;
	h->option.cone = cone;
	h->option.mujoco = CORE_MJVER_2_2_2;
}

void mjhold_issue_3328(struct core_hold *h, enum core_cone cone, double impratio, int mujoco)
{
	core_hold_default(h);
	h->shape = CORE_HOLD_CAPSULE;
	h->size[0] = 0.004;
	h->size[1] = 0.02;
	h->mass = 0.045;
	core_pair_geom_default(&h->object);
	h->object.friction[0] = 0.7;
	h->object.friction[1] = 0.005;
	h->object.friction[2] = 0.0001;
	h->object.condim = 3;
	h->pad = h->object;
	h->pad_size[0] = 0.008;
	h->pad_size[1] = 0.03;
	h->pad_size[2] = 0.02;
	h->pad_mass = 0.2;
	h->joint.damping = 100;
	h->actuator.type = CORE_HOLD_POSITION;
	h->actuator.kp = 20000;
	h->actuator.squeeze = 0.002;
	h->option.timestep = 0.002;
	h->option.integrator = CORE_SCENE_EULER;
	h->option.cone = cone;
	h->option.impratio = impratio;
	h->option.mujoco = mujoco;
	h->duration = 2.5;
}
