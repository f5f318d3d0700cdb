/*
 * hold_scene.h: the random hold scenes (issue 21's ranges), defined once for
 * tests/test_hold.c and the table generator tests/mjref/mjref_hold.c.
 *
 * Header only, on the C library alone: mjref_hold is compiled by itself against each
 * MuJoCo build and cannot link the project, and test_hold copies a drawn scene into
 * its struct core_hold. The draws come from a splitmix64 sequence (reproducible across
 * platforms) the caller seeds and owns.
 */
#ifndef CONTACTD_TESTS_HOLD_SCENE_H
#define CONTACTD_TESTS_HOLD_SCENE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* One geom's contact parameters, as MJCF's geom attributes. */
struct hold_scene_geom {
	double solref[2], solimp[5];
	int condim;
	double friction[3], margin, gap, solmix;
	int priority;
};

/* A sphere pinched between two motor-driven box pads. */
struct hold_scene {
	double radius, mass;          /* the sphere's */
	double pad_size[3], pad_mass; /* each pad's half-sizes (m) and mass */
	double grip_force;            /* each motor's ctrl (N) */
	double timestep, impratio, gravity, duration;
	int elliptic; /* the cone: elliptic, else pyramidal */
	int implicit; /* the integrator: implicit, else Euler */
	int noslip;   /* noslip_iterations */
	struct hold_scene_geom object, pad;
};

/*
 * Which draws make a scene. The committed hold tables fix their scenes by their seed,
 * and test_hold's measured deviations (docs/hold.md) by its own, so neither sequence may
 * change: the tables' scenes (HOLD_SCENE_TABLE) draw no pad margin and gap and no
 * integrator (Euler), and map the cone draw the other way round from test_hold's
 * (HOLD_SCENE_LIVE). The ranges are the same. HOLD_SCENE_WIDE (the 3.12.0-3.14.0 tables,
 * made by mjref_js_hold_gen.mjs, whose hold_scene.mjs ports this draw) is TABLE's with the
 * pads' dampratio from 0.2 (bouncing pads), grips from 1.1x the Coulomb minimum and LIVE's
 * pad margin and gap: where the one-pad start of 3.8.0-3.13.0 shows (docs/hold.md).
 */
enum hold_scene_rules { HOLD_SCENE_TABLE, HOLD_SCENE_LIVE, HOLD_SCENE_WIDE };

