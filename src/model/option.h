/*
 * option.h: a model's <option> (timestep, integrator, cone, impratio, noslip, gravity,
 * collision, solver, the o_ overrides) and the <flag>s contacts and grasps depend on, as
 * the release named by the model's mujoco reads them. Internal to the model layer.
 */
#ifndef CONTACTD_MODEL_OPTION_H
#define CONTACTD_MODEL_OPTION_H

#include <libxml/tree.h>

#include "base/error.h"
#include "model/mjcf.h"
#include "model/types.h"

/* MuJoCo's defaults into m's option and flags (m->mujoco set). */
void mopt_default(struct mdl_model *m);

/* Overlay one <option> element el (and its <flag>s) on m. 0, or -1 with err (bad_value
 * naming el: a non-positive timestep or impratio, an unknown keyword, integrator
 * "discrete" before 3.13.0). */
int mopt_read(const struct mjcf_doc *doc, struct mdl_model *m, xmlNodePtr el, struct err *err);

/* The MJCF name of an integrator ("implicitfast"). */
const char *mopt_integrator_name(enum core_scene_integrator i);

#endif
