/*
 * grasp_scene.h: the random grasp scenes (issue 48): a sphere, capsule or box between two
 * box pads on slide joints with damping, armature and frictionloss, driven by motors or
 * position servos. Defined once for tests/test_grasp.c; grasp_scene.mjs ports it draw for
 * draw for the WebAssembly table generator tests/mjref/mjref_js_grasp_gen.mjs.
 *
 * Header only, on the C library alone, as hold_scene.h (whose geom and pad draws it
 * reuses): the draws come from a splitmix64 sequence the caller seeds and owns.
 */
#ifndef CONTACTD_TESTS_GRASP_SCENE_H
#define CONTACTD_TESTS_GRASP_SCENE_H

#include "hold_scene.h"

/* MJCF's geom types, in the core's order (core_hold_shape) */
enum grasp_scene_shape { GRASP_SCENE_SPHERE, GRASP_SCENE_CAPSULE, GRASP_SCENE_BOX };

/* MJCF's integrators in the order of the releases that added them (core_scene_integrator
 * has its own order): 2.2.2 has the first two, 3.x the first three, 3.13.0 on all four */
enum grasp_scene_integrator {
	GRASP_SCENE_EULER,
	GRASP_SCENE_IMPLICIT,
	GRASP_SCENE_IMPLICITFAST,
	GRASP_SCENE_DISCRETE
};

/* An object between two box pads, each pad on a slide joint driven by an actuator. */
struct grasp_scene {
	enum grasp_scene_shape shape;
	double size[3];                         /* MJCF's: r; r, half-length; half-sizes (m) */
	double mass;                            /* the object's (kg) */
	double pad_size[3], pad_mass;           /* each pad's half-sizes (m) and mass (kg) */
	double damping, armature, frictionloss; /* each pad joint's */
	int position;                           /* 1: position servo, else motor */
	double grip_force;                      /* motor: ctrl (N) */
	double kp, kv, squeeze;                 /* position servo: gains and ctrl (m) */
	int forcelimited;
	double forcerange[2];
	enum grasp_scene_integrator integrator;
	int elliptic; /* the cone: elliptic, else pyramidal */
	int noslip;   /* noslip_iterations */
	double timestep, impratio, gravity, duration;
	struct hold_scene_geom object, pad;
};

/* 0 half the time, else log-uniform in [lo, hi): a joint property that is often absent */
static inline double grasp_scene_maybe(uint64_t *rng, double lo, double hi)
{
	return hold_scene_uniform(rng, 0, 1) < 0.5 ? 0 : hold_scene_log_uniform(rng, lo, hi);
}

/*
 * A random grasp into s, drawn from *rng. integrators (2, 3 or 4) is how many of enum
 * grasp_scene_integrator's the release has; the draw takes the same one number whatever
 * it is, so the releases' tables of one seed hold the same scenes but for their
 * integrator. Shape a third each: sphere r 4-30 mm; capsule r 4-30 mm, half-length 5-40
 * mm (longer than the pads' HY in about a third); box half-sizes 5-20 mm. Mass 20-300 g
 * (log). The geoms and pads as hold_scene's wide scenes (hold_scene_draw_geoms: a pad margin
 * in a fifth); joint damping, armature and frictionloss each 0 half the time, else 0.1-200
 * N s/m, 1-50 g, 0.01-2 N (log). A motor half the time (1.1-50x the Coulomb minimum
 * m g / (2 mu)), else a position servo: kp 200-50,000 N/m (log), kv 0 or 0.1-20 N s/m
 * (log), squeeze 0.5-5 mm, and in a third of them forcerange +-0.5-30 N. Both cones,
 * impratio 1 (30 %) or 1-10; timestep 1-5 ms; noslip 1-10 in a fifth; 1 s.
 */
static inline void grasp_scene_draw(struct grasp_scene *s, uint64_t *rng, int integrators)
{
	memset(s, 0, sizeof *s);
	s->shape = (enum grasp_scene_shape)hold_scene_pick(rng, 3);
	s->size[0] = hold_scene_uniform(rng, 0.004, 0.03);
	if (s->shape == GRASP_SCENE_CAPSULE) {
		s->size[1] = hold_scene_uniform(rng, 0.005, 0.04);
	} else if (s->shape == GRASP_SCENE_BOX) {
		s->size[0] = hold_scene_uniform(rng, 0.005, 0.02);
		s->size[1] = hold_scene_uniform(rng, 0.005, 0.02);
		s->size[2] = hold_scene_uniform(rng, 0.005, 0.02);
	}
	s->mass = hold_scene_log_uniform(rng, 0.02, 0.3);
	hold_scene_draw_geoms(&s->object, &s->pad, rng, HOLD_SCENE_WIDE);
	hold_scene_draw_pads(s->pad_size, &s->pad_mass, rng);
	s->damping = grasp_scene_maybe(rng, 0.1, 200);
	s->armature = grasp_scene_maybe(rng, 0.001, 0.05);
	s->frictionloss = grasp_scene_maybe(rng, 0.01, 2);
	s->gravity = 9.81;
	if (hold_scene_uniform(rng, 0, 1) < 0.5) {
		s->grip_force = s->mass * s->gravity / (2 * hold_scene_slide(&s->object, &s->pad)) *
		    hold_scene_log_uniform(rng, 1.1, 50);
	} else {
		s->position = 1;
		s->kp = hold_scene_log_uniform(rng, 200, 5e4);
		s->kv = grasp_scene_maybe(rng, 0.1, 20);
		s->squeeze = hold_scene_uniform(rng, 0.0005, 0.005);
		if (hold_scene_uniform(rng, 0, 1) < 1.0 / 3) {
			s->forcelimited = 1;
			s->forcerange[1] = hold_scene_uniform(rng, 0.5, 30);
			s->forcerange[0] = -s->forcerange[1];
		}
	}
	s->integrator = (enum grasp_scene_integrator)hold_scene_pick(rng, integrators);
	s->elliptic = hold_scene_uniform(rng, 0, 1) < 0.5;
	s->impratio = hold_scene_uniform(rng, 0, 1) < 0.3 ? 1 : hold_scene_uniform(rng, 1, 10);
	s->timestep = hold_scene_uniform(rng, 0.001, 0.005);
	if (hold_scene_uniform(rng, 0, 1) < 0.2)
		s->noslip = hold_scene_noslip(rng);
	s->duration = 1;
}

/*
 * The asymmetric step's scenes (docs/hold.md, "noslip"): a grasp drawn as
 * grasp_scene_draw (its joint and actuator as drawn), then made a sphere and, for cls 'n',
 * given noslip 1-10, or for cls 'o' no noslip and neither margin nor gap, the touching
 * start where 3.8.0-3.13.0's broadphase pairs one pad only (in about one in nine).
 */
static inline void grasp_scene_asym(struct grasp_scene *s, uint64_t *rng, char cls)
{
	s->shape = GRASP_SCENE_SPHERE;
	s->size[1] = s->size[2] = 0;
	if (cls == 'n') {
		s->noslip = hold_scene_noslip(rng);
		return;
	}
	s->noslip = 0;
	s->object.margin = s->object.gap = s->pad.margin = s->pad.gap = 0;
}

#endif
