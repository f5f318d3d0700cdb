/*
 * model.c: POST /v1/model and `contact model FILE.xml`: a user's MJCF (a main file and
 * the files it includes) and what the MuJoCo release named by "mujoco" (default the
 * newest verified) compiles and collides for its contacts:
 * the option, the geoms, the pairs with their mixed parameters and warnings, the
 * rests the core answers exactly, and the grasps that are the hold question's scene, as
 * hold questions (src/model/). Not sweepable: an answer is a whole
 * model. Cached like every row: the answer is a function of the files and the release
 * alone, and a model's rests simulate MODEL_REST_DURATION per answered body.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/field.h"
#include "model/grasp.h"
#include "model/mjcf.h"
#include "model/model.h"
#include "model/pairs.h"
#include "model/rest.h"
#include "service/endpoint.h"
#include "service/hold.h"
#include "service/request.h"
#include "service/service.h"
#include "core/budget.h"
#include "core/knobs.h"
#include "model/knobs.h"
#include "service/knobs.h"

struct model_request {
	json_t *body; /* {"main", "files", "mujoco"}: the canonical request, owned */
	const char *main;
	json_t *files; /* borrowed from body */
	int mujoco;    /* the release, an mjver index */
};

static int model_parse(json_t *body, const struct svc_limits *lim, void **out, struct err *err)
{
	static const char *const known[] = {"main", "files", "mujoco", NULL};
	struct field_ctx c, files;
	struct model_request *r;
	const char *key;
	json_t *v, *main;
	size_t total = 0;
	int mujoco = core_mjver_default();

	(void)lim;
	if (field_root(&c, body, "", err) != 0 || field_known(&c, known) != 0 ||
	    field_require(&c, "main") != 0 || field_require(&c, "files") != 0 ||
	    field_object(&c, "files", &files) != 0)
		return -1;
	main = json_object_get(body, "main");
	if (!json_is_string(main))
		return field_fail(&c, "main", -1, ERR_BAD_TYPE, "main must be a file name");
	if (json_object_size(files.obj) > MJCF_MAX_FILES)
		return field_fail(
		    &c, "files", -1, ERR_TOO_LARGE, "more than %d files", MJCF_MAX_FILES);
	json_object_foreach (files.obj, key, v) {
		if (!json_is_string(v))
			return field_fail(
			    &files, key, -1, ERR_BAD_TYPE, "a file's text is a string");
		total += json_string_length(v);
	}
	if (total > (size_t)MJCF_MAX_BYTES)
		return field_fail(&c, "files", -1, ERR_TOO_LARGE, "the files are over %ld bytes",
		    (long)MJCF_MAX_BYTES);
	if (!json_object_get(files.obj, json_string_value(main)))
		return field_fail(&c, "main", -1, ERR_BAD_VALUE, "main names no member of files");
	if (req_mujoco(&c, "mujoco", &mujoco) != 0)
		return -1;
	r = calloc(1, sizeof *r);
	if (!r)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	r->mujoco = mujoco;
	r->body = json_pack(
	    "{s:O, s:O, s:s}", "main", main, "files", files.obj, "mujoco", core_mjver_name(mujoco));
	if (!r->body) {
		free(r);
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	}
	r->main = json_string_value(json_object_get(r->body, "main"));
	r->files = json_object_get(r->body, "files");
	*out = r;
	return 0;
}

static json_t *model_canonical(const void *request)
{
	return json_incref(((const struct model_request *)request)->body);
}

static void model_release(void *request)
{
	struct model_request *r = request;
	if (!r)
		return;
	json_decref(r->body);
	free(r);
}

/* The member of files that name (as mjcf_normal_name() writes it) names: its own, else
 * the one whose name is spelt otherwise ("./b.xml"); NULL when none. */
static json_t *file_named(json_t *files, const char *name)
{
	char normal[MJCF_MAX_NAME + 1];
	const char *key;
	json_t *v = json_object_get(files, name);

	if (v)
		return v;
	json_object_foreach (files, key, v)
		if (mjcf_normal_name(key, normal, sizeof normal) == 0 && strcmp(normal, name) == 0)
			return v;
	return NULL;
}

