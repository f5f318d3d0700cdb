/*
 * answer.c: the rest, drop and stability handlers' arithmetic and field lists.
 */
#include "service/answer.h"

#include <math.h>
#include <string.h>

#include "core/law.h"
#include "core/mjver.h"
#include "tunables.h"

const char *const ans_rest_fields[] = {"penetration", "settled_penetration", "impedance", "K", "B",
    "timeconst_used", "contacts", "rows", "solref_fallback", "diverged", "mujoco", "core_version",
    NULL};
const char *const ans_drop_fields[] = {"peak_penetration", "rebound", "max_height", "jitter",
    "final_penetration", "energy_gain", "steps", "solref_fallback", "diverged", "mujoco",
    "core_version", NULL};
const char *const ans_stability_fields[] = {"growth", "h_omega", "stable", "timeconst_used",
    "guard_gap", "error_reduction", "impedance", "K", "B", "solref_fallback", "diverged", "mujoco",
    "core_version", NULL};

json_t *ans_request_json(const struct ans_request *r)
{
	if (r->query == SVC_HOLD)
		return hold_request_json(&r->u.hold);
	if (r->query == SVC_STABILITY)
		return req_stability_json(&r->u.stability);
	return req_scene_json(&r->u.scene);
}

int ans_request_expose(enum svc_endpoint query, json_t *v, const char *ptr, struct err *err)
{
	/* a canonical stability or hold request has every field already */
	return query == SVC_STABILITY || query == SVC_HOLD ? 0 : req_scene_expose(v, ptr, err);
}

long ans_request_steps(const struct ans_request *r)
{
	/* a hold point may step on after duration until its creep settles: count the most */
	if (r->query == SVC_HOLD)
		return (long)(r->u.hold.scene.duration / r->u.hold.scene.option.timestep) +
		    CTD_HOLD_SETTLE_MAX_STEPS;
	return r->query == SVC_STABILITY ? 0 : req_scene_steps(&r->u.scene);
}

void ans_compute(const struct ans_request *req, struct ans_result *out)
{
	ans_compute_traced(req, out, NULL);
}

void ans_compute_traced(
    const struct ans_request *req, struct ans_result *out, struct ctd_sim_trace *trace)
{
	const struct ctd_scene *scene;
	struct ctd_scene_model model;

	memset(out, 0, sizeof *out);
	out->query = req->query;
	if (req->query == SVC_HOLD) {
		out->mujoco = req->u.hold.scene.option.mujoco;
		ctd_hold_solve(&req->u.hold.scene, &out->u.hold);
		return;
	}
	if (req->query == SVC_STABILITY) {
		const struct req_stability *s = &req->u.stability;
		struct ctd_law_solimp clamped;
		struct ctd_law_gains gains;

		out->mujoco = s->mujoco;
		ctd_growth_stability(s->solref, s->solimp, s->impedance, s->timestep, s->refsafe,
		    s->integrator, &out->u.stability);
		/* ctd_growth_stability does not say which solref form it used: ask the law */
		ctd_law_solimp_clamp(s->solimp, &clamped);
		ctd_law_solref_kb(s->solref, clamped.dwidth, s->timestep, s->refsafe, &gains);
		out->solref_fallback = gains.fell_back;
		out->direct = gains.direct;
		return;
	}
	scene = &req->u.scene.scene;
	out->mujoco = scene->option.mujoco;
	ctd_scene_prepare(scene, &model);
	out->solref_fallback = model.gains.fell_back;
	out->direct = model.gains.direct;
	if (req->query == SVC_REST)
		ctd_sim_rest(&model, scene->height, scene->duration, &out->u.rest);
	else
		ctd_sim_drop_trace(&model, scene->height, scene->duration, &out->u.drop, trace);
}

/* Appends fields in order and remembers whether any real was not finite. */
struct field_list {
	struct ans_field *fields;
	size_t count;
	int diverged;
};

static void add_real(struct field_list *l, const char *name, double value)
{
	struct ans_field *f = &l->fields[l->count++];

	f->name = name;
	f->type = isfinite(value) ? ANS_REAL : ANS_NULL;
	f->real = value;
	f->integer = 0;
	f->text = NULL;
	if (!isfinite(value))
		l->diverged = 1;
}

/* A value that does not exist (no equilibrium, no time constant): null, but not divergence. */
static void add_null(struct field_list *l, const char *name)
{
	struct ans_field *f = &l->fields[l->count++];

	f->name = name;
	f->type = ANS_NULL;
	f->real = 0;
	f->integer = 0;
	f->text = NULL;
}

static void add_integer(struct field_list *l, const char *name, long value, enum ans_type type)
{
	struct ans_field *f = &l->fields[l->count++];

	f->name = name;
	f->type = type;
	f->real = 0;
	f->integer = value;
	f->text = NULL;
}

static void add_string(struct field_list *l, const char *name, const char *value)
{
	struct ans_field *f = &l->fields[l->count++];

	f->name = name;
	f->type = ANS_STRING;
	f->real = 0;
	f->integer = 0;
	f->text = value;
}

static void add_rest(struct field_list *l, const struct ans_result *r)
{
	const struct ctd_sim_rest *rest = &r->u.rest;

	if (rest->has_equilibrium)
		add_real(l, "penetration", rest->penetration);
	else
		add_null(l, "penetration");
	add_real(l, "settled_penetration", rest->settled_penetration);
	if (rest->has_equilibrium)
		add_real(l, "impedance", rest->impedance);
	else
		add_null(l, "impedance");
	add_real(l, "K", rest->K);
	add_real(l, "B", rest->B);
	if (r->direct)
		add_null(l, "timeconst_used");
	else
		add_real(l, "timeconst_used", rest->timeconst_used);
	add_integer(l, "contacts", rest->contacts, ANS_INTEGER);
	add_integer(l, "rows", rest->rows, ANS_INTEGER);
}

