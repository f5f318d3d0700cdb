/*
 * mjref_hold.c: write a MuJoCo reference table of the hold scene (issue 21) for
 * tests/test_hold: a sphere pinched between two motor-driven box pads, stepped by
 * whichever MuJoCo this is linked against (2.2-3.x).
 *
 * A stand-alone program on MuJoCo's public C API only (mj_loadXML of a temporary
 * file, mj_makeData, mj_step, mj_versionString), so it builds against any release's
 * headers; tests/mjref/README.md says how. The scenes are test_hold's, drawn from a seed
 * by hold_scene.h (beside this file, header only) under its table rules; a scene is kept
 * when MuJoCo's run stays in the two-face-contact regime: pads short of the object's centre and not
 * thrown off it by more than half its radius, the object on the pads' faces.
 *
 * Usage: mjref_hold [-n SCENES] [-N NOSLIP_SCENES] [-s SEED] [-w] [-o FILE]
 *
 * -w draws hold_scene.h's HOLD_SCENE_WIDE scenes (those of the 3.12.0-3.14.0 tables,
 * which mjref_js_hold_gen.mjs wrote in the WebAssembly builds) instead of TABLE's.
 *
 * The NOSLIP_SCENES continue the same random sequence after the SCENES, each with
 * noslip_iterations 1-10 (written at the end of its scene line as "noslip N").
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "hold_scene.h"

#define SAMPLES 16
#define SETTLE_MAX 20000
#define SETTLE_REL 1e-11
#define SETTLE_RUN 50
/* noslip: the speed wanders at 1e-11 relative (the sweeps' rounding), and a held object's
 * is MuJoCo's rounding, 1e-17 m/s: settled at 1e-9 relative + 1e-15 m/s */
#define NOSLIP_SETTLE_REL 1e-9
#define NOSLIP_SETTLE_ABS 1e-15
#define TALL_HZ 1e4

static void print_geom(FILE *f, const char *tag, const struct hold_scene_geom *g)
{
	fprintf(f,
	    "%s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %d %.17g %.17g %.17g %.17g %.17g %.17g "
	    "%d\n",
	    tag, g->solref[0], g->solref[1], g->solimp[0], g->solimp[1], g->solimp[2], g->solimp[3],
	    g->solimp[4], g->condim, g->friction[0], g->friction[1], g->friction[2], g->margin,
	    g->gap, g->solmix, g->priority);
}

static void xml_geom(FILE *f, const struct hold_scene_geom *g)
{
	fprintf(f,
	    " solref=\"%.17g %.17g\" solimp=\"%.17g %.17g %.17g %.17g %.17g\" condim=\"%d\""
	    " friction=\"%.17g %.17g %.17g\" margin=\"%.17g\" gap=\"%.17g\" solmix=\"%.17g\""
	    " priority=\"%d\"",
	    g->solref[0], g->solref[1], g->solimp[0], g->solimp[1], g->solimp[2], g->solimp[3],
	    g->solimp[4], g->condim, g->friction[0], g->friction[1], g->friction[2], g->margin,
	    g->gap, g->solmix, g->priority);
}

/* The scene's MJCF in a temporary file (pads hz tall); model, or NULL. */
static mjModel *load(const struct hold_scene *s, double hz)
{
	char path[] = "/tmp/mjref_holdXXXXXX", err[512];
	int fd = mkstemp(path), side;
	FILE *f;
	mjModel *m;
	double x = s->radius + s->pad_size[0];

	if (fd < 0 || !(f = fdopen(fd, "w")))
		return NULL;
	fprintf(f,
	    "<mujoco>\n<option timestep=\"%.17g\" gravity=\"0 0 %.17g\" impratio=\"%.17g\" "
	    "cone=\"%s\" noslip_iterations=\"%d\"/>\n<worldbody>\n<body pos=\"0 0 "
	    "0\"><freejoint/>\n"
	    "<geom type=\"sphere\" size=\"%.17g\" mass=\"%.17g\"",
	    s->timestep, -s->gravity, s->impratio, s->elliptic ? "elliptic" : "pyramidal",
	    s->noslip, s->radius, s->mass);
	xml_geom(f, &s->object);
	fprintf(f, "/>\n</body>\n");
	for (side = -1; side <= 1; side += 2) {
		fprintf(f,
		    "<body name=\"%s\" pos=\"%.17g 0 0\"><joint name=\"%s\" type=\"slide\" "
		    "axis=\"%d 0 0\"/>\n<geom type=\"box\" size=\"%.17g %.17g %.17g\" "
		    "mass=\"%.17g\"",
		    side < 0 ? "left" : "right", side * x, side < 0 ? "left" : "right", -side,
		    s->pad_size[0], s->pad_size[1], hz, s->pad_mass);
		xml_geom(f, &s->pad);
		fprintf(f, "/>\n</body>\n");
	}
	fprintf(f,
	    "</worldbody>\n<actuator><motor joint=\"left\" ctrllimited=\"false\"/>"
	    "<motor joint=\"right\" ctrllimited=\"false\"/></actuator>\n</mujoco>\n");
	fclose(f);
	m = mj_loadXML(path, NULL, err, sizeof err);
	unlink(path);
	if (!m)
		fprintf(stderr, "mj_loadXML: %s\n", err);
	return m;
}

