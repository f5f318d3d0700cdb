/*
 * drive.h: what moves a model's bodies, as MuJoCo's compiler reads it: joints (their type,
 * axis and the attributes a grasp depends on), actuators (motor, position and general in
 * full; every other kind, and a class giving its defaults, named in the model's notes as
 * not read), and the first <key> giving ctrl. Internal to the model layer: model.c calls it
 * while compiling, with each element's default classes.
 */
#ifndef CONTACTD_MODEL_DRIVE_H
#define CONTACTD_MODEL_DRIVE_H

#include <libxml/tree.h>

#include "base/error.h"
#include "model/mjcf.h"
#include "model/types.h"

#define MDRIVE_CHAIN 64 /* default classes an element inherits through, at most */

/* One element's context: the document, the model compiled so far, and the <default>
 * elements of the element's class and its ancestors, its own first (none for MuJoCo's
 * implicit class main). */
struct mdrive_ctx {
	const struct mjcf_doc *doc;
	struct mdl_model *m;
	xmlNodePtr chain[MDRIVE_CHAIN];
	int nchain;
	struct err *err;
};

/* Add the <joint> (or, free_joint, <freejoint>) el of body to c->m->joints, its qpos
 * address next. 0, or -1 with err (bad_value naming el: a zero axis, a bad attribute;
 * internal when out of memory). */
int mdrive_joint(struct mdrive_ctx *c, xmlNodePtr el, int body, int free_joint);

/* 1 when el is an <actuator> child (any kind MuJoCo 2.2.0-3.14.0 has). */
int mdrive_is_actuator(xmlNodePtr el);

/* Add the actuator el (mdrive_is_actuator) to c->m->actuators, its joint's id resolved
 * (the joints compiled already); one not read is a note naming its file, line and why.
 * 0, or -1 with err (bad_value: a joint named that is not in the model, an invalid
 * range, a negative kv). */
int mdrive_actuator(struct mdrive_ctx *c, xmlNodePtr el);

/* Read the <keyframe> el's first <key> giving ctrl into c->m (key, key_ctrl, key_qpos,
 * key_qpos_differs; once, the actuators compiled): what a grasp's actuators are asked
 * (mj_resetData's ctrl is 0). 0, or -1 with err (bad_value: ctrl or qpos not of the
 * model's sizes). */
int mdrive_keyframe(struct mdrive_ctx *c, xmlNodePtr el);

#endif
