/*
 * test_model.c: POST /v1/model's handler (src/service/model.c over src/model/): bad
 * documents refused with the file, line and element named, the limits, the request's
 * fields, and the answer's warnings and rests on small documents whose numbers follow
 * from MuJoCo's rules by hand (the numbers themselves are held to libmujoco 2.2.2 in
 * test_model_mj).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hold.h"
#include "service/service.h"
#include "svc_test.h"
#include "model/knobs.h"

/* svc_ask on body: 0 and the answer, or the error */
static int ask(const char *body, json_t **answer, struct err *err)
{
	struct svc_limits lim = tsvc_limits(1);
	char *text = NULL;
	int rc;

	err_clear(err);
	rc = svc_ask(SVC_MODEL, body, strlen(body), &lim, NULL, &text, NULL, err);
	*answer = rc == 0 ? json_loads(text, 0, NULL) : NULL;
	free(text);
	return rc;
}

static char *request(const char *main_text, const char *other_name, const char *other_text)
{
	json_t *files = json_pack("{s:s}", "scene.xml", main_text);
	json_t *r;
	char *s;
	if (other_name)
		json_object_set_new(files, other_name, json_string(other_text));
	r = json_pack("{s:s, s:o}", "main", "scene.xml", "files", files);
	s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	return s;
}

static void expect_refusal(const char *main_text, const char *other_name, const char *other_text,
    enum err_code code, const char *message_part)
{
	char *body = request(main_text, other_name, other_text);
	json_t *answer;
	struct err err;

	ck_assert_int_eq(ask(body, &answer, &err), -1);
	ck_assert_msg(err.code == code, "%s: code %s", body, err_name(err.code));
	ck_assert_msg(strstr(err.message, message_part) != NULL, "message \"%s\" lacks \"%s\"",
	    err.message, message_part);
	free(body);
}

START_TEST(bad_documents_name_file_line_and_element)
{
	expect_refusal("<mujoco>\n<worldbody>\n<geom class=\"nope\"/>\n</worldbody></mujoco>", NULL,
	    NULL, ERR_BAD_VALUE, "scene.xml:3: <geom>: unknown default class \"nope\"");
	expect_refusal("<mujoco><include file=\"b.xml\"/></mujoco>", "b.xml",
	    "<mujoco>\n\n<worldbody><geom condim=\"2\" size=\"1\"/></worldbody></mujoco>",
	    ERR_BAD_VALUE, "b.xml:3: <geom>: condim must be 1, 3, 4 or 6");
	expect_refusal("<mujoco><worldbody>\n<geom size=\"x\"/></worldbody></mujoco>", NULL, NULL,
	    ERR_BAD_VALUE, "scene.xml:2: <geom>: size is not a list of finite numbers");
	expect_refusal("<mujoco><worldbody><geom size=\"1\"></worldbody></mujoco>", NULL, NULL,
	    ERR_BAD_VALUE, "scene.xml:1:");
	expect_refusal("<mujoco><include file=\"missing.xml\"/></mujoco>", NULL, NULL,
	    ERR_BAD_VALUE, "scene.xml:1: <include>: no file \"missing.xml\" in files");
	expect_refusal("<mujoco><include file=\"scene.xml\"/></mujoco>", NULL, NULL, ERR_BAD_VALUE,
	    "already included");
	expect_refusal(
	    "<!DOCTYPE m [<!ENTITY a \"x\">]><mujoco/>", NULL, NULL, ERR_BAD_VALUE, "DTD");
	expect_refusal("<mujoco><worldbody><composite type=\"grid\"/></worldbody></mujoco>", NULL,
	    NULL, ERR_BAD_VALUE, "<composite>");
	expect_refusal("<mujoco><worldbody><geom type=\"sphere\" fromto=\"0 0 0 1 0 0\" "
	               "size=\"1\"/></worldbody></mujoco>",
	    NULL, NULL, ERR_BAD_VALUE, "fromto requires capsule");
	expect_refusal("<mujoco><contact><pair geom1=\"a\" geom2=\"b\"/></contact></mujoco>", NULL,
	    NULL, ERR_BAD_VALUE, "geom1 \"a\" names no geom");
}
END_TEST

static void expect_error(const char *body, enum err_code code, const char *path)
{
	tsvc_expect_error(SVC_MODEL, body, strlen(body), NULL, code, path);
}

