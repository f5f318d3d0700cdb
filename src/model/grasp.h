/*
 * grasp.h: the grasps in a compiled model that are the hold question's scene (core/hold.h,
 * POST /v1/hold): a free object (a sphere, a capsule lying along y, or an axis-aligned
 * box) between two bodies on slide joints along x, each with a box geom facing it and
 * one actuator (a motor, a position servo, or a <general> equal to one) driving it, and
 * the hold question with the model's values. Where the model's scene is not exactly the
 * question's, the differences are named: a question that differs only in what the
 * question cannot say (the pads' start gap, other pairs assumed apart, ...) is offered as
 * the nearest; one that differs in what matters (asymmetric pads, gravity off -z, an
 * actuator this layer does not read, ...) is not offered, and why says so.
 */
#ifndef CONTACTD_MODEL_GRASP_H
#define CONTACTD_MODEL_GRASP_H

#include "core/hold.h"
#include "model/model.h"
#include "model/pairs.h"

#define MGRASP_LINES 8  /* differences or notes kept per grasp */
#define MGRASP_LINE 280 /* bytes of one */

struct mgrasp {
	int object, geom; /* the object's body and its geom */
	/* left (toward -x of the object) then right; -1 where not found */
	int pad[2], pad_geom[2], joint[2], actuator[2];
	int offered;           /* 1: hold is the question (the model's exactly when ndiff is 0) */
	struct core_hold hold; /* offered only */
	char why[MGRASP_LINE]; /* not offered: why */
	/* how the model's scene differs from the question offered (or, not offered, what else
	 * differs) */
	char diffs[MGRASP_LINES][MGRASP_LINE];
	int ndiff;
	/* what the question took from where: the ctrl (a <key>'s, or mj_resetData's 0), a
	 * clamp, a disabled flag, a <pair>'s values */
	char notes[MGRASP_LINES][MGRASP_LINE];
	int nnotes;
	int other_pairs; /* pairs of the object's or the pads' geoms but the grasp's three */
};

/*
 * One entry per candidate object of m (a free child of the world with one geom and no
 * child body), in body order, into a malloc'ed *out of *count (the caller frees it; NULL
 * when none). pairs: mpair_list(m). 0, or -1 with err (internal) when out of memory.
 */
int mgrasp_find(const struct mdl_model *m, const struct mpair_list *pairs, struct mgrasp **out,
    int *count, struct err *err);

#endif
