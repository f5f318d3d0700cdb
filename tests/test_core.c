/*
 * test_core.c: unit tests of the contact core (law, pair, scene, sim, growth).
 *
 * Expected values are MuJoCo 2.2.2's own numbers, read from efc_KBIP, efc_R,
 * efc_aref and qacc by the probes of shared/mujoco-contact-spec.md §11, or exact
 * closed forms derived there. Tolerances: 1e-15 relative where MuJoCo computes
 * the same expression in the same order (bit-exact up to one rounding), 1e-13
 * where the solver (Newton) reaches the same minimizer by another arithmetic path.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "core/growth.h"
#include "core/law.h"
#include "core/mjver.h"
#include "core/pair.h"
#include "core/scene.h"
#include "core/sim.h"
#include "lesson_step4.h"
#include "core/knobs.h"

#define REL(a, b) (fabs((a) - (b)) / fmax(fabs(b), 1e-300))

static const double default_solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};

/* the spec's probe scene: 1 kg, r = 0.05 sphere or 0.05 cube, h = 0.002 */
static void probe_scene(struct core_scene *s, enum core_scene_shape shape, int condim)
{
	s->shape = shape;
	s->size[0] = s->size[1] = s->size[2] = 0.05;
	s->mass = 1;
	core_pair_geom_default(&s->geom);
	core_pair_geom_default(&s->floor);
	s->geom.condim = s->floor.condim = condim;
	s->option.timestep = 0.002;
	s->option.mujoco = CORE_MJVER_2_2_2; /* the reference: libmujoco 2.2.2 */
	s->option.refsafe = 1;
	s->option.gravity = 9.81;
	s->option.impratio = 1;
	s->option.integrator = CORE_SCENE_EULER;
	s->option.cone = CORE_CONE_PYRAMIDAL;
	s->height = 0;
	s->duration = 2;
}

START_TEST(impedance_default_solimp)
{
	struct core_law_solimp s;
	double deriv, imp;

	/* the probe's dist comes from geometry: centre 0.05 - 0.0004 minus radius 0.05 */
	core_law_solimp_clamp(default_solimp, &s);
	imp = core_law_impedance((0.05 - 0.0004) - 0.05, &s, &deriv);
	ck_assert_double_eq_tol(imp, 0.91599999999999981, 1e-16);
	ck_assert(REL(deriv, -79.9999999999994) < 1e-13);
	/* the lesson's convention (penetration >= 0) gives the same value */
	ck_assert_double_eq(core_law_impedance(0.05 - (0.05 - 0.0004), &s, NULL), imp);
	/* saturation at and beyond the width, d0 at zero */
	ck_assert_double_eq(core_law_impedance(-0.002, &s, NULL), 0.95);
	ck_assert_double_eq(core_law_impedance(0, &s, NULL), 0.9);
}
END_TEST

START_TEST(impedance_shapes_and_clamps)
{
	const double shaped[5] = {0.5, 0.99, 0.01, 0.3, 3};
	const double flat[5] = {0.7, 0.7, 0.01, 0.5, 2};
	const double wild[5] = {-1, 2, -0.5, 7, 0.2};
	struct core_law_solimp s;
	double deriv;

	core_law_solimp_clamp(shaped, &s);
	ck_assert(REL(core_law_impedance(-0.002, &s, NULL), 0.54355555555555568) < 1e-15);
	ck_assert(REL(core_law_impedance(-0.005, &s, NULL), 0.86499999999999977) < 1e-15);

	core_law_solimp_clamp(flat, &s);
	ck_assert_double_eq(core_law_impedance(-0.003, &s, &deriv), 0.7);
	ck_assert_double_eq(deriv, 0);

	/* getsolparam: d0, dwidth, midpoint to [1e-4, 0.9999]; width >= 0; power >= 1 */
	core_law_solimp_clamp(wild, &s);
	ck_assert_double_eq(s.d0, 1e-4);
	ck_assert_double_eq(s.dwidth, 0.9999);
	ck_assert_double_eq(s.width, 0);
	ck_assert_double_eq(s.midpoint, 0.9999);
	ck_assert_double_eq(s.power, 1);
	/* zero width: flat at the mean of the ends */
	ck_assert_double_eq(core_law_impedance(-0.1, &s, NULL), 0.5 * (1e-4 + 0.9999));
}
END_TEST

