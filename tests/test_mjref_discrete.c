/*
 * test_mjref_discrete.c: the contact core against tables the official MuJoCo WebAssembly
 * builds wrote (tests/mjref/mjref_js_discrete.mjs): random rest, drop and stability
 * scenes under Euler, implicitfast and discrete, refsafe on and off, timeconst from a
 * tenth of the timestep, for 3.12.0, 3.13.0 and 3.14.0.
 *
 *   tests/test_mjref_discrete            the committed tables (tests/fixtures/), no node
 *   tests/test_mjref_discrete TABLE...   tables written just now (tests/test_wasm.sh)
 *
 * What is compared (as tests/test_parity does against libmujoco): at 16 steps of every
 * run, one core step from MuJoCo's own state (height, speed, warmstart) must land on
 * MuJoCo's next state -- nothing can amplify there, so this holds in every regime; and
 * the whole run's answers (peak, rebound, max height, final and settled penetration,
 * through the library's entry points) wherever an ulp cannot grow: at most one impact
 * and no energy gain (a body that bounces again, or a contact at growth near or above
 * 1, turns the solvers' last-bit differences into any difference at all).
 * Tolerances: heights, penetrations and rebounds within 1e-6 relative with a 1e-9 m
 * absolute floor, speeds relative to max(|v|, g h), as the libmujoco 2.2.2 comparisons
 * are: per step the core's 1-D solve agrees with MuJoCo's Newton solve to a few ulps
 * (docs/parity.md).
 * Growth within 1e-6 relative: the table's growth is the spectral radius of MuJoCo's
 * numerical Jacobian of mj_step about the rest state; the step is affine there (flat
 * solimp, rows active), so the finite difference is exact to rounding (~1e-12), and
 * the generator leaves out near-double eigenvalues where the radius is a square root
 * of rounding.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/growth.h"
#include "core/scene.h"
#include "core/sim.h"

#define LINE_MAX_LEN 8192
#define REL_TOL 1e-6
#define LENGTH_FLOOR 1e-9

struct tally {
	int scenes, failures, discrete, replaced, stab, euler, implicitfast, whole_runs;
	double worst;
};

/* |a - b| within REL_TOL relative (floor: absolute); records the worst */
static int close_to(struct tally *t, double core, double mujoco, double floor)
{
	double err = fabs(core - mujoco), scale = fmax(fabs(mujoco), floor / REL_TOL);
	double rel = err / scale;

	if (!(rel <= REL_TOL) && !(core == mujoco))
		return 0;
	if (rel > t->worst)
		t->worst = rel;
	return 1;
}

static enum core_scene_integrator integrator_of(const char *name)
{
	if (strcmp(name, "discrete") == 0)
		return CORE_SCENE_DISCRETE;
	if (strcmp(name, "implicitfast") == 0)
		return CORE_SCENE_IMPLICITFAST;
	if (strcmp(name, "implicit") == 0)
		return CORE_SCENE_IMPLICIT;
	if (strcmp(name, "RK4") == 0)
		return CORE_SCENE_RK4;
	return CORE_SCENE_EULER;
}

