/*
 * test_jtext.c: the one text form of JSON (base/jtext.h).
 *
 *   - every finite double, drawn at random as raw bits and as short decimals, prints
 *     as a text strtod() reads back bit for bit, with no fewer digits possible under
 *     the rule (%.15g, %.16g, %.17g: the first that round-trips), and a decimal of at
 *     most 15 significant digits prints with no more digits than it has;
 *   - every finite double prints byte for byte as that rule's definition (printf and
 *     strtod) prints it, plain and as JSON: raw bits, subnormals, near ties, and the
 *     neighbours of every power of ten and of two;
 *   - a real reads back through jansson as the same real;
 *   - everything but reals is byte for byte what jansson's compact, sorted dump
 *     writes (random trees of strings with every escape, integers, containers);
 *   - the pretty form is the same value, indented.
 * The references are independent: the C library's strtod() and jansson itself.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jtext.h"

/* xorshift64*: reproducible draws without the C library's rand() quality issues */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t draw(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* Significant digits of a "%g" text: leading and trailing zeros do not count
 * ("845000000" has 3, "0.0001" has 1). */
static int significant_digits(const char *s)
{
	int n = 0, zeros = 0, leading = 1;

	for (; *s && *s != 'e'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (leading && *s == '0')
			continue;
		leading = 0;
		if (*s == '0') {
			zeros++;
		} else {
			n += zeros + 1;
			zeros = 0;
		}
	}
	return n ? n : 1;
}

static void check_double(double x)
{
	char text[JTEXT_REAL_MAX], real[JTEXT_REAL_MAX], fewer[400];
	int digits;
	json_t *back;

	jtext_shortest(x, text);
	ck_assert_msg(same_bits(strtod(text, NULL), x), "%.17g printed as %s", x, text);
	digits = significant_digits(text);
	/* the rule: with more than 15 digits, one digit fewer would not have read back */
	if (digits > 15) {
		snprintf(fewer, sizeof fewer, "%.*g", digits - 1, x);
		ck_assert_msg(
		    !same_bits(strtod(fewer, NULL), x), "%s is shorter than %s", fewer, text);
	}
	jtext_real(x, real);
	back = json_loads(real, JSON_DECODE_ANY, NULL);
	ck_assert_msg(json_is_real(back) && same_bits(json_real_value(back), x),
	    "%.17g as JSON %s does not read back as the same real", x, real);
	json_decref(back);
}

START_TEST(random_doubles_round_trip)
{
	long i;

	for (i = 0; i < 200000; i++) {
		uint64_t bits = draw();
		double x;

		memcpy(&x, &bits, sizeof x);
		if (isfinite(x))
			check_double(x);
	}
}
END_TEST

/* The definition jtext_shortest() must print like: the first of %.15g, %.16g and %.17g
 * that strtod reads back, as printf writes it. */
static void reference_shortest(double x, char *buf)
{
	int digits;

	for (digits = 15; digits < 17; digits++) {
		snprintf(buf, JTEXT_REAL_MAX, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			return;
	}
	snprintf(buf, JTEXT_REAL_MAX, "%.17g", x);
}

/* The JSON spelling jtext_real() must write: the reference's text with a ".0" after an
 * integer, and the exponent without '+' and leading zeros (jansson's). */
static void reference_real(const char *shortest, char *buf)
{
	const char *e = strchr(shortest, 'e');
	const char *digits;

	if (!e) {
		strcpy(buf, shortest);
		if (!strchr(buf, '.'))
			strcat(buf, ".0");
		return;
	}
	digits = e + 1 + (e[1] == '-' || e[1] == '+');
	while (*digits == '0' && digits[1])
		digits++;
	sprintf(buf, "%.*s%s%s", (int)(e + 1 - shortest), shortest, e[1] == '-' ? "-" : "", digits);
}

/* Whether jtext prints x as printf's definition does, plain and as JSON; the first
 * difference is kept in mismatch (a Check assertion per value would cost a system call
 * each: millions of values are compared). */
static char mismatch[200];

static int like_printf(double x)
{
	char text[JTEXT_REAL_MAX], want[JTEXT_REAL_MAX], real[JTEXT_REAL_MAX],
	    want_real[JTEXT_REAL_MAX + 4];

	jtext_shortest(x, text);
	reference_shortest(x, want);
	jtext_real(x, real);
	reference_real(want, want_real);
	if (strcmp(text, want) == 0 && strcmp(real, want_real) == 0)
		return 1;
	if (!mismatch[0])
		snprintf(mismatch, sizeof mismatch,
		    "%a printed as %s (JSON %s), printf's way %s (%s)", x, text, real, want,
		    want_real);
	return 0;
}

static void check_like_printf(double x)
{
	ck_assert_msg(like_printf(x), "%s", mismatch);
}

/* jtext_shortest computes digits without printf where it can: the same text as printf
 * for the values answers hold, for exact ties (half to even), around powers of ten
 * (where the exponent guess is off by one, and where rounding carries into the next
 * power), and for random doubles in and out of the fast path's reach. */
START_TEST(fast_digits_are_printfs)
{
	long i;
	int k;

	for (i = 0; i < 100000; i++) {
		/* random mantissa, exponent from 1e-12 to 1e19 */
		uint64_t bits = draw();
		double m = 1 + (double)(bits >> 12) / 4503599627370496.0;
		double x = ldexp(m, (int)(draw() % 104) - 40);
		check_like_printf(draw() & 1 ? -x : x);
	}
	for (i = 0; i < 50000; i++) {
		/* exact ties at the 15th and 16th digit: integers of 15 or 16 digits + 0.5,
		 * scaled by powers of two (exact) */
		int64_t n = (int64_t)(draw() % 900000000000000ULL) + 100000000000000LL;
		double x = (double)n + 0.5;
		check_like_printf(x);
		check_like_printf((double)(n * 10 + (int64_t)(draw() % 10)) + 0.5);
		check_like_printf(ldexp(x, -(int)(draw() % 30)));
	}
	for (k = -12; k <= 18; k++) {
		/* around 10^k: a few ulps either side, and values that round up to it */
		double p = pow(10, k), x = p;
		int j;
		for (j = 0; j < 8; j++) {
			check_like_printf(x);
			check_like_printf(-x);
			x = nextafter(x, 0);
		}
		for (x = p, j = 0; j < 8; j++, x = nextafter(x, INFINITY))
			check_like_printf(x);
		check_like_printf(p * (1 - 4e-16));
		check_like_printf(p * (1 - 6e-17));
		check_like_printf(p * 0.99999999999999994);
	}
	for (i = 0; i < 50000; i++) {
		/* decimals of 16 to 18 digits ending in 5: near ties at 15 to 17 digits */
		char decimal[64];
		int digits = 16 + (int)(draw() % 3), e = (int)(draw() % 30) - 20;
		uint64_t m = draw() % 100000000000000000ULL;
		snprintf(decimal, sizeof decimal, "%0*llu5e%d", digits - 1,
		    (unsigned long long)(m % (uint64_t)pow(10, digits - 1)), e);
		check_like_printf(strtod(decimal, NULL));
	}
	check_like_printf(0.0);
	check_like_printf(-0.0);
	check_like_printf(5e-324);
	check_like_printf(1.7976931348623157e308);
}
END_TEST

/* jtext computes every finite real's digits from a table of powers of ten, with printf
 * only near ties: the same bytes as printf's definition over the whole range of doubles,
 * drawn as raw bits (most have exponents beyond 1e±22, where the table is inexact), as
 * subnormals, as near ties at the 15th to 17th digit at every decimal exponent, and
 * around every power of ten and of two (where the exponent guess is off by one, the
 * neighbour below is nearer, or rounding carries into the next power). */
START_TEST(all_doubles_print_like_printf)
{
	long i, differ = 0;
	int k, j;

	for (i = 0; i < 1000000; i++) {
		uint64_t bits = draw();
		double x;

		memcpy(&x, &bits, sizeof x);
		if (isfinite(x))
			differ += !like_printf(x);
	}
	for (i = 0; i < 100000; i++) {
		/* subnormals with 1 to 52 significant bits */
		uint64_t bits = (draw() & (((uint64_t)1 << 52) - 1)) >> (draw() % 52);
		double x;

		memcpy(&x, &bits, sizeof x);
		differ += !like_printf(draw() & 1 ? -x : x);
	}
	for (i = 0; i < 200000; i++) {
		/* decimals of 16 to 18 digits ending in 5, from 1e-330 to 1e310 */
		char decimal[64];
		int digits = 16 + (int)(draw() % 3), e = (int)(draw() % 640) - 330;
		uint64_t m = draw() % (uint64_t)pow(10, digits - 1);
		double x;

		snprintf(
		    decimal, sizeof decimal, "%0*llu5e%d", digits - 1, (unsigned long long)m, e);
		x = strtod(decimal, NULL);
		if (isfinite(x))
			differ += !like_printf(x);
	}
	for (k = -323; k <= 308; k++) {
		char decimal[32];
		double p, x;

		snprintf(decimal, sizeof decimal, "1e%d", k);
		p = strtod(decimal, NULL);
		for (x = p, j = 0; j < 6; j++, x = nextafter(x, 0))
			differ += !like_printf(x);
		for (x = p, j = 0; j < 6; j++, x = nextafter(x, INFINITY))
			differ += !like_printf(x);
		snprintf(decimal, sizeof decimal, "9.9999999999999999e%d", k);
		differ += !like_printf(strtod(decimal, NULL));
	}
	for (k = -1074; k <= 1023; k++) {
		double p = ldexp(1, k), x;

		for (x = p, j = 0; j < 3; j++, x = nextafter(x, 0))
			differ += !like_printf(x);
		differ += !like_printf(nextafter(p, INFINITY));
	}
	for (j = 1; j <= 100000; j++)
		differ += !like_printf((double)j);
	differ += !like_printf(5e-324);
	differ += !like_printf(-5e-324);
	differ += !like_printf(2.2250738585072014e-308);
	differ += !like_printf(2.2250738585072009e-308);
	differ += !like_printf(1.7976931348623157e308);
	differ += !like_printf(-1.7976931348623157e308);
	differ += !like_printf(9007199254740993.0);
	differ += !like_printf(1e23);
	differ += !like_printf(1e22);
	ck_assert_msg(differ == 0, "%ld values differ; the first: %s", differ, mismatch);
}
END_TEST

START_TEST(short_decimals_print_short)
{
	char text[JTEXT_REAL_MAX], decimal[64];
	long i;

	for (i = 0; i < 200000; i++) {
		/* m * 10^e with m of 1 to 15 digits: a decimal a person would type */
		int digits = 1 + (int)(draw() % 15), e = (int)(draw() % 80) - 40;
		long long m = (long long)(draw() % (uint64_t)pow(10, digits));
		double x;

		snprintf(decimal, sizeof decimal, "%s%llde%d", draw() & 1 ? "-" : "", m, e);
		x = strtod(decimal, NULL);
		check_double(x);
		jtext_shortest(x, text);
		ck_assert_msg(
		    significant_digits(text) <= digits, "%s printed as %s", decimal, text);
	}
}
END_TEST

START_TEST(reals_as_people_write_them)
{
	static const struct {
		double x;
		const char *json, *plain;
	} cases[] = {
	    {0.05, "0.05", "0.05"},
	    {0.1, "0.1", "0.1"},
	    {0.1 + 0.2, "0.30000000000000004", "0.30000000000000004"},
	    {2.0, "2.0", "2"},
	    {-0.0, "-0.0", "-0"},
	    {1e-5, "1e-5", "1e-05"},
	    {1e300, "1e300", "1e+300"},
	    {1.5e-300, "1.5e-300", "1.5e-300"},
	    {9.81, "9.81", "9.81"},
	    {0.0012262500000000814, "0.0012262500000000814", "0.0012262500000000814"},
	};
	char buf[JTEXT_REAL_MAX];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ck_assert_str_eq(jtext_real(cases[i].x, buf), cases[i].json);
		ck_assert_str_eq(jtext_shortest(cases[i].x, buf), cases[i].plain);
	}
}
END_TEST

/* A random JSON tree without reals: strings of any bytes jansson accepts. */
static json_t *random_tree(int depth)
{
	static const char *const pieces[] = {"a", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t",
	    "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", " ", "~", "0"};
	size_t n = draw() % 5, i;
	json_t *v;

	switch (depth > 3 ? draw() % 5 : draw() % 7) {
	case 0:
		return json_integer((json_int_t)(draw() % 2000001) - 1000000);
	case 1:
		return json_boolean(draw() & 1);
	case 2:
		return json_null();
	case 3:
	case 4: {
		char s[64] = "";

		for (i = 0; i < n; i++)
			strcat(s, pieces[draw() % (sizeof pieces / sizeof pieces[0])]);
		return json_string(s);
	}
	case 5:
		v = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(v, random_tree(depth + 1));
		return v;
	default:
		v = json_object();
		for (i = 0; i < n; i++) {
			char key[16];

			snprintf(key, sizeof key, "%c%u", (char)('a' + draw() % 26),
			    (unsigned)(draw() % 100));
			json_object_set_new(v, key, random_tree(depth + 1));
		}
		return v;
	}
}

START_TEST(everything_but_reals_as_jansson_writes_it)
{
	int i;

	for (i = 0; i < 5000; i++) {
		json_t *v = random_tree(0);
		char *ours = jtext_dump(v, 0);
		char *theirs = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

		ck_assert_ptr_nonnull(ours);
		ck_assert_ptr_nonnull(theirs);
		ck_assert_str_eq(ours, theirs);
		free(ours);
		free(theirs);
		json_decref(v);
	}
}
END_TEST

START_TEST(trees_with_reals_read_back_equal)
{
	int i;

	for (i = 0; i < 2000; i++) {
		json_t *v = json_pack("{s:o, s:[f, f, f], s:{s:f}}", "t", random_tree(1), "r",
		    (double)(draw() % 1000) / 100, 1.0 / (double)(1 + draw() % 1000),
		    ldexp((double)(draw() % 1000000), (int)(draw() % 200) - 100), "o", "x", -0.05);
		char *compact = jtext_dump(v, 0), *pretty = jtext_dump(v, JTEXT_PRETTY);
		json_t *a = json_loads(compact, JSON_DECODE_ANY, NULL);
		json_t *b = json_loads(pretty, JSON_DECODE_ANY, NULL);

		ck_assert_msg(a && json_equal(a, v), "%s does not read back", compact);
		ck_assert_msg(b && json_equal(b, v), "%s does not read back", pretty);
		json_decref(a);
		json_decref(b);
		free(compact);
		free(pretty);
		json_decref(v);
	}
}
END_TEST

START_TEST(pretty_is_indented)
{
	json_t *v = json_pack("{s:f, s:[i, {}], s:[]}", "b", 0.05, "a", 1, "c");
	char *text = jtext_dump(v, JTEXT_PRETTY);

	ck_assert_str_eq(
	    text, "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": 0.05,\n  \"c\": []\n}");
	free(text);
	json_decref(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jtext");
	TCase *tc = tcase_create("jtext");
	SRunner *runner;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, random_doubles_round_trip);
	tcase_add_test(tc, short_decimals_print_short);
	tcase_add_test(tc, fast_digits_are_printfs);
	tcase_add_test(tc, all_doubles_print_like_printf);
	tcase_add_test(tc, reals_as_people_write_them);
	tcase_add_test(tc, everything_but_reals_as_jansson_writes_it);
	tcase_add_test(tc, trees_with_reals_read_back_equal);
	tcase_add_test(tc, pretty_is_indented);
	suite_add_tcase(s, tc);
	runner = srunner_create(s);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
