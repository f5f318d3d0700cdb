/*
 * hint.c: the seed lesson's usual mistakes, each recomputed with the core's functions
 * at a call's arguments (hint.h). A variant is the correct formula with one mistake
 * put in, so a student's number that matches it says which mistake it was.
 */
#include "service/hint.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/jtext.h"
#include "core/law.h"
#include "core/mjver.h"

/* The variants found so far. */
struct found {
	struct hint_variant *out;
	size_t n;
};

static void add(struct found *f, const char *output, double value, const char *fmt, ...)
{
	va_list ap;

	if (!isfinite(value) || f->n >= HINT_MAX)
		return;
	f->out[f->n].output = output;
	f->out[f->n].value = value;
	va_start(ap, fmt);
	vsnprintf(f->out[f->n].text, sizeof f->out[f->n].text, fmt, ap);
	va_end(ap);
	f->n++;
}

static double arg(const json_t *args, const char *name)
{
	return json_number_value(json_object_get(args, name));
}

static void args_reals(const json_t *args, const char *name, double *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = json_number_value(json_array_get(json_object_get(args, name), i));
}

/* The call's solimp as its release computes it (eval's solimp_of). */
static void solimp_at(const json_t *args, int release, struct core_law_solimp *s)
{
	struct core_mjver_rules rules;
	double raw[5];

	args_reals(args, "solimp", raw, 5);
	core_mjver_rules(release, &rules);
	core_law_solimp_release(raw, rules.power_shortcut, s);
}

/* The gains with and without refsafe; 1 when refsafe is on and moved the timeconst
 * (standard form only: refsafe never touches the direct one). */
static int refsafe_moved(const json_t *args, const double solref[2], double dmax,
    struct core_law_gains *with, struct core_law_gains *without)
{
	int refsafe = json_is_true(json_object_get(args, "refsafe"));

	core_law_solref_kb(solref, dmax, arg(args, "h"), refsafe, with);
	core_law_solref_kb(solref, dmax, arg(args, "h"), 0, without);
	return refsafe && !with->direct && !with->fell_back &&
	    with->timeconst_used != without->timeconst_used;
}

#define REFSAFE_TEXT                                                                               \
	"refsafe forgotten: this is the value at timeconst %s s as given, but MuJoCo raises a "    \
	"timeconst below two timesteps to 2h = %s s"

static void refsafe_text_args(const struct core_law_gains *with,
    const struct core_law_gains *without, char given[JTEXT_REAL_MAX], char used[JTEXT_REAL_MAX])
{
	jtext_shortest(without->timeconst_used, given);
	jtext_shortest(with->timeconst_used, used);
}

/* The impedance's value and derivative at r under a mistaken solimp v, as one hint. */
static void add_curve(struct found *f, double r, const struct core_law_solimp *v, const char *text)
{
	double slope, value = core_law_impedance(r, v, &slope);

	add(f, "value", value, "%s", text);
	add(f, "derivative", slope, "%s", text);
}

static void impedance_variants(const json_t *args, int release, struct found *f)
{
	struct core_law_solimp s, v;
	double r = arg(args, "r"), x;
	char text[HINT_TEXT_MAX];

	solimp_at(args, release, &s);
	if (!(s.width > 0))
		return;
	x = fabs(r) / s.width;
	/* midpoint^p where midpoint^(p-1) belongs: each branch's scale divided once more */
	v = s;
	v.scale_below /= v.midpoint;
	v.scale_above /= 1 - v.midpoint;
	add_curve(f, r, &v,
	    "the impedance power: this divides by midpoint^power where MuJoCo divides by "
	    "midpoint^(power-1) (and by (1-midpoint)^(power-1) above the midpoint)");
	/* the power left out: the linear curve */
	v = s;
	v.power = 1;
	snprintf(text, sizeof text,
	    "the impedance power: this is the linear curve y = x, where MuJoCo raises x to the "
	    "power %s",
	    JTEXT_NUM(s.power));
	add_curve(f, r, &v, text);
	/* the other branch's formula: a midpoint the curve never reaches, or always passed */
	v = s;
	v.midpoint = x > s.midpoint ? 1 : 0;
	snprintf(text, sizeof text,
	    x > s.midpoint ? "the midpoint branch: this is the formula below the midpoint, x^p / "
	                     "midpoint^(p-1), but x = |r|/width = %s is above the midpoint %s"
	                   : "the midpoint branch: this is the formula above the midpoint, 1 - "
	                     "(1-x)^p / (1-midpoint)^(p-1), but x = |r|/width = %s is at or below "
	                     "the midpoint %s",
	    JTEXT_NUM(x), JTEXT_NUM(s.midpoint));
	add_curve(f, r, &v, text);
}

