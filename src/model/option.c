/*
 * option.c: a model's <option> and its <flag>s as MuJoCo's reader takes them (option.h).
 */
#include "model/option.h"

#include <string.h>

#include "core/knobs.h"
#include "core/mjver.h"
#include "model/notes.h"

static const char *const integrators[] = {
    "Euler", "implicit", "implicitfast", "RK4", "discrete", NULL};
static const char *const cones[] = {"pyramidal", "elliptic", NULL};
static const char *const able[] = {"disable", "enable", NULL};
static const char *const collisions[] = {"all", "predefined", "dynamic", NULL};
static const char *const solvers[] = {"PGS", "CG", "Newton", NULL};

const char *mopt_integrator_name(enum core_scene_integrator i)
{
	return (unsigned)i < 5 ? integrators[i] : "unknown";
}

void mopt_default(struct mdl_model *m)
{
	struct mdl_option *o = &m->option;

	memset(o, 0, sizeof *o);
	o->timestep = DEFAULT_TIMESTEP;
	o->integrator = CORE_SCENE_EULER;
	o->cone = CORE_CONE_PYRAMIDAL;
	o->impratio = DEFAULT_IMPRATIO;
	o->gravity[2] = -DEFAULT_GRAVITY;
	o->refsafe = o->filterparent = o->contact = o->constraint = o->gravity_on = 1;
	o->o_margin = 0;
	o->o_solref[0] = DEFAULT_TIMECONST;
	o->o_solref[1] = DEFAULT_DAMPRATIO;
	o->o_solimp[0] = DEFAULT_SOLIMP_D0;
	o->o_solimp[1] = DEFAULT_SOLIMP_DWIDTH;
	o->o_solimp[2] = DEFAULT_SOLIMP_WIDTH;
	o->o_solimp[3] = DEFAULT_SOLIMP_MIDPOINT;
	o->o_solimp[4] = DEFAULT_SOLIMP_POWER;
	m->flag_actuation = m->flag_clampctrl = m->flag_frictionloss = m->flag_damper = 1;
	m->flag_eulerdamp = m->solver_newton = 1;
}

static int read_flag(xmlNodePtr el, const char *name, int *out, struct err *err)
{
	int v;
	int rc = mjcf_word(el, name, able, &v, err);
	if (rc > 0)
		*out = v;
	return rc < 0 ? -1 : 0;
}

int mopt_read(const struct mjcf_doc *doc, struct mdl_model *m, xmlNodePtr el, struct err *err)
{
	struct mdl_option *o = &m->option;
	struct mjcf_iter it = {.depth = -1};
	xmlNodePtr f;
	int v, rc;

	if (mjcf_reals(el, "timestep", &o->timestep, 1, 1, err) < 0 ||
	    mjcf_reals(el, "impratio", &o->impratio, 1, 1, err) < 0 ||
	    mjcf_reals(el, "gravity", o->gravity, 3, 1, err) < 0 ||
	    mjcf_reals(el, "o_margin", &o->o_margin, 1, 1, err) < 0 ||
	    mjcf_reals(el, "o_solref", o->o_solref, 2, 0, err) < 0 ||
	    mjcf_reals(el, "o_solimp", o->o_solimp, 5, 0, err) < 0 ||
	    mjcf_int(el, "noslip_iterations", &o->noslip_iterations, err) < 0)
		return -1;
	if (!(o->timestep > 0))
		return mjcf_fail(el, err, "timestep must be positive");
	if (!(o->impratio > 0))
		return mjcf_fail(el, err, "impratio must be positive");
	rc = mjcf_word(el, "integrator", integrators, &v, err);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		o->integrator = (enum core_scene_integrator)v;
		if (o->integrator == CORE_SCENE_IMPLICITFAST &&
		    m->mujoco < core_mjver_find("2.3.3"))
			mnote_add(m,
			    "integrator implicitfast is MuJoCo 2.3.3+; this release refuses it "
			    "(its "
			    "contact rules are implicit's and Euler's)");
		if (o->integrator == CORE_SCENE_DISCRETE && m->mujoco < core_mjver_find("3.13.0"))
			return mjcf_fail(el, err,
			    "integrator \"discrete\" is MuJoCo 3.13.0+; MuJoCo %s refuses it",
			    core_mjver_name(m->mujoco));
	}
	rc = mjcf_word(el, "cone", cones, &v, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		o->cone = (enum core_cone)v;
	rc = mjcf_word(el, "solver", solvers, &v, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		m->solver_newton = v == 2;
	rc = mjcf_word(el, "collision", collisions, &v, err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		o->collision = v;
	while ((f = mjcf_next(doc, el, &it))) {
		if (!mjcf_is(f, "flag"))
			continue;
		if (read_flag(f, "refsafe", &o->refsafe, err) ||
		    read_flag(f, "filterparent", &o->filterparent, err) ||
		    read_flag(f, "contact", &o->contact, err) ||
		    read_flag(f, "constraint", &o->constraint, err) ||
		    read_flag(f, "gravity", &o->gravity_on, err) ||
		    read_flag(f, "override", &o->override, err) ||
		    read_flag(f, "actuation", &m->flag_actuation, err) ||
		    read_flag(f, "clampctrl", &m->flag_clampctrl, err) ||
		    read_flag(f, "frictionloss", &m->flag_frictionloss, err) ||
		    read_flag(f, "damper", &m->flag_damper, err) ||
		    read_flag(f, "passive", &m->flag_damper, err) ||
		    read_flag(f, "eulerdamp", &m->flag_eulerdamp, err))
			return -1;
	}
	return 0;
}
