/*
 * pair.c: MuJoCo's combination of two geoms' contact parameters (spec §2, §10).
 */
#include "core/pair.h"

#include <math.h>

#include "core/knobs.h"

void core_pair_geom_default(struct core_pair_geom *g)
{
	g->solref[0] = DEFAULT_TIMECONST;
	g->solref[1] = DEFAULT_DAMPRATIO;
	g->solimp[0] = DEFAULT_SOLIMP_D0;
	g->solimp[1] = DEFAULT_SOLIMP_DWIDTH;
	g->solimp[2] = DEFAULT_SOLIMP_WIDTH;
	g->solimp[3] = DEFAULT_SOLIMP_MIDPOINT;
	g->solimp[4] = DEFAULT_SOLIMP_POWER;
	g->condim = DEFAULT_CONDIM;
	g->friction[0] = DEFAULT_FRICTION_SLIDE;
	g->friction[1] = DEFAULT_FRICTION_SPIN;
	g->friction[2] = DEFAULT_FRICTION_ROLL;
	g->margin = 0;
	g->gap = 0;
	g->solmix = DEFAULT_SOLMIX;
	g->priority = 0;
}

/* weight of geom 1 in the solmix average */
static double solmix_weight(double s1, double s2)
{
	if (s1 >= MJ_MINVAL && s2 >= MJ_MINVAL)
		return s1 / (s1 + s2);
	if (s1 < MJ_MINVAL && s2 < MJ_MINVAL)
		return 0.5;
	return s1 < MJ_MINVAL ? 0 : 1;
}

void core_pair_combine(const struct core_pair_geom *g1, const struct core_pair_geom *g2,
    const struct core_mjver_rules *rules, struct core_pair_contact *out)
{
	double fri[3];
	int i;

	if (g1->priority != g2->priority) {
		/* the higher priority geom supplies everything but margin and gap */
		const struct core_pair_geom *win = g1->priority > g2->priority ? g1 : g2;
		out->condim = win->condim;
		for (i = 0; i < 3; i++)
			fri[i] = win->friction[i];
		for (i = 0; i < 2; i++)
			out->solref[i] = win->solref[i];
		for (i = 0; i < 5; i++)
			out->solimp[i] = win->solimp[i];
	} else {
		double mix = solmix_weight(g1->solmix, g2->solmix);
		out->condim = g1->condim > g2->condim ? g1->condim : g2->condim;
		for (i = 0; i < 3; i++)
			fri[i] = fmax(g1->friction[i], g2->friction[i]);
		for (i = 0; i < 5; i++)
			out->solimp[i] = mix * g1->solimp[i] + (1 - mix) * g2->solimp[i];
		/* averaging is meaningful only when both use the standard (timeconst, dampratio)
		 * form */
		if (g1->solref[0] > 0 && g2->solref[0] > 0) {
			for (i = 0; i < 2; i++)
				out->solref[i] = mix * g1->solref[i] + (1 - mix) * g2->solref[i];
		} else {
			for (i = 0; i < 2; i++)
				out->solref[i] = fmin(g1->solref[i], g2->solref[i]);
		}
	}
	out->friction[0] = fmax(MJ_MINMU, fri[0]);
	out->friction[1] = fmax(MJ_MINMU, fri[0]);
	out->friction[2] = fmax(MJ_MINMU, fri[1]);
	out->friction[3] = fmax(MJ_MINMU, fri[2]);
	out->friction[4] = fmax(MJ_MINMU, fri[2]);
	if (rules->margin_sum) {
		/* mj_collideGeoms: geom_margin[g1] + geom_margin[g2], plane first */
		out->margin = g1->margin + g2->margin;
		out->gap = g1->gap + g2->gap;
	} else {
		out->margin = fmax(g1->margin, g2->margin);
		out->gap = fmax(g1->gap, g2->gap);
	}
	if (rules->margin_gap_split) {
		/* the collision functions get margin + gap; mj_setContact gets margin */
		out->detect = out->margin + out->gap;
		out->includemargin = out->margin;
	} else {
		out->detect = out->margin;
		out->includemargin = out->margin - out->gap;
	}
}
