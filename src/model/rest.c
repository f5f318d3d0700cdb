/*
 * rest.c: which bodies the core's plane rest answers exactly, and its answer.
 */
#include "model/rest.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/budget.h"
#include "core/knobs.h"

static int refuse(struct mrest_body *r, const char *why)
{
	snprintf(r->why, sizeof r->why, "%s", why);
	return 0;
}

static void to_pair_geom(const struct mpair_pair *p, struct core_pair_geom *g)
{
	memcpy(g->solref, p->solref, sizeof g->solref);
	memcpy(g->solimp, p->solimp, sizeof g->solimp);
	g->condim = p->condim;
	g->friction[0] = p->friction[0];
	g->friction[1] = p->friction[2];
	g->friction[2] = p->friction[3];
	g->margin = p->margin;
	g->gap = p->gap;
	/* both geoms carry the pair's mixed values: equal weights mix them to themselves */
	g->solmix = 1;
	g->priority = 0;
}

/* 1 when the body is answered; fills r. */
static int one(const struct mdl_model *m, const struct mpair_list *pairs, int b, double duration,
    struct mrest_body *r)
{
	const struct mdl_body *body = &m->bodies[b];
	const struct mdl_option *o = &m->option;
	const struct mdl_geom *g, *plane;
	const struct mpair_pair *pp = NULL;
	double bottom;
	int i;

	if (body->parent != 0)
		return refuse(r, "not a child of the world");
	if (!body->free)
		return refuse(r,
		    body->joints ? "its joints are not one free joint"
		                 : "no free joint: it does not move");
	if (body->children)
		return refuse(r, "it has child bodies");
	if (body->geomnum != 1)
		return refuse(r, "it has not exactly one geom");
	g = &m->geoms[body->geomadr];
	r->geom = body->geomadr;
	if (g->type != MDL_SPHERE && g->type != MDL_BOX)
		return refuse(r, "its geom is neither a sphere nor a box");
	if (body->rotated || g->rotated)
		return refuse(
		    r, "its frame or its geom is rotated: the core's box rests flat, unrotated");
	if (g->pos[0] != 0 || g->pos[1] != 0 || g->pos[2] != 0 || body->inertial_offset)
		return refuse(r, "its geom or inertial is off the body's origin");
	if (!(body->mass > 0) || !isfinite(body->mass))
		return refuse(r, "its mass is not positive");
	if (!o->gravity_on || o->gravity[0] != 0 || o->gravity[1] != 0 || !(o->gravity[2] < 0))
		return refuse(r, "gravity is not along -z");
	if (o->noslip_iterations > 0)
		return refuse(r, "noslip_iterations is set: the core's rest has no noslip pass");
	/* the rest row's bound on one simulation (a tiny timestep would be unbounded work) */
	if (!(duration / o->timestep < LIMIT_MAX_STEPS + 0.5)) {
		snprintf(r->why, sizeof r->why,
		    "its %g s of settling would take more than %ld steps at the model's timestep",
		    duration, LIMIT_MAX_STEPS);
		return 0;
	}
	for (i = 0; i < pairs->count; i++) {
		const struct mpair_pair *p = &pairs->pairs[i];
		int other;
		if (p->geom1 != r->geom && p->geom2 != r->geom)
			continue;
		other = p->geom1 == r->geom ? p->geom2 : p->geom1;
		if (m->geoms[other].type == MDL_PLANE && m->geoms[other].body == 0 && !pp) {
			pp = p;
			r->pair = i;
			r->plane = other;
		} else {
			r->other_pairs++;
		}
	}
	if (!pp)
		return refuse(r, "it collides with no plane of the world");
	plane = &m->geoms[r->plane];
	if (plane->rotated)
		return refuse(r, "its plane is rotated: the core's plane is horizontal");
	if (pp->friction[0] != pp->friction[1] || pp->friction[3] != pp->friction[4])
		return refuse(r, "its pair's friction is not (slide, slide, spin, roll, roll)");
	if ((plane->size[0] > 0 && fabs(body->pos[0] - plane->pos[0]) > plane->size[0]) ||
	    (plane->size[1] > 0 && fabs(body->pos[1] - plane->pos[1]) > plane->size[1]))
		return refuse(r, "it is not above its plane");
	bottom = body->pos[2] - (g->type == MDL_SPHERE ? g->size[0] : g->size[2]);
	r->height = bottom - plane->pos[2];
	if (r->height < 0)
		return refuse(r, "it starts below the plane");
	memset(&r->scene, 0, sizeof r->scene);
	r->scene.shape = g->type == MDL_SPHERE ? CORE_SCENE_SPHERE : CORE_SCENE_BOX;
	memcpy(r->scene.size, g->size, sizeof r->scene.size);
	r->scene.mass = body->mass;
	to_pair_geom(pp, &r->scene.geom);
	r->scene.floor = r->scene.geom;
	/* the pair's margin and gap are mixed already: the plane adds nothing, whether the
	 * release takes the max (2.2.x-3.4.x) or the sum (3.5.0 on) */
	r->scene.floor.margin = r->scene.floor.gap = 0;
	core_scene_option_default(&r->scene.option);
	r->scene.option.timestep = o->timestep;
	r->scene.option.refsafe = o->refsafe;
	r->scene.option.gravity = -o->gravity[2];
	r->scene.option.impratio = o->impratio;
	r->scene.option.integrator = o->integrator;
	r->scene.option.cone = o->cone;
	r->scene.option.mujoco = m->mujoco;
	r->scene.height = r->height;
	r->scene.duration = duration;
	core_sim_rest_scene(&r->scene, &r->rest);
	r->answered = 1;
	return 1;
}

void mrest_bodies(const struct mdl_model *m, const struct mpair_list *pairs, double duration,
    struct mrest_body *out)
{
	int b;

	for (b = 1; b < m->nbody; b++) {
		struct mrest_body *r = &out[b - 1];
		memset(r, 0, sizeof *r);
		r->body = b;
		r->geom = r->plane = r->pair = -1;
		/* each body scans the pairs and may settle: a stopped budget ends them all */
		if (core_budget_poll())
			refuse(
			    r, "stopped: the question's compute budget ran out or its client left");
		else
			one(m, pairs, b, duration, r);
	}
}
