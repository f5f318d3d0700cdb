/*
 * test_hold_service.c: POST /v1/hold's handler (service/hold.c) through the service
 * pipeline: its answers against libmujoco 2.2.2's mj_step of the same scene and against
 * issue 21's measured tables (2.2.2 and 3.12.0, three significant digits), its defaults
 * (the pads' SO-101 class), and its refusals, each naming the field.
 *
 * Tolerances: slip and creep against live MuJoCo 1e-6 relative + 1e-10 absolute (the
 * issue's; test_hold measures 1e-12..1e-9); against the issue's printed tables, half a
 * unit of the last printed digit.
 */
#include <check.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"
#include "core/mjver.h"
#include "mjhold.h"
#include "service/service.h"
#include "svc_test.h"

#define REL_TOL 1e-6
#define ABS_FLOOR 1e-10

static int close_enough(double got, double want)
{
	return fabs(got - want) <= REL_TOL * fabs(want) + ABS_FLOOR;
}

/* The service's answer to the issue's request with only cone, impratio and release
 * given: everything else from the documented defaults. */
static json_t *issue_answer(const char *cone, double impratio, const char *release)
{
	char body[256];

	snprintf(body, sizeof body,
	    "{\"option\": {\"timestep\": 0.005, \"cone\": \"%s\", \"impratio\": %g, \"mujoco\": "
	    "\"%s\"}}",
	    cone, impratio, release);
	return tsvc_answer(SVC_HOLD, body, NULL);
}

static void assert_printed(double value, double printed, const char *what)
{
	/* the issue prints three significant digits */
	double unit = pow(10, floor(log10(printed)) - 2);

	ck_assert_msg(fabs(value - printed) <= 0.5 * unit, "%s: %.6g, the issue prints %.3g", what,
	    value, printed);
}

START_TEST(issue_tables)
{
	static const struct {
		const char *cone;
		double impratio, v222, v3120; /* mm/s */
	} rows[] = {
	    {"pyramidal", 1, 6.16, 8.65},
	    {"pyramidal", 10, 0.858, 1.52},
	    {"elliptic", 1, 2.12, 3.68},
	    {"elliptic", 10, 0.212, 0.368},
	};
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		json_t *a = issue_answer(rows[i].cone, rows[i].impratio, "2.2.2");
		json_t *b = issue_answer(rows[i].cone, rows[i].impratio, "3.12.0");
		struct core_hold h;
		struct mjhold mh;
		char err[256];
		long k;

		assert_printed(tsvc_real(a, "creep_velocity") * 1e3, rows[i].v222, rows[i].cone);
		assert_printed(tsvc_real(b, "creep_velocity") * 1e3, rows[i].v3120, rows[i].cone);
		/* Coulomb holds at every row; whether it holds is MuJoCo's slip over the 1 s
		 * against the 1 mm limit (issue #29), checked below against libmujoco */
		ck_assert(json_is_true(json_object_get(a, "coulomb_holds")));
		ck_assert(json_is_false(json_object_get(a, "falls")));
		ck_assert_str_eq(json_string_value(json_object_get(b, "mujoco")), "3.12.0");
		/* slip: the same scene stepped by libmujoco for the default 1 s */
		mjhold_issue_scene(&h,
		    strcmp(rows[i].cone, "elliptic") == 0 ? CORE_CONE_ELLIPTIC : CORE_CONE_PYRAMIDAL,
		    rows[i].impratio);
		ck_assert_int_eq(mjhold_open(&mh, &h, err, sizeof err), 0);
		for (k = 0; k < 200; k++)
			mj_step(mh.model, mh.data);
		ck_assert_msg(close_enough(tsvc_real(a, "slip"), -mh.data->qpos[2]),
		    "slip %.17g, MuJoCo %.17g", tsvc_real(a, "slip"), -mh.data->qpos[2]);
		ck_assert_int_eq((int)tsvc_real(a, "steps"), 200);
		ck_assert(json_boolean_value(json_object_get(a, "holds")) ==
		    (-mh.data->qpos[2] < h.slip_limit));
		mjhold_close(&mh);
		json_decref(a);
		json_decref(b);
	}
}
END_TEST

/* noslip through the service: the issue's scene with 2 sweeps, slip and creep against
 * libmujoco's mj_step of the same scene (the creep: MuJoCo run on 600 steps, settled to
 * 1e-9 relative per step by then; tolerance 1e-6 relative). */
