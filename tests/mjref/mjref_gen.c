/*
 * mjref_gen.c: write a MuJoCo reference table of random margin/gap scenes.
 *
 * A stand-alone program on MuJoCo's public C API only (mj_loadXML, mj_forward,
 * mj_step, mjData's contact and efc arrays), so it compiles against the headers of
 * any MuJoCo 2.2-3.x and the table says which library produced it. The scenes come
 * from a fixed pseudo-random sequence (splitmix64 of the seed), so every version's
 * table holds the same scenes and differs only in MuJoCo's answers.
 *
 *   mjref_gen [-n SCENES] [-e ELLIPTIC] [-s SEED] [-o FILE]
 *
 * SCENES pyramidal scenes come first, then ELLIPTIC scenes under the elliptic cone,
 * drawn from the same sequence after them (so adding elliptic scenes leaves the
 * pyramidal ones as they were).
 *
 * The format is documented in tests/mjref/README.md; tests/test_versions.c reads it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#define MJREF_FORMAT 2   /* 2: the scene line may end with the cone */
#define MJREF_SAMPLES 16 /* trajectory samples per scene, plus the last step */
#define MJREF_PROBES 4   /* mj_forward probes per scene */
#define MJREF_JITTER_WINDOW 0.5

/* the shortest decimal that reads back as exactly x (inputs must be exact) */
static const char *exact(double x, char buf[32])
{
	int digits;

	for (digits = 6; digits < 17; digits++) {
		snprintf(buf, 32, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			return buf;
	}
	snprintf(buf, 32, "%.17g", x);
	return buf;
}

/* answers: 13 significant digits, 4 orders of magnitude finer than the parity test */
#define ANS "%.13g"

struct geom {
	double solref[2], solimp[5];
	int condim;
	double friction[3], margin, gap, solmix;
	int priority;
};

struct core_scene {
	int box;
	double size[3], mass, timestep, impratio, gravity, height;
	int refsafe, elliptic;
	long steps;
	struct geom geom, floor;
};

static uint64_t rng_state;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) with 53 random bits */
static double uniform(void)
{
	return (double)(splitmix64() >> 11) * (1.0 / 9007199254740992.0);
}

static double between(double lo, double hi)
{
	return lo + (hi - lo) * uniform();
}

/* true with probability p */
static int chance(double p)
{
	return uniform() < p;
}

/* a short decimal, as a user would type it: keeps the MJCF readable */
static double rounded(double x, double quantum)
{
	return round(x / quantum) * quantum;
}

static void random_geom(struct geom *g, int condim)
{
	if (chance(0.85)) {
		g->solref[0] = rounded(between(0.005, 0.08), 1e-4);
		g->solref[1] = rounded(between(0.3, 1.5), 1e-3);
	} else {
		g->solref[0] = -rounded(between(200, 5000), 1);
		g->solref[1] = -rounded(between(5, 60), 0.1);
	}
	if (chance(0.3)) {
		double def[5] = {0.9, 0.95, 0.001, 0.5, 2};
		memcpy(g->solimp, def, sizeof def);
	} else {
		static const double powers[] = {1, 2, 2, 3};
		g->solimp[0] = rounded(between(0.5, 0.95), 1e-3);
		g->solimp[1] = rounded(between(g->solimp[0], 0.99), 1e-3);
		g->solimp[2] = rounded(between(0.0005, 0.02), 1e-5);
		g->solimp[3] = rounded(between(0.2, 0.8), 1e-3);
		g->solimp[4] =
		    chance(0.7) ? powers[splitmix64() % 4] : rounded(between(1, 4), 1e-2);
	}
	g->condim = condim;
	g->friction[0] = chance(0.8) ? 1 : rounded(between(0.3, 1.5), 1e-2);
	g->friction[1] = 0.005;
	g->friction[2] = 0.0001;
	g->margin = chance(0.75) ? rounded(between(0, 0.01), 1e-5) : 0;
	if (chance(0.6))
		g->gap = rounded(between(0, chance(0.85) ? 0.8 * g->margin : 0.01), 1e-5);
	else
		g->gap = 0;
	g->solmix = chance(0.7) ? 1 : rounded(between(0.2, 5), 1e-2);
	g->priority = 0;
}

