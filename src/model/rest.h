/*
 * rest.h: the bodies of a compiled model whose rest on a plane the core computes
 * exactly (a free body of the world, no child body, one sphere or box geom at its
 * origin, unrotated, above an unrotated world plane it collides with, vertical gravity,
 * no noslip), with the pair's mixed parameters, the body's mass and the model's option;
 * for every other body, why not.
 */
#ifndef CONTACTD_MODEL_REST_H
#define CONTACTD_MODEL_REST_H

#include "core/sim.h"
#include "model/model.h"
#include "model/pairs.h"

struct mrest_body {
	int body;
	int answered; /* 1: rest is the core's answer; 0: why says what prevents it */
	char why[200];
	int geom, plane; /* the body's geom and the plane (answered only) */
	int pair;        /* index in the pair list */
	int other_pairs; /* pairs of the body's geom with geoms other than the plane: assumed
	                    not touching it at rest */
	double height;   /* m: the lowest point's height above the plane where the model puts it */
	struct core_scene scene; /* the question asked of the core */
	struct core_sim_rest rest;
};

/* One entry per body but the world, in body order, into out[0 .. m->nbody-2] (the
 * caller allocates m->nbody - 1). Settles for duration s (>= 0). Never fails; once the
 * calling thread's budget stopped (core/budget.h) the bodies left are not answered, and
 * the caller, which knows it stopped, discards them. */
void mrest_bodies(const struct mdl_model *m, const struct mpair_list *pairs, double duration,
    struct mrest_body *out);

#endif