START_TEST(noslip_answered)
{
	json_t *a = tsvc_answer(SVC_HOLD,
	    "{\"option\": {\"timestep\": 0.005, \"noslip_iterations\": 2, \"mujoco\": \"2.2.2\"}}",
	    NULL);
	struct core_hold h;
	struct mjhold mh;
	char err[256];
	long k;

	mjhold_issue_scene(&h, CORE_CONE_PYRAMIDAL, 1);
	h.noslip_iterations = 2;
	ck_assert_int_eq(mjhold_open(&mh, &h, err, sizeof err), 0);
	for (k = 0; k < 200; k++)
		mj_step(mh.model, mh.data);
	ck_assert_msg(close_enough(tsvc_real(a, "slip"), -mh.data->qpos[2]),
	    "slip %.17g, MuJoCo %.17g", tsvc_real(a, "slip"), -mh.data->qpos[2]);
	for (k = 0; k < 600; k++)
		mj_step(mh.model, mh.data);
	ck_assert_msg(close_enough(tsvc_real(a, "creep_velocity"), -mh.data->qvel[2]),
	    "creep %.17g, MuJoCo %.17g", tsvc_real(a, "creep_velocity"), -mh.data->qvel[2]);
	/* 1.384 mm/s: not the issue's 2.9 (docs/hold.md) */
	ck_assert(fabs(tsvc_real(a, "creep_velocity") - 1.384e-3) < 1e-6);
	ck_assert(json_is_false(json_object_get(a, "creep_closed_form")));
	mjhold_close(&mh);
	json_decref(a);
}
END_TEST

/* Omitted pad fields are the SO-101 class, the object's MuJoCo's defaults. */
START_TEST(defaults)
{
	tsvc_assert_same_question(SVC_HOLD, "{}",
	    "{\"pad\": {\"solref\": [0.01, 1], \"condim\": 6, \"friction\": [1, 0.005, 0.0005],"
	    " \"priority\": 1, \"size\": [0.005, 0.02, 0.2], \"mass\": 0.05},"
	    " \"object\": {\"shape\": \"sphere\", \"size\": 0.02, \"mass\": 0.1, \"solref\": "
	    "[0.02, 1],"
	    " \"condim\": 3, \"friction\": [1, 0.005, 0.0001], \"priority\": 0},"
	    " \"grip_force\": 10, \"duration\": 1, \"slip_limit\": 0.001,"
	    " \"option\": {\"cone\": \"pyramidal\", \"noslip_iterations\": 0, \"impratio\": 1}}",
	    1);
	tsvc_assert_same_question(SVC_HOLD, "{}", "{\"pad\": {\"condim\": 3}}", 0);
}
END_TEST

START_TEST(refusals)
{
	static const struct {
		const char *body, *path;
	} bad[] = {
	    {"{\"grip_force\": 0}", "/grip_force"},
	    {"{\"grip_force\": -3}", "/grip_force"},
	    {"{\"pad\": {\"size\": [0.005, 0.02, 0]}}", "/pad/size/2"},
	    {"{\"pad\": {\"size\": [-0.005, 0.02, 0.2]}}", "/pad/size/0"},
	    {"{\"pad\": {\"mass\": 0}}", "/pad/mass"},
	    {"{\"object\": {\"size\": 0}}", "/object/size"},
	    {"{\"option\": {\"cone\": \"round\"}}", "/option/cone"},
	    {"{\"option\": {\"noslip_iterations\": -1}}", "/option/noslip_iterations"},
	    {"{\"option\": {\"noslip_iterations\": 101}}", "/option/noslip_iterations"},
	    {"{\"option\": {\"integrator\": \"RK4\"}}", "/option/integrator"},
	    {"{\"duration\": 0}", "/duration"},
	    {"{\"slip_limit\": 0}", "/slip_limit"},
	};
	size_t i;
	char *msg;
	json_t *canonical, *answer = NULL;
	struct err err = {0};
	struct svc_limits lim = tsvc_limits(1);

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		tsvc_expect_error(
		    SVC_HOLD, bad[i].body, strlen(bad[i].body), NULL, ERR_BAD_VALUE, bad[i].path);
	msg = tsvc_error_message(SVC_HOLD, "{\"option\": {\"noslip_iterations\": 5000}}",
	    ERR_BAD_VALUE, "/option/noslip_iterations");
	ck_assert_ptr_nonnull(strstr(msg, "0..100,"));
	free(msg);
	/* pads pressed through the object's centre: soft pads, a large force */
	canonical = tsvc_canonical(SVC_HOLD,
	    "{\"grip_force\": 5000, \"pad\": {\"solref\": [-1000, -10], \"solimp\": [0.5, 0.6, "
	    "0.001, 0.5, 2]}}");
	ck_assert_int_ne(svc_answer(SVC_HOLD, canonical, &lim, &answer, &err), 0);
	ck_assert_int_eq(err.code, ERR_BAD_VALUE);
	ck_assert_str_eq(err.path, "/grip_force");
	/* how many contacts MuJoCo makes when the pads' faces meet: 6 in 3.12.0 and 3.14.0's
	 * WebAssembly builds (2 sphere-pad, 4 pad-pad), for any radius, overlap or margin */
	ck_assert_ptr_nonnull(strstr(err.message, "a sphere's: 6, its two and 4 at the corners"));
	json_decref(canonical);
}
END_TEST

