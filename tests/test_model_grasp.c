/*
 * test_model_grasp.c: the grasps a user's MJCF holds, as hold questions (src/model/grasp.c,
 * POST /v1/model's "grasps"): MuJoCo issue #3328's capsule and the SO-101's values on a
 * box (tests/fixtures/mjcf/grasp-*.xml) read into the hold question field by field; the
 * ways MJCF says the same scene (a capsule's orientation attributes, a pad's axis and ctrl
 * mirrored, a <general> servo) give the same question bit for bit; scenes that differ are
 * refused with why, or offered as the nearest with each difference named; actuators the
 * layer does not read are named with their file and line; and the question offered is
 * one POST /v1/hold reads, whose answer is the grasp's.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/grasp.h"
#include "model/mjcf.h"
#include "service/service.h"
#include "svc_test.h"

/* A model compiled from one file's text, with its pairs and grasps. */
struct compiled {
	struct mjcf_doc doc;
	struct mdl_model m;
	struct mpair_list pairs;
	struct mgrasp *grasps;
	int n;
};

static int text_reader(void *ctx, const char *name, char **text, size_t *len, struct err *err)
{
	(void)name;
	(void)err;
	*len = strlen(ctx);
	*text = strdup(ctx);
	return *text ? 0 : -1;
}