START_TEST(solref_gains)
{
	const double standard[2] = {0.02, 1}, stiff[2] = {0.001, 1}, stiff07[2] = {0.001, 0.7};
	const double direct[2] = {-1000, -10}, mixed[2] = {0.05, -3}, zero_damp[2] = {0.02, 0};
	const double direct_undamped[2] = {-500, 0};
	struct core_law_gains g;

	core_law_solref_kb(standard, 0.95, 0.002, 1, &g);
	ck_assert(REL(g.K, 2770.0831024930749) < 1e-15);
	ck_assert(REL(g.B, 105.26315789473685) < 1e-15);
	ck_assert_double_eq(g.timeconst_used, 0.02);

	/* refsafe clamps timeconst to 2h = 0.004, and only when enabled */
	core_law_solref_kb(stiff, 0.95, 0.002, 1, &g);
	ck_assert(REL(g.K, 69252.077562326871) < 1e-15);
	ck_assert_double_eq(g.timeconst_used, 0.004);
	core_law_solref_kb(stiff, 0.95, 0.002, 0, &g);
	ck_assert(REL(g.K, 1108033.2409972299) < 1e-15);
	core_law_solref_kb(stiff07, 0.95, 0.002, 1, &g);
	ck_assert_double_eq_tol(g.K, 141330.7705, 5e-5); /* spec prints 4 decimals */

	core_law_solref_kb(direct, 0.95, 0.002, 1, &g);
	ck_assert(g.direct);
	ck_assert(REL(g.K, 1108.03324099723) < 1e-14);
	ck_assert(REL(g.B, 10.526315789473685) < 1e-15);

	/* mixed sign, and a zero dampratio, fall back to (0.02, 1) */
	core_law_solref_kb(mixed, 0.95, 0.002, 1, &g);
	ck_assert(g.fell_back);
	ck_assert(REL(g.K, 2770.0831024930749) < 1e-15);
	core_law_solref_kb(zero_damp, 0.95, 0.002, 1, &g);
	ck_assert(g.fell_back);
	/* (-k, 0) is a valid direct solref with no damping */
	core_law_solref_kb(direct_undamped, 0.95, 0.002, 1, &g);
	ck_assert(!g.fell_back && g.direct);
	ck_assert_double_eq(g.B, 0);
}
END_TEST

START_TEST(contact_accel_lesson_step2)
{
	/* Build it, Step 2: at r = 0.5 mm, v = -0.3 m/s, aref = 32.860111 (MuJoCo's efc_aref);
	 * independently: imp = 0.925, K*imp*r + B*0.3 with K, B of tc 0.02 */
	const double solref[2] = {0.02, 1};
	struct core_law_solimp s;
	struct core_law_gains g;
	double imp, aref, a;

	core_law_solimp_clamp(default_solimp, &s);
	core_law_solref_kb(solref, s.dwidth, 0.002, 1, &g);
	imp = core_law_impedance(-0.0005, &s, NULL);
	ck_assert_double_eq_tol(imp, 0.925, 1e-15);
	aref = -g.B * -0.3 - g.K * imp * -0.0005;
	ck_assert_double_eq_tol(aref, 32.860111, 5e-7);
	a = core_law_contact_accel(-0.0005, -0.3, -9.81, solref, &s, 0.002, 1);
	ck_assert(REL(a, imp * aref + (1 - imp) * -9.81) < 1e-15);
	/* no pull: separating fast, the contact gives a0 */
	ck_assert_double_eq(core_law_contact_accel(-0.0005, 5, -9.81, solref, &s, 0.002, 1), -9.81);
	ck_assert_double_eq(core_law_contact_accel(0.001, -0.3, -9.81, solref, &s, 0.002, 1), -9.81);
}
END_TEST