/* A grip below the Coulomb minimum: the verdict says so and the object falls off. */
START_TEST(weak_grip_falls)
{
	json_t *a = tsvc_answer(SVC_HOLD, "{\"grip_force\": 0.2, \"duration\": 2}", NULL);

	ck_assert(json_is_false(json_object_get(a, "holds")));
	ck_assert(json_is_true(json_object_get(a, "falls")));
	ck_assert(json_is_null(json_object_get(a, "slip")));
	ck_assert(tsvc_real(a, "fall_time") > 0 && tsvc_real(a, "fall_time") < 2);
	/* it slides off smoothly: the nudged second run falls with it */
	ck_assert(json_is_true(json_object_get(a, "reproducible")));
	ck_assert(fabs(tsvc_real(a, "friction_capacity") - 0.4) < 1e-12);
	ck_assert(json_is_false(json_object_get(a, "friction_clamped")));
	json_decref(a);
	/* frictionless pads (priority 1): MuJoCo raises the pair's friction to 1e-5 */
	a = tsvc_answer(SVC_HOLD, "{\"pad\": {\"friction\": [0, 0.005, 0.0005]}}", NULL);
	ck_assert(json_is_true(json_object_get(a, "friction_clamped")));
	ck_assert(fabs(tsvc_real(a, "friction_capacity") - 2e-5 * 10) < 1e-15);
	ck_assert(json_is_false(json_object_get(a, "holds")));
	json_decref(a);
	/* a soft time constant below 2*timestep: refsafe raises it */
	a = tsvc_answer(SVC_HOLD, "{\"pad\": {\"solref\": [0.003, 1]}}", NULL);
	ck_assert(json_is_true(json_object_get(a, "refsafe_clamped")));
	json_decref(a);
}
END_TEST

/* Stiff direct-solref pads that sweep in a period-2 orbit under noslip (tests/test_hold,
 * seed 5, noslip scene 50): libmujoco's own slip moves from 0.47 mm to 2.8 mm when a pad
 * starts 1e-15 m further out. The answer says it is not reproducible and gives none of
 * the run's outcomes; the verdicts that do not depend on the run stay. */
START_TEST(chaotic_scene_not_reproducible)
{
	static const char body[] =
	    "{\"object\": {\"shape\": \"sphere\", \"size\": 0.037942908033767243, "
	    "\"mass\": 0.058593259780721163},"
	    " \"pad\": {\"size\": [0.0041240239814472413, 0.028086909311334271, "
	    "0.12236283081738222], \"mass\": 0.13238326711570483,"
	    " \"solref\": [-59312.371186830373, -86.833386777767231],"
	    " \"solimp\": [0.53954043305074495, 0.94649222345317052, 0.0013471751486657283, "
	    "0.59549459589148446, 2.727027306186883],"
	    " \"condim\": 3, \"friction\": [0.73292056843120357, 0.0023595487272364151, "
	    "3.3877180748160289e-05], \"priority\": 1},"
	    " \"grip_force\": 12.710479411003758, \"duration\": 0.5,"
	    " \"option\": {\"timestep\": 0.0038938592033781307, \"impratio\": "
	    "1.1443329390310777, \"cone\": \"elliptic\", \"integrator\": \"implicit\", "
	    "\"noslip_iterations\": 3, \"mujoco\": \"2.2.2\"}}";
	json_t *a = tsvc_answer(SVC_HOLD, body, NULL);
	const char *outcomes[] = {
	    "slip", "time_to_slip", "falls", "fall_time", "creep_velocity", "penetration"};
	size_t i;

	ck_assert(json_is_false(json_object_get(a, "reproducible")));
	for (i = 0; i < sizeof outcomes / sizeof outcomes[0]; i++)
		ck_assert_msg(json_is_null(json_object_get(a, outcomes[i])), "%s", outcomes[i]);
	/* whether it holds is the run's outcome too; the Coulomb comparison is not */
	ck_assert(json_is_null(json_object_get(a, "holds")));
	ck_assert(json_is_true(json_object_get(a, "coulomb_holds")));
	ck_assert(tsvc_real(a, "load") > 0 && tsvc_real(a, "friction_capacity") > 0);
	json_decref(a);
	/* the issue's scene with noslip settles without a bounce: answered */
	a = tsvc_answer(SVC_HOLD, "{\"option\": {\"noslip_iterations\": 10}}", NULL);
	ck_assert(json_is_true(json_object_get(a, "reproducible")));
	ck_assert(tsvc_real(a, "slip") > 0 && tsvc_real(a, "creep_velocity") > 0);
	json_decref(a);
}
END_TEST

/*
 * Issue #29: `holds` means it holds. The SO-101 pads with solref (0.02, 0.3) at 5 ms
 * (release 2.2.2) pass the Coulomb comparison (load 0.98 N, capacity 20 N) and settle to
 * no creep the core claims, yet libmujoco 2.2.2's mj_step carries the sphere down 36 mm
 * in the 1 s, past the 1 mm slip limit within 40 ms (the issue's fit.hold block: creep
 * null, holds true, 34 mm in 1 s). The answer now says holds false, coulomb_holds true,
 * its slip and time_to_slip MuJoCo's (the step that first passes the limit, exactly;
 * the slip to REL_TOL). Elliptic pads at impratio 10 creep 0.2 mm in the second: within
 * the limit in MuJoCo, and holds true.
 */
