/*
 * test_model_wasm.c: the model layer (src/model/) under MuJoCo 3.12.0, 3.13.0 and 3.14.0
 * against what the official WebAssembly builds compile and collide for the MJCF files of
 * tests/fixtures/mjcf/ (tests/mjref/mjref_js_model.mjs wrote the tables).
 *
 *   tests/test_model_wasm              the committed tables (tests/fixtures/mjcf/), no node
 *   tests/test_model_wasm TABLE...     tables written just now (tests/test_wasm.sh)
 *
 * Per file: every geom's type, body, condim, contype, conaffinity, priority, solmix,
 * solref, solimp, friction, margin, gap and size, every body's mass; the pairs -- the
 * generator raised every geom's, pair's and body's margin by PAD and made every geom but
 * a plane a sphere, so each pair MuJoCo's filters let through made a contact; here the
 * same PAD is added to the compiled model's margins before listing the pairs, and the
 * two sets must be equal, each pair with MuJoCo's condim, friction, solref,
 * solreffriction, solimp and includemargin -- and every rest the layer answers against the body's
 * height after the whole model's run (MODEL_REST_DURATION). Tolerances: parameters copied or
 * averaged in the same arithmetic, 1e-14 relative; includemargin, read through + PAD, 1e-13
 * absolute (ulps of 2 PAD); rests 1e-6 relative, the bound for the core against a run of
 * the whole model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/mjcf.h"
#include "model/model.h"
#include "model/pairs.h"
#include "model/rest.h"
#include "service/knobs.h"

#define PARAM_TOL 1e-14
#define MARGIN_TOL 1e-13
#define REST_TOL 1e-6
#define LINE_LEN 4096
#define MAX_ITEMS 64

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

static int close_to(double a, double b, double tol)
{
	return a == b || fabs(a - b) <= tol * fmax(1, fmax(fabs(a), fabs(b)));
}

/* the whitespace-separated words of line (modified in place) */
static int words(char *line, char *w[MAX_ITEMS])
{
	int n = 0;
	char *save = NULL, *t;
	for (t = strtok_r(line, " \t\n", &save); t && n < MAX_ITEMS;
	     t = strtok_r(NULL, " \t\n", &save))
		w[n++] = t;
	return n;
}

struct file_ref {
	char name[256];
	int ngeom, nbody;
	double timestep;
	double (*geom)[26]; /* type body condim contype conaffinity priority solmix solref(2)
	                       solimp(5) friction(3) margin gap size(3) */
	double (*body)[2];  /* mass, xpos z after the run */
	double (*pair)[19]; /* g1 g2 dim friction(5) solref(2) solreffriction(2) solimp(5) incl */
	int npair, cap;
};

struct tally {
	int files, geoms, pairs, rests;
	double worst_rest;
};

static const struct mpair_pair *find_pair(const struct mpair_list *l, int g1, int g2)
{
	int i;
	for (i = 0; i < l->count; i++)
		if ((l->pairs[i].geom1 == g1 && l->pairs[i].geom2 == g2) ||
		    (l->pairs[i].geom1 == g2 && l->pairs[i].geom2 == g1))
			return &l->pairs[i];
	return NULL;
}