static void solref_kb_variants(const json_t *args, struct found *f)
{
	struct core_law_gains g, raw;
	double solref[2], dmax = core_law_impedance_clamp(arg(args, "dmax"));
	char given[JTEXT_REAL_MAX], used[JTEXT_REAL_MAX];

	args_reals(args, "solref", solref, 2);
	if (refsafe_moved(args, solref, dmax, &g, &raw)) {
		refsafe_text_args(&g, &raw, given, used);
		add(f, "K", raw.K, REFSAFE_TEXT, given, used);
		add(f, "B", raw.B, REFSAFE_TEXT, given, used);
		add(f, "timeconst_used", raw.timeconst_used, REFSAFE_TEXT, given, used);
	}
	if (g.direct || g.fell_back)
		return;
	add(f, "K", g.K * dmax,
	    "d versus d squared: this is K with dmax where MuJoCo has dmax^2, K = 1/(dmax^2 "
	    "timeconst^2 dampratio^2)");
	add(f, "B", g.B / dmax,
	    "d versus d squared: this is B with dmax^2 where MuJoCo has dmax, B = 2/(dmax "
	    "timeconst)");
}

static void solref_to_spring_variants(const json_t *args, struct found *f)
{
	const double solref[2] = {arg(args, "timeconst"), arg(args, "dampratio")};
	double d = arg(args, "d"), d_w = arg(args, "d_w");
	struct core_law_gains g;

	/* the timestep is unused with refsafe off */
	core_law_solref_kb(solref, d_w, 1, 0, &g);
	add(f, "K_imp", d * g.K * d_w,
	    "d versus d squared: this is K_imp with d_w where MuJoCo has d_w^2, K_imp = d/(d_w^2 "
	    "timeconst^2 dampratio^2)");
	add(f, "K_imp", d * d * g.K,
	    "d versus d squared: this is K_imp with d^2 where MuJoCo has d, K_imp = d/(d_w^2 "
	    "timeconst^2 dampratio^2)");
	add(f, "B", g.B / d_w,
	    "d versus d squared: this is B with d_w^2 where MuJoCo has d_w, B = 2/(d_w timeconst)");
}

static void a_ref_variants(const json_t *args, int release, struct found *f)
{
	struct core_law_solimp s;
	struct core_law_gains g, raw;
	double solref[2], dist = arg(args, "dist"), vel = arg(args, "vel"), imp;
	char given[JTEXT_REAL_MAX], used[JTEXT_REAL_MAX];

	if (!(dist < 0))
		return; /* no constraint row, no a_ref */
	solimp_at(args, release, &s);
	args_reals(args, "solref", solref, 2);
	imp = core_law_impedance(dist, &s, NULL);
	if (refsafe_moved(args, solref, s.dwidth, &g, &raw)) {
		refsafe_text_args(&g, &raw, given, used);
		add(f, "value", core_law_aref(&raw, imp, dist, vel), REFSAFE_TEXT, given, used);
	}
	add(f, "value", core_law_aref(&g, imp * imp, dist, vel),
	    "d versus d squared: this is -B vel - K d^2 dist, where MuJoCo's a_ref is -B vel - K d "
	    "dist (d the impedance at dist)");
	add(f, "value", core_law_aref(&g, 1, dist, vel),
	    "the impedance forgotten: this is -B vel - K dist, where MuJoCo's a_ref is -B vel - K "
	    "d dist (d the impedance at dist)");
}

/* contact_accel and resting_penetration: refsafe, through the core's own function */
static void refsafe_only_variants(
    const char *function, const json_t *args, int release, struct found *f)
{
	struct core_law_solimp s;
	struct core_law_gains g, raw;
	double solref[2], h = arg(args, "h"), value;
	char given[JTEXT_REAL_MAX], used[JTEXT_REAL_MAX];

	solimp_at(args, release, &s);
	args_reals(args, "solref", solref, 2);
	if (!refsafe_moved(args, solref, s.dwidth, &g, &raw))
		return;
	refsafe_text_args(&g, &raw, given, used);
	if (strcmp(function, "contact_accel") == 0)
		add(f, "value",
		    core_law_contact_accel(
		        arg(args, "dist"), arg(args, "vel"), arg(args, "a0"), solref, &s, h, 0),
		    REFSAFE_TEXT, given, used);
	else if (core_law_resting_penetration(arg(args, "a_u"), solref, &s, h, 0, &value) == 0)
		add(f, "value", value, REFSAFE_TEXT, given, used);
}

size_t hint_variants(
    const char *function, const json_t *args, int release, struct hint_variant out[HINT_MAX])
{
	struct found f = {out, 0};

	if (strcmp(function, "impedance") == 0)
		impedance_variants(args, release, &f);
	else if (strcmp(function, "solref_kb") == 0)
		solref_kb_variants(args, &f);
	else if (strcmp(function, "solref_to_spring") == 0)
		solref_to_spring_variants(args, &f);
	else if (strcmp(function, "a_ref") == 0)
		a_ref_variants(args, release, &f);
	else if (strcmp(function, "contact_accel") == 0 ||
	    strcmp(function, "resting_penetration") == 0)
		refsafe_only_variants(function, args, release, &f);
	return f.n;
}