START_TEST(limits_refuse)
{
	/* includes nested deeper than MJCF_MAX_INCLUDE_DEPTH: each file includes the next */
	json_t *files = json_object(), *r;
	char name[32], text[128], *body;
	json_t *answer;
	struct err err;
	int i;

	for (i = 0; i <= MJCF_MAX_INCLUDE_DEPTH + 1; i++) {
		snprintf(name, sizeof name, "f%d.xml", i);
		snprintf(text, sizeof text, "<mujoco><include file=\"f%d.xml\"/></mujoco>", i + 1);
		json_object_set_new(files, name, json_string(text));
	}
	r = json_pack("{s:s, s:o}", "main", "f0.xml", "files", files);
	body = json_dumps(r, JSON_COMPACT);
	ck_assert_int_eq(ask(body, &answer, &err), -1);
	ck_assert_str_eq(err_name(err.code), "bad_value");
	ck_assert_msg(strstr(err.message, "includes nest deeper than") != NULL, "%s", err.message);
	free(body);
	json_decref(r);
	expect_error("{\"main\": \"a.xml\", \"files\": {}}", ERR_BAD_VALUE, "/main");
	expect_error(
	    "{\"main\": \"a.xml\", \"files\": {\"a.xml\": 3}}", ERR_BAD_TYPE, "/files/a.xml");
	/* a release no build was checked against, one before 2.2.0, and not a string */
	expect_error(
	    "{\"main\": \"a.xml\", \"files\": {\"a.xml\": \"<mujoco/>\"}, \"mujoco\": \"3.15.0\"}",
	    ERR_BAD_VALUE, "/mujoco");
	expect_error(
	    "{\"main\": \"a.xml\", \"files\": {\"a.xml\": \"<mujoco/>\"}, \"mujoco\": \"2.1.0\"}",
	    ERR_BAD_VALUE, "/mujoco");
	expect_error("{\"main\": \"a.xml\", \"files\": {\"a.xml\": \"<mujoco/>\"}, \"mujoco\": 3}",
	    ERR_BAD_TYPE, "/mujoco");
	expect_error("{\"main\": \"a.xml\", \"files\": {}, \"x\": 1}", ERR_UNKNOWN_FIELD, "/x");
}
END_TEST

/* Numbers MuJoCo does not read (its reader refuses "0x10"; strtod read it as 16), an
 * include spelt two ways is one file (included twice, or a cycle), and what libxml2 would
 * take long on is refused before it reads the file (issue 51). */
START_TEST(numbers_names_and_markup)
{
	static const char *const refused[] = {"0x10", "0X1p3", "inf", "nan", "-INF", "1e400", NULL};
	static const char b_xml[] = "<mujoco><worldbody><geom size=\"1\"/></worldbody></mujoco>";
	char text[256], limit[64], *body;
	json_t *answer, *files;
	struct err err;
	int i;

	for (i = 0; refused[i]; i++) {
		snprintf(text, sizeof text,
		    "<mujoco><worldbody>\n<geom size=\"%s\"/></worldbody></mujoco>", refused[i]);
		expect_refusal(text, NULL, NULL, ERR_BAD_VALUE,
		    "scene.xml:2: <geom>: size is not a list of finite numbers");
	}
	/* the decimal forms MuJoCo reads pass */
	body = request(
	    "<mujoco><worldbody><geom size=\"+.5e1 1. 2E-1\"/></worldbody></mujoco>", NULL, NULL);
	ck_assert_msg(ask(body, &answer, &err) == 0, "%s", err.message);
	ck_assert_double_eq(
	    json_real_value(json_array_get(
	        json_object_get(json_array_get(json_object_get(answer, "geoms"), 0), "size"), 0)),
	    5);
	json_decref(answer);
	free(body);
	/* b.xml and ./b.xml: one file, included twice */
	expect_refusal("<mujoco><include file=\"b.xml\"/><include file=\"./b.xml\"/></mujoco>",
	    "b.xml", b_xml, ERR_BAD_VALUE,
	    "scene.xml:1: <include>: file \"b.xml\" is already included");
	/* the main file included as ./scene.xml: a cycle */
	expect_refusal("<mujoco><include file=\"./scene.xml\"/></mujoco>", NULL, NULL,
	    ERR_BAD_VALUE, "file \"scene.xml\" is already included");
	/* a/../b.xml reads b.xml, listed by the name it has */
	body = request("<mujoco><include file=\"a/../b.xml\"/></mujoco>", "b.xml", b_xml);
	ck_assert_msg(ask(body, &answer, &err) == 0, "%s", err.message);
	files = json_object_get(answer, "files");
	ck_assert_int_eq(json_array_size(files), 2);
	ck_assert_str_eq(json_string_value(json_array_get(files, 1)), "b.xml");
	json_decref(answer);
	free(body);
	/* an element of one attribute over the limit; a namespace declaration */
	{
		size_t cap = 64 + 16 * (MJCF_MAX_ATTRIBUTES + 1), len;
		char *many = malloc(cap);
		ck_assert_ptr_nonnull(many);
		len = (size_t)snprintf(many, cap, "<mujoco><worldbody>\n<geom");
		for (i = 0; i <= MJCF_MAX_ATTRIBUTES; i++)
			len += (size_t)snprintf(many + len, cap - len, " a%d='='", i);
		snprintf(many + len, cap - len, "/></worldbody></mujoco>");
		snprintf(limit, sizeof limit, "scene.xml:2: <geom>: more than %d attributes",
		    MJCF_MAX_ATTRIBUTES);
		expect_refusal(many, NULL, NULL, ERR_TOO_LARGE, limit);
		/* at the limit it is read (MuJoCo's reader would refuse the unknown names; this
		 * one reads the attributes it knows) */
		len = (size_t)snprintf(many, cap, "<mujoco><worldbody>\n<geom size='1'");
		for (i = 1; i < MJCF_MAX_ATTRIBUTES; i++)
			len += (size_t)snprintf(many + len, cap - len, " a%d='=>'", i);
		snprintf(many + len, cap - len, "/></worldbody></mujoco>");
		body = request(many, NULL, NULL);
		ck_assert_msg(ask(body, &answer, &err) == 0, "%s", err.message);
		json_decref(answer);
		free(body);
		free(many);
	}
	expect_refusal("<mujoco xmlns:p=\"u\"><worldbody/></mujoco>", NULL, NULL, ERR_BAD_VALUE,
	    "scene.xml:1: <mujoco>: a namespace declaration (xmlns) is not MJCF");
	/* markup the scan skips: a comment and the XML declaration */
	body = request("<?xml version=\"1.0\"?><mujoco><!-- <geom a='1'> --><worldbody>"
	               "<geom size=\"1\"/></worldbody></mujoco>",
	    NULL, NULL);
	ck_assert_msg(ask(body, &answer, &err) == 0, "%s", err.message);
	json_decref(answer);
	free(body);
}
END_TEST