START_TEST(resting_penetration_closed_form)
{
	/* beyond the width, d = dwidth and r = (1-d) a_u tc^2 dr^2 exactly (lesson, Math details)
	 */
	const double solref[2] = {0.1, 1};
	const double solimp_flat[5] = {0.9, 0.9, 0.001, 0.5, 2};
	struct core_law_solimp s;
	double r;

	core_law_solimp_clamp(default_solimp, &s);
	ck_assert_int_eq(core_law_resting_penetration(9.81, solref, &s, 0.002, 1, &r), 0);
	ck_assert(REL(r, 0.05 * 9.81 * 0.01) < 1e-14);
	/* inside the width, the root satisfies d^2 K r = (1-d) a_u */
	{
		const double soft[2] = {0.02, 1};
		struct core_law_gains g;
		double d;
		ck_assert_int_eq(core_law_resting_penetration(9.81, soft, &s, 0.002, 1, &r), 0);
		core_law_solref_kb(soft, s.dwidth, 0.002, 1, &g);
		d = core_law_impedance(r, &s, NULL);
		ck_assert(fabs(d * d * g.K * r - (1 - d) * 9.81) < 1e-12);
		ck_assert_double_eq_tol(r * 1e3, 0.3672, 5e-5); /* lesson Step 3 */
	}
	core_law_solimp_clamp(solimp_flat, &s);
	ck_assert_int_eq(core_law_resting_penetration(9.81, solref, &s, 0.002, 1, &r), 0);
	ck_assert(REL(r, 0.1 * 9.81 * 0.01 * (0.9 * 0.9) / (0.9 * 0.9)) < 1e-14);
	/* no load, no penetration; negative load has no resting state */
	ck_assert_int_eq(core_law_resting_penetration(0, solref, &s, 0.002, 1, &r), 0);
	ck_assert_double_eq(r, 0);
	ck_assert_int_eq(core_law_resting_penetration(-1, solref, &s, 0.002, 1, &r), -1);
}
END_TEST

START_TEST(error_reduction_formula)
{
	/* phyz: dt / (2 tau zeta^2 + dt); saturates at 1 as tau -> 0 */
	ck_assert_double_eq_tol(core_law_error_reduction(0.02, 1, 0.002), 0.002 / 0.042, 1e-16);
	ck_assert_double_eq_tol(core_law_error_reduction(0.02, 0.5, 0.002), 0.002 / 0.012, 1e-16);
	ck_assert(core_law_error_reduction(1e-12, 1, 0.002) > 0.999999);
}
END_TEST

START_TEST(pair_solmix_priority_margin)
{
	struct core_mjver_rules rules;

	core_mjver_rules(CORE_MJVER_2_2_2, &rules);
	struct core_pair_geom plane, body;
	struct core_pair_contact c;

	/* solmix 1:3 (plane:sphere), MuJoCo: solref (0.0425, 0.625), solimp[0] 0.825 */
	core_pair_geom_default(&plane);
	core_pair_geom_default(&body);
	body.solmix = 3;
	body.solref[0] = 0.05;
	body.solref[1] = 0.5;
	body.solimp[0] = 0.8;
	core_pair_combine(&plane, &body, &rules, &c);
	ck_assert(REL(c.solref[0], 0.0425) < 1e-15);
	ck_assert(REL(c.solref[1], 0.625) < 1e-15);
	ck_assert(REL(c.solimp[0], 0.825) < 1e-15);

	/* one direct solref: elementwise min instead of the average */
	body.solref[0] = -1000;
	body.solref[1] = -10;
	core_pair_combine(&plane, &body, &rules, &c);
	ck_assert_double_eq(c.solref[0], -1000);
	ck_assert_double_eq(c.solref[1], -10);

	/* priority: the winner supplies condim, friction, solref, solimp */
	core_pair_geom_default(&body);
	body.priority = 1;
	body.condim = 6;
	body.friction[0] = 0.3;
	body.solref[0] = 0.01;
	plane.condim = 1;
	plane.friction[0] = 2;
	core_pair_combine(&plane, &body, &rules, &c);
	ck_assert_int_eq(c.condim, 6);
	ck_assert_double_eq(c.friction[0], 0.3);
	ck_assert_double_eq(c.solref[0], 0.01);

	/* equal priority: max condim and friction; friction clamped to mjMINMU */
	core_pair_geom_default(&plane);
	core_pair_geom_default(&body);
	plane.condim = 1;
	body.friction[2] = 0;
	plane.friction[2] = 0;
	core_pair_combine(&plane, &body, &rules, &c);
	ck_assert_int_eq(c.condim, 3);
	ck_assert_double_eq(c.friction[3], 1e-5);

	/* margin .01 / gap .004 on the plane, margin .002 on the body: includemargin 0.006 */
	plane.margin = 0.01;
	plane.gap = 0.004;
	body.margin = 0.002;
	core_pair_combine(&plane, &body, &rules, &c);
	ck_assert(REL(c.includemargin, 0.006) < 1e-15);
}
END_TEST

