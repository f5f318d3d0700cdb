/*
 * nsnewton.h: MuJoCo's Newton constraint solver (mj_solNewton), iteration for iteration,
 * on the asymmetric step's five coordinates (object x, z, rotation about y, left pad,
 * right pad): nsnewton.c. Internal to the library.
 *
 * The cost's exact minimiser is where Newton converges. Where the velocity comes from the
 * constraint forces (joint damping, a servo's kv), a frictionloss row sits at its bound,
 * or noslip starts from the solver's forces, the point where MuJoCo stopped moves the
 * answer by more than the tables allow (docs/hold.md, "The pads' own forces under
 * noslip"): this replays the solver's warmstart choice, directions, line searches and
 * termination, with newton.c's rules per release.
 */
#ifndef CONTACTD_CORE_NSNEWTON_H
#define CONTACTD_CORE_NSNEWTON_H

#include "core/newton.h"

#define CORE_NSNEWTON_DOF 5
#define CORE_NSNEWTON_CONE 6 /* an elliptic contact's rows at most */
#define CORE_NSNEWTON_ROWS 24

/* One row of the problem (kind CORE_NEWTON_INEQ or CORE_NEWTON_FRICTION), or an elliptic
 * contact's rows (CORE_NEWTON_CONE: J[0] its normal, J[1..dim) its tangents), standing for
 * w identical rows of MuJoCo's problem. */
struct core_nsnewton_row {
	enum core_newton_kind kind;
	double w;
	int dim; /* 1, or a cone's rows */
	double J[CORE_NSNEWTON_CONE][CORE_NSNEWTON_DOF];
	double aref[CORE_NSNEWTON_CONE], D[CORE_NSNEWTON_CONE];
	double R, floss;                     /* frictionloss: efc_R and the bound */
	double mu, fric[CORE_NSNEWTON_CONE]; /* cone: its mu and each tangent's friction */
	double force[CORE_NSNEWTON_CONE];    /* out: efc_force of one of the w rows */
};

/* One step's constraint problem: every row of the step. The coordinates' trees are the
 * object (0, 1, 2), the left pad (3) and the right pad (4). */
struct core_nsnewton_problem {
	enum core_newton_era era;
	int islands; /* 3.5.0+: each island is solved on its own, with its own scale */
	double M[CORE_NSNEWTON_DOF], a0[CORE_NSNEWTON_DOF]; /* qM's diagonal, qacc_smooth */
	double scale; /* without islands: 1 / (meaninertia nv) */
	/* with islands: the trace of qM over each tree's dofs (the object's six, each pad's),
	 * whose sum over an island's trees is its scale's inverse */
	double tree_inertia[3];
	int nrows;
	struct core_nsnewton_row row[CORE_NSNEWTON_ROWS];
};

/*
 * core_nsnewton_solve: MuJoCo's qacc for the problem p from the warmstart a (the previous
 * step's qacc), as mj_fwdConstraint and mj_solNewton compute it with MuJoCo's default
 * tolerance, iterations and line search: the cheaper of a and qacc_smooth, then, with
 * islands, each island's coordinates on their own (a coordinate no row touches takes
 * qacc_smooth). On return a is that qacc, every row's force is set and qfrc (when not
 * NULL) is qfrc_constraint. Never fails; no allocation. p's rows' forces are written.
 */
void core_nsnewton_solve(struct core_nsnewton_problem *p, double *a, double *qfrc);

#endif