static const json_t *pair_of(const json_t *answer, int g1, int g2)
{
	size_t i;
	json_t *p;
	json_array_foreach (json_object_get(answer, "pairs"), i, p)
		if (json_integer_value(json_object_get(p, "geom1")) == g1 &&
		    json_integer_value(json_object_get(p, "geom2")) == g2)
			return p;
	return NULL;
}

static int has_warning(const json_t *pair, const char *code)
{
	size_t i;
	json_t *w;
	json_array_foreach (json_object_get(pair, "warnings"), i, w)
		if (strcmp(json_string_value(json_object_get(w, "code")), code) == 0)
			return 1;
	return 0;
}

/* a plane and a sphere of solref (0.003, 1) at h = 0.002: solmix's average with the
 * plane's default (0.02 + 0.003) / 2 = 0.0115 >= 2h, so no warning; with priority on the
 * sphere 0.003 < 2h = 0.004 and refsafe uses 0.004; the plane's own solref (0.05, 1) is
 * then hidden; mesh geoms are listed, not answerable */
START_TEST(warnings_follow_the_rules)
{
	char *body = request(
	    "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>"
	    "<geom name=\"plate\" type=\"plane\" size=\"0 0 1\" pos=\"5 0 0\" solref=\"0.05 1\"/>"
	    "<body pos=\"0 0 0.05\"><freejoint/><geom name=\"a\" size=\"0.05\" solref=\"0.003 "
	    "1\"/></body>"
	    "<body pos=\"5 0 0.05\"><freejoint/><geom name=\"b\" size=\"0.05\" solref=\"0.003 1\" "
	    "priority=\"1\"/></body>"
	    "<body pos=\"9 0 1\"><freejoint/><geom name=\"m\" type=\"mesh\" mesh=\"x\"/>"
	    "<geom size=\"0.1\"/></body>"
	    "</worldbody></mujoco>",
	    NULL, NULL);
	json_t *answer;
	struct err err;
	const json_t *p, *g, *bodies;

	ck_assert_msg(ask(body, &answer, &err) == 0, "%s", err.message);
	p = pair_of(answer, 0, 2);
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq_tol(tsvc_real(p, "timeconst_used"), 0.0115, 1e-15);
	ck_assert_int_eq(json_array_size(json_object_get(p, "warnings")), 0);
	p = pair_of(answer, 1, 3);
	ck_assert_ptr_nonnull(p);
	ck_assert_double_eq(tsvc_real(p, "timeconst_used"), 0.004);
	ck_assert(has_warning(p, "timeconst_below_2h"));
	ck_assert(has_warning(p, "priority_hides_solref"));
	g = json_array_get(json_object_get(answer, "geoms"), 4);
	ck_assert_str_eq(json_string_value(json_object_get(g, "type")), "mesh");
	ck_assert(json_is_false(json_object_get(g, "answerable")));
	ck_assert(json_is_null(json_object_get(g, "mass")));
	bodies = json_object_get(answer, "bodies");
	ck_assert(json_is_object(json_object_get(json_array_get(bodies, 0), "rest")));
	ck_assert(json_is_null(json_object_get(json_array_get(bodies, 2), "rest")));
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(bodies, 2), "why")),
	    "it has not exactly one geom");
	json_decref(answer);
	free(body);
}
END_TEST

