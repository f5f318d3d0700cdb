/*
 * noslip_int.h: the rows of the hold scene's two contacts in the asymmetric step
 * (noslip.c's private header): noslip.c makes them, hands them to MuJoCo's Newton
 * (nsnewton.h) and sweeps them with noslip.
 */
#ifndef CONTACTD_CORE_NOSLIP_INT_H
#define CONTACTD_CORE_NOSLIP_INT_H

#include "core/pinch.h"

/* The rows of one contact: noslip.c makes them; the main solve and the sweeps set their
 * forces. */
#define CORE_NOSLIP_DOF CORE_PINCH_DOF
#define CORE_NOSLIP_ROWS 10 /* per contact: pyramidal 2*(condim-1) <= 10, elliptic condim <= 6 */
#define CORE_NOSLIP_CONE_ROWS                                                                      \
	3                     /* an elliptic contact's rows kept: normal, z tangent, roll about y */
#define CORE_NOSLIP_ROW_DOF 4 /* the coordinates a contact's rows act on: x, z, wy and its pad */

/* A contact's rows act on four of the five coordinates (the other pad's is 0 in all of
 * them): a row is kept as those four, the last standing for coordinate q (3 + side).
 * The sweeps' sums and updates take the terms in the order of the five-coordinate ones,
 * so the arithmetic is the same, and the zero terms are not computed. */
struct core_noslip_contact {
	int active, nrows, elliptic, condim, q;
	int replaced; /* discrete: K, B are refsafe's replacement (core_law_discrete_gains) */
	double dist, imp, K, B, rr;
	double Kimp, s, sB; /* discrete: K imp, the row's s and a friction row's 1 + h B */
	double R0, R1, mu;  /* R of the normal (pyramid: every) row, the tangent rows; cone mu */
	double fr[5];       /* the contact's friction */
	double jn[CORE_NOSLIP_ROW_DOF];    /* the normal row */
	double jk[5][CORE_NOSLIP_ROW_DOF]; /* the tangent rows (y, z, spin, roll y, roll z) */
	double J[CORE_NOSLIP_ROWS][CORE_NOSLIP_ROW_DOF], aref[CORE_NOSLIP_ROWS],
	    R[CORE_NOSLIP_ROWS], force[CORE_NOSLIP_ROWS];
	double D[CORE_NOSLIP_ROWS]; /* 1 / R */
	/* how many of MuJoCo's rows a row stands for: a pyramid's rows that equal the
	 * normal row here (both edges of the y slide, the spin and the roll about z) are
	 * one row, with the same force in each; pair0 is the first edge pair that can move */
	double mult[CORE_NOSLIP_ROWS];
	int pair0;
	int tangent[CORE_NOSLIP_ROWS];      /* a pyramid edge's tangent k: J = jn +- fr[k] jk[k] */
	double fric[CORE_NOSLIP_CONE_ROWS]; /* elliptic: a tangent row's friction coefficient */
};

/* a contact's row j (struct core_noslip_contact: its pad's coordinate q) . the 5-vector v */
static inline double core_noslip_row_dot(const double *j, int q, const double *v)
{
	return j[0] * v[0] + j[1] * v[1] + j[2] * v[2] + j[3] * v[q];
}

/* the 5-vector y += a j, j a contact's row */
static inline void core_noslip_row_axpy(double *y, double a, const double *j, int q)
{
	y[0] += a * j[0];
	y[1] += a * j[1];
	y[2] += a * j[2];
	y[q] += a * j[3];
}

/* the coordinate of a row's entry i */
static inline int core_noslip_row_coord(int i, int q)
{
	return i < 3 ? i : q;
}

#endif
