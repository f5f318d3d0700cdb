/*
 * capi.c: the library's C interface (contactd.h) over the contact core.
 *
 * The public structs are the library's readers' and change only with the soname; the
 * core's own (core/scene.h, core/sim.h, core/growth.h, core/hold.h) change whenever the
 * core needs them to. This file is the one place the two meet: each public function
 * copies its arguments into the core's structs field by field, calls the core, and
 * copies the answers back, so a field the core adds never moves the public layout.
 */
#include "config.h"

#include "contactd.h"

#include <string.h>

#include "core/growth.h"
#include "core/hold.h"
#include "core/mjver.h"
#include "core/pair.h"
#include "core/scene.h"
#include "core/sim.h"

/* ---- public -> core ---- */

static void geom_in(const struct ctd_pair_geom *p, struct core_pair_geom *g)
{
	memset(g, 0, sizeof *g);
	memcpy(g->solref, p->solref, sizeof g->solref);
	memcpy(g->solimp, p->solimp, sizeof g->solimp);
	g->condim = p->condim;
	memcpy(g->friction, p->friction, sizeof g->friction);
	g->margin = p->margin;
	g->gap = p->gap;
	g->solmix = p->solmix;
	g->priority = p->priority;
}

static void geom_out(const struct core_pair_geom *g, struct ctd_pair_geom *p)
{
	memcpy(p->solref, g->solref, sizeof p->solref);
	memcpy(p->solimp, g->solimp, sizeof p->solimp);
	p->condim = g->condim;
	memcpy(p->friction, g->friction, sizeof p->friction);
	p->margin = g->margin;
	p->gap = g->gap;
	p->solmix = g->solmix;
	p->priority = g->priority;
}

/* The enumerators are listed in the same order in both headers; a switch keeps that from
 * being an assumption. */
static enum core_scene_integrator integrator_in(enum ctd_scene_integrator i)
{
	switch (i) {
	case CTD_SCENE_IMPLICIT:
		return CORE_SCENE_IMPLICIT;
	case CTD_SCENE_IMPLICITFAST:
		return CORE_SCENE_IMPLICITFAST;
	case CTD_SCENE_RK4:
		return CORE_SCENE_RK4;
	case CTD_SCENE_DISCRETE:
		return CORE_SCENE_DISCRETE;
	case CTD_SCENE_EULER:
	default:
		return CORE_SCENE_EULER;
	}
}

static enum ctd_scene_integrator integrator_out(enum core_scene_integrator i)
{
	switch (i) {
	case CORE_SCENE_IMPLICIT:
		return CTD_SCENE_IMPLICIT;
	case CORE_SCENE_IMPLICITFAST:
		return CTD_SCENE_IMPLICITFAST;
	case CORE_SCENE_RK4:
		return CTD_SCENE_RK4;
	case CORE_SCENE_DISCRETE:
		return CTD_SCENE_DISCRETE;
	case CORE_SCENE_EULER:
	default:
		return CTD_SCENE_EULER;
	}
}

static void option_in(const struct ctd_scene_option *p, struct core_scene_option *o)
{
	memset(o, 0, sizeof *o);
	o->timestep = p->timestep;
	o->refsafe = p->refsafe;
	o->gravity = p->gravity;
	o->impratio = p->impratio;
	o->integrator = integrator_in(p->integrator);
	o->mujoco = p->mujoco;
	o->cone = p->cone == CTD_CONE_ELLIPTIC ? CORE_CONE_ELLIPTIC : CORE_CONE_PYRAMIDAL;
}

static void option_out(const struct core_scene_option *o, struct ctd_scene_option *p)
{
	p->timestep = o->timestep;
	p->refsafe = o->refsafe;
	p->gravity = o->gravity;
	p->impratio = o->impratio;
	p->integrator = integrator_out(o->integrator);
	p->mujoco = o->mujoco;
	p->cone = o->cone == CORE_CONE_ELLIPTIC ? CTD_CONE_ELLIPTIC : CTD_CONE_PYRAMIDAL;
}