/* elliptic: the elliptic cone, condim 1, 3, 4 or 6, impratio up to 10 and random
 * torsional and rolling friction (the pyramidal draws are those of format 1) */
static void random_scene(struct core_scene *s, int elliptic)
{
	static const double steps[] = {0.001, 0.002, 0.002, 0.004};
	static const int condims[] = {1, 3, 4, 6};
	int condim = elliptic ? condims[splitmix64() % 4] : chance(0.5) ? 1 : 3;
	double reach, duration;

	memset(s, 0, sizeof *s);
	s->box = chance(0.5);
	s->size[0] = rounded(between(0.02, 0.1), 1e-4);
	if (s->box && chance(0.4)) {
		s->size[1] = rounded(between(0.02, 0.1), 1e-4);
		s->size[2] = rounded(between(0.02, 0.1), 1e-4);
	} else {
		s->size[1] = s->size[2] = s->size[0];
	}
	s->mass = rounded(between(0.2, 3), 1e-3);
	s->timestep = steps[splitmix64() % 4];
	s->refsafe = chance(0.85);
	s->impratio = chance(0.8) ? 1 : rounded(between(1, 5), 1e-2);
	s->gravity = 9.81;
	s->elliptic = elliptic;
	if (elliptic && chance(0.5))
		s->impratio = rounded(between(0.5, 10), 1e-2);
	random_geom(&s->geom, condim);
	if (elliptic) {
		s->geom.friction[1] = rounded(between(0.001, 0.05), 1e-4);
		s->geom.friction[2] = rounded(between(0.00005, 0.01), 1e-5);
	}
	if (chance(0.5)) {
		s->floor = s->geom; /* the lesson's experiment: the same parameters on both */
		s->floor.margin = chance(0.5) ? rounded(between(0, 0.01), 1e-5) : 0;
		s->floor.gap = chance(0.5) ? rounded(between(0, 0.005), 1e-5) : 0;
	} else {
		random_geom(&s->floor,
		    chance(0.8)    ? condim
		        : elliptic ? condims[splitmix64() % 4]
		                   : 4 - condim);
	}
	if (chance(0.1))
		s->floor.priority = 1;
	reach = s->geom.margin + s->floor.margin + s->geom.gap + s->floor.gap;
	if (chance(0.3))
		s->height = 0;
	else if (chance(0.45))
		s->height = rounded(between(0, reach + 0.002), 1e-5);
	else
		s->height = rounded(between(0.005, 0.1), 1e-4);
	duration = chance(0.5) ? 0.5 : 1.0;
	s->steps = lround(duration / s->timestep);
	if (s->steps > 600)
		s->steps = 600;
}

static void print_geom(FILE *f, const char *tag, const struct geom *g)
{
	char b[15][32];

	fprintf(f, "%s %s %s %s %s %s %s %s %d %s %s %s %s %s %s %d\n", tag,
	    exact(g->solref[0], b[0]), exact(g->solref[1], b[1]), exact(g->solimp[0], b[2]),
	    exact(g->solimp[1], b[3]), exact(g->solimp[2], b[4]), exact(g->solimp[3], b[5]),
	    exact(g->solimp[4], b[6]), g->condim, exact(g->friction[0], b[7]),
	    exact(g->friction[1], b[8]), exact(g->friction[2], b[9]), exact(g->margin, b[10]),
	    exact(g->gap, b[11]), exact(g->solmix, b[12]), g->priority);
}

static void xml_geom(FILE *f, const struct geom *g)
{
	fprintf(f,
	    " solref=\"%.17g %.17g\" solimp=\"%.17g %.17g %.17g %.17g %.17g\" condim=\"%d\""
	    " friction=\"%.17g %.17g %.17g\" margin=\"%.17g\" gap=\"%.17g\" solmix=\"%.17g\""
	    " priority=\"%d\"",
	    g->solref[0], g->solref[1], g->solimp[0], g->solimp[1], g->solimp[2], g->solimp[3],
	    g->solimp[4], g->condim, g->friction[0], g->friction[1], g->friction[2], g->margin,
	    g->gap, g->solmix, g->priority);
}

static double half_height(const struct core_scene *s)
{
	return s->size[2];
}