static void add_drop(struct field_list *l, const struct ans_result *r)
{
	const struct ctd_sim_drop *drop = &r->u.drop;

	add_real(l, "peak_penetration", drop->peak_penetration);
	add_real(l, "rebound", drop->rebound);
	add_real(l, "max_height", drop->max_height);
	add_real(l, "jitter", drop->jitter);
	add_real(l, "final_penetration", drop->final_penetration);
	add_integer(l, "energy_gain", drop->energy_gain, ANS_BOOL);
	add_integer(l, "steps", drop->steps, ANS_INTEGER);
}

static void add_stability(struct field_list *l, const struct ans_result *r)
{
	const struct ctd_growth_report *g = &r->u.stability;

	add_real(l, "growth", g->growth);
	add_real(l, "h_omega", g->h_omega);
	add_integer(l, "stable", g->stable, ANS_BOOL);
	if (r->direct)
		add_null(l, "timeconst_used");
	else
		add_real(l, "timeconst_used", g->timeconst_used);
	add_integer(l, "guard_gap", g->guard_gap, ANS_BOOL);
	add_real(l, "error_reduction", g->error_reduction);
	add_real(l, "impedance", g->impedance);
	add_real(l, "K", g->K);
	add_real(l, "B", g->B);
}

/* A real that exists only when present (hold_run's "null when absent"). */
static void add_real_if(struct field_list *l, const char *name, double value, int present)
{
	if (present && isfinite(value))
		add_real(l, name, value);
	else
		add_null(l, name);
}

/* hold_fields[] in order; a crushed scene (a 422 as one request) has none of them. */
static size_t add_hold(struct field_list *l, const struct ans_result *r)
{
	const struct ctd_hold_answer *a = &r->u.hold;
	int ok = !a->crushed;
	/* the run's outcome, when a nudge of the pads' start leaves it where it is */
	int run = ok && a->reproducible;
	size_t first = l->count;

	add_real_if(l, "creep_velocity", a->creep_velocity, run && a->creep_settled);
	add_integer(l, "creep_closed_form", a->creep_closed_form, ANS_BOOL);
	add_real_if(l, "slip", a->slip, run && !a->falls);
	add_real_if(l, "normal_force", a->normal_force, ok);
	add_real_if(l, "penetration", a->penetration, run && a->creep_settled);
	add_real_if(l, "load", a->load, ok);
	add_real_if(l, "friction_capacity", a->friction_capacity, ok);
	add_integer(l, "holds", a->holds, ANS_BOOL);
	add_real_if(l, "time_to_slip", a->time_to_slip, run && a->time_to_slip >= 0);
	add_integer(l, "time_to_slip_extrapolated", a->time_to_slip_extrapolated, ANS_BOOL);
	if (run)
		add_integer(l, "falls", a->falls, ANS_BOOL);
	else
		add_null(l, "falls");
	add_real_if(l, "fall_time", a->fall_time, run && a->falls);
	add_integer(l, "reproducible", a->reproducible, ANS_BOOL);
	add_integer(l, "steps", a->steps, ANS_INTEGER);
	add_integer(l, "refsafe_clamped", a->refsafe_clamped, ANS_BOOL);
	add_integer(l, "solref_fallback", a->solref_fell_back, ANS_BOOL);
	add_integer(l, "friction_clamped", a->friction_clamped, ANS_BOOL);
	if (!ok)
		for (size_t i = first; i < l->count; i++)
			l->fields[i].type = ANS_NULL;
	add_string(l, "mujoco", ctd_mjver_name(r->mujoco));
	add_string(l, "core_version", CORE_VERSION);
	return l->count;
}

size_t ans_fields(const struct ans_result *r, struct ans_field out[ANS_MAX_FIELDS])
{
	struct field_list l = {out, 0, 0};

	if (r->query == SVC_HOLD)
		return add_hold(&l, r);
	if (r->query == SVC_REST)
		add_rest(&l, r);
	else if (r->query == SVC_DROP)
		add_drop(&l, r);
	else
		add_stability(&l, r);
	add_integer(&l, "solref_fallback", r->solref_fallback, ANS_BOOL);
	add_integer(&l, "diverged", l.diverged, ANS_BOOL);
	add_string(&l, "mujoco", ctd_mjver_name(r->mujoco));
	add_string(&l, "core_version", CORE_VERSION);
	return l.count;
}

json_t *ans_field_json(const struct ans_field *f)
{
	switch (f->type) {
	case ANS_REAL:
		return json_real(f->real);
	case ANS_INTEGER:
		return json_integer(f->integer);
	case ANS_BOOL:
		return json_boolean(f->integer);
	case ANS_STRING:
		return json_string(f->text);
	default:
		return json_null();
	}
}

json_t *ans_to_json(const struct ans_result *r)
{
	struct ans_field fields[ANS_MAX_FIELDS];
	size_t n = ans_fields(r, fields), i;
	json_t *obj = json_object();

	for (i = 0; obj && i < n; i++) {
		if (json_object_set_new(obj, fields[i].name, ans_field_json(&fields[i])) != 0) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

json_t *ans_with_release(json_t *obj, int mujoco)
{
	if (obj &&
	    (json_object_set_new(obj, "mujoco", json_string(ctd_mjver_name(mujoco))) != 0 ||
	        json_object_set_new(obj, "core_version", json_string(CORE_VERSION)) != 0)) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}