static void scene_in(const struct ctd_scene *p, struct core_scene *s)
{
	memset(s, 0, sizeof *s);
	s->shape = p->shape == CTD_SCENE_BOX ? CORE_SCENE_BOX : CORE_SCENE_SPHERE;
	memcpy(s->size, p->size, sizeof s->size);
	s->mass = p->mass;
	geom_in(&p->geom, &s->geom);
	geom_in(&p->floor, &s->floor);
	option_in(&p->option, &s->option);
	s->height = p->height;
	s->duration = p->duration;
}

static void hold_in(const struct ctd_hold *p, struct core_hold *h)
{
	memset(h, 0, sizeof *h);
	h->shape = p->shape == CTD_HOLD_BOX ? CORE_HOLD_BOX
	    : p->shape == CTD_HOLD_CAPSULE  ? CORE_HOLD_CAPSULE
	                                    : CORE_HOLD_SPHERE;
	memcpy(h->size, p->size, sizeof h->size);
	h->joint.damping = p->joint.damping;
	h->joint.armature = p->joint.armature;
	h->joint.frictionloss = p->joint.frictionloss;
	h->actuator.type = p->actuator.type == CTD_HOLD_POSITION ? CORE_HOLD_POSITION : CORE_HOLD_MOTOR;
	h->actuator.kp = p->actuator.kp;
	h->actuator.kv = p->actuator.kv;
	h->actuator.squeeze = p->actuator.squeeze;
	h->actuator.forcelimited = p->actuator.forcelimited;
	memcpy(h->actuator.forcerange, p->actuator.forcerange, sizeof h->actuator.forcerange);
	h->mass = p->mass;
	geom_in(&p->object, &h->object);
	memcpy(h->pad_size, p->pad_size, sizeof h->pad_size);
	h->pad_mass = p->pad_mass;
	geom_in(&p->pad, &h->pad);
	h->grip_force = p->grip_force;
	option_in(&p->option, &h->option);
	h->noslip_iterations = p->noslip_iterations;
	h->duration = p->duration;
	h->slip_limit = p->slip_limit;
}

static void hold_out(const struct core_hold *h, struct ctd_hold *p)
{
	p->shape = h->shape == CORE_HOLD_BOX ? CTD_HOLD_BOX
	    : h->shape == CORE_HOLD_CAPSULE  ? CTD_HOLD_CAPSULE
	                                     : CTD_HOLD_SPHERE;
	memcpy(p->size, h->size, sizeof p->size);
	p->joint.damping = h->joint.damping;
	p->joint.armature = h->joint.armature;
	p->joint.frictionloss = h->joint.frictionloss;
	p->actuator.type = h->actuator.type == CORE_HOLD_POSITION ? CTD_HOLD_POSITION : CTD_HOLD_MOTOR;
	p->actuator.kp = h->actuator.kp;
	p->actuator.kv = h->actuator.kv;
	p->actuator.squeeze = h->actuator.squeeze;
	p->actuator.forcelimited = h->actuator.forcelimited;
	memcpy(p->actuator.forcerange, h->actuator.forcerange, sizeof p->actuator.forcerange);
	p->mass = h->mass;
	geom_out(&h->object, &p->object);
	memcpy(p->pad_size, h->pad_size, sizeof p->pad_size);
	p->pad_mass = h->pad_mass;
	geom_out(&h->pad, &p->pad);
	p->grip_force = h->grip_force;
	option_out(&h->option, &p->option);
	p->noslip_iterations = h->noslip_iterations;
	p->duration = h->duration;
	p->slip_limit = h->slip_limit;
}

/* ---- the interface ---- */

/* configure's PACKAGE_VERSION, which CONTACTD_VERSION_* spell at compile time */
const char *ctd_version(void)
{
	return PACKAGE_VERSION;
}

int ctd_mjver_count(void)
{
	return core_mjver_count();
}

int ctd_mjver_default(void)
{
	return core_mjver_default();
}

int ctd_mjver_find(const char *name)
{
	return core_mjver_find(name);
}

const char *ctd_mjver_name(int index)
{
	return core_mjver_name(index);
}

const char *ctd_mjver_supported(void)
{
	return core_mjver_supported();
}