START_TEST(holds_means_within_slip_limit)
{
	static const struct {
		const char *body;
		enum core_cone cone;
		double impratio, timeconst, dampratio;
		int holds;
	} cases[] = {
	    {"{\"pad\": {\"solref\": [0.02, 0.3]}, \"option\": {\"timestep\": 0.005, "
	     "\"mujoco\": \"2.2.2\"}}",
	        CORE_CONE_PYRAMIDAL, 1, 0.02, 0.3, 0},
	    {"{\"option\": {\"timestep\": 0.005, \"cone\": \"elliptic\", \"impratio\": 10, "
	     "\"mujoco\": \"2.2.2\"}}",
	        CORE_CONE_ELLIPTIC, 10, 0.01, 1, 1},
	};
	size_t c;

	for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		json_t *a = tsvc_answer(SVC_HOLD, cases[c].body, NULL);
		struct core_hold h;
		struct mjhold mh;
		char err[256];
		double first = -1, slip;
		long k;

		mjhold_issue_scene(&h, cases[c].cone, cases[c].impratio);
		h.pad.solref[0] = cases[c].timeconst;
		h.pad.solref[1] = cases[c].dampratio;
		ck_assert_int_eq(mjhold_open(&mh, &h, err, sizeof err), 0);
		for (k = 1; k <= 200; k++) {
			mj_step(mh.model, mh.data);
			if (first < 0 && -mh.data->qpos[2] >= h.slip_limit)
				first = (double)k * h.option.timestep;
		}
		slip = -mh.data->qpos[2];
		mjhold_close(&mh);
		ck_assert(json_is_true(json_object_get(a, "coulomb_holds")));
		ck_assert(tsvc_real(a, "friction_margin") > 0);
		ck_assert(json_is_false(json_object_get(a, "falls")));
		ck_assert_msg(close_enough(tsvc_real(a, "slip"), slip),
		    "case %zu: slip %.17g, MuJoCo %.17g", c, tsvc_real(a, "slip"), slip);
		ck_assert_int_eq(slip < h.slip_limit, cases[c].holds);
		if (cases[c].holds) {
			ck_assert(json_is_true(json_object_get(a, "holds")));
		} else {
			ck_assert(json_is_null(json_object_get(a, "creep_velocity")));
			ck_assert(slip > 0.03);
			ck_assert(json_is_false(json_object_get(a, "holds")));
			ck_assert_msg(fabs(tsvc_real(a, "time_to_slip") - first) < 1e-12,
			    "time_to_slip %g, MuJoCo passes the limit at %g",
			    tsvc_real(a, "time_to_slip"), first);
		}
		json_decref(a);
	}
}
END_TEST

/*
 * refsafe_replaced says whether MuJoCo's discrete refsafe replaced a pad contact's row on
 * some step of the duration. The default pinch (1 s at 2 ms) stepped by the official
 * WebAssembly build of MuJoCo 3.14.0 (integrator="discrete", the pads' solref as below),
 * its efc_KBIP read after every mj_step: with pad timeconst 0.001 (half a timestep) every
 * step from the second on has a row with K = 1/(h^2 imp), 499 of 500, pyramidal, elliptic
 * and with noslip 5 alike; with 0.0035 and 0.01 no row is replaced (the largest h^2 K imp
 * 0.344 and 0.042), nor under Euler, where refsafe clamps 0.001 to 0.004 instead. The
 * builds' slips (shortest round-trip) pin the scenes: held to the hold's 1e-6 relative.
 */
START_TEST(refsafe_replaced_discrete)
{
	static const struct {
		const char *request;
		int replaced, clamped;
		double slip; /* MuJoCo 3.14.0's, m */
	} cases[] = {
	    {"{\"pad\":{\"solref\":[0.001,1]},\"option\":{\"integrator\":\"discrete\"}}", 1, 0,
	        0.0021391246323177724},
	    {"{\"pad\":{\"solref\":[0.001,1]},\"option\":{\"integrator\":\"discrete\","
	     "\"cone\":\"elliptic\"}}",
	        1, 0, 0.0010105336111936897},
	    {"{\"pad\":{\"solref\":[0.001,1]},\"option\":{\"integrator\":\"discrete\","
	     "\"noslip_iterations\":5}}",
	        1, 0, 0.00011846919658561363},
	    {"{\"pad\":{\"solref\":[0.0035,1]},\"option\":{\"integrator\":\"discrete\"}}", 0, 0,
	        0.0041837364340952705},
	    {"{\"pad\":{\"solref\":[0.01,1]},\"option\":{\"integrator\":\"discrete\"}}", 0, 0,
	        0.007898387147076406},
	    {"{\"pad\":{\"solref\":[0.001,1]}}", 0, 1, 0.005941705773708222},
	};
	size_t c;

	for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		json_t *a = tsvc_answer(SVC_HOLD, cases[c].request, NULL);

		ck_assert_msg(json_is_boolean(json_object_get(a, "refsafe_replaced")) &&
		        json_is_true(json_object_get(a, "refsafe_replaced")) == cases[c].replaced,
		    "case %zu: refsafe_replaced", c);
		ck_assert(json_is_true(json_object_get(a, "refsafe_clamped")) == cases[c].clamped);
		ck_assert_msg(close_enough(tsvc_real(a, "slip"), cases[c].slip),
		    "case %zu: slip %.17g, MuJoCo %.17g", c, tsvc_real(a, "slip"), cases[c].slip);
		json_decref(a);
	}
}
END_TEST