/* The MJCF of a scene: a plane and one free body, its lowest point `height` up. */
static mjModel *load(const struct core_scene *s)
{
	char path[] = "/tmp/mjref-XXXXXX";
	char err[1000] = "";
	mjModel *m;
	FILE *f;
	int fd = mkstemp(path);

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		perror("mkstemp");
		exit(1);
	}
	fprintf(f,
	    "<mujoco>\n <option timestep=\"%.17g\" gravity=\"0 0 %.17g\" impratio=\"%.17g\""
	    " cone=\"%s\">\n"
	    "  <flag refsafe=\"%s\"/>\n </option>\n <worldbody>\n"
	    "  <geom type=\"plane\" size=\"1 1 .1\"",
	    s->timestep, -s->gravity, s->impratio, s->elliptic ? "elliptic" : "pyramidal",
	    s->refsafe ? "enable" : "disable");
	xml_geom(f, &s->floor);
	fprintf(f, "/>\n  <body pos=\"0 0 %.17g\">\n   <freejoint/>\n", s->height + half_height(s));
	if (s->box)
		fprintf(f, "   <geom type=\"box\" size=\"%.17g %.17g %.17g\"", s->size[0],
		    s->size[1], s->size[2]);
	else
		fprintf(f, "   <geom type=\"sphere\" size=\"%.17g\"", s->size[0]);
	fprintf(f, " mass=\"%.17g\"", s->mass);
	xml_geom(f, &s->geom);
	fprintf(f, "/>\n  </body>\n </worldbody>\n</mujoco>\n");
	fclose(f);
	m = mj_loadXML(path, NULL, err, sizeof err);
	unlink(path);
	if (!m) {
		fprintf(stderr, "mj_loadXML: %s\n", err);
		exit(1);
	}
	return m;
}

/* How far MuJoCo's body is off the 1-D axis: horizontal position and speed,
 * rotation and angular speed (all exactly 0 while it falls flat). */
static double off_axis(const mjData *d)
{
	double worst = 0;
	int i;

	for (i = 0; i < 2; i++)
		worst = fmax(worst, fmax(fabs(d->qpos[i]), fabs(d->qvel[i])));
	worst = fmax(worst, fabs(d->qpos[3] - 1));
	for (i = 4; i < 7; i++)
		worst = fmax(worst, fabs(d->qpos[i]));
	for (i = 3; i < 6; i++)
		worst = fmax(worst, fabs(d->qvel[i]));
	return worst;
}

/* One mj_forward at centre height z and vertical speed vel, from fresh data
 * (qacc_warmstart 0), printed as a `probe` line. */
static void probe(FILE *out, const mjModel *m, mjData *d, double z, double vel)
{
	mj_resetData(m, d);
	d->qpos[2] = z;
	d->qvel[2] = vel;
	mj_forward(m, d);
	char bz[32], bv[32];

	fprintf(out, "probe %s %s %d %d", exact(z, bz), exact(vel, bv), d->ncon, d->nefc);
	if (d->ncon > 0)
		fprintf(out, " " ANS " " ANS " %d", d->contact[0].dist, d->contact[0].includemargin,
		    d->contact[0].exclude);
	else
		fprintf(out, " 0 0 0");
	if (d->nefc > 0)
		fprintf(out, " " ANS " " ANS " " ANS " " ANS " " ANS " " ANS " " ANS, d->efc_pos[0],
		    d->efc_margin[0], d->efc_KBIP[0], d->efc_KBIP[1], d->efc_KBIP[2], d->efc_R[0],
		    d->efc_aref[0]);
	else
		fprintf(out, " 0 0 0 0 0 0 0");
	fprintf(out, " " ANS "\n", d->qacc[2]);
}

