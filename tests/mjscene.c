/*
 * mjscene.c: build a core scene in real MuJoCo 2.2.2 and read its answers back.
 *
 * The MJCF is the seed lesson's experiment generalised to every scene field:
 * a plane with the floor's contact parameters and one free body whose geom
 * carries the body's. It is loaded from a virtual file, so no temp files.
 */
#include "mjscene.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "fit/knobs.h"
#include "calib/knobs.h"

#define MJSCENE_XML_MAX 4096
#define MJSCENE_VFS_NAME "contactd-scene.xml"

static long warning_count;

/* MuJoCo's default warning handler appends to a log file in the working
 * directory; counting instead keeps the build tree clean and lets tests see them. */
static void count_warning(const char *msg)
{
	(void)msg;
	warning_count++;
}

long mjscene_warnings(void)
{
	return warning_count;
}

static const char *integrator_name(enum core_scene_integrator integrator)
{
	switch (integrator) {
	case CORE_SCENE_RK4:
		return "RK4";
	case CORE_SCENE_IMPLICIT:
	case CORE_SCENE_IMPLICITFAST: /* 2.2.2 has no implicitfast; for these scenes both equal
	                              * implicit
	                              */
		return "implicit";
	case CORE_SCENE_EULER:
	default:
		return "Euler";
	}
}

int mjscene_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used)
		return -1;
	*used += (size_t)n;
	return 0;
}

int mjscene_geom_params(char *buf, size_t len, size_t *used, const struct core_pair_geom *g)
{
	return mjscene_append(buf, len, used,
	    " solref=\"%.17g %.17g\" solimp=\"%.17g %.17g %.17g %.17g %.17g\" condim=\"%d\""
	    " friction=\"%.17g %.17g %.17g\" margin=\"%.17g\" gap=\"%.17g\" solmix=\"%.17g\""
	    " priority=\"%d\"",
	    g->solref[0], g->solref[1], g->solimp[0], g->solimp[1], g->solimp[2], g->solimp[3],
	    g->solimp[4], g->condim, g->friction[0], g->friction[1], g->friction[2], g->margin,
	    g->gap, g->solmix, g->priority);
}

static double half_height_of(const struct core_scene *s)
{
	return s->shape == CORE_SCENE_SPHERE ? s->size[0] : s->size[2];
}

int mjscene_xml(const struct core_scene *s, char *buf, size_t len)
{
	const struct core_scene_option *o = &s->option;
	size_t used = 0;
	/* the same double sum as core_sim_drop's start, printed exactly */
	double z0 = s->height + half_height_of(s);

	if (len == 0)
		return -1;
	buf[0] = '\0';
	if (mjscene_append(buf, len, &used,
	        "<mujoco model=\"contactd-parity\">\n"
	        "  <option timestep=\"%.17g\" gravity=\"0 0 %.17g\" impratio=\"%.17g\""
	        " integrator=\"%s\" cone=\"%s\">\n"
	        "    <flag refsafe=\"%s\"/>\n"
	        "  </option>\n"
	        "  <worldbody>\n"
	        "    <geom name=\"floor\" type=\"plane\" size=\"1 1 .1\"",
	        o->timestep, -o->gravity, o->impratio, integrator_name(o->integrator),
	        o->cone == CORE_CONE_ELLIPTIC ? "elliptic" : "pyramidal",
	        o->refsafe ? "enable" : "disable") ||
	    mjscene_geom_params(buf, len, &used, &s->floor) ||
	    mjscene_append(buf, len, &used,
	        "/>\n    <body name=\"body\" pos=\"0 0 %.17g\">\n"
	        "      <freejoint/>\n",
	        z0))
		return -1;
	if (s->shape == CORE_SCENE_SPHERE) {
		if (mjscene_append(
		        buf, len, &used, "      <geom type=\"sphere\" size=\"%.17g\"", s->size[0]))
			return -1;
	} else if (mjscene_append(buf, len, &used,
	               "      <geom type=\"box\" size=\"%.17g %.17g %.17g\"", s->size[0],
	               s->size[1], s->size[2])) {
		return -1;
	}
	if (mjscene_append(buf, len, &used, " mass=\"%.17g\"", s->mass) ||
	    mjscene_geom_params(buf, len, &used, &s->geom) ||
	    mjscene_append(buf, len, &used, "/>\n    </body>\n  </worldbody>\n</mujoco>\n"))
		return -1;
	return 0;
}