/* mjcf_reader over the request's files */
static int files_reader(void *ctx, const char *name, char **text, size_t *len, struct err *err)
{
	json_t *v = file_named(ctx, name);
	if (!v && json_object_size(ctx) == 1 && json_object_get(ctx, SVC_MODEL_XML_NAME))
		/* the shape of an application/xml body (svc_model_xml()) */
		return err_set(err, ERR_NOT_FOUND, "",
		    "an application/xml body is one file, and it includes \"%.200s\": send the "
		    "JSON form {\"main\": ..., \"files\": {...}} with every file instead",
		    name);
	if (!v)
		return err_set(err, ERR_NOT_FOUND, "", "no file \"%s\" in files", name);
	*len = json_string_length(v);
	*text = malloc(*len + 1);
	if (!*text)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	memcpy(*text, json_string_value(v), *len + 1);
	return 0;
}

/* Whether entry i of a long list is where the budget stopped the answer (polled every
 * 1024 entries: a list holds up to MODEL_MAX_PAIRS pairs, each with its warnings' text). */
static int stops_at(int i)
{
	return (i & 1023) == 1023 && core_budget_poll();
}

/* a real, null when not finite (a mesh's unknown mass) */
static json_t *real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *reals(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; a && i < n; i++)
		json_array_append_new(a, real(v[i]));
	return a;
}

static json_t *name_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *option_json(const struct mdl_option *o)
{
	static const char *const collision[] = {"all", "predefined", "dynamic"};
	return json_pack("{s:o, s:s, s:s, s:o, s:i, s:o, s:b, s:b, s:b, s:b, s:s}", "timestep",
	    real(o->timestep), "integrator", mdl_integrator_name(o->integrator), "cone",
	    req_cone_name(o->cone), "impratio", real(o->impratio), "noslip_iterations",
	    o->noslip_iterations, "gravity", reals(o->gravity, 3), "refsafe", o->refsafe,
	    "filterparent", o->filterparent, "contact", o->contact && o->constraint, "override",
	    o->override, "collision", collision[o->collision]);
}

static json_t *geom_json(const struct mdl_model *m, int i)
{
	const struct mdl_geom *g = &m->geoms[i];
	return json_pack("{s:i, s:o, s:i, s:s, s:o, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, "
	                 "s:o, s:o, s:b}",
	    "id", i, "name", name_or_null(g->name), "body", g->body, "type",
	    mdl_geom_type_name(g->type), "size", g->answerable ? reals(g->size, 3) : json_null(),
	    "condim", g->condim, "contype", g->contype, "conaffinity", g->conaffinity, "priority",
	    g->priority, "solmix", real(g->solmix), "solref", reals(g->solref, 2), "solimp",
	    reals(g->solimp, 5), "friction", reals(g->friction, 3), "margin", real(g->margin),
	    "gap", real(g->gap), "mass", real(g->mass), "answerable", g->answerable);
}

static json_t *pair_json(const struct mdl_model *m, const struct mpair_pair *p)
{
	json_t *w = json_array(), *o;
	unsigned bit;

	for (bit = 1; w && bit < (1u << MPAIR_WARN_COUNT); bit <<= 1) {
		char msg[400], fix[400];
		if (!(p->warnings & bit))
			continue;
		mpair_warning_text(m, p, bit, msg, fix, sizeof msg);
		json_array_append_new(w,
		    json_pack("{s:s, s:s, s:s}", "code", mpair_warning_name(bit), "message", msg,
		        "fix", fix));
	}
	o = json_pack("{s:i, s:i, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}",
	    "geom1", p->geom1, "geom2", p->geom2, "pair",
	    p->explicit_pair >= 0 ? json_integer(p->explicit_pair) : json_null(), "condim",
	    p->condim, "friction", reals(p->friction, 5), "solref", reals(p->solref, 2),
	    "solreffriction",
	    m->mujoco >= core_mjver_find("2.3.6") ? reals(p->solreffriction, 2) : json_null(),
	    "solimp", reals(p->solimp, 5), "margin", real(p->margin), "gap", real(p->gap),
	    "includemargin", real(p->includemargin), "timeconst_used",
	    p->direct ? json_null() : real(p->timeconst_used), "solref_fallback",
	    p->solref_fallback, "growth", real(p->growth), "warnings", w);
	return o;
}

