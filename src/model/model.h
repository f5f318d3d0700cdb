/*
 * model.h: what MuJoCo's compiler (any release of core/mjver.h; the rules that differ
 * between releases are docs/releases.md's) makes of an MJCF document's contacts: the
 * option, the bodies (ids, parents, weld bodies, mass), the geoms in MuJoCo's geom id
 * order with their contact fields resolved through default classes, childclass and
 * fromto, the explicit <pair>s and the <exclude>s. pairs.h turns them into the geom
 * pairs MuJoCo collides; rest.h answers what the core can answer exactly.
 */
#ifndef CONTACTD_MODEL_MODEL_H
#define CONTACTD_MODEL_MODEL_H

#include <stddef.h>

#include "base/error.h"
#include "core/scene.h"
#include "model/mjcf.h"
#include "model/types.h"

/*
 * Compile a loaded document as the compiler of release `mujoco` (a valid core_mjver index)
 * would for its contacts. Fills *m, owned by the caller (mdl_free). Errors (bad_value,
 * naming file, line and element): integrator="discrete" before 3.13.0,
 * an unknown default class, a geom or body named twice, a <pair> or <exclude> naming no
 * geom or body, a condim other than 1, 3, 4 or 6, a non-positive size, fromto on a type
 * MuJoCo refuses, elements that generate bodies or geoms this layer does not model
 * (composite, flexcomp, replicate, frame, attach), global coordinates; too_large past
 * MODEL_MAX_*.
 */
int mdl_compile(const struct mjcf_doc *doc, int mujoco, struct mdl_model *m, struct err *err);

/* Free what mdl_compile filled; m may be zeroed. */
void mdl_free(struct mdl_model *m);

/* The MJCF name of a geom type ("box"). */
const char *mdl_geom_type_name(enum mdl_geom_type t);

/* The MJCF name of a joint type ("slide"). */
const char *mdl_joint_type_name(enum mdl_joint_type t);

/* The MJCF name of an integrator ("Euler", "RK4", "implicit", "implicitfast"). */
const char *mdl_integrator_name(enum core_scene_integrator i);

#endif
