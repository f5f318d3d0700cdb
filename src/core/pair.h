/*
 * pair.h: one geom's contact parameters and MuJoCo's rule for combining two
 * geoms into one contact (spec §2: priority, solmix, condim, friction, margin, gap).
 * The public part (struct core_pair_geom and its defaults) is declared in contactd.h.
 */
#ifndef CONTACTD_CORE_PAIR_H
#define CONTACTD_CORE_PAIR_H

#include "core/mjver.h"

struct core_pair_geom {
	double solref[2];   /* (timeconst s, dampratio), or (-stiffness, -damping) */
	double solimp[5];   /* (d0, dwidth, width m, midpoint, power) */
	int condim;         /* 1, 3, 4 or 6 */
	double friction[3]; /* sliding, torsional (m), rolling (m) */
	double margin, gap; /* m, >= 0 */
	double solmix;      /* >= 0 */
	int priority;
};

/* Fill g with MuJoCo's geom defaults: solref (0.02, 1), solimp (0.9, 0.95, 0.001, 0.5, 2),
 * condim 3, friction (1, 0.005, 0.0001), margin and gap 0, solmix 1, priority 0. */
void core_pair_geom_default(struct core_pair_geom *g);

/* The combined parameters of one contact, before solref/solimp sanitizing. */
struct core_pair_contact {
	double solref[2];
	double solimp[5];
	int condim;
	double friction[5];   /* (slide, slide, spin, roll, roll), each >= mjMINMU */
	double margin, gap;   /* max of the two geoms' (before 3.5.0) or their sum (3.5.0+) */
	double detect;        /* a contact exists while dist <= detect: margin (before 3.9.0)
	                         or margin + gap (3.9.0+) */
	double includemargin; /* rows exist only while dist < includemargin: margin - gap
	                         (before 3.9.0) or margin (3.9.0+) */
};

/* Combine the plane's geom g1 with the body's geom g2 (the plane has the smaller
 * geom type, so it is MuJoCo's geom1) under a release's margin/gap rules. */
void core_pair_combine(const struct core_pair_geom *g1, const struct core_pair_geom *g2,
    const struct core_mjver_rules *rules, struct core_pair_contact *out);

#endif