START_TEST(scene_sphere_probe)
{
	struct core_scene s;
	struct core_scene_model m;
	struct core_scene_contact_state st;
	double a;

	probe_scene(&s, CORE_SCENE_SPHERE, 1);
	core_scene_prepare(&s, &m);
	ck_assert_int_eq(m.rows, 1);
	a = core_scene_accel(&m, 0.05 - 0.0004, -0.3, &st);
	ck_assert(st.active);
	ck_assert(REL(st.row_R, 0.09170305676855918) < 1e-15);
	ck_assert(REL(st.aref, 32.593905817174509) < 1e-15);
	/* MuJoCo's Newton solver prints 29.031977728531835; the closed form 29.031977728531842 */
	ck_assert(REL(a, 29.031977728531835) < 1e-15);

	/* direct solref (-1000, -10): qacc 2.4404723545706317 */
	s.geom.solref[0] = s.floor.solref[0] = -1000;
	s.geom.solref[1] = s.floor.solref[1] = -10;
	core_scene_prepare(&s, &m);
	ck_assert(REL(core_scene_accel(&m, 0.05 - 0.0004, -0.3, NULL), 2.4404723545706317) < 1e-14);
}
END_TEST

/* The elliptic cone against libmujoco 2.2.2's efc arrays (printed with cone="elliptic"):
 * a 0.5 kg sphere, r 0.05, friction 0.7 0.01 0.002 on both geoms, condim 6, impratio 4,
 * at dist -0.001 and vz -0.3. Six rows; R 0.10526315789473695 (normal), 0.026315789473684237,
 * 0.026315789473684233, 128.94736842105272, 3223.6842105263186 (twice); qacc 32.00950000000001. */
START_TEST(scene_elliptic_probe)
{
	static const double mj_R[6] = {0.10526315789473695, 0.026315789473684237,
	    0.026315789473684233, 128.94736842105272, 3223.6842105263186, 3223.6842105263186};
	struct core_scene s, frictionless;
	struct core_scene_model m, m1;
	struct core_scene_contact_state st;
	double a;
	int j;

	probe_scene(&s, CORE_SCENE_SPHERE, 6);
	s.mass = 0.5;
	s.geom.friction[0] = s.floor.friction[0] = 0.7;
	s.geom.friction[1] = s.floor.friction[1] = 0.01;
	s.geom.friction[2] = s.floor.friction[2] = 0.002;
	s.option.impratio = 4;
	s.option.cone = CORE_CONE_ELLIPTIC;
	core_scene_prepare(&s, &m);
	ck_assert_int_eq(m.rows, 6);
	ck_assert_int_eq(m.normal_rows, 1);
	a = core_scene_accel(&m, 0.05 - 0.001, -0.3, &st);
	for (j = 0; j < 6; j++)
		ck_assert_msg(REL(core_scene_cone_R(&m, st.impedance, j), mj_R[j]) < 1e-15,
		    "row %d: R %.17g, MuJoCo %.17g", j, core_scene_cone_R(&m, st.impedance, j),
		    mj_R[j]);
	ck_assert(REL(a, 32.00950000000001) < 1e-15);

	/* only the normal row pushes, with a frictionless row's R: the answer is condim 1's,
	 * whatever the friction, condim and impratio (and a box's 12 rows push as 4) */
	frictionless = s;
	frictionless.option.cone = CORE_CONE_PYRAMIDAL;
	frictionless.geom.condim = frictionless.floor.condim = 1;
	frictionless.option.impratio = 1;
	core_scene_prepare(&frictionless, &m1);
	ck_assert(core_scene_accel(&m1, 0.05 - 0.001, -0.3, NULL) == a);
	s.shape = frictionless.shape = CORE_SCENE_BOX;
	s.geom.condim = s.floor.condim = 3;
	core_scene_prepare(&s, &m);
	core_scene_prepare(&frictionless, &m1);
	ck_assert_int_eq(m.rows, 12);
	ck_assert_int_eq(m.normal_rows, 4);
	ck_assert(core_scene_accel(&m, 0.05 - 0.001, -0.3, NULL) ==
	    core_scene_accel(&m1, 0.05 - 0.001, -0.3, NULL));
	ck_assert(core_scene_rest_force(&m, 1e-4) == core_scene_rest_force(&m1, 1e-4));
}
END_TEST

