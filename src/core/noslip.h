/*
 * noslip.h: the hold scene's asymmetric step (noslip.c), for the run (hold.c). Internal
 * to the library.
 */
#ifndef CONTACTD_CORE_NOSLIP_H
#define CONTACTD_CORE_NOSLIP_H

#include "core/pinch.h"

/* The rows of one contact, as noslip.c's parts pass them to each other. */
#define CTD_NOSLIP_DOF CTD_PINCH_DOF
#define CTD_NOSLIP_ROWS 10 /* per contact: pyramidal 2*(condim-1) <= 10, elliptic condim <= 6 */
#define CTD_NOSLIP_CONE_ROWS                                                                       \
	3                    /* an elliptic contact's rows kept: normal, z tangent, roll about y */
#define CTD_NOSLIP_ROW_DOF 4 /* the coordinates a contact's rows act on: x, z, wy and its pad */

/* A contact's rows act on four of the five coordinates (the other pad's is 0 in all of
 * them): a row is kept as those four, the last standing for coordinate q (3 + side).
 * The sums and updates of noslip.c take the terms in the order of the five-coordinate ones,
 * so the arithmetic is the same, and the zero terms are not computed. */
struct ctd_noslip_contact {
	int active, nrows, elliptic, condim, q;
	double dist, imp, K, B, rr;
	double Kimp, s, sB; /* discrete: K imp, the row's s and a friction row's 1 + h B */
	double R0, R1, mu;  /* R of the normal (pyramid: every) row, the tangent rows; cone mu */
	double fr[5];       /* the contact's friction */
	double jn[CTD_NOSLIP_ROW_DOF];    /* the normal row */
	double jk[5][CTD_NOSLIP_ROW_DOF]; /* the tangent rows (y, z, spin, roll y, roll z) */
	double J[CTD_NOSLIP_ROWS][CTD_NOSLIP_ROW_DOF], aref[CTD_NOSLIP_ROWS], R[CTD_NOSLIP_ROWS],
	    force[CTD_NOSLIP_ROWS];
	double D[CTD_NOSLIP_ROWS]; /* 1 / R */
	/* how many of MuJoCo's rows a row stands for: a pyramid's rows that equal the
	 * normal row here (both edges of the y slide, the spin and the roll about z) are
	 * one row, with the same force in each; pair0 is the first edge pair that can move */
	double mult[CTD_NOSLIP_ROWS];
	int pair0;
	int tangent[CTD_NOSLIP_ROWS];      /* a pyramid edge's tangent k: J = jn +- fr[k] jk[k] */
	double fric[CTD_NOSLIP_CONE_ROWS]; /* elliptic: a tangent row's friction coefficient */
};

/* The state of the asymmetric scene that noslip makes: MuJoCo's noslip sweeps the
 * two contacts one after the other, so the pads' friction forces differ, the object
 * turns about y and its state leaves the mirror x -> -x (it keeps y -> -y). */
struct ctd_noslip_state {
	double x, vx;      /* the object's centre along x (qpos[0]) and speed */
	double z, vz;      /* ... along z (qpos[2]) */
	double wy;         /* its angular velocity about y (qvel[4]) */
	double qL, vqL;    /* the left pad's joint (axis +x) */
	double qR, vqR;    /* the right pad's joint (axis -x) */
	double qacc[5];    /* the last step's (ax, az, alpha_y, aL, aR): the solver's start */
	int noslip_sweeps; /* the sweeps the last step's noslip ran */
};

/* The start of the asymmetric scene: as ctd_pinch_start. */
void ctd_noslip_start(struct ctd_noslip_state *s);

/*
 * ctd_noslip_step: one mj_step of the scene in the five coordinates it moves in
 * (object x, z, rotation about y, both pads), for any noslip_iterations: MuJoCo's
 * constraint rows of both contacts from the asymmetric sphere-box geometry, the
 * exact minimiser of the main solver's convex cost (Newton with exact line search),
 * then m->noslip_iterations of MuJoCo's noslip sweeps (contact by contact, pyramid
 * edge pairs with their sum fixed, the elliptic friction block's QCQP), then Euler.
 */
void ctd_noslip_step(const struct ctd_pinch_model *m, struct ctd_noslip_state *s);

#endif