static char *fixture(const char *name)
{
	char path[512], *text;
	FILE *f;
	long n;

	snprintf(path, sizeof path, "%s/%s", FIXTURE_DIR, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = malloc((size_t)n + 1);
	ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* text with the first occurrence of from replaced by to (which must be there) */
static char *edit(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	ck_assert_msg(at != NULL, "\"%s\" is not in the text", from);
	out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	return out;
}

static void compile(const char *text, const char *release, struct compiled *c)
{
	struct err err;

	memset(c, 0, sizeof *c);
	err_clear(&err);
	ck_assert_msg(mjcf_load("scene.xml", text_reader, (void *)text, &c->doc, &err) == 0, "%s",
	    err.message);
	ck_assert_msg(
	    mdl_compile(&c->doc, core_mjver_find(release), &c->m, &err) == 0, "%s", err.message);
	ck_assert_msg(mpair_list(&c->m, &c->pairs, &err) == 0, "%s", err.message);
	ck_assert_msg(
	    mgrasp_find(&c->m, &c->pairs, &c->grasps, &c->n, &err) == 0, "%s", err.message);
}

static void release(struct compiled *c)
{
	free(c->grasps);
	mpair_free(&c->pairs);
	mdl_free(&c->m);
	mjcf_free(&c->doc);
}

/* The one grasp of text under release, which must be offered; copied into *g. */
static void offered(const char *text, const char *release_name, struct mgrasp *g)
{
	struct compiled c;

	compile(text, release_name, &c);
	ck_assert_int_eq(c.n, 1);
	ck_assert_msg(c.grasps[0].offered, "not offered: %s", c.grasps[0].why);
	*g = c.grasps[0];
	release(&c);
}

/* The one grasp of text, which must not be offered, its why containing part. */
static void refused(const char *text, const char *part)
{
	struct compiled c;

	compile(text, "3.14.0", &c);
	ck_assert_int_eq(c.n, 1);
	ck_assert_msg(!c.grasps[0].offered, "offered: %s", text);
	ck_assert_msg(strstr(c.grasps[0].why, part) != NULL, "why \"%s\" lacks \"%s\"",
	    c.grasps[0].why, part);
	release(&c);
}

static int lines_have(const char (*lines)[MGRASP_LINE], int n, const char *part)
{
	int i;
	for (i = 0; i < n; i++)
		if (strstr(lines[i], part))
			return 1;
	return 0;
}

static void geom_eq(const struct core_pair_geom *a, const struct core_pair_geom *b)
{
	ck_assert(memcmp(a->solref, b->solref, sizeof a->solref) == 0);
	ck_assert(memcmp(a->solimp, b->solimp, sizeof a->solimp) == 0);
	ck_assert(memcmp(a->friction, b->friction, sizeof a->friction) == 0);
	ck_assert_int_eq(a->condim, b->condim);
	ck_assert(a->margin == b->margin && a->gap == b->gap && a->solmix == b->solmix);
	ck_assert_int_eq(a->priority, b->priority);
}

/* two questions equal field by field, bit for bit */
static void hold_eq(const struct core_hold *a, const struct core_hold *b)
{
	ck_assert_int_eq(a->shape, b->shape);
	ck_assert(memcmp(a->size, b->size, sizeof a->size) == 0);
	ck_assert(a->mass == b->mass && a->pad_mass == b->pad_mass);
	ck_assert(memcmp(a->pad_size, b->pad_size, sizeof a->pad_size) == 0);
	geom_eq(&a->object, &b->object);
	geom_eq(&a->pad, &b->pad);
	ck_assert(a->joint.damping == b->joint.damping && a->joint.armature == b->joint.armature &&
	    a->joint.frictionloss == b->joint.frictionloss);
	ck_assert_int_eq(a->actuator.type, b->actuator.type);
	ck_assert(a->actuator.kp == b->actuator.kp && a->actuator.kv == b->actuator.kv &&
	    a->actuator.squeeze == b->actuator.squeeze);
	ck_assert_int_eq(a->actuator.forcelimited, b->actuator.forcelimited);
	ck_assert(memcmp(a->actuator.forcerange, b->actuator.forcerange,
	              sizeof a->actuator.forcerange) == 0);
	ck_assert(a->grip_force == b->grip_force);
	ck_assert(memcmp(&a->option, &b->option, sizeof a->option) == 0);
	ck_assert_int_eq(a->noslip_iterations, b->noslip_iterations);
}

/* MuJoCo #3328's grasp: every field of the question is the file's (the issue's values) */
START_TEST(issue_3328_is_its_question)
{
	char *x = fixture("grasp-3328.xml");
	struct mgrasp g;
	const struct core_hold *h = &g.hold;

	offered(x, "3.14.0", &g);
	ck_assert_int_eq(g.ndiff, 0);
	ck_assert_int_eq(g.other_pairs, 0);
	ck_assert_int_eq(h->shape, CORE_HOLD_CAPSULE);
	ck_assert(h->size[0] == 0.004 && h->size[1] == 0.02);
	ck_assert(h->mass == 0.045);
	ck_assert(h->pad_size[0] == 0.008 && h->pad_size[1] == 0.03 && h->pad_size[2] == 0.02);
	ck_assert(h->pad_mass == 0.2);
	ck_assert(h->joint.damping == 100 && h->joint.armature == 0 && h->joint.frictionloss == 0);
	ck_assert_int_eq(h->actuator.type, CORE_HOLD_POSITION);
	ck_assert(h->actuator.kp == 20000 && h->actuator.kv == 0 && h->actuator.squeeze == 0.002);
	ck_assert_int_eq(h->actuator.forcelimited, 0);
	ck_assert(h->object.friction[0] == 0.7 && h->object.friction[1] == 0.005 &&
	    h->object.friction[2] == 0.0001);
	ck_assert_int_eq(h->object.condim, 3);
	geom_eq(&h->object, &h->pad);
	ck_assert(h->object.solref[0] == 0.02 && h->object.solref[1] == 1);
	ck_assert(h->option.timestep == 0.002 && h->option.impratio == 10);
	ck_assert_int_eq(h->option.integrator, CORE_SCENE_EULER);
	ck_assert_int_eq(h->option.cone, CORE_CONE_ELLIPTIC);
	ck_assert(h->option.gravity == 9.81);
	ck_assert_int_eq(h->option.mujoco, core_mjver_find("3.14.0"));
	ck_assert_int_eq(g.pad[0], 2);
	ck_assert_int_eq(g.pad[1], 3);
	ck_assert_int_eq(g.actuator[0], 0);
	ck_assert_int_eq(g.actuator[1], 1);
	ck_assert(lines_have(g.notes, g.nnotes, "ctrl 0.002 is the first <key>"));
	free(x);
}
END_TEST

/* The SO-101's values: a box on position servos with kv and forcerange, joints with
 * damping, armature and frictionloss, implicitfast; the <key>'s 5 mm clamped to the
 * ctrlrange's 4 mm, which a note says. */
START_TEST(so101_values_are_its_question)
{
	char *x = fixture("grasp-so101.xml");
	struct mgrasp g;
	const struct core_hold *h = &g.hold;

	offered(x, "3.14.0", &g);
	ck_assert_int_eq(g.ndiff, 0);
	ck_assert_int_eq(h->shape, CORE_HOLD_BOX);
	ck_assert(h->size[0] == 0.02 && h->size[1] == 0.02 && h->size[2] == 0.03);
	/* density 1000 x the box's volume, as MuJoCo's compiler sums it */
	ck_assert(h->mass == 1000 * (0.02 * 0.02 * 0.03 * 8));
	ck_assert(h->pad_size[0] == 0.01 && h->pad_size[1] == 0.01 && h->pad_size[2] == 0.015);
	ck_assert(h->pad_mass == 0.012);
	ck_assert(h->joint.damping == 0.6 && h->joint.armature == 0.028 &&
	    h->joint.frictionloss == 0.052);
	ck_assert_int_eq(h->actuator.type, CORE_HOLD_POSITION);
	ck_assert(h->actuator.kp == 998.22 && h->actuator.kv == 2.731);
	ck_assert_int_eq(h->actuator.forcelimited, 1);
	ck_assert(h->actuator.forcerange[0] == -2.94 && h->actuator.forcerange[1] == 2.94);
	ck_assert(h->actuator.squeeze == 0.004);
	ck_assert(
	    lines_have(g.notes, g.nnotes, "clamped by its ctrlrange [-0.01, 0.004] to 0.004"));
	/* each geom's own: the pads' class wins by priority in the core's mix, as in MuJoCo */
	ck_assert_int_eq(h->object.condim, 3);
	ck_assert(h->object.friction[1] == 0.03 && h->object.solref[0] == 0.01);
	ck_assert_int_eq(h->pad.condim, 6);
	ck_assert_int_eq(h->pad.priority, 1);
	ck_assert(h->pad.friction[2] == 5e-4);
	ck_assert_int_eq(h->option.integrator, CORE_SCENE_IMPLICITFAST);
	ck_assert(h->option.timestep == 0.005);
	free(x);
}
END_TEST

/* The ways MJCF writes the same scene give the same question, bit for bit. */
START_TEST(same_scene_same_question)
{
	static const char *const capsule[][2] = {
	    {"euler=\"90 0 0\"", "quat=\"1 1 0 0\""},
	    {"euler=\"90 0 0\"", "axisangle=\"1 0 0 90\""},
	    {"euler=\"90 0 0\"", "euler=\"-90 0 0\""},
	    {"euler=\"90 0 0\"", "euler=\"90 0 30\""}, /* turned about its own axis */
	    {"euler=\"90 0 0\"", "xyaxes=\"1 0 0 0 0 1\""},
	    {"euler=\"90 0 0\"", "zaxis=\"0 1 0\""},
	};
	char *x = fixture("grasp-3328.xml"), *y, *z;
	struct mgrasp base, g;
	size_t i;

	offered(x, "3.14.0", &base);
	for (i = 0; i < sizeof capsule / sizeof capsule[0]; i++) {
		y = edit(x, capsule[i][0], capsule[i][1]);
		offered(y, "3.14.0", &g);
		hold_eq(&base.hold, &g.hold);
		ck_assert_int_eq(g.ndiff, 0);
		free(y);
	}
	/* fromto along y, no orientation: size is the radius, the half-length from the ends */
	y = edit(x, "size=\"0.004 0.02\" euler=\"90 0 0\"",
	    "size=\"0.004\" fromto=\"0 0.02 0 0 -0.02 0\"");
	offered(y, "3.14.0", &g);
	hold_eq(&base.hold, &g.hold);
	free(y);
	/* the right pad's axis along +x (away from the object), its ctrl negated: a mirror */
	y = edit(x, "axis=\"-1 0 0\"", "axis=\"1 0 0\"");
	z = edit(y, "ctrl=\"0.002 0.002\"", "ctrl=\"0.002 -0.002\"");
	offered(z, "3.14.0", &g);
	hold_eq(&base.hold, &g.hold);
	free(y);
	free(z);
	/* a <general> that is a position servo (MuJoCo's <position> is one) */
	y = edit(x, "<position name=\"left\" joint=\"left\" class=\"pad\"/>",
	    "<general name=\"left\" joint=\"left\" gainprm=\"20000\" biastype=\"affine\" "
	    "biasprm=\"0 -20000 0\"/>");
	offered(y, "3.14.0", &g);
	hold_eq(&base.hold, &g.hold);
	free(y);
	free(x);
}
END_TEST

/* A motor's grip is gear x gain x ctrl, as MuJoCo multiplies it; with no <key> the ctrl
 * is mj_resetData's 0, which no grip_force is. */
START_TEST(motor_grip)
{
	char *x = fixture("grasp-3328.xml"), *y, *z, *w;
	struct mgrasp g;

	y = edit(x, "<position name=\"left\" joint=\"left\" class=\"pad\"/>",
	    "<motor name=\"left\" joint=\"left\" gear=\"2\"/>");
	z = edit(y, "<position name=\"right\" joint=\"right\" class=\"pad\"/>",
	    "<motor name=\"right\" joint=\"right\" gear=\"2\"/>");
	w = edit(z, "ctrl=\"0.002 0.002\"", "ctrl=\"3 3\"");
	offered(w, "3.14.0", &g);
	ck_assert_int_eq(g.hold.actuator.type, CORE_HOLD_MOTOR);
	ck_assert(g.hold.grip_force == 6);
	free(w);
	w = edit(z, "<key name=\"squeeze\" ctrl=\"0.002 0.002\"/>", "");
	refused(w, "needs a positive grip_force");
	free(w);
	free(y);
	free(z);
	free(x);
}
END_TEST

/* Scenes that are not the hold scene: no question, and why. */
START_TEST(not_the_hold_scene)
{
	char *x = fixture("grasp-3328.xml"), *y, *z;

	y = edit(x, "euler=\"90 0 0\"", "euler=\"0 90 0\"");
	refused(y, "not along y");
	free(y);
	y = edit(x, "<option ", "<option gravity=\"0 -9.81 0\" ");
	refused(y, "gravity is not along -z");
	free(y);
	y = edit(x, "<geom name=\"right_pad\"/>", "<geom name=\"right_pad\" mass=\"0.3\"/>");
	refused(y, "masses differ");
	free(y);
	y = edit(x, "<geom name=\"right_pad\"/>", "<geom name=\"right_pad\" friction=\"0.8\"/>");
	refused(y, "contact parameters");
	free(y);
	y = edit(x, "<joint name=\"right\" axis=\"-1 0 0\"/>",
	    "<joint name=\"right\" axis=\"-1 0 0\" damping=\"50\"/>");
	refused(y, "joints differ");
	free(y);
	y = edit(x, "<position name=\"right\" joint=\"right\" class=\"pad\"/>",
	    "<position name=\"right\" joint=\"right\" class=\"pad\" gear=\"2\"/>");
	refused(y, "gear 2");
	free(y);
	y = edit(x, "ctrl=\"0.002 0.002\"", "ctrl=\"0.002 0.001\"");
	refused(y, "actuators differ");
	free(y);
	y = edit(x, "<body name=\"right_pad\" pos=\"0.012 0 0\"",
	    "<body name=\"right_pad\" pos=\"0.012 0 0.001\"");
	refused(y, "off the object's centre");
	free(y);
	y = edit(x, "<body name=\"right_pad\" pos=\"0.012 0 0\"",
	    "<body name=\"right_pad\" pos=\"0.013 0 0\"");
	refused(y, "different distances");
	free(y);
	y = edit(x, "<joint name=\"left\" axis=\"1 0 0\"/>",
	    "<joint name=\"left\" axis=\"1 0 0\" range=\"-0.001 0.001\"/>");
	refused(y, "can bind");
	free(y);
	y = edit(
	    x, "<joint name=\"left\" axis=\"1 0 0\"/>", "<joint name=\"left\" axis=\"0 0 1\"/>");
	refused(y, "not x");
	free(y);
	/* hinged jaws, as the SO-101's own gripper; one of them */
	y = edit(x, "<joint name=\"left\" axis=\"1 0 0\"/>",
	    "<joint name=\"left\" type=\"hinge\" axis=\"0 0 1\"/>");
	refused(
	    y, "1 geoms of bodies on one slide joint pair with its geom; the hold scene has two");
	z = edit(y, "<joint name=\"right\" axis=\"-1 0 0\"/>",
	    "<joint name=\"right\" type=\"hinge\" axis=\"0 0 1\"/>");
	refused(z, "a hinged gripper is not the hold scene");
	free(z);
	free(y);
	y = edit(x, "type=\"capsule\" size=\"0.004 0.02\" euler=\"90 0 0\"",
	    "type=\"cylinder\" size=\"0.004 0.02\" euler=\"90 0 0\"");
	refused(y, "its geom is a cylinder");
	free(y);
	/* an actuator the layer does not read on a pad: why, and a note naming its line */
	y = edit(x, "<position name=\"right\" joint=\"right\" class=\"pad\"/>",
	    "<velocity name=\"right\" joint=\"right\" kv=\"10\"/>");
	refused(y, "not read: a velocity actuator is not read");
	{
		struct compiled c;
		int i, named = 0;
		compile(y, "3.14.0", &c);
		for (i = 0; i < c.m.nnotes; i++)
			named |= strstr(c.m.notes[i],
			             "scene.xml:36: <velocity> \"right\": not read") != NULL;
		ck_assert_msg(
		    named, "no note names the <velocity>: %s", c.m.nnotes ? c.m.notes[0] : "none");
		release(&c);
	}
	free(y);
	free(x);
}
END_TEST

/* Scenes that differ from the hold scene in what the question cannot say: the nearest
 * question is offered, each difference named. */
START_TEST(nearest_with_differences)
{
	char *x = fixture("grasp-3328.xml"), *y, *z;
	struct mgrasp base, g;

	offered(x, "3.14.0", &base);
	/* the pads start 1 mm apart from the capsule */
	y = edit(x, "<body name=\"right_pad\" pos=\"0.012 0 0\"",
	    "<body name=\"right_pad\" pos=\"0.013 0 0\"");
	z = edit(y, "<body name=\"left_pad\" pos=\"-0.012 0 0\"",
	    "<body name=\"left_pad\" pos=\"-0.013 0 0\"");
	offered(z, "3.14.0", &g);
	hold_eq(&base.hold, &g.hold);
	ck_assert(lines_have(g.diffs, g.ndiff, "start 0.001 m apart from the object"));
	free(y);
	free(z);
	/* a floor: its pairs with the capsule and the pads are assumed apart */
	y = edit(x, "<worldbody>",
	    "<worldbody><geom name=\"floor\" type=\"plane\" size=\"0 0 1\" pos=\"0 0 -0.1\"/>");
	offered(y, "3.14.0", &g);
	hold_eq(&base.hold, &g.hold);
	ck_assert_int_eq(g.other_pairs, 3);
	ck_assert(lines_have(g.diffs, g.ndiff, "3 other pairs"));
	free(y);
	/* PGS: answered as Newton's solution */
	y = edit(x, "<option ", "<option solver=\"PGS\" ");
	offered(y, "3.14.0", &g);
	ck_assert(lines_have(g.diffs, g.ndiff, "not Newton"));
	free(y);
	free(x);
}
END_TEST

/* 3.8.0-3.13.0 pair a touching start's pads in float32 at the scene's coordinates and
 * body order: the scene at the origin in the question's order is the question; moved, a
 * difference says so; other releases do not depend on it. */
START_TEST(broadphase_releases)
{
	char *x = fixture("grasp-3328.xml"), *y;
	struct mgrasp g;

	offered(x, "3.12.0", &g);
	ck_assert_int_eq(g.ndiff, 0);
	y = edit(x, "<body name=\"capsule\">", "<body name=\"capsule\" pos=\"0 0 0.5\">");
	free(x);
	x = edit(y, "<body name=\"left_pad\" pos=\"-0.012 0 0\"",
	    "<body name=\"left_pad\" pos=\"-0.012 0 0.5\"");
	free(y);
	y = edit(x, "<body name=\"right_pad\" pos=\"0.012 0 0\"",
	    "<body name=\"right_pad\" pos=\"0.012 0 0.5\"");
	offered(y, "3.12.0", &g);
	ck_assert(lines_have(g.diffs, g.ndiff, "broadphase"));
	offered(y, "3.14.0", &g);
	ck_assert_int_eq(g.ndiff, 0);
	offered(y, "2.2.2", &g);
	ck_assert_int_eq(g.ndiff, 0);
	free(y);
	free(x);
}
END_TEST

/* POST /v1/model's answer: the grasp with its hold question, which POST /v1/hold reads and
 * answers (or, while the core refuses the scene, the grasp's refused is that sentence). */
START_TEST(answer_offers_the_hold_question)
{
	char *x = fixture("grasp-3328.xml"), *body, *text = NULL, *answer = NULL;
	json_t *req, *a, *grasp, *hold;
	struct svc_limits lim = tsvc_limits(1);
	struct err err;

	req = json_pack("{s:s, s:{s:s}}", "main", "scene.xml", "files", "scene.xml", x);
	body = json_dumps(req, JSON_COMPACT);
	ck_assert_msg(svc_ask(SVC_MODEL, body, strlen(body), &lim, NULL, &text, NULL, &err) == 0,
	    "%s", err.message);
	a = json_loads(text, 0, NULL);
	grasp = json_array_get(json_object_get(a, "grasps"), 0);
	ck_assert_ptr_nonnull(grasp);
	ck_assert(json_is_true(json_object_get(grasp, "exact")));
	ck_assert(json_is_null(json_object_get(grasp, "why")));
	ck_assert_int_eq(json_integer_value(json_object_get(grasp, "object")), 1);
	hold = json_object_get(grasp, "hold");
	ck_assert(json_is_object(hold));
	ck_assert(
	    json_real_value(json_object_get(json_object_get(hold, "object"), "mass")) == 0.045);
	free(body);
	body = json_dumps(hold, JSON_COMPACT);
	err_clear(&err);
	if (svc_ask(SVC_HOLD, body, strlen(body), &lim, NULL, &answer, NULL, &err) == 0) {
		json_t *h = json_loads(answer, 0, NULL);
		ck_assert(json_is_null(json_object_get(grasp, "refused")));
		ck_assert_ptr_nonnull(json_object_get(h, "creep_velocity"));
		json_decref(h);
	} else {
		/* the core refuses the scene: the grasp says so in the same words */
		ck_assert_msg(
		    json_is_string(json_object_get(grasp, "refused")) || err.code == ERR_BAD_VALUE,
		    "%s", err.message);
	}
	free(answer);
	free(body);
	free(text);
	json_decref(a);
	json_decref(req);
	free(x);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("model_grasp");
	TCase *tc = tcase_create("grasp");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, issue_3328_is_its_question);
	tcase_add_test(tc, so101_values_are_its_question);
	tcase_add_test(tc, same_scene_same_question);
	tcase_add_test(tc, motor_grip);
	tcase_add_test(tc, not_the_hold_scene);
	tcase_add_test(tc, nearest_with_differences);
	tcase_add_test(tc, broadphase_releases);
	tcase_add_test(tc, answer_offers_the_hold_question);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
