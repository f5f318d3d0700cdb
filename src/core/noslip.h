/*
 * noslip.h: the hold scene's asymmetric step (noslip.c), for the run (hold.c). Internal
 * to the library.
 */
#ifndef CONTACTD_CORE_NOSLIP_H
#define CONTACTD_CORE_NOSLIP_H

#include "core/pinch.h"

/* The state of the asymmetric scene that noslip makes: MuJoCo's noslip sweeps the
 * two contacts one after the other, so the pads' friction forces differ, the object
 * turns about y and its state leaves the mirror x -> -x (it keeps y -> -y). */
struct core_noslip_state {
	double x, vx;      /* the object's centre along x (qpos[0]) and speed */
	double z, vz;      /* ... along z (qpos[2]) */
	double wy;         /* its angular velocity about y (qvel[4]) */
	double qL, vqL;    /* the left pad's joint (axis +x) */
	double qR, vqR;    /* the right pad's joint (axis -x) */
	double qacc[5];    /* the last step's (ax, az, alpha_y, aL, aR): the solver's start */
	int noslip_sweeps; /* the sweeps the last step's noslip ran */
	int replaced;      /* discrete: refsafe replaced a row of either contact last step */
};

/* The start of the asymmetric scene: as core_pinch_start. */
void core_noslip_start(struct core_noslip_state *s);

/*
 * core_noslip_step: one mj_step of the scene in the five coordinates it moves in
 * (object x, z, rotation about y, both pads), for any noslip_iterations: MuJoCo's
 * constraint rows (each pad joint's frictionloss row, then both contacts' from the
 * asymmetric sphere-box geometry), MuJoCo's Newton on them, iteration for iteration
 * (nsnewton.h), then m->noslip_iterations of MuJoCo's noslip sweeps (the frictionloss
 * rows, then contact by contact: pyramid edge pairs with their sum fixed, the elliptic
 * friction block's QCQP), then the integrator's velocity update. The pads' own forces
 * are each pad's (its motor or servo, joint damping; armature in the model's masses):
 * the velocity comes from the forces, (qM - h qDeriv)^-1 (qfrc_smooth + qfrc_constraint),
 * where the integrator takes damping or kv implicitly (docs/hold.md's integrator table),
 * else from qacc. The next step's warmstart is qacc after noslip from 3.3.6, the main
 * solver's before (mjver.h, warmstart_after_noslip).
 */
void core_noslip_step(const struct core_pinch_model *m, struct core_noslip_state *s);

#endif