/* the scene of a `scene` line; its kind into kind, its steps into *steps */
static int parse_scene(const char *line, int release, struct core_scene *s, char *kind, long *steps)
{
	char shape[16], integ[16], cone[16];
	double size[3], mass, h, impratio, f0, solref[2], solimp[5], mb, mf, height;
	int idx, refsafe, condim, n;

	n = sscanf(line,
	    "scene %d %15s %15s %lf %lf %lf %lf %lf %15s %d %lf %15s %d %lf %lf %lf %lf %lf %lf "
	    "%lf %lf %lf %lf %lf %ld",
	    &idx, kind, shape, &size[0], &size[1], &size[2], &mass, &h, integ, &refsafe, &impratio,
	    cone, &condim, &f0, &solref[0], &solref[1], &solimp[0], &solimp[1], &solimp[2],
	    &solimp[3], &solimp[4], &mb, &mf, &height, steps);
	if (n != 25)
		return -1;
	memset(s, 0, sizeof *s);
	s->shape = strcmp(shape, "box") == 0 ? CORE_SCENE_BOX : CORE_SCENE_SPHERE;
	memcpy(s->size, size, sizeof size);
	s->mass = mass;
	core_pair_geom_default(&s->geom);
	memcpy(s->geom.solref, solref, sizeof solref);
	memcpy(s->geom.solimp, solimp, sizeof solimp);
	s->geom.condim = condim;
	s->geom.friction[0] = f0;
	s->floor = s->geom;
	s->geom.margin = mb;
	s->floor.margin = mf;
	core_scene_option_default(&s->option);
	s->option.timestep = h;
	s->option.refsafe = refsafe;
	s->option.impratio = impratio;
	s->option.integrator = integrator_of(integ);
	s->option.cone = strcmp(cone, "elliptic") == 0 ? CORE_CONE_ELLIPTIC : CORE_CONE_PYRAMIDAL;
	s->option.mujoco = release;
	s->height = height;
	s->duration = (double)*steps * h;
	return 0;
}

/* a rest or drop scene: its samples and metrics against the core's */
static int check_drop(struct tally *t, const struct core_scene *s, const char *kind, long steps,
    const char *samples, const char *metrics)
{
	struct core_scene_model m;
	struct core_sim_drop drop;
	double peak, rebound, maxh, final;
	long count, impacts, i;
	const char *p = samples + strlen("samples ");
	char *end;
	int ok = 1;

	(void)steps;
	core_scene_prepare(s, &m);
	count = strtol(p, &end, 10);
	p = end;
	for (i = 0; i < count; i++) {
		double v[6];
		int j;
		for (j = 0; j < 6; j++) {
			v[j] = strtod(p, &end);
			p = end;
		}
		/* v: step, z, vel, warm before; z, vel after */
		double z = v[1], vel = v[2], warm = v[3];
		core_scene_step_warm(&m, &z, &vel, &warm);
		if (!close_to(t, z, v[4], LENGTH_FLOOR) ||
		    !close_to(t, vel, v[5], s->option.gravity * s->option.timestep)) {
			fprintf(stderr,
			    "  step %.0f from MuJoCo's state: core z %.17g v %.17g, MuJoCo %.17g "
			    "%.17g\n",
			    v[0], z, vel, v[4], v[5]);
			ok = 0;
		}
	}
	if (sscanf(metrics, "metrics %lf %lf %lf %lf %ld", &peak, &rebound, &maxh, &final,
	        &impacts) != 5)
		return 0;
	if (impacts > 1 || rebound > s->height)
		return ok; /* an ulp can grow from here: only the steps above compare */
	t->whole_runs++;
	/* the answers themselves, through the library's entry points */
	core_sim_drop_scene(s, &drop, NULL);
	ok &= close_to(t, drop.peak_penetration, peak, LENGTH_FLOOR) &&
	    close_to(t, drop.rebound, rebound, LENGTH_FLOOR) &&
	    close_to(t, drop.max_height, maxh, LENGTH_FLOOR) &&
	    close_to(t, drop.final_penetration, final, LENGTH_FLOOR);
	if (strcmp(kind, "rest") == 0) {
		struct core_sim_rest rest;
		core_sim_rest_scene(s, &rest);
		ok &= close_to(t, rest.settled_penetration, final, LENGTH_FLOOR);
	}
	if (!ok)
		fprintf(stderr, "  core peak %.17g rebound %.17g max %.17g final %.17g\n  %s\n",
		    drop.peak_penetration, drop.rebound, drop.max_height, drop.final_penetration,
		    metrics);
	return ok;
}