/* Issue 48's fields: a sphere on a motor with a plain joint is the question it was
 * before, and its canonical text (the cache key's) is the one hold_request_json wrote
 * before the fields existed (the committed text, from the release before: the same
 * bytes from `contact sweep --shard 1/1`'s part.request.base of a build of it). */
START_TEST(new_fields_canonical)
{
	static const char before[] =
	    "{\"duration\":1.0,\"grip_force\":10.0,\"object\":{\"condim\":3,\"friction\":[1.0,"
	    "0.005,0.0001],\"gap\":0.0,\"margin\":0.0,\"mass\":0.1,\"priority\":0,\"shape\":"
	    "\"sphere\",\"size\":0.02,\"solimp\":[0.9,0.95,0.001,0.5,2.0],\"solmix\":1.0,"
	    "\"solref\":[0.02,1.0]},\"option\":{\"cone\":\"pyramidal\",\"gravity\":9.81,"
	    "\"impratio\":1.0,\"integrator\":\"Euler\",\"mujoco\":\"3.14.0\","
	    "\"noslip_iterations\":0,\"refsafe\":true,\"timestep\":0.002},\"pad\":{\"condim\":6,"
	    "\"friction\":[1.0,0.005,0.0005],\"gap\":0.0,\"margin\":0.0,\"mass\":0.05,"
	    "\"priority\":1,\"size\":[0.005,0.02,0.2],\"solimp\":[0.9,0.95,0.001,0.5,2.0],"
	    "\"solmix\":1.0,\"solref\":[0.01,1.0]},\"slip_limit\":0.001}\n";
	char *text = tsvc_canonical_text(SVC_HOLD, "{}");
	json_t *c;

	ck_assert_str_eq(text, before);
	free(text);
	tsvc_assert_same_question(SVC_HOLD, "{}",
	    "{\"object\": {\"shape\": \"sphere\", \"size\": [0.02]}, \"pad\": {\"joint\": "
	    "{\"damping\": 0, \"armature\": 0, \"frictionloss\": 0}, \"actuator\": {\"type\": "
	    "\"motor\"}}}",
	    1);
	tsvc_assert_same_question(SVC_HOLD, "{}", "{\"pad\": {\"joint\": {\"armature\": 1e-3}}}", 0);
	/* a capsule on a servo: echoed with every servo field, no grip_force */
	c = tsvc_canonical(SVC_HOLD,
	    "{\"object\": {\"shape\": \"capsule\", \"size\": [0.004, 0.02], \"mass\": 0.045}, "
	    "\"pad\": {\"joint\": {\"damping\": 100}, \"actuator\": {\"type\": \"position\", "
	    "\"kp\": 20000, \"squeeze\": 0.002}}}");
	text = jtext_line(json_object_get(c, "object"));
	ck_assert_ptr_nonnull(strstr(text, "\"shape\":\"capsule\",\"size\":[0.004,0.02]"));
	free(text);
	text = jtext_line(json_object_get(json_object_get(c, "pad"), "joint"));
	ck_assert_str_eq(text, "{\"armature\":0.0,\"damping\":100.0,\"frictionloss\":0.0}\n");
	free(text);
	text = jtext_line(json_object_get(json_object_get(c, "pad"), "actuator"));
	ck_assert_str_eq(
	    text, "{\"kp\":20000.0,\"kv\":0.0,\"squeeze\":0.002,\"type\":\"position\"}\n");
	free(text);
	ck_assert_ptr_null(json_object_get(c, "grip_force"));
	json_decref(c);
	/* a forcerange is the servo's limit; a box's three half-sizes */
	c = tsvc_canonical(SVC_HOLD,
	    "{\"object\": {\"shape\": \"box\", \"size\": [0.01, 0.01, 0.015]}, \"pad\": "
	    "{\"actuator\": {\"type\": \"position\", \"kp\": 998.22, \"kv\": 2.731, \"squeeze\": "
	    "0.003, \"forcerange\": [-2.94, 2.94]}}}");
	text = jtext_line(json_object_get(json_object_get(c, "pad"), "actuator"));
	ck_assert_str_eq(text, "{\"forcerange\":[-2.94,2.94],\"kp\":998.22,\"kv\":2.731,"
	                       "\"squeeze\":0.003,\"type\":\"position\"}\n");
	free(text);
	text = jtext_line(json_object_get(json_object_get(c, "object"), "size"));
	ck_assert_str_eq(text, "[0.01,0.01,0.015]\n");
	free(text);
	json_decref(c);
	/* the canonical request is a request, and the same one again */
	tsvc_assert_same_question(SVC_HOLD,
	    "{\"object\": {\"shape\": \"box\", \"size\": [0.01, 0.01, 0.015]}, \"pad\": {\"joint\": "
	    "{\"frictionloss\": 0.052}, \"actuator\": {\"type\": \"position\", \"kp\": 998.22, "
	    "\"squeeze\": 0.003, \"forcerange\": [-2.94, 2.94]}}}",
	    "{\"object\": {\"shape\": \"box\", \"size\": [0.01, 0.01, 0.015]}, \"pad\": {\"joint\": "
	    "{\"frictionloss\": 0.052, \"damping\": 0}, \"actuator\": {\"type\": \"position\", "
	    "\"kp\": 998.22, \"kv\": 0, \"squeeze\": 0.003, \"forcerange\": [-2.94, 2.94]}}}",
	    1);
}
END_TEST

