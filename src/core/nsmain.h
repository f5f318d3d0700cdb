/*
 * nsmain.h: the rows of the hold scene's two contacts in the asymmetric step, and that
 * step's main constraint solve (nsmain.c), for the step and its noslip sweeps
 * (noslip.c). Internal to the library.
 */
#ifndef CONTACTD_CORE_NSMAIN_H
#define CONTACTD_CORE_NSMAIN_H

#include "core/pinch.h"

/* The rows of one contact: noslip.c makes them, nsmain.c's solve and noslip.c's sweeps
 * read them and set their forces. */
#define CORE_NSMAIN_DOF CORE_PINCH_DOF
#define CORE_NSMAIN_ROWS 10 /* per contact: pyramidal 2*(condim-1) <= 10, elliptic condim <= 6 */
#define CORE_NSMAIN_CONE_ROWS                                                                       \
	3                    /* an elliptic contact's rows kept: normal, z tangent, roll about y */
#define CORE_NSMAIN_ROW_DOF 4 /* the coordinates a contact's rows act on: x, z, wy and its pad */

/* A contact's rows act on four of the five coordinates (the other pad's is 0 in all of
 * them): a row is kept as those four, the last standing for coordinate q (3 + side).
 * The sums and updates of nsmain.c and noslip.c take the terms in the order of the five-coordinate
 * ones, so the arithmetic is the same, and the zero terms are not computed. */
struct core_nsmain_contact {
	int active, nrows, elliptic, condim, q;
	int replaced; /* discrete: K, B are refsafe's replacement (core_law_discrete_gains) */
	double dist, imp, K, B, rr;
	double Kimp, s, sB; /* discrete: K imp, the row's s and a friction row's 1 + h B */
	double R0, R1, mu;  /* R of the normal (pyramid: every) row, the tangent rows; cone mu */
	double fr[5];       /* the contact's friction */
	double jn[CORE_NSMAIN_ROW_DOF];    /* the normal row */
	double jk[5][CORE_NSMAIN_ROW_DOF]; /* the tangent rows (y, z, spin, roll y, roll z) */
	double J[CORE_NSMAIN_ROWS][CORE_NSMAIN_ROW_DOF], aref[CORE_NSMAIN_ROWS], R[CORE_NSMAIN_ROWS],
	    force[CORE_NSMAIN_ROWS];
	double D[CORE_NSMAIN_ROWS]; /* 1 / R */
	/* how many of MuJoCo's rows a row stands for: a pyramid's rows that equal the
	 * normal row here (both edges of the y slide, the spin and the roll about z) are
	 * one row, with the same force in each; pair0 is the first edge pair that can move */
	double mult[CORE_NSMAIN_ROWS];
	int pair0;
	int tangent[CORE_NSMAIN_ROWS];      /* a pyramid edge's tangent k: J = jn +- fr[k] jk[k] */
	double fric[CORE_NSMAIN_CONE_ROWS]; /* elliptic: a tangent row's friction coefficient */
};

/* a contact's row j (struct core_nsmain_contact: its pad's coordinate q) . the 5-vector v */
static inline double core_nsmain_row_dot(const double *j, int q, const double *v)
{
	return j[0] * v[0] + j[1] * v[1] + j[2] * v[2] + j[3] * v[q];
}

/* the 5-vector y += a j, j a contact's row */
static inline void core_nsmain_row_axpy(double *y, double a, const double *j, int q)
{
	y[0] += a * j[0];
	y[1] += a * j[1];
	y[2] += a * j[2];
	y[q] += a * j[3];
}

/* the coordinate of a row's entry i */
static inline int core_nsmain_row_coord(int i, int q)
{
	return i < 3 ? i : q;
}

/*
 * core_nsmain_solve: the main solver's answer for both contacts c[0], c[1] (rows made by
 * noslip.c; an inactive contact is skipped): the exact minimiser of MuJoCo's convex cost
 * of the rows at the accelerations a (the five coordinates', m/s^2 and rad/s^2), a0 the
 * step's qacc_smooth (m->dof_accel0, or the pads' own where their force moves). On
 * entry a is the start (the previous step's qacc); on return it is the minimiser, and
 * every active row's force (c[k].force) is set. The quadratic pieces of the rows that
 * push are tried first (an active-set step), then Newton with an exact line search.
 * Cannot fail: a singular piece falls back to Newton, which stops where it cannot
 * descend.
 */
void core_nsmain_solve(
    const struct core_pinch_model *m, struct core_nsmain_contact *c, const double *a0, double *a);

#endif