START_TEST(scene_box_pyramid_probe)
{
	struct core_scene s;
	struct core_scene_model m;
	struct core_scene_contact_state st;
	double a;

	probe_scene(&s, CORE_SCENE_BOX, 3);
	core_scene_prepare(&s, &m);
	ck_assert_int_eq(m.contacts, 4);
	ck_assert_int_eq(m.rows, 16);
	a = core_scene_accel(&m, 0.05 - 0.0004, -0.3, &st);
	ck_assert(REL(st.row_R, 0.36681222707423672) < 1e-15);
	ck_assert(REL(a, 31.643551471218601) < 1e-14);
	/* default friction and impratio: effective impedance 4 imp / (1 + 3 imp) (spec §9.5) */
	ck_assert(REL(a,
	              (4 * st.impedance * st.aref + (1 - st.impedance) * -9.81) /
	                  (1 + 3 * st.impedance)) < 1e-14);

	s.option.impratio = 5;
	core_scene_prepare(&s, &m);
	core_scene_accel(&m, 0.05 - 0.0004, -0.3, &st);
	ck_assert(REL(st.row_R, 0.073362445414847335) < 1e-15);

	/* margin/gap: rows exist while dist < includemargin; at dist = +0.003 imp 0.909,
	 * aref 18.080332409972293 (plane margin .01 gap .004, sphere margin .002, solimp
	 * width 0.01, v = -0.1) */
	probe_scene(&s, CORE_SCENE_SPHERE, 1);
	s.geom.solimp[2] = s.floor.solimp[2] = 0.01;
	s.floor.margin = 0.01;
	s.floor.gap = 0.004;
	s.geom.margin = 0.002;
	core_scene_prepare(&s, &m);
	core_scene_accel(&m, 0.05 + 0.003, -0.1, &st);
	ck_assert(st.active);
	ck_assert(REL(st.impedance, 0.909) < 1e-14);
	ck_assert(REL(st.aref, 18.080332409972293) < 1e-14);
	/* rows exist only inside includemargin = margin - gap, not up to margin */
	core_scene_accel(&m, m.half_height + 0.0061, -0.1, &st);
	ck_assert(!st.active);
	core_scene_accel(&m, m.half_height + 0.0059, -0.1, &st);
	ck_assert(st.active);
}
END_TEST

START_TEST(scene_rest_matches_closed_form)
{
	/* spec §9: sphere -dist = g (1-dmax) tc^2 dr^2 at constant imp; the box a quarter of it */
	struct core_scene s;
	struct core_scene_model m;
	struct core_sim_rest r;
	const double flat[5] = {0.95, 0.95, 0.001, 0.5, 2};
	int i;

	for (i = 0; i < 2; i++) {
		probe_scene(&s, i ? CORE_SCENE_BOX : CORE_SCENE_SPHERE, i ? 3 : 1);
		for (int k = 0; k < 5; k++)
			s.geom.solimp[k] = s.floor.solimp[k] = flat[k];
		s.geom.solref[0] = s.floor.solref[0] = 0.03;
		s.geom.solref[1] = s.floor.solref[1] = 0.8;
		core_scene_prepare(&s, &m);
		core_sim_rest(&m, 0, 2, &r);
		ck_assert(r.has_equilibrium);
		ck_assert(REL(r.penetration, 9.81 * 0.05 * 0.03 * 0.03 * 0.8 * 0.8 / (i ? 4 : 1)) <
		    1e-13);
		/* the simulation settles on the same equilibrium (critically damped enough) */
		ck_assert(REL(r.settled_penetration, r.penetration) < 1e-9);
	}
}
END_TEST