/* the margin/gap rules of docs/releases.md on one plane-sphere pair (plane margin 3 mm,
 * gap 1 mm; sphere margin 2 mm, gap 1.5 mm): 2.2.2 takes the max of each and
 * includemargin = margin - gap, 3.5.0 sums them, 3.9.0 on includemargin = margin. The
 * numbers are the sums by hand; the WebAssembly builds agree (test_model_wasm). */
static json_t *answer_as(const char *release, const char *integrator)
{
	char text[800], *body;
	json_t *r, *answer;
	struct err err;

	snprintf(text, sizeof text,
	    "<mujoco><option integrator=\"%s\"/><worldbody>"
	    "<geom type=\"plane\" size=\"0 0 1\" margin=\"0.003\" gap=\"0.001\"/>"
	    "<body pos=\"0 0 0.1\"><freejoint/><geom size=\"0.05\" margin=\"0.002\" "
	    "gap=\"0.0015\"/></body></worldbody></mujoco>",
	    integrator);
	r = json_pack("{s:s, s:{s:s}}", "main", "s.xml", "files", "s.xml", text);
	if (release)
		json_object_set_new(r, "mujoco", json_string(release));
	body = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	if (ask(body, &answer, &err) != 0) {
		ck_assert_msg(err.code == ERR_BAD_VALUE, "%s", err.message);
		answer = json_pack("{s:s}", "error", err.message);
	}
	free(body);
	return answer;
}

START_TEST(release_rules)
{
	static const struct {
		const char *release;
		double margin, gap, includemargin;
	} cases[] = {
	    {"2.2.2", 0.003, 0.0015, 0.0015}, {"3.4.0", 0.003, 0.0015, 0.0015},
	    {"3.5.0", 0.005, 0.0025, 0.0025}, {"3.9.0", 0.005, 0.0025, 0.005},
	    {"3.14.0", 0.005, 0.0025, 0.005},
	    {NULL, 0.005, 0.0025, 0.005}, /* the default, 3.14.0 */
	};
	size_t i;
	json_t *a;
	const json_t *p;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		a = answer_as(cases[i].release, "Euler");
		ck_assert_str_eq(json_string_value(json_object_get(a, "mujoco")),
		    cases[i].release ? cases[i].release : "3.14.0");
		p = pair_of(a, 0, 1);
		ck_assert_ptr_nonnull(p);
		/* sums of two decimals: within an ulp of the decimal written */
		ck_assert_double_eq_tol(tsvc_real(p, "margin"), cases[i].margin, 1e-17);
		ck_assert_double_eq_tol(tsvc_real(p, "gap"), cases[i].gap, 1e-17);
		ck_assert_double_eq_tol(
		    tsvc_real(p, "includemargin"), cases[i].includemargin, 1e-17);
		/* solreffriction is 2.3.6's: null before, (0, 0) for a dynamic pair from it */
		if (cases[i].release && !strcmp(cases[i].release, "2.2.2")) {
			ck_assert(json_is_null(json_object_get(p, "solreffriction")));
		} else {
			json_t *zero = json_pack("[f, f]", 0.0, 0.0);
			ck_assert(json_equal(json_object_get(p, "solreffriction"), zero));
			json_decref(zero);
		}
		json_decref(a);
	}
	/* discrete (the default 3.14.0): timeconst is not clamped; refsafe replaces rows with
	 * q = h^2 K dmax > 1. By hand, solref (0.001, 1) on both geoms, h = 0.002, dmax 0.95:
	 * K = 1/(0.95 x 0.001)^2, q = 4e-6 / (0.95 x 1e-6) = 4.2105..., fixed from timeconst
	 * h / sqrt(0.95) = 0.00205196 s */
	{
		char *body =
		    request("<mujoco><option integrator=\"discrete\" timestep=\"0.002\"/>"
		            "<default><geom solref=\"0.001 1\"/></default><worldbody><geom "
		            "type=\"plane\" size=\"0 0 1\"/><body pos=\"0 0 0.1\"><freejoint/>"
		            "<geom size=\".05\"/></body></worldbody></mujoco>",
		        NULL, NULL);
		struct err err;
		const json_t *w = NULL;
		size_t k;
		ck_assert_msg(ask(body, &a, &err) == 0, "%s", err.message);
		p = pair_of(a, 0, 1);
		ck_assert_double_eq(tsvc_real(p, "timeconst_used"), 0.001);
		ck_assert(!has_warning(p, "timeconst_below_2h"));
		ck_assert(!has_warning(p, "damping_below_h"));
		json_array_foreach (json_object_get(p, "warnings"), k, w)
			if (!strcmp(json_string_value(json_object_get(w, "code")),
			        "refsafe_replaces_rows"))
				break;
		ck_assert_msg(k < json_array_size(json_object_get(p, "warnings")),
		    "no refsafe_replaces_rows");
		ck_assert_msg(strstr(json_string_value(json_object_get(w, "message")), "= 4.21053"),
		    "%s", json_string_value(json_object_get(w, "message")));
		ck_assert_msg(
		    strstr(json_string_value(json_object_get(w, "fix")), "at least 0.00205196 s"),
		    "%s", json_string_value(json_object_get(w, "fix")));
		json_decref(a);
		free(body);
	}
	/* a rest past the rest row's step limit is not answered (2 s at 1e-7 s: 2e7 steps) */
	{
		char *body =
		    request("<mujoco><option timestep=\"1e-7\"/><worldbody><geom "
		            "type=\"plane\" size=\"0 0 1\"/><body pos=\"0 0 0.1\"><freejoint/>"
		            "<geom size=\".05\"/></body></worldbody></mujoco>",
		        NULL, NULL);
		struct err err;
		const json_t *b;
		ck_assert_msg(ask(body, &a, &err) == 0, "%s", err.message);
		b = json_array_get(json_object_get(a, "bodies"), 0);
		ck_assert(json_is_null(json_object_get(b, "rest")));
		ck_assert_msg(strstr(json_string_value(json_object_get(b, "why")),
		                  "more than 10000000 steps"),
		    "%s", json_string_value(json_object_get(b, "why")));
		json_decref(a);
		free(body);
	}
	/* sdf geoms: one note however many (their pairs are not listed), a note per release */
	{
		char *body =
		    request("<mujoco><worldbody><geom type=\"plane\" size=\"0 0 1\"/><body>"
		            "<freejoint/><geom type=\"sdf\" mesh=\"a\"/><geom type=\"sdf\" "
		            "mesh=\"b\"/><geom size=\".1\"/></body></worldbody></mujoco>",
		        NULL, NULL);
		struct err err;
		ck_assert_msg(ask(body, &a, &err) == 0, "%s", err.message);
		ck_assert_int_eq(json_array_size(json_object_get(a, "notes")), 1);
		ck_assert_msg(
		    strstr(json_string_value(json_array_get(json_object_get(a, "notes"), 0)),
		        "the pairs of sdf geoms are not listed"),
		    "%s", json_string_value(json_array_get(json_object_get(a, "notes"), 0)));
		ck_assert_int_eq(json_array_size(json_object_get(a, "pairs")), 1);
		json_decref(a);
		free(body);
	}
	/* discrete is 3.13.0's: refused before, answered from it on */
	a = answer_as("3.12.0", "discrete");
	ck_assert_msg(strstr(json_string_value(json_object_get(a, "error")),
	                  "s.xml:1: <option>: integrator \"discrete\" is MuJoCo 3.13.0+") != NULL,
	    "%s", json_string_value(json_object_get(a, "error")));
	json_decref(a);
	a = answer_as("3.13.0", "discrete");
	ck_assert_str_eq(
	    json_string_value(json_object_get(json_object_get(a, "option"), "integrator")),
	    "discrete");
	ck_assert(json_is_object(
	    json_object_get(json_array_get(json_object_get(a, "bodies"), 0), "rest")));
	json_decref(a);
}
END_TEST