/* Every bad value of issue 48's fields is refused at the field, with its code. */
START_TEST(new_fields_refused)
{
	static const char servo[] = "\"type\": \"position\", \"kp\": 100, \"squeeze\": 0.001";
	static const struct {
		const char *object, *pad; /* members of "object" and "pad" */
		enum err_code code;
		const char *path;
	} bad[] = {
	    {"\"shape\": \"cone\"", "", ERR_BAD_VALUE, "/object/shape"},
	    {"\"shape\": 3", "", ERR_BAD_TYPE, "/object/shape"},
	    {"\"shape\": \"capsule\"", "", ERR_MISSING_FIELD, "/object/size"},
	    {"\"shape\": \"box\"", "", ERR_MISSING_FIELD, "/object/size"},
	    {"\"shape\": \"capsule\", \"size\": 0.01", "", ERR_BAD_TYPE, "/object/size"},
	    {"\"shape\": \"capsule\", \"size\": [0.01]", "", ERR_BAD_VALUE, "/object/size"},
	    {"\"shape\": \"capsule\", \"size\": [0.01, 0.02, 0.03]", "", ERR_BAD_VALUE,
	        "/object/size"},
	    {"\"shape\": \"box\", \"size\": [0.01, 0.02]", "", ERR_BAD_VALUE, "/object/size"},
	    {"\"shape\": \"sphere\", \"size\": [0.01, 0.02]", "", ERR_BAD_VALUE, "/object/size"},
	    {"\"shape\": \"sphere\", \"size\": [-0.01]", "", ERR_BAD_VALUE, "/object/size/0"},
	    {"\"shape\": \"capsule\", \"size\": [0.01, 0]", "", ERR_BAD_VALUE, "/object/size/1"},
	    {"\"shape\": \"box\", \"size\": [0.01, 0.02, -1]", "", ERR_BAD_VALUE, "/object/size/2"},
	    {"\"shape\": \"box\", \"size\": [0.01, 0.02, 101]", "", ERR_BAD_VALUE, "/object/size/2"},
	    {"\"shape\": \"box\", \"size\": [0.01, \"a\", 1]", "", ERR_BAD_TYPE, "/object/size/1"},
	    {"", "\"joint\": 1", ERR_BAD_TYPE, "/pad/joint"},
	    {"", "\"joint\": {\"stiffness\": 1}", ERR_UNKNOWN_FIELD, "/pad/joint/stiffness"},
	    {"", "\"joint\": {\"damping\": -1}", ERR_BAD_VALUE, "/pad/joint/damping"},
	    {"", "\"joint\": {\"damping\": 2e9}", ERR_BAD_VALUE, "/pad/joint/damping"},
	    {"", "\"joint\": {\"armature\": -1e-9}", ERR_BAD_VALUE, "/pad/joint/armature"},
	    {"", "\"joint\": {\"armature\": 2e9}", ERR_BAD_VALUE, "/pad/joint/armature"},
	    {"", "\"joint\": {\"frictionloss\": -0.1}", ERR_BAD_VALUE, "/pad/joint/frictionloss"},
	    {"", "\"joint\": {\"frictionloss\": 2e6}", ERR_BAD_VALUE, "/pad/joint/frictionloss"},
	    {"", "\"joint\": {\"damping\": \"a\"}", ERR_BAD_TYPE, "/pad/joint/damping"},
	    {"", "\"actuator\": {\"type\": \"velocity\"}", ERR_BAD_VALUE, "/pad/actuator/type"},
	    {"", "\"actuator\": {\"gear\": 2}", ERR_UNKNOWN_FIELD, "/pad/actuator/gear"},
	    {"", "\"actuator\": {\"kp\": 100}", ERR_BAD_VALUE, "/pad/actuator/kp"},
	    {"", "\"actuator\": {\"type\": \"motor\", \"squeeze\": 0.001}", ERR_BAD_VALUE,
	        "/pad/actuator/squeeze"},
	    {"", "\"actuator\": {\"type\": \"position\", \"squeeze\": 0.001}", ERR_MISSING_FIELD,
	        "/pad/actuator/kp"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 100}", ERR_MISSING_FIELD,
	        "/pad/actuator/squeeze"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 0, \"squeeze\": 0.001}",
	        ERR_BAD_VALUE, "/pad/actuator/kp"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 2e9, \"squeeze\": 0.001}",
	        ERR_BAD_VALUE, "/pad/actuator/kp"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 100, \"kv\": -1, \"squeeze\": 0}",
	        ERR_BAD_VALUE, "/pad/actuator/kv"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 100, \"squeeze\": -0.001}",
	        ERR_BAD_VALUE, "/pad/actuator/squeeze"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 100, \"squeeze\": 0.001, "
	         "\"forcerange\": [1, 1]}",
	        ERR_BAD_VALUE, "/pad/actuator/forcerange"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 100, \"squeeze\": 0.001, "
	         "\"forcerange\": [3, -3]}",
	        ERR_BAD_VALUE, "/pad/actuator/forcerange"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 100, \"squeeze\": 0.001, "
	         "\"forcerange\": [-3]}",
	        ERR_BAD_VALUE, "/pad/actuator/forcerange"},
	    {"", "\"actuator\": {\"type\": \"position\", \"kp\": 100, \"squeeze\": 0.001, "
	         "\"forcerange\": [-2e6, 3]}",
	        ERR_BAD_VALUE, "/pad/actuator/forcerange/0"},
	};
	char body[512], *msg;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(body, sizeof body, "{\"object\": {%s}, \"pad\": {%s}}", bad[i].object,
		    bad[i].pad);
		tsvc_expect_error(SVC_HOLD, body, strlen(body), NULL, bad[i].code, bad[i].path);
	}
	/* a servo's force is its own: grip_force given beside it is refused, saying why */
	snprintf(body, sizeof body, "{\"grip_force\": 10, \"pad\": {\"actuator\": {%s}}}", servo);
	msg = tsvc_error_message(SVC_HOLD, body, ERR_BAD_VALUE, "/grip_force");
	ck_assert_ptr_nonnull(strstr(msg, "/pad/actuator/squeeze"));
	free(msg);
	msg = tsvc_error_message(SVC_HOLD,
	    "{\"object\": {\"shape\": \"capsule\", \"size\": [0.01]}}", ERR_BAD_VALUE,
	    "/object/size");
	ck_assert_str_eq(msg, "a capsule's size is [radius, half_length] (m): 2 numbers, not 1");
	free(msg);
	/* and inside a sweep's base, under /base */
	tsvc_expect_error(SVC_SWEEP,
	    "{\"query\": \"hold\", \"base\": {\"pad\": {\"joint\": {\"damping\": -1}}}, \"vary\": "
	    "[{\"path\": \"duration\", \"values\": [0.1]}]}",
	    strlen("{\"query\": \"hold\", \"base\": {\"pad\": {\"joint\": {\"damping\": -1}}}, "
	           "\"vary\": [{\"path\": \"duration\", \"values\": [0.1]}]}"),
	    NULL, ERR_BAD_VALUE, "/base/pad/joint/damping");
}
END_TEST