/* A trace records the drop it measured: undecimated it is every step; decimated it
 * keeps each bucket's extremes, so its lowest point is the peak penetration itself. */
START_TEST(sim_drop_trace_keeps_extremes)
{
	static const size_t caps[] = {4, 7, 100, 1002, 5000};
	struct core_scene s;
	struct core_scene_model m;
	struct core_sim_drop plain, traced;
	double t[5000], z[5000];
	size_t c, i;

	probe_scene(&s, CORE_SCENE_BOX, 3);
	s.height = 0.1;
	s.geom.solref[1] = s.floor.solref[1] = 0.1; /* bouncy: many extremes */
	core_scene_prepare(&s, &m);
	core_sim_drop(&m, 0.1, 2, &plain);
	for (c = 0; c < sizeof caps / sizeof caps[0]; c++) {
		struct core_sim_trace tr = {t, z, caps[c], 0};
		double lo = INFINITY, hi = -INFINITY;

		core_sim_drop_trace(&m, 0.1, 2, &traced, &tr);
		/* the same loop: the metrics do not change by being traced */
		ck_assert(memcmp(&plain, &traced, sizeof plain) == 0);
		ck_assert_uint_le(tr.count, caps[c]);
		ck_assert_double_eq(t[0], 0);
		ck_assert_double_eq(z[0], 0.1);
		for (i = 1; i < tr.count; i++) {
			ck_assert_double_gt(t[i], t[i - 1]);
			lo = fmin(lo, z[i]);
			hi = fmax(hi, z[i]);
		}
		ck_assert_double_eq(lo, -plain.peak_penetration);
		ck_assert_double_eq(hi, plain.max_height);
		ck_assert_double_eq(t[tr.count - 1], 1000 * 0.002);
		ck_assert_double_eq(z[tr.count - 1], -plain.final_penetration);
		/* 1000 steps fit in 5000 points: every one of them */
		if (caps[c] >= 1002)
			ck_assert_uint_eq(tr.count, 1001);
	}
}
END_TEST

/* The scene's entry points take the scene and answer what the model path answers, bit
 * for bit. */
START_TEST(sim_scene_entry_points)
{
	struct core_scene s;
	struct core_scene_model m;
	struct core_sim_rest r0, r1;
	struct core_sim_drop d0, d1;
	double t0[64], z0[64], t1[64], z1[64];
	struct core_sim_trace tr0 = {t0, z0, 64, 0}, tr1 = {t1, z1, 64, 0};
	int i;

	for (i = 0; i < 2; i++) {
		probe_scene(&s, i ? CORE_SCENE_BOX : CORE_SCENE_SPHERE, i ? 3 : 1);
		s.height = 0.05;
		s.duration = 1;
		memset(&r0, 0, sizeof r0); /* memcmp reads the padding too */
		memset(&r1, 0, sizeof r1);
		core_scene_prepare(&s, &m);
		core_sim_rest(&m, s.height, s.duration, &r0);
		core_sim_rest_scene(&s, &r1);
		ck_assert(memcmp(&r0, &r1, sizeof r0) == 0);
		/* zeroed: memcmp reads the structs' padding too */
		memset(&d0, 0, sizeof d0);
		memset(&d1, 0, sizeof d1);
		core_sim_drop_trace(&m, s.height, s.duration, &d0, &tr0);
		core_sim_drop_scene(&s, &d1, &tr1);
		ck_assert(memcmp(&d0, &d1, sizeof d0) == 0);
		ck_assert_uint_eq(tr0.count, tr1.count);
		ck_assert(memcmp(t0, t1, tr0.count * sizeof t0[0]) == 0);
		ck_assert(memcmp(z0, z1, tr0.count * sizeof z0[0]) == 0);
		core_sim_drop_scene(&s, &d1, NULL);
		ck_assert(memcmp(&d0, &d1, sizeof d0) == 0);
	}
}
END_TEST