int mjscene_open(struct mjscene *ms, const struct core_scene *s, char *errbuf, size_t errlen)
{
	char xml[MJSCENE_XML_MAX];
	char loaderr[512] = "";
	mjVFS *vfs = NULL;
	mjModel *model = NULL;
	mjData *data = NULL;
	int file, i, rc = -1;
	size_t xmllen;

	mju_user_warning = count_warning;
	if (mjscene_xml(s, xml, sizeof xml) != 0) {
		snprintf(errbuf, errlen, "MJCF longer than %d bytes", MJSCENE_XML_MAX);
		goto out;
	}
	xmllen = strlen(xml);
	/* mjVFS holds 2000 file names inline (about 2 MB): heap, not stack */
	vfs = malloc(sizeof *vfs);
	if (!vfs) {
		snprintf(errbuf, errlen, "out of memory");
		goto out;
	}
	mj_defaultVFS(vfs);
	if (mj_makeEmptyFileVFS(vfs, MJSCENE_VFS_NAME, (int)xmllen) != 0 ||
	    (file = mj_findFileVFS(vfs, MJSCENE_VFS_NAME)) < 0) {
		snprintf(errbuf, errlen, "cannot make the virtual MJCF file");
		goto out;
	}
	memcpy(vfs->filedata[file], xml, xmllen);
	model = mj_loadXML(MJSCENE_VFS_NAME, vfs, loaderr, sizeof loaderr);
	if (!model) {
		snprintf(errbuf, errlen, "mj_loadXML: %s", loaderr);
		goto out;
	}
	data = mj_makeData(model);
	if (!data) {
		snprintf(errbuf, errlen, "mj_makeData failed");
		goto out;
	}
	ms->model = model;
	ms->data = data;
	ms->half_height = half_height_of(s);
	ms->height = s->height;
	ms->z0 = model->qpos0[2];
	ms->sphere = s->shape == CORE_SCENE_SPHERE;
	for (i = 0; i < 3; i++)
		ms->size[i] = ms->sphere ? s->size[0] : s->size[i];
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

void mjscene_close(struct mjscene *ms)
{
	if (ms->data)
		mj_deleteData(ms->data);
	if (ms->model)
		mj_deleteModel(ms->model);
	ms->data = NULL;
	ms->model = NULL;
}

void mjscene_reset(struct mjscene *ms)
{
	mj_resetData(ms->model, ms->data);
}

/* How often mj_step's bad-number guard has fired since the last reset. */
static int bad_number_count(const mjData *d)
{
	return d->warning[mjWARN_BADQPOS].number + d->warning[mjWARN_BADQVEL].number +
	    d->warning[mjWARN_BADQACC].number;
}

/* The off-axis measures of struct mjscene_sample, from the free joint's state. */
static void off_axis(const struct mjscene *ms, struct mjscene_sample *out)
{
	const mjtNum *q = ms->data->qpos, *v = ms->data->qvel;
	mjtNum mat[9];
	double reach;

	if (ms->sphere) {
		out->tilt = 0;
		reach = ms->size[0];
	} else {
		/* corner (sx hx, sy hy, -hz) rises by mat[6] sx hx + mat[7] sy hy + (1 - mat[8]) hz
		 */
		mju_quat2Mat(mat, q + 3);
		out->tilt = fabs(mat[6]) * ms->size[0] + fabs(mat[7]) * ms->size[1] +
		    fabs(1 - mat[8]) * ms->size[2];
		reach = sqrt(ms->size[0] * ms->size[0] + ms->size[1] * ms->size[1] +
		    ms->size[2] * ms->size[2]);
	}
	out->slip =
	    sqrt(v[0] * v[0] + v[1] * v[1]) + sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]) * reach;
}