/*
 * What the core does not answer (core_hold_supported(), its sentence) is a 422 with that
 * sentence at the field whose return to the plain scene lifts it; every other
 * combination is answered. The scenes are built twice, as a request and as the core's
 * struct, so the test follows whatever the core refuses.
 */
START_TEST(unsupported_named)
{
	static const struct {
		const char *body;
		const char *path; /* the field named when the core refuses */
		int shape, servo, noslip, integrator;
		double damping, kv, margin;
		const char *release;
	} cases[] = {
	    {"{\"object\": {\"shape\": \"capsule\", \"size\": [0.01, 0.02]}, \"option\": "
	     "{\"noslip_iterations\": 3}}",
	        "/option/noslip_iterations", CORE_HOLD_CAPSULE, 0, 3, CORE_SCENE_EULER, 0, 0, 0,
	        NULL},
	    {"{\"object\": {\"shape\": \"box\", \"size\": [0.01, 0.02, 0.02]}, \"option\": "
	     "{\"noslip_iterations\": 1}}",
	        "/option/noslip_iterations", CORE_HOLD_BOX, 0, 1, CORE_SCENE_EULER, 0, 0, 0, NULL},
	    {"{\"pad\": {\"actuator\": {\"type\": \"position\", \"kp\": 2000, \"squeeze\": 0.002}},"
	     " \"option\": {\"noslip_iterations\": 2}}",
	        "/option/noslip_iterations", CORE_HOLD_SPHERE, 1, 2, CORE_SCENE_EULER, 0, 0, 0,
	        NULL},
	    {"{\"pad\": {\"joint\": {\"damping\": 3}}, \"option\": {\"integrator\": "
	     "\"implicitfast\", \"mujoco\": \"2.2.2\"}}",
	        "/option/integrator", CORE_HOLD_SPHERE, 0, 0, CORE_SCENE_IMPLICITFAST, 3, 0, 0,
	        "2.2.2"},
	    {"{\"pad\": {\"actuator\": {\"type\": \"position\", \"kp\": 2000, \"kv\": 5, "
	     "\"squeeze\": 0.002}}, \"option\": {\"integrator\": \"implicitfast\", \"mujoco\": "
	     "\"2.3.7\"}}",
	        "/option/integrator", CORE_HOLD_SPHERE, 1, 0, CORE_SCENE_IMPLICITFAST, 0, 5, 0,
	        "2.3.7"},
	    {"{\"object\": {\"shape\": \"capsule\", \"size\": [0.01, 0.02], \"margin\": 0.001}, "
	     "\"option\": {\"mujoco\": \"3.12.0\"}}",
	        "/object/shape", CORE_HOLD_CAPSULE, 0, 0, CORE_SCENE_EULER, 0, 0, 0.001, "3.12.0"},
	    {"{\"object\": {\"shape\": \"capsule\", \"size\": [0.01, 0.02]}, \"pad\": "
	     "{\"joint\": {\"damping\": 3}}, \"option\": {\"integrator\": \"discrete\"}}",
	        "/option/integrator", CORE_HOLD_CAPSULE, 0, 0, CORE_SCENE_DISCRETE, 3, 0, 0, NULL},
	    {"{\"pad\": {\"joint\": {\"damping\": 3}}, \"option\": {\"integrator\": "
	     "\"discrete\"}}",
	        "", CORE_HOLD_SPHERE, 0, 0, CORE_SCENE_DISCRETE, 3, 0, 0, NULL},
	    {"{\"object\": {\"shape\": \"capsule\", \"size\": [0.01, 0.02]}}", "",
	        CORE_HOLD_CAPSULE, 0, 0, CORE_SCENE_EULER, 0, 0, 0, NULL},
	};
	size_t i;
	int refused = 0;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct core_hold h;
		const char *why;

		core_hold_default(&h);
		h.shape = (enum core_hold_shape)cases[i].shape;
		h.size[0] = 0.01;
		h.size[1] = h.size[2] = 0.02;
		if (cases[i].servo) {
			h.actuator.type = CORE_HOLD_POSITION;
			h.actuator.kp = 2000;
			h.actuator.kv = cases[i].kv;
			h.actuator.squeeze = 0.002;
			h.grip_force = 0;
		}
		h.joint.damping = cases[i].damping;
		h.noslip_iterations = cases[i].noslip;
		h.option.integrator = (enum core_scene_integrator)cases[i].integrator;
		h.object.margin = cases[i].margin;
		if (cases[i].release)
			h.option.mujoco = core_mjver_find(cases[i].release);
		why = core_hold_supported(&h);
		if (why) {
			char *msg = tsvc_error_message(
			    SVC_HOLD, cases[i].body, ERR_BAD_VALUE, cases[i].path);

			ck_assert_str_eq(msg, why);
			free(msg);
			refused++;
		} else {
			json_decref(tsvc_canonical(SVC_HOLD, cases[i].body));
		}
	}
	fprintf(stderr, "unsupported_named: %d of %zu refused by the core\n", refused,
	    sizeof cases / sizeof cases[0]);
}
END_TEST

