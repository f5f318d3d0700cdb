/*
 * mjver.h: the MuJoCo releases whose contact semantics the core reproduces, and
 * what changed between them for a sphere or flat box on a plane (docs/releases.md's
 * version table; the engine sources of each tag, checked against builds of 2.2.2, 3.3.8,
 * 3.5.0, 3.9.0 and 3.12.0, and the official WebAssembly builds of 3.3.8, 3.12.0, 3.13.0
 * and 3.14.0).
 *
 * A release is an index into one static table in release order. Index 0 is 2.2.0,
 * whose rules are 2.2.2's, so a zeroed scene follows Debian's libmujoco 2.2.2.
 * The public part (the releases' names and indices) is declared in contactd.h.
 */
#ifndef CONTACTD_CORE_MJVER_H
#define CONTACTD_CORE_MJVER_H

/* Number of supported releases; valid indices run 0 .. core_mjver_count() - 1. */
int core_mjver_count(void);

/* The index of the release used when none is named: the newest supported. */
int core_mjver_default(void);

/* The index of release `name` (e.g. "3.12.0"), or -1 when it is not supported.
 * name: a NUL-terminated string; NULL gives -1. */
int core_mjver_find(const char *name);

/* The name of release `index` ("2.2.2", ...), a static string. Requires a valid index. */
const char *core_mjver_name(int index);

/* The supported releases, oldest first, as one static comma-separated string. */
const char *core_mjver_supported(void);

/* The rules of one release that matter for these scenes. */
struct core_mjver_rules {
	/* 3.5.0+: the two geoms' margins add, and so do their gaps (before: the max of each) */
	int margin_sum;
	/* 3.9.0+: contacts are detected while dist <= margin + gap, make rows while
	 * dist < margin, and includemargin = margin (before: detected while dist <= margin,
	 * rows while dist < margin - gap, includemargin = margin - gap) */
	int margin_gap_split;
	/* 3.2.0+: the impedance sigmoid's power(x, 1 or 2) multiplies instead of calling pow */
	int power_shortcut;
	/* 3.11.0+: Newton keeps its starting point (the cheaper of the previous step's qacc
	 * and qacc_smooth) unchanged when the gradient and the duality gap there are
	 * already below tolerance */
	int newton_certificate;
	/* 3.10.0+: Newton's line search compares costs shifted by the start's, and the
	 * solver stops on an improvement that is positive and below tolerance */
	int newton_shifted_costs;
	/* 3.0.0+: a body whose only joints are slides, with its inertial frame at its origin
	 * (body_simple 2), gets body_invweight0 = (1/m, 0) instead of the trace of its
	 * translational block over 3 (a pad on one slide joint: 1/m, not 1/(3m)) */
	int simple_body_invweight;
	/* 3.13.0+: option.integrator "discrete" exists (the constraint solve and the
	 * implicit velocity update in one; refsafe replaces rows with h^2 K imp > 1 instead
	 * of clamping timeconst, docs/releases.md) */
	int discrete_integrator;
	/* 3.8.0-3.13.0: mj_SAP sorts the bodies' AAMM ends as float32 and, of two equal
	 * ends, pairs the bodies only when the later body's min is stored before the
	 * earlier body's max: an exactly touching pad after the object in body order (the
	 * hold scene's right pad) is not paired (docs/hold.md, "Releases"). Before 3.8.0
	 * the AAMM was the bounding sphere, which no tie reaches; 3.14.0 pairs both. */
	int sap_float_tie;
	/* 3.9.0+: a geom's AAMM grows by its margin + gap (3.8.x: its margin only) */
	int aamm_gap;
	/* 3.5.0+: without noslip the solver runs per constraint island, scaled by the
	 * island's inertia (before: by meaninertia * nv over the whole model) */
	int solver_islands;
	/* 3.5.0+: implicit and implicitfast drop an actuator's velocity derivative while its
	 * force sits at a forcerange bound (engine_derivative.c; before: kept) */
	int clamped_no_derivative;
	/* 2.3.3+: option.integrator "implicitfast" exists */
	int implicitfast;
	/* 3.4.0+: mjc_BoxBox reports a contact's dist as the whole penetration (before:
	 * half of it) */
	int boxbox_full_depth;
	/* 3.3.6+: the next step's warmstart is qacc after noslip (mj_advance saves it;
	 * before: mj_fwdConstraint saved the main solver's qacc, before noslip) */
	int warmstart_after_noslip;
};

enum { CORE_MJVER_2_2_2 = 2 };

/* The rules of release index. */
void core_mjver_rules(int index, struct core_mjver_rules *out);

#endif