long mjscene_run(struct mjscene *ms, long n, struct mjscene_sample *samples)
{
	long i, reset_step = -1;
	int bad;

	mjscene_reset(ms);
	bad = bad_number_count(ms->data);
	for (i = 0; i < n; i++) {
		mj_step(ms->model, ms->data);
		samples[i].z = ms->data->qpos[2];
		samples[i].vel = ms->data->qvel[2];
		off_axis(ms, &samples[i]);
		if (reset_step < 0 && bad_number_count(ms->data) != bad)
			reset_step = i;
	}
	return reset_step;
}

void mjscene_metrics(const struct mjscene_sample *samples, long n, double half_height,
    double height, double timestep, struct core_sim_drop *out)
{
	long window = lround(JITTER_WINDOW / timestep);
	long first = n > window ? n - window : 0;
	double sum = 0, sq = 0, mean;
	int touched = 0;
	long i;

	out->steps = n;
	out->peak_penetration = -height;
	out->max_height = height;
	out->rebound = 0;
	out->final_penetration = -height;
	for (i = 0; i < n; i++) {
		double bottom = samples[i].z - half_height;
		if (i == 0 || -bottom > out->peak_penetration)
			out->peak_penetration = -bottom;
		if (i == 0 || bottom > out->max_height)
			out->max_height = bottom;
		/* rebound: heights recorded after the first penetrating step */
		if (touched && bottom > out->rebound)
			out->rebound = bottom;
		if (bottom < 0)
			touched = 1;
		out->final_penetration = -bottom;
	}
	for (i = first; i < n; i++)
		sum += samples[i].z - half_height;
	mean = n > first ? sum / (double)(n - first) : 0;
	for (i = first; i < n; i++) {
		double dev = (samples[i].z - half_height) - mean;
		sq += dev * dev;
	}
	out->jitter = n > first ? sqrt(sq / (double)(n - first)) : 0;
	out->energy_gain = out->rebound > height;
}

int mjscene_efc(struct mjscene *ms, double z, double vel, struct mjscene_efc *out)
{
	mjData *d = ms->data;
	int i;

	mjscene_reset(ms);
	d->qpos[2] = z;
	d->qvel[2] = vel;
	mj_forward(ms->model, d);
	out->ncon = d->ncon;
	out->nefc = d->nefc;
	if (d->nefc > MJSCENE_MAX_ROWS)
		return -1;
	for (i = 0; i < d->nefc; i++) {
		out->K[i] = d->efc_KBIP[4 * i];
		out->B[i] = d->efc_KBIP[4 * i + 1];
		out->imp[i] = d->efc_KBIP[4 * i + 2];
		out->impP[i] = d->efc_KBIP[4 * i + 3];
		out->R[i] = d->efc_R[i];
		out->aref[i] = d->efc_aref[i];
	}
	for (i = 0; i < 6; i++)
		out->qacc[i] = d->qacc[i];
	return 0;
}

struct core_scene mjscene_pad(int box, double timeconst, double dampratio, double duration)
{
	struct core_scene s = {0};

	s.shape = box ? CORE_SCENE_BOX : CORE_SCENE_SPHERE;
	s.size[0] = box ? 0.05 : 0.02;
	s.size[1] = s.size[2] = box ? 0.05 : 0;
	s.mass = box ? 1 : 0.1;
	core_pair_geom_default(&s.geom);
	core_pair_geom_default(&s.floor);
	s.floor.solref[0] = timeconst;
	s.floor.solref[1] = dampratio;
	s.floor.condim = CALIB_PAD_CONDIM;
	s.floor.friction[0] = CALIB_PAD_FRICTION_SLIDE;
	s.floor.friction[1] = CALIB_PAD_FRICTION_SPIN;
	s.floor.friction[2] = CALIB_PAD_FRICTION_ROLL;
	s.floor.priority = CALIB_PAD_PRIORITY;
	s.option.timestep = CALIB_DEFAULT_TIMESTEP;
	s.option.mujoco = CORE_MJVER_2_2_2; /* the reference: libmujoco 2.2.2 */
	s.option.refsafe = 1;
	s.option.gravity = DEFAULT_GRAVITY;
	s.option.impratio = DEFAULT_IMPRATIO;
	s.option.integrator = CORE_SCENE_EULER;
	s.duration = duration;
	return s;
}
