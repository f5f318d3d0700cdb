/*
 * frame.h: the frames of a model's bodies and geoms as MuJoCo's compiler makes them: the
 * orientation attributes (quat, axisangle, euler, xyaxes, zaxis) as unit quaternions
 * (w, x, y, z), and each body's frame in the world at qpos0.
 */
#ifndef CONTACTD_MODEL_FRAME_H
#define CONTACTD_MODEL_FRAME_H

#include <libxml/tree.h>

#include "base/error.h"
#include "model/mjcf.h"
#include "model/types.h"

/* out = a b (the rotation b, then a); out may be a or b. */
void mframe_mul(const double a[4], const double b[4], double out[4]);

/* The rotation matrix (row-major) of the unit quaternion q. */
void mframe_mat(const double q[4], double mat[9]);

/* The rotation taking (0, 0, 1) to the direction v (MuJoCo's mjuu_z2quat); v nonzero. */
void mframe_z_to(const double v[3], double q[4]);

/* The orientation el's attributes give (the identity when none), its angles in degrees
 * when degree (compiler angle), its euler sequence eulerseq (compiler eulerseq: 3 of
 * x, y, z intrinsic, X, Y, Z extrinsic). 0, or -1 with err (bad_value naming el) on a
 * malformed or degenerate attribute. */
int mframe_orientation(
    xmlNodePtr el, int degree, const char *eulerseq, double q[4], struct err *err);

/* *identity 0 when an orientation attribute of el turns the frame, exactly as written
 * (the rests' test); 0, or -1 with err. */
int mframe_identity(xmlNodePtr el, int *identity, struct err *err);

/* Each body's xpos and xquat from its parent's and its own pos and quat (bodies after
 * their parents, as mdl_compile orders them). */
void mframe_world(struct mdl_model *m);

#endif
