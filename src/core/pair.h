/*
 * pair.h: one geom's contact parameters and MuJoCo's rule for combining two
 * geoms into one contact (spec §2: priority, solmix, condim, friction, margin, gap).
 * The public part (struct ctd_pair_geom and its defaults) is declared in contactd.h.
 */
#ifndef CONTACTD_CORE_PAIR_H
#define CONTACTD_CORE_PAIR_H

#include "core/contactd.h"
#include "core/mjver.h"

/* The combined parameters of one contact, before solref/solimp sanitizing. */
struct ctd_pair_contact {
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
void ctd_pair_combine(const struct ctd_pair_geom *g1, const struct ctd_pair_geom *g2,
    const struct ctd_mjver_rules *rules, struct ctd_pair_contact *out);

#endif