static void check_file(const char *release, double pad, const struct file_ref *f, struct tally *t)
{
	struct mjcf_doc doc;
	struct mdl_model m;
	struct mpair_list pairs, padded;
	struct mrest_body *rest;
	struct err err;
	int i, k, b;

	err_clear(&err);
	if (mjcf_load(f->name, mjcf_disk_reader, (void *)FIXTURE_DIR, &doc, &err) != 0 ||
	    mdl_compile(&doc, core_mjver_find(release), &m, &err) != 0) {
		CHECK(0, "%s %s: %s", release, f->name, err.message);
		return;
	}
	t->files++;
	CHECK(m.ngeom == f->ngeom && m.nbody == f->nbody, "%s %s: %d geoms %d bodies, MuJoCo %d %d",
	    release, f->name, m.ngeom, m.nbody, f->ngeom, f->nbody);
	CHECK(m.option.timestep == f->timestep, "%s %s: timestep", release, f->name);
	for (i = 0; i < m.ngeom && i < f->ngeom; i++) {
		const struct mdl_geom *g = &m.geoms[i];
		const double *r = f->geom[i];
		double mine[26] = {g->type, g->body, g->condim, g->contype, g->conaffinity,
		    g->priority, g->solmix, g->solref[0], g->solref[1], g->solimp[0], g->solimp[1],
		    g->solimp[2], g->solimp[3], g->solimp[4], g->friction[0], g->friction[1],
		    g->friction[2], g->margin, g->gap, g->size[0], g->size[1], g->size[2]};
		int n = g->answerable ? 22 : 19; /* a mesh's size is not read */
		for (k = 0; k < n; k++)
			CHECK(close_to(mine[k], r[k], PARAM_TOL),
			    "%s %s geom %d field %d: %.17g, MuJoCo %.17g", release, f->name, i, k,
			    mine[k], r[k]);
		t->geoms++;
	}
	for (b = 0; b < m.nbody && b < f->nbody; b++)
		CHECK(close_to(m.bodies[b].mass, f->body[b][0], 1e-12),
		    "%s %s body %d mass %.17g, MuJoCo %.17g", release, f->name, b, m.bodies[b].mass,
		    f->body[b][0]);
	/* the rests, with the model's own margins */
	if (mpair_list(&m, &pairs, &err) != 0) {
		CHECK(0, "%s %s: %s", release, f->name, err.message);
		goto out;
	}
	rest = calloc((size_t)m.nbody, sizeof *rest);
	mrest_bodies(&m, &pairs, MODEL_REST_DURATION, rest);
	for (b = 1; b < m.nbody && b < f->nbody; b++) {
		const struct mrest_body *r = &rest[b - 1];
		const struct mdl_geom *g;
		double pen, rel;
		if (!r->answered)
			continue;
		g = &m.geoms[r->geom];
		pen = m.geoms[r->plane].pos[2] -
		    (f->body[b][1] - (g->type == MDL_SPHERE ? g->size[0] : g->size[2]));
		rel = fabs(r->rest.settled_penetration - pen) / fabs(pen);
		CHECK(rel <= REST_TOL, "%s %s body %d: settled %.17g, MuJoCo %.17g (rel %.3g)",
		    release, f->name, b, r->rest.settled_penetration, pen, rel);
		if (rel > t->worst_rest)
			t->worst_rest = rel;
		t->rests++;
	}
	free(rest);
	mpair_free(&pairs);
	/* the pairs, with the generator's padded margins */
	for (i = 0; i < m.ngeom; i++)
		m.geoms[i].margin += pad;
	for (i = 0; i < m.npair; i++)
		m.pairs[i].margin += pad;
	if (mpair_list(&m, &padded, &err) != 0) {
		CHECK(0, "%s %s: %s", release, f->name, err.message);
		goto out;
	}
	CHECK(padded.count == f->npair, "%s %s: %d pairs listed, MuJoCo collides %d", release,
	    f->name, padded.count, f->npair);
	for (i = 0; i < f->npair; i++) {
		const double *r = f->pair[i];
		const struct mpair_pair *p = find_pair(&padded, (int)r[0], (int)r[1]);
		if (!p) {
			CHECK(0, "%s %s: MuJoCo collides geoms %d and %d, not listed", release,
			    f->name, (int)r[0], (int)r[1]);
			continue;
		}
		CHECK(p->condim == (int)r[2], "%s %s pair %d-%d condim", release, f->name,
		    (int)r[0], (int)r[1]);
		for (k = 0; k < 5; k++)
			CHECK(close_to(p->friction[k], r[3 + k], PARAM_TOL),
			    "%s %s pair %d-%d friction[%d]", release, f->name, (int)r[0], (int)r[1],
			    k);
		for (k = 0; k < 2; k++)
			CHECK(close_to(p->solref[k], r[8 + k], PARAM_TOL),
			    "%s %s pair %d-%d solref[%d]: %.17g, MuJoCo %.17g", release, f->name,
			    (int)r[0], (int)r[1], k, p->solref[k], r[8 + k]);
		/* a <pair>'s, else (0, 0): the friction rows then use solref */
		for (k = 0; k < 2; k++)
			CHECK(p->solreffriction[k] == r[10 + k],
			    "%s %s pair %d-%d solreffriction[%d]: %.17g, MuJoCo %.17g", release,
			    f->name, (int)r[0], (int)r[1], k, p->solreffriction[k], r[10 + k]);
		for (k = 0; k < 5; k++)
			CHECK(close_to(p->solimp[k], r[12 + k], PARAM_TOL),
			    "%s %s pair %d-%d solimp[%d]", release, f->name, (int)r[0], (int)r[1],
			    k);
		CHECK(fabs(p->includemargin - r[17]) <= MARGIN_TOL,
		    "%s %s pair %d-%d includemargin %.17g, MuJoCo %.17g", release, f->name,
		    (int)r[0], (int)r[1], p->includemargin, r[17]);
		t->pairs++;
	}
	mpair_free(&padded);
out:
	mdl_free(&m);
	mjcf_free(&doc);
}