void ctd_pair_geom_default(struct ctd_pair_geom *g)
{
	struct core_pair_geom c;

	core_pair_geom_default(&c);
	geom_out(&c, g);
}

void ctd_scene_option_default(struct ctd_scene_option *o)
{
	struct core_scene_option c;

	core_scene_option_default(&c);
	option_out(&c, o);
}

void ctd_sim_rest_scene(const struct ctd_scene *scene, struct ctd_sim_rest *out)
{
	struct core_scene s;
	struct core_sim_rest r;

	scene_in(scene, &s);
	core_sim_rest_scene(&s, &r);
	out->has_equilibrium = r.has_equilibrium;
	out->penetration = r.penetration;
	out->settled_penetration = r.settled_penetration;
	out->impedance = r.impedance;
	out->K = r.K;
	out->B = r.B;
	out->timeconst_used = r.timeconst_used;
	out->contacts = r.contacts;
	out->rows = r.rows;
	out->refsafe_replaced = r.refsafe_replaced;
}

void ctd_sim_drop_scene(
    const struct ctd_scene *scene, struct ctd_sim_drop *out, struct ctd_sim_trace *trace)
{
	struct core_scene s;
	struct core_sim_drop d;
	struct core_sim_trace t = {0};

	scene_in(scene, &s);
	if (trace) {
		t.t = trace->t;
		t.z = trace->z;
		t.cap = trace->cap;
	}
	core_sim_drop_scene(&s, &d, trace ? &t : NULL);
	if (trace)
		trace->count = t.count;
	out->peak_penetration = d.peak_penetration;
	out->rebound = d.rebound;
	out->max_height = d.max_height;
	out->jitter = d.jitter;
	out->final_penetration = d.final_penetration;
	out->energy_gain = d.energy_gain;
	out->steps = d.steps;
	out->first_rebound = d.first_rebound;
}

void ctd_growth_stability(const double solref[2], const double solimp[5], double impedance,
    double timestep, int refsafe, enum ctd_scene_integrator integrator,
    struct ctd_growth_report *out)
{
	struct core_growth_report g;

	core_growth_stability(
	    solref, solimp, impedance, timestep, refsafe, integrator_in(integrator), &g);
	out->growth = g.growth;
	out->h_omega = g.h_omega;
	out->stable = g.stable;
	out->timeconst_used = g.timeconst_used;
	out->guard_gap = g.guard_gap;
	out->error_reduction = g.error_reduction;
	out->impedance = g.impedance;
	out->K = g.K;
	out->B = g.B;
	out->refsafe_replaced = g.refsafe_replaced;
}

void ctd_hold_default(struct ctd_hold *h)
{
	struct core_hold c;

	core_hold_default(&c);
	hold_out(&c, h);
}

const char *ctd_hold_supported(const struct ctd_hold *h)
{
	struct core_hold c;

	hold_in(h, &c);
	return core_hold_supported(&c);
}

void ctd_hold_solve(const struct ctd_hold *h, struct ctd_hold_answer *out)
{
	struct core_hold c;
	struct core_hold_answer a;

	hold_in(h, &c);
	core_hold_solve(&c, &a);
	out->creep_velocity = a.creep_velocity;
	out->creep_closed_form = a.creep_closed_form;
	out->slip = a.slip;
	out->normal_force = a.normal_force;
	out->penetration = a.penetration;
	out->load = a.load;
	out->friction_capacity = a.friction_capacity;
	out->holds = a.holds;
	out->time_to_slip = a.time_to_slip;
	out->time_to_slip_extrapolated = a.time_to_slip_extrapolated;
	out->falls = a.falls;
	out->fall_time = a.fall_time;
	out->crushed = a.crushed;
	out->steps = a.steps;
	out->stepped = a.stepped;
	out->creep_settled = a.creep_settled;
	out->reproducible = a.reproducible;
	out->creep_steps = a.creep_steps;
	out->refsafe_clamped = a.refsafe_clamped;
	out->solref_fell_back = a.solref_fell_back;
	out->friction_clamped = a.friction_clamped;
	out->refsafe_replaced = a.refsafe_replaced;
}