/* Run one scene; 0 and the record on f when it stays regular, 1 when dropped. */
static int run(const struct hold_scene *s, int index, FILE *f)
{
	mjModel *m = load(s, s->pad_size[2]);
	mjData *d;
	double z[SAMPLES + 1], q[SAMPLES + 1], prev;
	long steps = lround(s->duration / s->timestep), stride = steps / SAMPLES, k;
	int n = 0, settled = 0, regular = 1;
	double settle_rel = s->noslip ? NOSLIP_SETTLE_REL : SETTLE_REL;
	double settle_abs = s->noslip ? NOSLIP_SETTLE_ABS : 0;

	if (!m)
		return 1;
	d = mj_makeData(m);
	d->ctrl[0] = d->ctrl[1] = s->grip_force;
	if (stride < 1)
		stride = 1;
	for (k = 1; k <= steps && regular; k++) {
		mj_step(m, d);
		/* two face contacts whenever there are rows, but at step 1: 3.8.0-3.13.0 start
		 * with the left pad's contact alone when the pads' float32 broadphase ends tie
		 * (docs/hold.md), which has rows when the start's dist < 0 and is the scene too */
		if (!(d->qpos[8] < 0.9 * s->radius) || !(d->qpos[8] > -0.5 * s->radius) ||
		    !(fabs(d->qpos[2]) < s->pad_size[2]) || (k > 1 && d->nefc > 0 && d->ncon != 2))
			regular = 0;
		if ((k % stride == 0 || k == steps) && n <= SAMPLES) {
			z[n] = d->qpos[2];
			q[n++] = d->qpos[8];
		}
	}
	mj_deleteData(d);
	mj_deleteModel(m);
	if (!regular)
		return 1;
	/* the steady creep, on pads tall enough that the object stays on their faces */
	m = load(s, TALL_HZ);
	if (!m)
		return 1;
	d = mj_makeData(m);
	d->ctrl[0] = d->ctrl[1] = s->grip_force;
	prev = d->qvel[2];
	for (k = 1; k <= SETTLE_MAX && settled < SETTLE_RUN; k++) {
		mj_step(m, d);
		settled = fabs(d->qvel[2] - prev) <= settle_rel * fabs(prev) + settle_abs
		    ? settled + 1
		    : 0;
		prev = d->qvel[2];
	}
	fprintf(f, "scene %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %s %.17g %ld",
	    index, s->radius, s->mass, s->pad_size[0], s->pad_size[1], s->pad_size[2], s->pad_mass,
	    s->grip_force, s->timestep, s->impratio, s->elliptic ? "elliptic" : "pyramidal",
	    s->gravity, steps);
	if (s->noslip)
		fprintf(f, " noslip %d", s->noslip);
	fprintf(f, "\n");
	print_geom(f, "object", &s->object);
	print_geom(f, "pad", &s->pad);
	fprintf(f, "traj %ld", stride);
	for (k = 0; k < n; k++)
		fprintf(f, " %.17g", z[k]);
	fprintf(f, "\npads %ld", stride);
	for (k = 0; k < n; k++)
		fprintf(f, " %.17g", q[k]);
	fprintf(f, "\ncreep %d %.17g %ld\nend\n", settled >= SETTLE_RUN, -d->qvel[2], k - 1);
	mj_deleteData(d);
	mj_deleteModel(m);
	return 0;
}

int main(int argc, char **argv)
{
	int scenes = 100, noslip_scenes = 0, i, kept = 0, opt, wide = 0;
	unsigned long seed = 20261202;
	const char *out = NULL;
	FILE *f = stdout;
	struct hold_scene s;
	uint64_t rng;

	while ((opt = getopt(argc, argv, "n:N:s:wo:")) != -1) {
		if (opt == 'n')
			scenes = atoi(optarg);
		else if (opt == 'N')
			noslip_scenes = atoi(optarg);
		else if (opt == 's')
			seed = strtoul(optarg, NULL, 10);
		else if (opt == 'w')
			wide = 1;
		else if (opt == 'o')
			out = optarg;
		else
			return 2;
	}
	if (out && !(f = fopen(out, "w"))) {
		perror(out);
		return 1;
	}
	rng = seed;
	fprintf(f,
	    "# contactd MuJoCo hold reference table, format 1\nmujoco %s\n"
	    "generator mjref_hold seed %lu scenes %d",
	    mj_versionString(), seed, scenes);
	if (noslip_scenes > 0)
		fprintf(f, " noslip %d", noslip_scenes);
	fprintf(f, "\n");
	for (i = 0; i < scenes + noslip_scenes; i++) {
		hold_scene_draw(&s, &rng, wide ? HOLD_SCENE_WIDE : HOLD_SCENE_TABLE);
		if (i >= scenes)
			s.noslip = hold_scene_noslip(&rng);
		if (run(&s, i, f) == 0)
			kept++;
	}
	if (out)
		fclose(f);
	fprintf(stderr, "%d of %d scenes kept\n", kept, scenes + noslip_scenes);
	return 0;
}