static void run_scene(FILE *out, int index, const struct core_scene *s)
{
	mjModel *m = load(s);
	mjData *d = mj_makeData(m);
	double hh = half_height(s), reach;
	double peak = -INFINITY, maxh = -INFINITY, rebound = 0, worst = 0, bottom = s->height;
	long window = lround(MJREF_JITTER_WINDOW / s->timestep), first, i, stride;
	double *bottoms = malloc(sizeof(double) * (size_t)(s->steps > 0 ? s->steps : 1));
	double sum = 0, var = 0;
	int touched = 0, p;
	char b[8][32];

	if (!d || !bottoms) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	fprintf(out, "scene %d %s %s %s %s %s %s %d %s %s %s %ld%s\n", index,
	    s->box ? "box" : "sphere", exact(s->size[0], b[0]), exact(s->size[1], b[1]),
	    exact(s->size[2], b[2]), exact(s->mass, b[3]), exact(s->timestep, b[4]), s->refsafe,
	    exact(s->impratio, b[5]), exact(s->gravity, b[6]), exact(s->height, b[7]), s->steps,
	    s->elliptic ? " elliptic" : "");
	print_geom(out, "geom", &s->geom);
	print_geom(out, "floor", &s->floor);

	/* probes across the margin/gap zone under every version's rules: below, inside
	 * and above the band where contacts exist but make no rows */
	reach = s->geom.margin + s->floor.margin + s->geom.gap + s->floor.gap;
	for (p = 0; p < MJREF_PROBES; p++) {
		double dist = rounded(between(-0.002, reach + 0.001), 1e-6);
		probe(out, m, d, hh + dist, rounded(between(-0.5, 0.2), 1e-4));
	}

	mj_resetData(m, d);
	stride = (s->steps + MJREF_SAMPLES - 1) / MJREF_SAMPLES;
	if (stride < 1)
		stride = 1;
	fprintf(out, "traj %ld", stride);
	for (i = 0; i < s->steps; i++) {
		mj_step(m, d);
		bottom = d->qpos[2] - hh;
		bottoms[i] = bottom;
		peak = fmax(peak, -bottom);
		maxh = fmax(maxh, bottom);
		if (touched && bottom > rebound)
			rebound = bottom;
		if (bottom < 0)
			touched = 1;
		worst = fmax(worst, off_axis(d));
		if ((i + 1) % stride == 0 || i + 1 == s->steps)
			fprintf(out, " " ANS, d->qpos[2]);
	}
	fprintf(out, "\n");
	first = s->steps > window ? s->steps - window : 0;
	for (i = first; i < s->steps; i++)
		sum += bottoms[i];
	if (s->steps > first)
		sum /= (double)(s->steps - first);
	for (i = first; i < s->steps; i++)
		var += (bottoms[i] - sum) * (bottoms[i] - sum);
	if (s->steps > first)
		var /= (double)(s->steps - first);
	fprintf(out, "metrics " ANS " " ANS " " ANS " " ANS " " ANS " %.3g\n", peak, rebound, maxh,
	    sqrt(var), -bottom, worst);
	fprintf(out, "end\n");
	free(bottoms);
	mj_deleteData(d);
	mj_deleteModel(m);
}

static void quiet(const char *msg)
{
	(void)msg; /* mixed-sign solref warnings are expected; keep stdout a clean table */
}

int main(int argc, char **argv)
{
	long n = 300, n_elliptic = 0, seed = 20261201;
	const char *path = NULL;
	FILE *out = stdout;
	struct core_scene s;
	int opt, i;

	while ((opt = getopt(argc, argv, "n:e:s:o:")) != -1) {
		switch (opt) {
		case 'n':
			n = atol(optarg);
			break;
		case 'e':
			n_elliptic = atol(optarg);
			break;
		case 's':
			seed = atol(optarg);
			break;
		case 'o':
			path = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-n SCENES] [-e ELLIPTIC] [-s SEED] [-o FILE]\n",
			    argv[0]);
			return 2;
		}
	}
	if (path && !(out = fopen(path, "w"))) {
		perror(path);
		return 1;
	}
	mju_user_warning = quiet;
	rng_state = (uint64_t)seed;
	fprintf(out, "# contactd MuJoCo reference table, format %d\n", MJREF_FORMAT);
	fprintf(out, "mujoco %s\n", mj_versionString());
	fprintf(out, "generator mjref_gen seed %ld scenes %ld elliptic %ld\n", seed, n, n_elliptic);
	for (i = 0; i < n + n_elliptic; i++) {
		random_scene(&s, i >= n);
		run_scene(out, i, &s);
	}
	if (out != stdout && fclose(out) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}
