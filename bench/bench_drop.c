/*
 * bench_drop.c: the core's 2-second drop against MuJoCo's mj_step loop.
 *
 * The scene is the seed lesson's default: a 10 cm, 1 kg cube dropped 10 cm onto a
 * plane, solref (0.02, 1), dt = 2 ms, 2 s = 1000 steps. The core's time is one
 * core_sim_drop (stepping and the drop metrics); MuJoCo's is the stepping loop only,
 * recording the height after each step, after mj_resetData: model compilation and
 * the reset are left out, so the ratio favours MuJoCo if anything. Each side runs
 * several batches and keeps the fastest, the usual guard against a noisy machine.
 * Both answers must agree, or the exit status is 1.
 *
 * Usage: bench_drop [batches]   (make bench builds and runs it)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/scene.h"
#include "core/sim.h"
#include "mjscene.h"
#include "core/knobs.h"
#include "service/knobs.h"

#define BENCH_BATCHES 7
#define BENCH_CORE_DROPS 2000 /* per batch: ~tens of ms */
#define BENCH_MUJOCO_DROPS 20 /* per batch: ~tens of ms */
#define BENCH_TARGET_RATIO 100
/* the answers are compared relative to the scene's length scale, as in test_parity.c */
#define BENCH_REL_TOL 1e-9

static double now_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void lesson_cube(struct core_scene *s)
{
	s->shape = CORE_SCENE_BOX;
	s->size[0] = s->size[1] = s->size[2] = DEFAULT_SHAPE_SIZE;
	s->mass = DEFAULT_MASS;
	core_pair_geom_default(&s->geom);
	s->floor = s->geom;
	s->option.timestep = DEFAULT_TIMESTEP;
	s->option.mujoco = CORE_MJVER_2_2_2; /* the reference: libmujoco 2.2.2 */
	s->option.refsafe = 1;
	s->option.gravity = DEFAULT_GRAVITY;
	s->option.impratio = DEFAULT_IMPRATIO;
	s->option.integrator = CORE_SCENE_EULER;
	s->option.cone = CORE_CONE_PYRAMIDAL;
	s->height = DEFAULT_HEIGHT;
	s->duration = DEFAULT_DURATION;
}

/* seconds per drop of the fastest batch */
static double time_core(const struct core_scene *s, int batches, struct core_sim_drop *out)
{
	struct core_scene_model m;
	double best = INFINITY;
	int b, i;

	core_scene_prepare(s, &m);
	for (b = 0; b < batches; b++) {
		double start = now_seconds(), elapsed;
		for (i = 0; i < BENCH_CORE_DROPS; i++)
			core_sim_drop(&m, s->height, s->duration, out);
		elapsed = (now_seconds() - start) / BENCH_CORE_DROPS;
		if (elapsed < best)
			best = elapsed;
	}
	return best;
}

static double time_mujoco(struct mjscene *ms, long n, double *z, int batches)
{
	double best = INFINITY;
	int b, i;
	long k;

	for (b = 0; b < batches; b++) {
		double elapsed = 0;
		for (i = 0; i < BENCH_MUJOCO_DROPS; i++) {
			double start;
			mjscene_reset(ms);
			start = now_seconds();
			for (k = 0; k < n; k++) {
				mj_step(ms->model, ms->data);
				z[k] = ms->data->qpos[2];
			}
			elapsed += now_seconds() - start;
		}
		elapsed /= BENCH_MUJOCO_DROPS;
		if (elapsed < best)
			best = elapsed;
	}
	return best;
}

static int agree(const char *name, double core, double mujoco, double scale)
{
	int ok = fabs(core - mujoco) <= BENCH_REL_TOL * (fabs(mujoco) + scale);

	printf("  %-18s core %.17g  MuJoCo %.17g%s\n", name, core, mujoco, ok ? "" : "  DIFFER");
	return ok;
}

int main(int argc, char **argv)
{
	struct core_scene s;
	struct mjscene ms;
	struct mjscene_sample *samples = NULL;
	struct core_sim_drop core, mj;
	double *z = NULL, t_core, t_mujoco, scale;
	char err[600];
	int batches = argc > 1 ? atoi(argv[1]) : BENCH_BATCHES, ok, rc = 1;
	long n, k;

	if (batches < 1)
		batches = BENCH_BATCHES;
	lesson_cube(&s);
	n = core_sim_step_count(s.duration, s.option.timestep);
	if (mjscene_open(&ms, &s, err, sizeof err) != 0) {
		fprintf(stderr, "bench_drop: %s\n", err);
		return 1;
	}
	z = malloc(sizeof *z * (size_t)n);
	samples = calloc((size_t)n, sizeof *samples);
	if (!z || !samples) {
		fprintf(stderr, "bench_drop: out of memory\n");
		goto out;
	}

	t_core = time_core(&s, batches, &core);
	t_mujoco = time_mujoco(&ms, n, z, batches);

	/* the answer of the last timed MuJoCo run, through the same metrics as the tests */
	for (k = 0; k < n; k++)
		samples[k].z = z[k];
	mjscene_metrics(samples, n, ms.half_height, s.height, s.option.timestep, &mj);

	printf("bench_drop: the lesson's cube, %ld steps of %g s (%g s), best of %d batches\n", n,
	    s.option.timestep, s.duration, batches);
	printf("  core   (core_sim_drop)       %10.3f us per drop  (%.1f ns per step)\n",
	    t_core * 1e6, t_core * 1e9 / (double)n);
	printf("  MuJoCo (mj_step loop)   %10.3f us per drop  (%.1f ns per step)\n", t_mujoco * 1e6,
	    t_mujoco * 1e9 / (double)n);
	printf("  ratio                   %10.1f x  (target >= %d x%s)\n", t_mujoco / t_core,
	    BENCH_TARGET_RATIO, t_mujoco / t_core >= BENCH_TARGET_RATIO ? "" : ", NOT MET");

	scale = s.height + DEFAULT_SHAPE_SIZE;
	ok = core.steps == mj.steps;
	ok &= agree("peak_penetration", core.peak_penetration, mj.peak_penetration, scale);
	ok &= agree("rebound", core.rebound, mj.rebound, scale);
	ok &= agree("max_height", core.max_height, mj.max_height, scale);
	ok &= agree("jitter", core.jitter, mj.jitter, scale);
	ok &= agree("final_penetration", core.final_penetration, mj.final_penetration, scale);
	ok &= core.energy_gain == mj.energy_gain;
	printf("  answers %s\n", ok ? "agree" : "DIFFER");
	rc = ok ? 0 : 1;
out:
	free(z);
	free(samples);
	mjscene_close(&ms);
	return rc;
}