static json_t *body_json(const struct mdl_model *m, const struct mrest_body *r)
{
	const struct mdl_body *b = &m->bodies[r->body];
	json_t *rest = json_null();

	if (r->answered) {
		const struct core_sim_rest *s = &r->rest;
		rest = json_pack(
		    "{s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i}", "geom",
		    r->geom, "plane", r->plane, "pair", r->pair, "drop", real(r->height),
		    "penetration", s->has_equilibrium ? real(s->penetration) : json_null(),
		    "settled_penetration", real(s->settled_penetration), "impedance",
		    s->has_equilibrium ? real(s->impedance) : json_null(), "mass",
		    real(r->scene.mass), "duration", real(r->scene.duration), "timeconst_used",
		    s->timeconst_used > 0 ? real(s->timeconst_used) : json_null(), "contacts",
		    s->contacts, "rows", s->rows, "other_pairs", r->other_pairs);
	}
	return json_pack("{s:i, s:o, s:i, s:o, s:o, s:o}", "id", r->body, "name",
	    name_or_null(b->name), "parent", b->parent, "mass", real(b->mass), "rest", rest, "why",
	    r->answered ? json_null() : json_string(r->why));
}

static json_t *lines_json(const char (*lines)[MGRASP_LINE], int n)
{
	json_t *a = json_array();
	int i;
	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(lines[i]));
	return a;
}

static json_t *ids_json(const int *ids, int n)
{
	json_t *a = json_array();
	int i;
	for (i = 0; a && i < n; i++)
		json_array_append_new(a, ids[i] >= 0 ? json_integer(ids[i]) : json_null());
	return a;
}

/* A grasp (model/grasp.h): its bodies, geoms, joints and actuators (left pad first), the
 * hold question POST /v1/hold reads ("hold", its canonical form with every default), the
 * core's refusal of it while it has one ("refused"), or why none ("why"); "exact" when the
 * question is the model's scene, else "differences" names each. */
static json_t *grasp_json(const struct mdl_model *m, const struct mgrasp *g)
{
	struct hold_request r;
	const char *refused = NULL;
	json_t *hold = json_null();

	if (g->offered) {
		r.scene = g->hold;
		hold = hold_request_json(&r);
		refused = core_hold_supported(&g->hold);
	}
	return json_pack("{s:i, s:o, s:i, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:i}",
	    "object", g->object, "name", name_or_null(m->bodies[g->object].name), "geom", g->geom,
	    "pads", ids_json(g->pad, 2), "pad_geoms", ids_json(g->pad_geom, 2), "joints",
	    ids_json(g->joint, 2), "actuators", ids_json(g->actuator, 2), "exact",
	    g->offered && g->ndiff == 0, "hold", hold, "refused",
	    refused ? json_string(refused) : json_null(), "why",
	    g->offered ? json_null() : json_string(g->why), "differences",
	    lines_json(g->diffs, g->ndiff), "notes", lines_json(g->notes, g->nnotes),
	    "other_pairs", g->other_pairs);
}