/* pad_cannot_hold (docs/model.md): a 0.1 kg box pinched by two finger boxes of half-size
 * 5 mm on slide joints, solref (0.02, 1), solimp default (d = dmax = 0.95 past its 1 mm
 * width). By hand, elliptic: a pad's normal force at the pad's full depth is at most
 * E = m K dmax^2 depth / (1 - dmax) = 0.1 x 2500 x 0.005 / 0.05 = 25 N (K dmax^2 = 1/(0.02
 * x 1)^2), so two pads hold 0.981 N from friction 0.981 / 50 = 0.01962: friction 0.01
 * warns, 0.03 does not; condim 1 always warns. Pyramidal, condim 3, impratio 1: 4 edges
 * of R_py = 2 mu^2 (1 + mu^2) times the normal row's R, so N_max = 4 E / (2 mu^2 (1 +
 * mu^2)): friction 5 gives 100 / 1300 = 0.0769231 N and 2 x 5 x N_max = 0.769 N < 0.981 N
 * (warns, the fix's impratio 0.981 / 0.769231 = 1.2753); friction 4 gives 0.183824 N and
 * 1.47 N (does not); friction 0.01 gives 5e5 N (does not: the pyramid's edges stiffen as
 * friction falls). */
static json_t *pinch_doc(const char *release, const char *option, const char *geom)
{
	char text[1400], *body;
	json_t *r, *answer;
	struct err err;

	snprintf(text, sizeof text,
	    "<mujoco><option %s gravity=\"0 0 -9.81\"/><default><geom %s/></default><worldbody>"
	    "<body name=\"left\" pos=\"-0.03 0 0.1\"><joint type=\"slide\" axis=\"1 0 0\"/>"
	    "<geom name=\"lpad\" type=\"box\" size=\"0.005 0.02 0.02\"/></body>"
	    "<body name=\"right\" pos=\"0.03 0 0.1\"><joint type=\"slide\" axis=\"1 0 0\"/>"
	    "<geom name=\"rpad\" type=\"box\" size=\"0.005 0.02 0.02\"/></body>"
	    "<body name=\"obj\" pos=\"0 0 0.1\"><freejoint/><geom name=\"obj\" type=\"box\" "
	    "size=\"0.025 0.01 0.01\" mass=\"0.1\"/></body></worldbody></mujoco>",
	    option, geom);
	r = json_pack("{s:s, s:{s:s}}", "main", "p.xml", "files", "p.xml", text);
	if (release)
		json_object_set_new(r, "mujoco", json_string(release));
	body = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	ck_assert_msg(ask(body, &answer, &err) == 0, "%s", err.message);
	free(body);
	return answer;
}

