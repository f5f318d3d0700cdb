/*
 * mjhold.h: the hold scene (a sphere, capsule or box pinched between two box pads on
 * slide joints, driven by motors or position servos) built in real MuJoCo (test and bench helper only; libmujoco is never linked into src/).
 */
#ifndef CONTACTD_TESTS_MJHOLD_H
#define CONTACTD_TESTS_MJHOLD_H

#include <stddef.h>

#include <mujoco/mujoco.h>

#include "core/hold.h"

/* A loaded hold scene; model and data are owned (mjhold_close frees them). */
struct mjhold {
	mjModel *model;
	mjData *data;
};

/* Write the MJCF of h into buf (len bytes); every number printed with %.17g.
 * Returns 0, or -1 when buf is too small or h's integrator is implicitfast with a
 * velocity-dependent force (joint damping, a servo's kv), which 2.2.2 cannot step (its
 * implicit is implicitfast's step only without one). */
int mjhold_xml(const struct core_hold *h, char *buf, size_t len);

/* Compile h in MuJoCo and make its data (at rest, pads touching, ctrl = grip_force, or
 * the position servo's squeeze).
 * Returns 0, or -1 with a message in errbuf. */
int mjhold_open(struct mjhold *mh, const struct core_hold *h, char *errbuf, size_t errlen);

void mjhold_close(struct mjhold *mh);

/* Fill h with issue 21's measured scene (a 2 cm, 100 g sphere, 5 x 20 x 200 mm pads of
 * 50 g at 10 N, the SO-101 pad class, 5 ms, 1 s, release 2.2.2) under cone and impratio. */
void mjhold_issue_scene(struct core_hold *h, enum core_cone cone, double impratio);

/* Fill h with the grasp of google-deepmind/mujoco#3328 (docs/hold.md): a 45 g capsule
 * (r 4 mm, half-length 2 cm) between 0.2 kg pads on slides of damping 100 N s/m, position
 * servos kp 20000 N/m squeezing 2 mm, friction (0.7, 0.005, 0.0001) condim 3, 2 ms Euler,
 * 2.5 s, under cone, impratio and release mujoco (a core_mjver index). */
void mjhold_issue_3328(struct core_hold *h, enum core_cone cone, double impratio, int mujoco);

/* The state in the core's coordinates: object z and vz, the right pad's joint q, vq
 * (qpos/qvel indices 2 and 8; the left pad's are 7), and how far MuJoCo is from the
 * mirror symmetry the core assumes (largest |object x|, |rotation|, |qL - qR|). */
struct mjhold_sample {
	double z, vz, q, vq, asym;
};

void mjhold_sample(const struct mjhold *mh, struct mjhold_sample *out);

#endif