START_TEST(sim_drop_lesson_default)
{
	/* the lesson's experiment: 10 cm cube, 1 kg, dropped 10 cm, dt 2 ms: 8.283 mm deep, no
	 * rebound */
	struct core_scene s;
	struct core_scene_model m;
	struct core_sim_drop d;

	probe_scene(&s, CORE_SCENE_BOX, 3);
	core_scene_prepare(&s, &m);
	core_sim_drop(&m, 0.1, 2, &d);
	ck_assert_int_eq(d.steps, 1000);
	ck_assert_double_eq_tol(d.peak_penetration * 1e3, 8.283, 5e-4);
	ck_assert_double_eq(d.rebound, 0);
	ck_assert(!d.energy_gain);
	ck_assert(d.max_height < 0.1 && d.max_height > 0.0999);
	/* at rest by the end: final penetration is the resting one, 0.1078 mm */
	ck_assert_double_eq_tol(d.final_penetration * 1e3, 0.1078, 5e-5);
	ck_assert(d.jitter < 1e-9);
}
END_TEST

START_TEST(sim_free_fall_is_exact)
{
	/* far above the plane: semi-implicit Euler gives z_n = z0 - g h^2 n(n+1)/2 */
	struct core_scene s;
	struct core_scene_model m;
	struct core_sim_drop d;

	probe_scene(&s, CORE_SCENE_SPHERE, 1);
	core_scene_prepare(&s, &m);
	core_sim_drop(&m, 10, 0.2, &d);
	ck_assert_int_eq(d.steps, 100);
	ck_assert_double_eq_tol(
	    -d.final_penetration, 10 - 9.81 * 0.002 * 0.002 * 100 * 101 / 2, 1e-12);
	ck_assert_double_eq(d.rebound, 0); /* never touched */
}
END_TEST

START_TEST(growth_lesson_step4)
{
	/* Build it, Step 4 (d = 0.95, h = 0.002): growth per step, to the printed digits */
	struct core_growth_report g;
	size_t i;

	for (i = 0; i < LESSON_STEP4_ROWS; i++) {
		const double solref[2] = {lesson_step4[i].tc, lesson_step4[i].dr};
		core_growth_stability(solref, default_solimp, 0.95, 0.002, lesson_step4[i].refsafe,
		    CORE_SCENE_EULER, &g);
		ck_assert_double_eq_tol(g.growth, lesson_step4[i].growth, 5e-4);
		ck_assert_double_eq_tol(g.h_omega, lesson_step4[i].h_omega, 5e-3);
		ck_assert_int_eq(g.stable, lesson_step4[i].growth <= 1);
	}
	/* the gap in the guard: refsafe on, dampratio 0.05 still unstable */
	{
		const double solref[2] = {0.02, 0.05};
		core_growth_stability(solref, default_solimp, -1, 0.002, 1, CORE_SCENE_EULER, &g);
		ck_assert(g.guard_gap);
		ck_assert_double_eq(g.impedance, 0.95);
	}
}
END_TEST

START_TEST(growth_integrators)
{
	/* Euler: the golden ratio at h*c = 2, h^2*k = 1 (trace -1, det -1) */
	ck_assert_double_eq_tol(
	    core_growth_step(250000, 1000, 0.002, CORE_SCENE_EULER), (1 + sqrt(5)) / 2, 1e-12);
	/* implicit/implicitfast step the contact like Euler */
	ck_assert_double_eq(core_growth_step(250000, 1000, 0.002, CORE_SCENE_IMPLICIT),
	    core_growth_step(250000, 1000, 0.002, CORE_SCENE_EULER));
	/* RK4 on an undamped oscillator: |1 - w^2h^2/2 + w^4h^4/24 + i(wh - w^3h^3/6)| */
	{
		double wh = 0.5;
		double re = 1 - wh * wh / 2 + pow(wh, 4) / 24, im = wh - pow(wh, 3) / 6;
		ck_assert_double_eq_tol(
		    core_growth_step(wh * wh / (0.01 * 0.01), 0, 0.01, CORE_SCENE_RK4),
		    sqrt(re * re + im * im), 1e-14);
	}
	/* RK4 of pure decay x' = -x/tau (k = 0): the modes are 0 and -c */
	{
		double z = -0.1;
		ck_assert_double_eq_tol(
		    core_growth_step(0, 10, 0.01, CORE_SCENE_RK4), 1.0, 1e-15); /* the neutral mode */
		ck_assert(fabs(1 + z + z * z / 2 + z * z * z / 6 + z * z * z * z / 24) < 1);
	}
}
END_TEST

