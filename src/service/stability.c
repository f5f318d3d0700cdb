/*
 * stability.c: POST /v1/stability and `contact stability`: the contact spring's
 * growth per step under an integrator. The endpoint's row and its kind.
 */
#include <string.h>

#include "core/growth.h"
#include "core/law.h"
#include "service/answer.h"
#include "service/endpoint.h"
#include "service/request.h"

/* A stability answer: the core's report, and how the solref was read. */
struct stability_result {
	int mujoco;          /* the MuJoCo release whose rules were used (an mjver index) */
	int solref_fallback; /* a mixed-sign solref was replaced by MuJoCo's default */
	int direct;          /* solref in the direct form: no time constant */
	struct core_growth_report growth;
};

/* The answer's fields and their units (the API's descriptions name the same). */
static const struct svc_field stability_fields[] = {{"growth", ""}, {"h_omega", ""},
    {"stable", NULL}, {"timeconst_used", "s"}, {"guard_gap", NULL}, {"error_reduction", ""},
    {"impedance", ""}, {"K", "1/s^2"}, {"B", "1/s"}, {"refsafe_replaced", NULL},
    {"solref_fallback", NULL}, {"diverged", NULL}, {"mujoco", NULL}, {"core_version", NULL},
    {NULL, NULL}};

/* The stability request's fields under the aliases (vary.h). */
static const struct ans_alias stability_aliases[] = {
    {"timeconst", "/solref/0"},
    {"dampratio", "/solref/1"},
    {"timestep", "/option/timestep"},
    {"d0", "/solimp/0"},
    {"dwidth", "/solimp/1"},
    {"width", "/solimp/2"},
    {"midpoint", "/solimp/3"},
    {"power", "/solimp/4"},
    {"impedance", "/impedance"},
    {NULL, NULL},
};

static int stability_point(json_t *v, const char *path, void *request, struct err *err)
{
	return req_stability_parse(v, path, request, err);
}

static json_t *stability_canonical(const void *request)
{
	return req_stability_json(request);
}

static long stability_steps(const void *request)
{
	(void)request;
	return 0; /* no simulation */
}

static void stability_compute(const void *request, void *result)
{
	const struct req_stability *s = request;
	struct stability_result *out = result;
	struct core_law_solimp clamped;
	struct core_law_gains gains;

	memset(out, 0, sizeof *out);
	out->mujoco = s->mujoco;
	core_growth_stability(s->solref, s->solimp, s->impedance, s->timestep, s->refsafe,
	    s->integrator, &out->growth);
	/* core_growth_stability does not say which solref form it used: ask the law */
	core_law_solimp_clamp(s->solimp, &clamped);
	core_law_solref_kb(s->solref, clamped.dwidth, s->timestep, s->refsafe, &gains);
	out->solref_fallback = gains.fell_back;
	out->direct = gains.direct;
}

static size_t stability_answer_fields(const void *result, struct ans_field out[ANS_MAX_FIELDS])
{
	const struct stability_result *r = result;
	const struct core_growth_report *g = &r->growth;
	struct ans_list l = {out, 0, 0};

	ans_add_real(&l, "growth", g->growth);
	ans_add_real(&l, "h_omega", g->h_omega);
	ans_add_integer(&l, "stable", g->stable, ANS_BOOL);
	if (r->direct)
		ans_add_null(&l, "timeconst_used");
	else
		ans_add_real(&l, "timeconst_used", g->timeconst_used);
	ans_add_integer(&l, "guard_gap", g->guard_gap, ANS_BOOL);
	ans_add_real(&l, "error_reduction", g->error_reduction);
	ans_add_real(&l, "impedance", g->impedance);
	ans_add_real(&l, "K", g->K);
	ans_add_real(&l, "B", g->B);
	ans_add_integer(&l, "refsafe_replaced", g->refsafe_replaced, ANS_BOOL);
	ans_add_tail(&l, r->solref_fallback, r->mujoco);
	return l.count;
}

static const struct ans_kind stability_kind = {
    .request_size = sizeof(struct req_stability),
    .result_size = sizeof(struct stability_result),
    .point = stability_point,
    .canonical = stability_canonical,
    .steps = stability_steps,
    .compute = stability_compute,
    .fields = stability_answer_fields,
    .aliases = stability_aliases,
};

const struct svc_endpoint_def svc_ep_stability = {
    .name = "stability",
    .summary = "the contact spring's growth per step under an integrator",
    .units = "K 1/s^2; B 1/s; timeconst_used s; growth (per step), h_omega none",
    .fields = stability_fields,
    .kind = &stability_kind,
    .headline = "growth",
};