static void free_ref(struct file_ref *f)
{
	free(f->geom);
	free(f->body);
	free(f->pair);
	memset(f, 0, sizeof *f);
}

static int check_table(const char *path)
{
	FILE *in = fopen(path, "r");
	char line[LINE_LEN], release[32] = "";
	char *w[MAX_ITEMS];
	struct file_ref f;
	struct tally t = {0, 0, 0, 0, 0};
	double pad = -1;
	int n, i, before = failures;

	memset(&f, 0, sizeof f);
	if (!in) {
		fprintf(stderr, "FAIL: cannot read %s\n", path);
		return ++failures;
	}
	while (fgets(line, sizeof line, in)) {
		n = words(line, w);
		if (n == 0 || w[0][0] == '#')
			continue;
		if (!strcmp(w[0], "mujoco") && n == 2) {
			snprintf(release, sizeof release, "%s", w[1]);
		} else if (!strcmp(w[0], "generator") && n >= 4) {
			pad = strtod(w[3], NULL);
		} else if (!strcmp(w[0], "file") && n == 8) {
			free_ref(&f);
			snprintf(f.name, sizeof f.name, "%s", w[1]);
			f.ngeom = atoi(w[3]);
			f.nbody = atoi(w[5]);
			f.timestep = strtod(w[7], NULL);
			f.geom = calloc((size_t)f.ngeom + 1, sizeof *f.geom);
			f.body = calloc((size_t)f.nbody + 1, sizeof *f.body);
		} else if (!strcmp(w[0], "geom") && n == 24 && f.geom) {
			int id = atoi(w[1]);
			if (id >= 0 && id < f.ngeom)
				for (i = 0; i < 22; i++)
					f.geom[id][i] = strtod(w[2 + i], NULL);
		} else if (!strcmp(w[0], "body") && n == 4 && f.body) {
			int id = atoi(w[1]);
			if (id >= 0 && id < f.nbody)
				for (i = 0; i < 2; i++)
					f.body[id][i] = strtod(w[2 + i], NULL);
		} else if (!strcmp(w[0], "pair") && n == 19) {
			if (f.npair == f.cap) {
				f.cap = f.cap ? 2 * f.cap : 64;
				f.pair = realloc(f.pair, (size_t)f.cap * sizeof *f.pair);
			}
			for (i = 0; i < 18; i++)
				f.pair[f.npair][i] = strtod(w[1 + i], NULL);
			f.npair++;
		} else if (!strcmp(w[0], "end")) {
			if (core_mjver_find(release) < 0 || !(pad > 0))
				CHECK(0, "%s: no valid mujoco or generator line", path);
			else
				check_file(release, pad, &f, &t);
			free_ref(&f);
		} else {
			CHECK(0, "%s: unreadable line starting \"%s\" (%d words)", path, w[0], n);
		}
	}
	fclose(in);
	free_ref(&f);
	CHECK(t.files > 0, "%s: no files", path);
	printf("%s: MuJoCo %s, %d files, %d geoms, %d pairs, %d rests (worst %.3g relative)\n",
	    path, release, t.files, t.geoms, t.pairs, t.rests, t.worst_rest);
	return failures - before;
}

int main(int argc, char **argv)
{
	static const char *const committed[] = {FIXTURE_DIR "/wasm-3.12.0.txt",
	    FIXTURE_DIR "/wasm-3.13.0.txt", FIXTURE_DIR "/wasm-3.14.0.txt", NULL};
	int i;

	if (argc > 1)
		for (i = 1; i < argc; i++)
			check_table(argv[i]);
	else
		for (i = 0; committed[i]; i++)
			check_table(committed[i]);
	return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