static int check_table(const char *path, struct tally *t)
{
	FILE *f = fopen(path, "r");
	char line[LINE_MAX_LEN], scene[LINE_MAX_LEN], samples[LINE_MAX_LEN], metrics[LINE_MAX_LEN];
	char version[32] = "";
	int release = -1, ok_all = 1;

	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		return 0;
	}
	samples[0] = metrics[0] = scene[0] = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "mujoco ", 7) == 0) {
			snprintf(version, sizeof version, "%.31s", line + 7);
			release = core_mjver_find(version);
		} else if (strncmp(line, "scene ", 6) == 0) {
			memcpy(scene, line, sizeof scene);
		} else if (strncmp(line, "samples ", 8) == 0) {
			memcpy(samples, line, sizeof samples);
		} else if (strncmp(line, "metrics ", 8) == 0 || strncmp(line, "growth ", 7) == 0) {
			memcpy(metrics, line, sizeof metrics);
		} else if (strcmp(line, "end") == 0) {
			struct core_scene s;
			char kind[16];
			long steps;
			int ok;

			if (release < 0 || parse_scene(scene, release, &s, kind, &steps) != 0) {
				fprintf(stderr, "%s: unreadable scene (release %s): %s\n", path,
				    version, scene);
				fclose(f);
				return 0;
			}
			t->scenes++;
			t->discrete += s.option.integrator == CORE_SCENE_DISCRETE;
			t->euler += s.option.integrator == CORE_SCENE_EULER;
			t->implicitfast += s.option.integrator == CORE_SCENE_IMPLICITFAST;
			if (strcmp(kind, "stab") == 0) {
				struct core_growth_report g;
				double want;
				t->stab++;
				ok = sscanf(metrics, "growth %lf", &want) == 1;
				core_growth_stability(s.geom.solref, s.geom.solimp, s.geom.solimp[0],
				    s.option.timestep, s.option.refsafe, s.option.integrator, &g);
				t->replaced += g.refsafe_replaced;
				ok = ok && close_to(t, g.growth, want, 0);
				if (!ok)
					fprintf(stderr, "  core growth %.17g, MuJoCo %s\n",
					    g.growth, metrics);
			} else {
				struct core_scene_model m;
				core_scene_prepare(&s, &m);
				/* rows refsafe replaces at the deepest impedance */
				t->replaced += m.discrete_refsafe && !m.gains.direct &&
				    m.timestep * m.timestep * m.gains.K * m.solimp.dwidth > 1;
				ok = check_drop(t, &s, kind, steps, samples, metrics);
			}
			if (!ok) {
				fprintf(
				    stderr, "%s (MuJoCo %s): %s differs\n", path, version, scene);
				t->failures++;
				ok_all = 0;
			}
			samples[0] = metrics[0] = 0;
		}
	}
	fclose(f);
	return ok_all;
}

int main(int argc, char **argv)
{
	static const char *const committed[] = {"mujoco-discrete-3.12.0.txt",
	    "mujoco-discrete-3.13.0.txt", "mujoco-discrete-3.14.0.txt"};
	struct tally t = {0};
	char path[4096];
	int i, ok = 1;

	if (argc > 1) {
		for (i = 1; i < argc; i++)
			ok &= check_table(argv[i], &t);
	} else {
		for (i = 0; i < (int)(sizeof committed / sizeof committed[0]); i++) {
			snprintf(path, sizeof path, "%s/%s", FIXTURE_DIR, committed[i]);
			ok &= check_table(path, &t);
		}
	}
	printf("%d scenes (%d discrete, %d Euler, %d implicitfast; %d stability; %d with rows "
	       "refsafe replaces; %d whole runs compared): %d differ; worst relative difference "
	       "%.2e\n",
	    t.scenes, t.discrete, t.euler, t.implicitfast, t.stab, t.replaced, t.whole_runs,
	    t.failures, t.worst);
	/* the sample must reach what it is meant to, or the test proves nothing */
	if (t.scenes < 30 || t.discrete < 10 || t.euler < 5 || t.implicitfast < 3 || t.stab < 5 ||
	    t.replaced < 3 || t.whole_runs < 10) {
		fprintf(
		    stderr, "too few scenes of some kind: the tables do not cover the question\n");
		ok = 0;
	}
	return ok ? 0 : 1;
}