static json_t *pinch(const char *friction, const char *condim, const char *cone)
{
	char option[100], geom[200];

	snprintf(option, sizeof option, "cone=\"%s\"", cone);
	snprintf(geom, sizeof geom, "friction=\"%s 0.005 0.0001\" condim=\"%s\"", friction, condim);
	return pinch_doc(NULL, option, geom);
}

static const json_t *warning_of(const json_t *pair, const char *code)
{
	size_t i;
	json_t *w;
	json_array_foreach (json_object_get(pair, "warnings"), i, w)
		if (strcmp(json_string_value(json_object_get(w, "code")), code) == 0)
			return w;
	return NULL;
}

START_TEST(pad_cannot_hold)
{
	json_t *a = pinch("0.01", "3", "elliptic");
	const json_t *p, *w;
	const char *msg, *fix;

	/* geoms: lpad 0, rpad 1, obj 2; both pads' pairs warn */
	p = pair_of(a, 0, 2);
	ck_assert_ptr_nonnull(p);
	w = warning_of(p, "pad_cannot_hold");
	ck_assert_ptr_nonnull(w);
	msg = json_string_value(json_object_get(w, "message"));
	fix = json_string_value(json_object_get(w, "fix"));
	ck_assert_msg(strstr(msg, "at most 25 N") && strstr(msg, "(0.005 m deep)") &&
	        strstr(msg, "weight 0.981 N"),
	    "%s", msg);
	ck_assert_msg(strstr(fix, "friction[0] to at least 0.01962"), "%s", fix);
	ck_assert_ptr_nonnull(warning_of(pair_of(a, 1, 2), "pad_cannot_hold"));
	json_decref(a);
	a = pinch("0.03", "3", "elliptic");
	ck_assert_ptr_null(warning_of(pair_of(a, 0, 2), "pad_cannot_hold"));
	json_decref(a);
	a = pinch("1", "1", "pyramidal");
	w = warning_of(pair_of(a, 0, 2), "pad_cannot_hold");
	ck_assert_ptr_nonnull(w);
	ck_assert_msg(strstr(json_string_value(json_object_get(w, "message")), "condim 1"), "%s",
	    json_string_value(json_object_get(w, "message")));
	json_decref(a);
	a = pinch("0.01", "3", "pyramidal");
	ck_assert_ptr_null(warning_of(pair_of(a, 0, 2), "pad_cannot_hold"));
	json_decref(a);
	a = pinch("5", "3", "pyramidal");
	w = warning_of(pair_of(a, 0, 2), "pad_cannot_hold");
	ck_assert_ptr_nonnull(w);
	msg = json_string_value(json_object_get(w, "message"));
	fix = json_string_value(json_object_get(w, "fix"));
	ck_assert_msg(strstr(msg, "at most 0.0769231 N (the sum of its pyramid edges)") &&
	        strstr(msg, "weight 0.981 N"),
	    "%s", msg);
	ck_assert_msg(strstr(fix, "impratio to at least 1.2753"), "%s", fix);
	json_decref(a);
	a = pinch("4", "3", "pyramidal");
	ck_assert_ptr_null(warning_of(pair_of(a, 0, 2), "pad_cannot_hold"));
	json_decref(a);
}
END_TEST

/* pad_cannot_hold under discrete (3.13.0): solref (0.001, 1) at h = 2 ms has q = h^2 K
 * dmax = 4e-6 x 1.108e6 x 0.95 = 4.2 > 1, so refsafe makes K' d = 1/h^2 = 2.5e5 and
 * N_max = m K' d d depth / (1 - d) = 0.1 x 2.5e5 x 0.95 x 0.005 / 0.05 = 2375 N (elliptic):
 * friction 1e-4 warns (2 x 1e-4 x 2375 = 0.475 N < 0.981 N), 3e-4 does not (1.425 N).
 * With refsafe off the rows keep K d^2 = 1/(0.001 x 1)^2 and N_max = 10^4 N: friction
 * 3e-5 warns (0.6 N), 1e-4 does not (2 N). */