/* A capsule on a servo: answered, its Coulomb capacity from the steady normal force
 * (2 mu N, mu the pads' sliding friction, priority 1) and its load m g. */
START_TEST(servo_capacity_from_normal_force)
{
	json_t *a = tsvc_answer(SVC_HOLD,
	    "{\"object\": {\"shape\": \"capsule\", \"size\": [0.004, 0.02], \"mass\": 0.045}, "
	    "\"pad\": {\"size\": [0.008, 0.03, 0.02], \"mass\": 0.2, \"friction\": [0.7, 0.005, "
	    "0.0001], \"joint\": {\"damping\": 100}, \"actuator\": {\"type\": \"position\", "
	    "\"kp\": 20000, \"squeeze\": 0.002}}, \"duration\": 0.5}",
	    NULL);

	double n = tsvc_real(a, "normal_force"), cap = tsvc_real(a, "friction_capacity");

	/* the servo presses: kp squeeze = 40 N before the contacts push back */
	ck_assert_msg(n > 0 && n < 20000 * 0.002, "normal force %g", n);
	/* 2 mu N: the product's rounding, a few ulps */
	ck_assert_msg(fabs(cap - 2 * 0.7 * n) <= 4e-16 * cap, "capacity %.17g, 2 mu N %.17g", cap,
	    2 * 0.7 * n);
	ck_assert_msg(fabs(tsvc_real(a, "load") - 0.045 * 9.81) <= 1e-15, "load");
	json_decref(a);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("hold_service");
	TCase *tc = tcase_create("hold");
	SRunner *runner;
	int failed;

	gsl_set_error_handler_off();
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, issue_tables);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, noslip_answered);
	tcase_add_test(tc, weak_grip_falls);
	tcase_add_test(tc, chaotic_scene_not_reproducible);
	tcase_add_test(tc, holds_means_within_slip_limit);
	tcase_add_test(tc, refsafe_replaced_discrete);
	tcase_add_test(tc, new_fields_canonical);
	tcase_add_test(tc, new_fields_refused);
	tcase_add_test(tc, unsupported_named);
	tcase_add_test(tc, servo_capacity_from_normal_force);
	suite_add_tcase(suite, tc);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