/* A uniform number in [lo, hi), the next of the sequence *rng. */
static inline double hold_scene_uniform(uint64_t *rng, double lo, double hi)
{
	uint64_t z = (*rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return lo + (hi - lo) * ((double)(z >> 11) / 9007199254740992.0);
}

/* A number whose logarithm is uniform over [log lo, log hi). */
static inline double hold_scene_log_uniform(uint64_t *rng, double lo, double hi)
{
	return exp(hold_scene_uniform(rng, log(lo), log(hi)));
}

/* A uniform integer in 0 .. n-1. */
static inline int hold_scene_pick(uint64_t *rng, int n)
{
	int k = (int)hold_scene_uniform(rng, 0, n);

	return k < n ? k : n - 1;
}

/* MuJoCo's default geom parameters. */
static inline void hold_scene_geom_default(struct hold_scene_geom *g)
{
	static const struct hold_scene_geom d = {
	    {0.02, 1}, {0.9, 0.95, 0.001, 0.5, 2}, 3, {1, 0.005, 0.0001}, 0, 0, 1, 0};

	*g = d;
}

/*
 * The two geoms' contact parameters, drawn from *rng by rules into object and pad (both
 * reset to MuJoCo's defaults first): the pads' solref (standard or direct), solimp, condim
 * 3/4/6 and friction random; priority 1 on the pads, or priority 0 on both with solmix and
 * the object's condim, slide friction and (standard) solref random; with rules other than
 * HOLD_SCENE_TABLE, a pad margin in a fifth of the draws (and a gap inside it half the
 * time). Also tests/mjref/grasp_scene.h's.
 */
static inline void hold_scene_draw_geoms(struct hold_scene_geom *object,
    struct hold_scene_geom *pad, uint64_t *rng, enum hold_scene_rules rules)
{
	static const int condims[] = {3, 4, 6};
	struct hold_scene_geom *g = pad;

	hold_scene_geom_default(object);
	hold_scene_geom_default(g);
	if (hold_scene_uniform(rng, 0, 1) < 0.8) {
		g->solref[0] = hold_scene_log_uniform(rng, 0.002, 0.05);
		g->solref[1] = hold_scene_uniform(rng, rules == HOLD_SCENE_WIDE ? 0.2 : 0.5, 2);
	} else {
		g->solref[0] = -hold_scene_log_uniform(rng, 1e3, 1e5);
		g->solref[1] = -hold_scene_log_uniform(rng, 10, 300);
	}
	g->solimp[0] = hold_scene_uniform(rng, 0.5, 0.95);
	g->solimp[1] = hold_scene_uniform(rng, g->solimp[0], 0.99);
	g->solimp[2] = hold_scene_log_uniform(rng, 1e-4, 0.01);
	g->solimp[3] = hold_scene_uniform(rng, 0.1, 0.9);
	g->solimp[4] = hold_scene_uniform(rng, 1, 4);
	g->condim = condims[hold_scene_pick(rng, 3)];
	g->friction[0] = hold_scene_uniform(rng, 0.3, 1.5);
	g->friction[1] = hold_scene_log_uniform(rng, 1e-4, 0.02);
	g->friction[2] = hold_scene_log_uniform(rng, 1e-5, 1e-3);
	if (hold_scene_uniform(rng, 0, 1) < 0.5) {
		g->priority = 1;
	} else {
		/* equal priority: condim and friction take the max, solref/solimp the mix */
		g->solmix = hold_scene_log_uniform(rng, 0.2, 5);
		object->solmix = hold_scene_log_uniform(rng, 0.2, 5);
		object->condim = condims[hold_scene_pick(rng, 3)];
		object->friction[0] = hold_scene_uniform(rng, 0.3, 1.5);
		if (g->solref[0] > 0) {
			object->solref[0] = hold_scene_log_uniform(rng, 0.002, 0.05);
			object->solref[1] = hold_scene_uniform(rng, 0.5, 2);
		}
	}
	if (rules != HOLD_SCENE_TABLE && hold_scene_uniform(rng, 0, 1) < 0.2) {
		/* a margin (rows before touching) and sometimes a gap inside it */
		g->margin = hold_scene_uniform(rng, 0, 0.002);
		g->gap =
		    hold_scene_uniform(rng, 0, 1) < 0.5 ? hold_scene_uniform(rng, 0, g->margin) : 0;
	}
}

/* Each pad's half-sizes 3-10 x 10-30 x 100-300 mm and mass 20-200 g, drawn from *rng.
 * Also tests/mjref/grasp_scene.h's. */
static inline void hold_scene_draw_pads(double size[3], double *mass, uint64_t *rng)
{
	size[0] = hold_scene_uniform(rng, 0.003, 0.01);
	size[1] = hold_scene_uniform(rng, 0.01, 0.03);
	size[2] = hold_scene_uniform(rng, 0.1, 0.3);
	*mass = hold_scene_log_uniform(rng, 0.02, 0.2);
}

/* The contact's sliding friction: the pads' when their priority wins, else the larger. */
static inline double hold_scene_slide(
    const struct hold_scene_geom *object, const struct hold_scene_geom *pad)
{
	return pad->priority > object->priority ? pad->friction[0]
	                                        : fmax(pad->friction[0], object->friction[0]);
}

/*
 * A random scene into s, drawn from *rng by rules: radius 1-4 cm, mass 30-500 g; the
 * geoms by hold_scene_draw_geoms and the pads by hold_scene_draw_pads; timestep 1-5 ms;
 * impratio 1 or 1-10; both cones; a grip of 2-50x the Coulomb minimum m*g/(2*mu); 0.5 s.
 * HOLD_SCENE_LIVE adds implicit integration (a quarter). noslip is 0.
 */
static inline void hold_scene_draw(struct hold_scene *s, uint64_t *rng, enum hold_scene_rules rules)
{
	memset(s, 0, sizeof *s);
	s->radius = hold_scene_uniform(rng, 0.01, 0.04);
	s->mass = hold_scene_log_uniform(rng, 0.03, 0.5);
	hold_scene_draw_geoms(&s->object, &s->pad, rng, rules);
	hold_scene_draw_pads(s->pad_size, &s->pad_mass, rng);
	s->timestep = hold_scene_uniform(rng, 0.001, 0.005);
	s->gravity = 9.81;
	s->impratio = hold_scene_uniform(rng, 0, 1) < 0.3 ? 1 : hold_scene_uniform(rng, 1, 10);
	s->elliptic = (hold_scene_uniform(rng, 0, 1) < 0.5) == (rules != HOLD_SCENE_LIVE);
	if (rules == HOLD_SCENE_LIVE)
		s->implicit = hold_scene_uniform(rng, 0, 1) >= 0.75;
	s->grip_force = s->mass * s->gravity / (2 * hold_scene_slide(&s->object, &s->pad)) *
	    hold_scene_log_uniform(rng, rules == HOLD_SCENE_WIDE ? 1.1 : 2, 50);
	s->duration = 0.5;
}

/* A random noslip_iterations, 1-10. */
static inline int hold_scene_noslip(uint64_t *rng)
{
	return 1 + hold_scene_pick(rng, 10);
}

#endif