START_TEST(pad_cannot_hold_discrete)
{
	static const struct {
		const char *option, *friction;
		int warns;
		const char *force;
	} cases[] = {
	    {"integrator=\"discrete\" cone=\"elliptic\"", "1e-4", 1, "at most 2375 N"},
	    {"integrator=\"discrete\" cone=\"elliptic\"", "3e-4", 0, NULL},
	    {"integrator=\"discrete\" cone=\"elliptic\"><flag "
	     "refsafe=\"disable\"/></option><option",
	        "3e-5", 1, "at most 10000 N"},
	    {"integrator=\"discrete\" cone=\"elliptic\"><flag "
	     "refsafe=\"disable\"/></option><option",
	        "1e-4", 0, NULL},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		char geom[200];
		json_t *a;
		const json_t *w;

		snprintf(geom, sizeof geom,
		    "solref=\"0.001 1\" friction=\"%s 0.005 0.0001\" condim=\"3\"",
		    cases[i].friction);
		a = pinch_doc("3.13.0", cases[i].option, geom);
		w = warning_of(pair_of(a, 0, 2), "pad_cannot_hold");
		ck_assert_msg(!w == !cases[i].warns, "case %zu", i);
		if (w)
			ck_assert_msg(strstr(json_string_value(json_object_get(w, "message")),
			                  cases[i].force),
			    "case %zu: %s", i, json_string_value(json_object_get(w, "message")));
		json_decref(a);
	}
}
END_TEST

/*
 * pad_cannot_hold against the core's hold (POST /v1/hold): a 0.1 kg sphere of 5 mm radius
 * between two box pads of half-size 5 x 20 x 200 mm (the pad's thickness is the sphere's
 * radius: deeper, the hold is crushed, so every depth the hold reaches is in the bound)
 * and 10 kg (nearly immovable, where the bound is tightest), gripped at 0.5 to 100 times
 * the weight, 2 s, 1 cm of descent counting as a slip. The core's hold is a fair judge of
 * MuJoCo: it equals libmujoco 2.2.2 step for step for both cones at impratio 1 to 10
 * (tests/test_hold) and the WebAssembly builds' hold figures (tests/test_hold_release,
 * tests/test_wasm.sh); impratio 100 here is past what those cover. By hand (solimp default, d =
 * 0.95 at 5 mm): E = m K d^2 depth / (1 - d) = 0.01 / tc^2 N and the warning's capacity 2 mu N_max
 * is 2 mu E (elliptic) or 2 mu E 2 (condim - 1) impratio / (2 mu^2 (1 + mu^2)) (pyramidal): tc* is
 * the timeconst where it equals the weight (Euler and discrete alike: no row is replaced
 * at these timeconsts). At 1.1 tc* the warning fires and no grip holds; at tc*
 * / 5 (a capacity of 25 times the weight) it does not fire and some grip holds. Measured between:
 * the hold first holds near tc* / 3 (a bound 9 times the weight): the bound counts every edge's
 * normal force, the weight is carried by the vertical pair's, and a soft contact creeps.
 */
static int pad_warns(
    const char *cone, int discrete, double impratio, double tc, double mu, int condim)
{
	char text[1600], *body;
	json_t *r, *answer;
	struct err err;
	int warns;

	snprintf(text, sizeof text,
	    "<mujoco><option cone=\"%s\" integrator=\"%s\" impratio=\"%.17g\"/><default><geom "
	    "solref=\"%.17g "
	    "1\" friction=\"%.17g 0.005 0.0005\" condim=\"%d\"/></default><worldbody>"
	    "<body pos=\"-0.01 0 0.1\"><joint type=\"slide\" axis=\"1 0 0\"/>"
	    "<geom type=\"box\" size=\"0.005 0.02 0.2\" mass=\"10\"/></body>"
	    "<body pos=\"0.01 0 0.1\"><joint type=\"slide\" axis=\"1 0 0\"/>"
	    "<geom type=\"box\" size=\"0.005 0.02 0.2\" mass=\"10\"/></body>"
	    "<body pos=\"0 0 0.1\"><freejoint/><geom type=\"sphere\" size=\"0.005\" "
	    "mass=\"0.1\"/></body></worldbody></mujoco>",
	    cone, discrete ? "discrete" : "Euler", impratio, tc, mu, condim);
	r = json_pack("{s:s, s:{s:s}}", "main", "h.xml", "files", "h.xml", text);
	body = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	ck_assert_msg(ask(body, &answer, &err) == 0, "%s", err.message);
	free(body);
	/* the sphere has the smaller type: it is geom1 */
	warns = warning_of(pair_of(answer, 2, 0), "pad_cannot_hold") != NULL;
	ck_assert_ptr_nonnull(pair_of(answer, 2, 0));
	ck_assert_int_eq(warns, warning_of(pair_of(answer, 2, 1), "pad_cannot_hold") != NULL);
	json_decref(answer);
	return warns;
}

