/*
 * pairs.h: the geom pairs MuJoCo's collision pipeline would collide in a
 * compiled model (engine_collision_driver.c): every two geoms of different bodies that
 * pass contype/conaffinity, the weld-body and parent filters and <exclude>, and the
 * explicit <pair>s (which replace the dynamic pair of the same geoms), each with the
 * parameters mj_collideGeoms gives its contacts, what refsafe does with them at the
 * model's timestep, and the warnings a user can act on. Which of them touch at a given
 * configuration (the broadphase's boxes, the narrow phase) is not decided here.
 */
#ifndef CONTACTD_MODEL_PAIRS_H
#define CONTACTD_MODEL_PAIRS_H

#include "model/model.h"

/* A pair's warnings, bits of struct mpair_pair's warnings. */
enum {
	MPAIR_WARN_TIMECONST = 1 << 0, /* timeconst below 2 * timestep */
	MPAIR_WARN_DAMPING = 1 << 1,   /* timeconst_used * dampratio below the timestep */
	MPAIR_WARN_GROWTH = 1 << 2,    /* the contact spring grows per step */
	MPAIR_WARN_PRIORITY = 1 << 3,  /* a priority hides a geom's own solref */
	MPAIR_WARN_PAD = 1 << 4,       /* two such pads cannot hold the object's weight */
	MPAIR_WARN_REPLACED = 1 << 5,  /* discrete: refsafe replaces the rows' gains */
	MPAIR_WARN_COUNT = 6
};

struct mpair_pair {
	int geom1, geom2;  /* MuJoCo's order: geom1's type <= geom2's */
	int explicit_pair; /* the <pair>'s index in the model, -1 for a dynamic pair */
	int condim;
	double friction[5]; /* each >= mjMINMU */
	double solref[2], solimp[5];
	double solreffriction[2]; /* the <pair>'s, else (0, 0): the friction rows use solref */
	double margin, gap, includemargin; /* m; rows while dist < includemargin */
	int solref_fallback;               /* a mixed-sign solref: MuJoCo uses (0.02, 1) */
	int direct;                        /* solref in the direct form: no time constant */
	double timeconst_used; /* s after refsafe (standard form; discrete: as written) */
	double replaced_q;     /* discrete: h^2 K dmax (refsafe replaces above 1) */
	double dampratio_used;
	double growth; /* the spectral radius of one step at the deepest impedance */
	unsigned warnings;
	int hidden;              /* PRIORITY: the geom whose solref is not used */
	double growth_timeconst; /* GROWTH: the smallest timeconst whose step does not grow
	                            (0 when none up to 1 s) */
	/* PAD (docs/model.md, "pad_cannot_hold"): the object's geom and the pad's, the
	 * largest normal force (N) the contact makes before the object reaches the pad's
	 * centre, and the friction[0] from which two such pads hold the weight (elliptic
	 * and condim 1), or the impratio (pyramidal: a higher friction does not help) */
	int object, pad;
	int pad_pyramid; /* the bound is the pyramidal cone's */
	double pad_depth, pad_force, pad_weight, hold_friction, hold_impratio;
};

struct mpair_list {
	struct mpair_pair *pairs;
	int count;
};

/* The pairs of m, in the order mj_collision visits them. Fills *out (mpair_free);
 * too_large past MODEL_MAX_PAIRS, internal when out of memory. */
int mpair_list(const struct mdl_model *m, struct mpair_list *out, struct err *err);

void mpair_free(struct mpair_list *l);

/* The contact parameters of geom g, as the core combines them into a pair's. */
void mpair_geom(const struct mdl_geom *g, struct core_pair_geom *out);

/* The text of warning bit `bit` of pair p: what is wrong (msg) and the change that
 * removes it (fix), each NUL-terminated in len bytes. */
void mpair_warning_text(const struct mdl_model *m, const struct mpair_pair *p, unsigned bit,
    char *msg, char *fix, size_t len);

/* The machine name of warning bit `bit` ("timeconst_below_2h"). */
const char *mpair_warning_name(unsigned bit);

#endif