static int model_answer(
    const void *request, const struct svc_limits *lim, json_t **answer, struct err *err)
{
	const struct model_request *r = request;
	struct mjcf_doc doc;
	struct mdl_model m;
	struct mpair_list pairs = {NULL, 0};
	struct mrest_body *rest = NULL;
	struct mgrasp *grasps = NULL;
	json_t *out = NULL, *a;
	int i, rc = -1, ngrasp = 0;
	size_t f;

	(void)lim;
	if (mjcf_load(r->main, files_reader, r->files, &doc, err) != 0)
		return -1;
	if (mdl_compile(&doc, r->mujoco, &m, err) != 0) {
		mjcf_free(&doc);
		return -1;
	}
	if (mpair_list(&m, &pairs, err) != 0)
		goto done;
	rest = calloc((size_t)m.nbody, sizeof *rest);
	if (!rest) {
		err_set(err, ERR_INTERNAL, "", "out of memory");
		goto done;
	}
	mrest_bodies(&m, &pairs, MODEL_REST_DURATION, rest);
	if (mgrasp_find(&m, &pairs, &grasps, &ngrasp, err) != 0)
		goto done;
	out = json_pack("{s:s, s:s, s:s}", "main", r->main, "mujoco", core_mjver_name(r->mujoco),
	    "core_version", CORE_VERSION);
	if (!out)
		goto oom;
	a = json_array();
	for (f = 0; a && f < doc.count; f++)
		json_array_append_new(a, json_string(doc.files[f].name));
	json_object_set_new(out, "files", a);
	a = json_array();
	for (i = 0; a && i < m.nnotes; i++)
		json_array_append_new(a, json_string(m.notes[i]));
	if (a && m.notes_dropped)
		json_array_append_new(a, json_sprintf("and %d more notes like these", m.notes_dropped));
	json_object_set_new(out, "notes", a);
	json_object_set_new(out, "option", option_json(&m.option));
	a = json_array();
	for (i = 0; a && i < m.ngeom && !stops_at(i); i++)
		json_array_append_new(a, geom_json(&m, i));
	json_object_set_new(out, "geoms", a);
	a = json_array();
	for (i = 0; a && i < pairs.count && !stops_at(i); i++)
		json_array_append_new(a, pair_json(&m, &pairs.pairs[i]));
	json_object_set_new(out, "pairs", a);
	a = json_array();
	for (i = 1; a && i < m.nbody; i++)
		json_array_append_new(a, body_json(&m, &rest[i - 1]));
	json_object_set_new(out, "bodies", a);
	a = json_array();
	for (i = 0; a && i < ngrasp; i++)
		json_array_append_new(a, grasp_json(&m, &grasps[i]));
	json_object_set_new(out, "grasps", a);
	if (!json_object_get(out, "option") || !json_object_get(out, "geoms") ||
	    !json_object_get(out, "pairs") || !json_object_get(out, "bodies") ||
	    !json_object_get(out, "grasps") ||
	    json_array_size(json_object_get(out, "grasps")) != (size_t)ngrasp)
		goto oom;
	if (core_budget_stopped()) {
		mjcf_stopped(err); /* its lists are cut short: the service says why */
		goto done;
	}
	*answer = out;
	out = NULL;
	rc = 0;
	goto done;
oom:
	err_set(err, ERR_INTERNAL, "", "out of memory");
done:
	json_decref(out);
	free(grasps);
	free(rest);
	mpair_free(&pairs);
	mdl_free(&m);
	mjcf_free(&doc);
	return rc;
}

int svc_model_xml(
    const char *xml, size_t len, const char *mujoco, char **json, size_t *json_len, struct err *err)
{
	json_t *req, *text;

	/* no MJCF is read here: the row reads it once, in the answer (an include is refused
	 * there as the body's, files_reader()) */
	*json = NULL;
	if (len > (size_t)MJCF_MAX_BYTES)
		return err_set(
		    err, ERR_TOO_LARGE, "", "the model is over %ld bytes", (long)MJCF_MAX_BYTES);
	text = json_stringn(xml, len);
	if (!text)
		return err_set(err, ERR_BAD_VALUE, "", "the body is not UTF-8 text");
	req = json_pack(
	    "{s:s, s:{s:o}}", "main", SVC_MODEL_XML_NAME, "files", SVC_MODEL_XML_NAME, text);
	if (req && mujoco) {
		json_t *v = json_string(mujoco);
		if (!v) {
			json_decref(req);
			return err_set(err, ERR_BAD_VALUE, "/mujoco", "mujoco is not UTF-8 text");
		}
		json_object_set_new(req, "mujoco", v);
	}
	*json = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	if (!*json)
		return err_set(err, ERR_INTERNAL, "", "out of memory");
	*json_len = strlen(*json);
	return 0;
}

const struct svc_endpoint_def svc_ep_model = {
    .name = "model",
    .summary = "a user's MJCF: the option, geoms, geom pairs with the release's mixed "
               "parameters and warnings, the rests the core answers, and its grasps as "
               "hold questions",
    .units = "timestep, timeconst_used s; size, margin, gap, drop, penetrations m; mass kg; "
             "gravity m/s^2",
    .parse = model_parse,
    .canonical = model_canonical,
    .answer = model_answer,
    .release = model_release,
};