/* how many of the grips 0.5 ... 100 x the weight hold the sphere */
static int grips_that_hold(
    int elliptic, int discrete, double impratio, double tc, double mu, int condim)
{
	static const double grip[] = {0.5, 1, 2, 5, 10, 20, 50, 100};
	int i, n = 0;

	for (i = 0; i < (int)(sizeof grip / sizeof *grip); i++) {
		struct core_hold h;
		struct core_hold_answer a;

		core_hold_default(&h);
		h.size[0] = 0.005;
		h.mass = 0.1;
		h.pad_size[0] = 0.005;
		h.pad_size[1] = 0.02;
		h.pad_size[2] = 0.2;
		h.pad_mass = 10;
		h.object.solref[0] = h.pad.solref[0] = tc;
		h.object.solref[1] = h.pad.solref[1] = 1;
		h.object.friction[0] = h.pad.friction[0] = mu;
		h.object.friction[1] = h.pad.friction[1] = 0.005;
		h.object.friction[2] = h.pad.friction[2] = 0.0005;
		h.object.condim = h.pad.condim = condim;
		h.object.priority = h.pad.priority = 0;
		h.option.cone = elliptic ? CORE_CONE_ELLIPTIC : CORE_CONE_PYRAMIDAL;
		h.option.impratio = impratio;
		if (discrete)
			h.option.integrator = CORE_SCENE_DISCRETE;
		h.duration = 2;
		h.slip_limit = 0.01;
		h.grip_force = grip[i] * h.mass * h.option.gravity;
		ck_assert_ptr_null(core_hold_supported(&h));
		core_hold_solve(&h, &a);
		n += a.holds;
	}
	return n;
}

START_TEST(pad_cannot_hold_against_hold)
{
	static const double impratios[] = {1, 10, 100}, mus[] = {0.5, 1, 2};
	static const int condims[] = {3, 6};
	const double weight = 0.1 * 9.81, E1 = 0.01; /* E = E1 / tc^2 */
	int c, i, j, k, disc;

	for (disc = 0; disc < 2; disc++)
		for (c = 0; c < 2; c++)
			for (i = 0; i < 3; i++)
				for (j = 0; j < 3; j++)
					for (k = 0; k < 2; k++) {
						double mu = mus[j], ir = impratios[i], cap1, tc;
						int rows = 2 * (condims[k] - 1);

						if (c == 1 && i > 0)
							continue; /* impratio leaves the elliptic
							             bound */
						cap1 = c ? 2 * mu * E1
						         : 2 * mu * E1 * rows * ir /
						        (2 * mu * mu * (1 + mu * mu));
						tc = 1.1 * sqrt(cap1 / weight);
						ck_assert_msg(
						    pad_warns(c ? "elliptic" : "pyramidal", disc,
						        ir, tc, mu, condims[k]),
						    "discrete %d cone %d impratio %g mu %g condim "
						    "%d",
						    disc, c, ir, mu, condims[k]);
						ck_assert_msg(grips_that_hold(c, disc, ir, tc, mu,
						                  condims[k]) == 0,
						    "discrete %d cone %d impratio %g mu %g condim "
						    "%d: a "
						    "warned pad holds",
						    disc, c, ir, mu, condims[k]);
					}
	/* discrete where refsafe replaces the rows (solref 0.5 ms, q = 16.8): K' d = 1/h^2,
	 * N_max = 0.1 x 2.5e5 x 0.95 x 0.005 / 0.05 = 2375 N, so friction 1.5e-4 warns (0.71 N) */
	ck_assert(pad_warns("elliptic", 1, 1, 0.0005, 1.5e-4, 3));
	ck_assert_int_eq(grips_that_hold(1, 1, 1, 0.0005, 1.5e-4, 3), 0);
	/* the other side: the pyramid at impratio 10 and 100, mu 1, condim 3, both integrators */
	for (disc = 0; disc < 2; disc++)
		for (i = 1; i < 3; i++) {
			double tc = sqrt(2 * E1 * 4 * impratios[i] / (2 * 2) / weight) / 5;
			ck_assert(!pad_warns("pyramidal", disc, impratios[i], tc, 1, 3));
			ck_assert_msg(grips_that_hold(0, disc, impratios[i], tc, 1, 3) > 0,
			    "discrete %d impratio %g", disc, impratios[i]);
		}
}
END_TEST
END_TEST

static Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("handler");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, bad_documents_name_file_line_and_element);
	tcase_add_test(tc, limits_refuse);
	tcase_add_test(tc, numbers_names_and_markup);
	tcase_add_test(tc, warnings_follow_the_rules);
	tcase_add_test(tc, release_rules);
	tcase_add_test(tc, pad_cannot_hold);
	tcase_add_test(tc, pad_cannot_hold_discrete);
	tcase_add_test(tc, pad_cannot_hold_against_hold);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(model_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