/* The release table: the default is the newest, every name finds itself, 2.2.2 is
 * CORE_MJVER_2_2_2, and the rules change exactly at 3.2.0, 3.5.0, 3.9.0, 3.11.0 and 3.13.0. */
START_TEST(mjver_table)
{
	static const struct {
		const char *name;
		int power, sum, split, certificate, discrete;
	} eras[] = {{"2.2.0", 0, 0, 0, 0, 0}, {"3.1.6", 0, 0, 0, 0, 0}, {"3.2.0", 1, 0, 0, 0, 0},
	    {"3.4.0", 1, 0, 0, 0, 0}, {"3.5.0", 1, 1, 0, 0, 0}, {"3.8.1", 1, 1, 0, 0, 0},
	    {"3.9.0", 1, 1, 1, 0, 0}, {"3.10.0", 1, 1, 1, 0, 0}, {"3.11.0", 1, 1, 1, 1, 0},
	    {"3.12.0", 1, 1, 1, 1, 0}, {"3.13.0", 1, 1, 1, 1, 1}, {"3.14.0", 1, 1, 1, 1, 1}};
	struct core_mjver_rules r;
	int i;

	ck_assert_int_eq(core_mjver_default(), core_mjver_count() - 1);
	ck_assert_str_eq(core_mjver_name(core_mjver_default()), DEFAULT_MUJOCO);
	ck_assert_str_eq(core_mjver_name(CORE_MJVER_2_2_2), "2.2.2");
	for (i = 0; i < core_mjver_count(); i++)
		ck_assert_int_eq(core_mjver_find(core_mjver_name(i)), i);
	/* the newest verified release is the default; later ones are not in the table */
	ck_assert_str_eq(core_mjver_name(core_mjver_default()), "3.14.0");
	ck_assert_int_eq(core_mjver_find("3.15.0"), -1);
	ck_assert_int_eq(core_mjver_find("3.12"), -1);
	ck_assert_int_eq(core_mjver_find(NULL), -1);
	for (i = 0; i < (int)(sizeof eras / sizeof eras[0]); i++) {
		ck_assert_int_ge(core_mjver_find(eras[i].name), 0);
		core_mjver_rules(core_mjver_find(eras[i].name), &r);
		ck_assert_int_eq(r.power_shortcut, eras[i].power);
		ck_assert_int_eq(r.margin_sum, eras[i].sum);
		ck_assert_int_eq(r.margin_gap_split, eras[i].split);
		ck_assert_int_eq(r.newton_certificate, eras[i].certificate);
		ck_assert_int_eq(r.discrete_integrator, eras[i].discrete);
	}
}
END_TEST

static Suite *core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *law = tcase_create("law"), *pair = tcase_create("pair");
	TCase *scene = tcase_create("scene"), *sim = tcase_create("sim");
	TCase *growth = tcase_create("growth");

	tcase_add_test(law, impedance_default_solimp);
	tcase_add_test(law, mjver_table);
	tcase_add_test(law, impedance_shapes_and_clamps);
	tcase_add_test(law, solref_gains);
	tcase_add_test(law, contact_accel_lesson_step2);
	tcase_add_test(law, resting_penetration_closed_form);
	tcase_add_test(law, error_reduction_formula);
	tcase_add_test(pair, pair_solmix_priority_margin);
	tcase_add_test(scene, scene_sphere_probe);
	tcase_add_test(scene, scene_box_pyramid_probe);
	tcase_add_test(scene, scene_elliptic_probe);
	tcase_add_test(sim, scene_rest_matches_closed_form);
	tcase_add_test(sim, sim_drop_lesson_default);
	tcase_add_test(sim, sim_free_fall_is_exact);
	tcase_add_test(sim, sim_drop_trace_keeps_extremes);
	tcase_add_test(sim, sim_scene_entry_points);
	tcase_add_test(growth, growth_lesson_step4);
	tcase_add_test(growth, growth_integrators);
	suite_add_tcase(s, law);
	suite_add_tcase(s, pair);
	suite_add_tcase(s, scene);
	suite_add_tcase(s, sim);
	suite_add_tcase(s, growth);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(core_suite());
	int failed;

	gsl_set_error_handler_off(); /* law.h: the core's callers own GSL's handler */
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
