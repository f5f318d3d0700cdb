/*
 * pairs.c: mj_collision's pair enumeration and mj_collideGeoms' parameters (the filters
 * are the same from 2.2.2 to 3.14.0; margins and gaps follow the release's rules), with
 * refsafe and the core's stability per pair.
 */
#include "model/pairs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/budget.h"
#include "core/growth.h"
#include "core/law.h"
#include "core/mjver.h"
#include "core/pair.h"
#include "core/knobs.h"
#include "model/knobs.h"

/* mjCOLLISIONFUNC: no function for plane or hfield against plane or hfield; sdf geoms
 * (3.x's, collided through their plugin) are left out, with a note (model.c) */
static int collides(enum mdl_geom_type t1, enum mdl_geom_type t2)
{
	if (t1 == MDL_SDF || t2 == MDL_SDF)
		return 0;
	return !(t1 <= MDL_HFIELD && t2 <= MDL_HFIELD);
}

/* mj_contactFilter: 1 discards the pair */
static int filtered(const struct mdl_model *m, int g1, int g2)
{
	const struct mdl_geom *a = &m->geoms[g1], *b = &m->geoms[g2];
	int w1 = m->bodies[a->body].weld, w2 = m->bodies[b->body].weld;
	int p1 = m->bodies[m->bodies[w1].parent < 0 ? 0 : m->bodies[w1].parent].weld;
	int p2 = m->bodies[m->bodies[w2].parent < 0 ? 0 : m->bodies[w2].parent].weld;

	if (!(a->contype & b->conaffinity) && !(b->contype & a->conaffinity))
		return 1;
	if (w1 == w2)
		return 1;
	/* the world is exempt: a body welded to it still collides with the world's geoms */
	if (m->option.filterparent && w1 && w2 && (w1 == p2 || w2 == p1))
		return 1;
	return 0;
}

void mpair_geom(const struct mdl_geom *g, struct core_pair_geom *p)
{
	memcpy(p->solref, g->solref, sizeof p->solref);
	memcpy(p->solimp, g->solimp, sizeof p->solimp);
	memcpy(p->friction, g->friction, sizeof p->friction);
	p->condim = g->condim;
	p->margin = g->margin;
	p->gap = g->gap;
	p->solmix = g->solmix;
	p->priority = g->priority;
}

/* The smallest timeconst (standard form, dampratio kept) whose step does not grow. */
static double stable_timeconst(const struct mdl_model *m, const struct mpair_pair *p)
{
	const struct mdl_option *o = &m->option;
	double lo = p->solref[0], hi = 1, ref[2] = {1, p->solref[1]};
	struct core_growth_report r;
	int i;

	core_growth_stability(ref, p->solimp, 0, o->timestep, o->refsafe, o->integrator, &r);
	if (!r.stable)
		return 0;
	for (i = 0; i < 60; i++) {
		ref[0] = 0.5 * (lo + hi);
		core_growth_stability(ref, p->solimp, 0, o->timestep, o->refsafe, o->integrator, &r);
		if (r.stable)
			hi = ref[0];
		else
			lo = ref[0];
	}
	return hi;
}

/* refsafe, the stability and the warnings of a pair whose parameters are set. */
static void assess(const struct mdl_model *m, struct mpair_pair *p)
{
	const struct mdl_option *o = &m->option;
	struct core_law_gains gains;
	struct core_growth_report r;
	double h = o->timestep;

	/* under discrete (3.13.0+) refsafe never clamps timeconst: it replaces the gains of
	 * rows with q = h^2 K imp > 1 (docs/releases.md), checked at the deepest impedance */
	int discrete = o->integrator == CORE_SCENE_DISCRETE;

	core_law_solref_kb(p->solref, p->solimp[1], h, discrete ? 0 : o->refsafe, &gains);
	p->solref_fallback = gains.fell_back;
	p->direct = gains.direct;
	p->timeconst_used = gains.timeconst_used;
	p->dampratio_used = gains.dampratio_used;
	if (discrete) {
		double dmax = core_law_impedance_clamp(p->solimp[1]);
		p->replaced_q = h * h * gains.K * dmax;
		if (o->refsafe && !p->direct && p->replaced_q > 1)
			p->warnings |= MPAIR_WARN_REPLACED;
	} else if (!p->direct && !p->solref_fallback) {
		if (p->solref[0] < 2 * h)
			p->warnings |= MPAIR_WARN_TIMECONST;
		if (p->timeconst_used * p->dampratio_used < h)
			p->warnings |= MPAIR_WARN_DAMPING;
	}
	core_growth_stability(p->solref, p->solimp, 0, h, o->refsafe, o->integrator, &r);
	p->growth = r.growth;
	if (!r.stable) {
		p->warnings |= MPAIR_WARN_GROWTH;
		p->growth_timeconst = p->direct ? 0 : stable_timeconst(m, p);
	}
}

/* The pad's thickness: its smallest half-extent, the depth at which the object reaches
 * its centre and MuJoCo's primitive colliders lose the face's normal. */
static double pad_depth(const struct mdl_geom *g)
{
	switch (g->type) {
	case MDL_SPHERE:
	case MDL_CAPSULE:
	case MDL_CYLINDER:
		return g->size[0];
	case MDL_BOX:
	case MDL_ELLIPSOID:
		return fmin(g->size[0], fmin(g->size[1], g->size[2]));
	default:
		return 0;
	}
}

/* a geom that can be an object a pinch holds: the only geoms of a free body of the world
 * without child bodies, with a positive, known mass */
static int object_geom(const struct mdl_model *m, int g)
{
	const struct mdl_body *b = &m->bodies[m->geoms[g].body];
	return m->geoms[g].body != 0 && b->free && !b->children && b->parent == 0 &&
	    isfinite(b->mass) && b->mass > 0;
}

/* a geom that can be a pad: on a moving body that is not free (a finger, a link) */
static int pad_geom(const struct mdl_model *m, int g)
{
	const struct mdl_body *b = &m->bodies[m->geoms[g].body];
	return m->geoms[g].body != 0 && !b->free && m->geoms[g].answerable &&
	    m->geoms[g].type != MDL_PLANE && m->geoms[g].type != MDL_HFIELD;
}

/*
 * pad_cannot_hold (docs/model.md derives it): the object (mass m, weight W = m|g|)
 * pinched by two pads like this pair's holds only if 2 mu N >= W, N each pad's normal
 * force and mu the larger sliding coefficient. Held means not accelerating with the pad
 * at rest, so every active row's force is f = aref / R at J a = 0, with |r| = depth +
 * includemargin and R proportional to the row's diagApprox, at least the object's 1/m:
 *   elliptic and condim 1: one normal row, f = K d |r| / R, R = (1 - d)/d A;
 *   pyramidal: 2(condim-1) edges, R_py = 2 f0^2 / impratio (1 - d)/d (1 + f0^2) A each,
 *     their normal parts f; a +- pair's velocity terms cancel in its sum while both are
 *     active (one inactive is a slide faster than K d |r| / (B mu_i): not held, docs);
 *   discrete (3.13.0+): at v = 0 aref = -K' d r / s, R = max(R_Euler / s, floor), so
 *     f <= K' d |r| / R_Euler with K' d = min(K d, 1/h^2) under refsafe.
 * So N <= rows m Kd(d) d |r| / ((1 - d) c), c = 1 (elliptic) or 2 f0^2 (1 + f0^2) /
 * impratio (pyramid), increasing in d and |r|: since d(|r|) is monotone, the bound over
 * a sub-interval is its value at the sub-interval's larger d and larger |r|.
 */
static double pad_row_force(double Kd, double d, double r, double mass)
{
	return mass * Kd * d * r / (1 - d);
}

static void pad_check(const struct mdl_model *m, struct mpair_pair *p)
{
	const struct mdl_option *o = &m->option;
	struct core_law_gains gains;
	struct core_law_solimp si;
	struct core_mjver_rules rules;
	double depth, g, mass, best = 0, mu, f0 = p->friction[0], ratio, scale, h = o->timestep;
	double r_prev, d_prev;
	int obj, pad, i, rows, pyramid, discrete = o->integrator == CORE_SCENE_DISCRETE;

	if (object_geom(m, p->geom1) && pad_geom(m, p->geom2)) {
		obj = p->geom1;
		pad = p->geom2;
	} else if (object_geom(m, p->geom2) && pad_geom(m, p->geom1)) {
		obj = p->geom2;
		pad = p->geom1;
	} else {
		return;
	}
	if (!o->gravity_on || p->solref_fallback)
		return;
	g = sqrt(o->gravity[0] * o->gravity[0] + o->gravity[1] * o->gravity[1] +
	    o->gravity[2] * o->gravity[2]);
	depth = pad_depth(&m->geoms[pad]);
	if (!(g > 0) || !(depth > 0))
		return;
	mass = m->bodies[m->geoms[obj].body].mass;
	core_mjver_rules(m->mujoco, &rules);
	core_law_solimp_release(p->solimp, rules.power_shortcut, &si);
	/* discrete never clamps timeconst (its refsafe replaces rows, below) */
	core_law_solref_kb(p->solref, si.dwidth, h, discrete ? 0 : o->refsafe, &gains);
	pyramid = p->condim > 1 && o->cone != CORE_CONE_ELLIPTIC;
	rows = pyramid ? 2 * (p->condim - 1) : 1;
	ratio = fmax(MJ_MINVAL, o->impratio);
	/* the pyramid's R over the normal row's: 2 mu_reg^2 (1 + f0^2), mu_reg^2 = f0^2/ratio */
	scale = pyramid ? rows * ratio / (2 * f0 * f0 * (1 + f0 * f0)) : 1;
	r_prev = p->includemargin > 0 ? p->includemargin : 0;
	d_prev = core_law_impedance(r_prev, &si, NULL);
	for (i = 1; i <= 256; i++) {
		/* |r|: the depth plus the margin rows start at (none before a negative one) */
		double r = depth * i / 256 + p->includemargin, d, dhi, Kd, f;
		if (!(r > 0))
			continue;
		d = core_law_impedance(r, &si, NULL);
		dhi = fmax(d, d_prev);
		Kd = gains.K * dhi;
		if (discrete && o->refsafe && !gains.direct)
			Kd = fmin(Kd, 1 / (h * h));
		f = scale * pad_row_force(Kd, dhi, r, mass);
		if (isfinite(f) && f > best)
			best = f;
		if (!isfinite(f))
			best = INFINITY;
		d_prev = d;
	}
	mu = p->condim == 1 ? 0 : fmax(p->friction[0], p->friction[1]);
	if (2 * mu * best >= mass * g)
		return;
	p->warnings |= MPAIR_WARN_PAD;
	p->object = obj;
	p->pad = pad;
	p->pad_pyramid = pyramid;
	p->pad_depth = depth;
	p->pad_force = best;
	p->pad_weight = mass * g;
	p->hold_friction = best > 0 ? mass * g / (2 * best) : INFINITY;
	/* the pyramid's N grows as impratio: the impratio from which the bound allows a hold */
	p->hold_impratio = best > 0 && mu > 0 ? ratio * mass * g / (2 * mu * best) : INFINITY;
}

static void order_by_type(const struct mdl_model *m, struct mpair_pair *p)
{
	if (m->geoms[p->geom1].type > m->geoms[p->geom2].type) {
		int t = p->geom1;
		p->geom1 = p->geom2;
		p->geom2 = t;
	}
}

static void override(const struct mdl_model *m, struct mpair_pair *p)
{
	if (!m->option.override)
		return;
	memcpy(p->solref, m->option.o_solref, sizeof p->solref);
	memcpy(p->solimp, m->option.o_solimp, sizeof p->solimp);
	p->margin = m->option.o_margin;
}

static void dynamic(const struct mdl_model *m, int g1, int g2, const struct core_mjver_rules *rules,
    struct mpair_pair *p)
{
	const struct mdl_geom *a, *b;
	struct core_pair_geom pa, pb;
	struct core_pair_contact c;

	memset(p, 0, sizeof *p);
	p->geom1 = g1;
	p->geom2 = g2;
	p->explicit_pair = -1;
	order_by_type(m, p);
	a = &m->geoms[p->geom1];
	b = &m->geoms[p->geom2];
	mpair_geom(a, &pa);
	mpair_geom(b, &pb);
	core_pair_combine(&pa, &pb, rules, &c);
	p->condim = c.condim;
	memcpy(p->friction, c.friction, sizeof p->friction);
	memcpy(p->solref, c.solref, sizeof p->solref);
	memcpy(p->solimp, c.solimp, sizeof p->solimp);
	p->margin = c.margin;
	p->gap = c.gap;
	if (a->priority != b->priority) {
		const struct mdl_geom *lo = a->priority < b->priority ? a : b;
		const struct mdl_geom *hi = lo == a ? b : a;
		/* MuJoCo's default solref is no choice of the user's: only a solref set (one
		 * that differs from (0.02, 1)) is reported as hidden */
		if ((lo->solref[0] != hi->solref[0] || lo->solref[1] != hi->solref[1]) &&
		    (lo->solref[0] != DEFAULT_TIMECONST || lo->solref[1] != DEFAULT_DAMPRATIO)) {
			p->warnings |= MPAIR_WARN_PRIORITY;
			p->hidden = lo == a ? p->geom1 : p->geom2;
		}
	}
	override(m, p);
	p->includemargin = rules->margin_gap_split ? p->margin : p->margin - p->gap;
	assess(m, p);
	pad_check(m, p);
}

static void explicit(
    const struct mdl_model *m, int k, const struct core_mjver_rules *rules, struct mpair_pair *p)
{
	const struct mdl_pair_spec *s = &m->pairs[k];
	int i;

	memset(p, 0, sizeof *p);
	p->geom1 = s->geom1;
	p->geom2 = s->geom2;
	p->explicit_pair = k;
	order_by_type(m, p);
	p->condim = s->condim;
	for (i = 0; i < 5; i++)
		p->friction[i] = fmax(MJ_MINMU, s->friction[i]);
	memcpy(p->solref, s->solref, sizeof p->solref);
	memcpy(p->solimp, s->solimp, sizeof p->solimp);
	memcpy(p->solreffriction, s->solreffriction, sizeof p->solreffriction);
	p->margin = s->margin;
	p->gap = s->gap;
	override(m, p);
	p->includemargin = rules->margin_gap_split ? p->margin : p->margin - p->gap;
	assess(m, p);
	pad_check(m, p);
}

static long signature(const struct mdl_model *m, int k)
{
	const struct mdl_pair_spec *s = &m->pairs[k];
	return ((long)(m->geoms[s->geom1].body + 1) << 16) + m->geoms[s->geom2].body + 1;
}

/* What a pair's parameters, refsafe, stability and pad check cost next to a look at one
 * geom pair (the filters), in the units the budget is polled by (spend()). */
#define PAIR_ASSESS_WORK 64

struct builder {
	const struct mdl_model *m;
	const struct core_mjver_rules *rules;
	struct mpair_list *out;
	int cap;
	struct err *err;
	long *excluded; /* the <exclude>s' body pairs, sorted (body_key()) */
	long *replacing; /* the <pair>s' geom pairs, sorted (geom_key()) */
	long work, next_poll; /* spend() */
};

/* Count n units of work and poll the budget every CORE_BUDGET_STEPS of them: -1 with err
 * once it stopped (a model of many bodies, geoms or pairs takes long to pair). */
static int spend(struct builder *b, long n)
{
	b->work += n;
	if (b->work < b->next_poll)
		return 0;
	b->next_poll = b->work + CORE_BUDGET_STEPS;
	return core_budget_poll() ? mjcf_stopped(b->err) : 0;
}

static int push(struct builder *b, const struct mpair_pair *p)
{
	if (b->out->count >= MODEL_MAX_PAIRS)
		return err_set(b->err, ERR_TOO_LARGE, "",
		    "the model has more than %d geom pairs that collide", MODEL_MAX_PAIRS);
	if (b->out->count == b->cap) {
		int cap = b->cap ? 2 * b->cap : 64;
		struct mpair_pair *grown = realloc(b->out->pairs, (size_t)cap * sizeof *grown);
		if (!grown)
			return err_set(b->err, ERR_INTERNAL, "", "out of memory");
		b->out->pairs = grown;
		b->cap = cap;
	}
	b->out->pairs[b->out->count++] = *p;
	return 0;
}

static int push_explicit(struct builder *b, int k)
{
	struct mpair_pair p;
	const struct mdl_model *m = b->m;
	if (!collides(m->geoms[m->pairs[k].geom1].type, m->geoms[m->pairs[k].geom2].type))
		return spend(b, 1);
	if (spend(b, PAIR_ASSESS_WORK) != 0)
		return -1;
	explicit(m, k, b->rules, &p);
	return push(b, &p);
}

static long body_key(const struct mdl_model *m, int b1, int b2)
{
	return (long)b1 * m->nbody + b2;
}

/* one key for g1, g2 in either order */
static long geom_key(const struct mdl_model *m, int g1, int g2)
{
	return g1 < g2 ? (long)g1 * m->ngeom + g2 : (long)g2 * m->ngeom + g1;
}

static int cmp_long(const void *x, const void *y)
{
	long a = *(const long *)x, b = *(const long *)y;
	return a < b ? -1 : a > b;
}

static int in_sorted(const long *keys, int n, long key)
{
	return n > 0 && bsearch(&key, keys, (size_t)n, sizeof key, cmp_long) != NULL;
}

/* The sorted keys of the <exclude>s and of the <pair>s' geoms: a body pair's exclusion
 * and a geom pair's explicit pair are then a binary search each, not a scan of them all
 * (two bodies of 999 geoms and 19,999 <pair>s took 15 s). */
static int make_index(struct builder *b)
{
	const struct mdl_model *m = b->m;
	int i;

	b->excluded = malloc((size_t)(m->nexclude ? m->nexclude : 1) * sizeof *b->excluded);
	b->replacing = malloc((size_t)(m->npair ? m->npair : 1) * sizeof *b->replacing);
	if (!b->excluded || !b->replacing)
		return err_set(b->err, ERR_INTERNAL, "", "out of memory");
	for (i = 0; i < m->nexclude; i++)
		b->excluded[i] = body_key(m, m->excludes[i].body1, m->excludes[i].body2);
	for (i = 0; i < m->npair; i++)
		b->replacing[i] = geom_key(m, m->pairs[i].geom1, m->pairs[i].geom2);
	qsort(b->excluded, (size_t)m->nexclude, sizeof *b->excluded, cmp_long);
	qsort(b->replacing, (size_t)m->npair, sizeof *b->replacing, cmp_long);
	return 0;
}

static int cmp_pairs(const void *x, const void *y, void *model)
{
	int a = *(const int *)x, b = *(const int *)y;
	long sa = signature(model, a), sb = signature(model, b);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return a < b ? -1 : a > b; /* stable: document order within a body pair */
}

int mpair_list(const struct mdl_model *m, struct mpair_list *out, struct err *err)
{
	struct core_mjver_rules rules;
	struct builder b = {m, &rules, out, 0, err, NULL, NULL, 0, 0};
	int *order = NULL, b1, b2, g1, g2, adr = 0, k, rc = -1;

	memset(out, 0, sizeof *out);
	core_mjver_rules(m->mujoco, &rules);
	if (!m->option.contact || !m->option.constraint || m->nbody < 2)
		return 0;
	/* MuJoCo's compiler sorts the pairs by body signature; its collision merges them in */
	if (m->npair) {
		order = malloc((size_t)m->npair * sizeof *order);
		if (!order)
			return err_set(err, ERR_INTERNAL, "", "out of memory");
		for (k = 0; k < m->npair; k++)
			order[k] = k;
		qsort_r(order, (size_t)m->npair, sizeof *order, cmp_pairs, (void *)m);
	}
	if (make_index(&b) != 0)
		goto done;
	if (m->option.collision == 1) {
		for (k = 0; k < m->npair; k++)
			if (push_explicit(&b, order[k]) != 0)
				goto done;
		rc = 0;
		goto done;
	}
	for (b1 = 0; b1 < m->nbody; b1++) {
		for (b2 = b1 + 1; b2 < m->nbody; b2++) {
			long sig = ((long)(b1 + 1) << 16) + b2 + 1;
			int merged = 0;
			if (spend(&b, 1) != 0)
				goto done;
			if (m->option.collision == 0) {
				while (adr < m->npair && signature(m, order[adr]) <= sig) {
					if (signature(m, order[adr]) == sig)
						merged = 1;
					if (push_explicit(&b, order[adr++]) != 0)
						goto done;
				}
			}
			if (in_sorted(b.excluded, m->nexclude, body_key(m, b1, b2)))
				continue;
			for (g1 = m->bodies[b1].geomadr;
			     g1 < m->bodies[b1].geomadr + m->bodies[b1].geomnum; g1++) {
				for (g2 = m->bodies[b2].geomadr;
				     g2 < m->bodies[b2].geomadr + m->bodies[b2].geomnum; g2++) {
					struct mpair_pair p;
					if (spend(&b, 1) != 0)
						goto done;
					if (!collides(m->geoms[g1].type, m->geoms[g2].type) ||
					    filtered(m, g1, g2))
						continue;
					/* an explicit pair of the same two geoms replaces it */
					if (merged &&
					    in_sorted(b.replacing, m->npair, geom_key(m, g1, g2)))
						continue;
					if (spend(&b, PAIR_ASSESS_WORK) != 0)
						goto done;
					dynamic(m, g1, g2, &rules, &p);
					if (push(&b, &p) != 0)
						goto done;
				}
			}
		}
	}
	if (m->option.collision == 0)
		while (adr < m->npair)
			if (push_explicit(&b, order[adr++]) != 0)
				goto done;
	rc = 0;
done:
	free(order);
	free(b.excluded);
	free(b.replacing);
	if (rc != 0)
		mpair_free(out);
	return rc;
}

void mpair_free(struct mpair_list *l)
{
	free(l->pairs);
	memset(l, 0, sizeof *l);
}

const char *mpair_warning_name(unsigned bit)
{
	switch (bit) {
	case MPAIR_WARN_TIMECONST:
		return "timeconst_below_2h";
	case MPAIR_WARN_DAMPING:
		return "damping_below_h";
	case MPAIR_WARN_GROWTH:
		return "unstable_step";
	case MPAIR_WARN_PRIORITY:
		return "priority_hides_solref";
	case MPAIR_WARN_PAD:
		return "pad_cannot_hold";
	case MPAIR_WARN_REPLACED:
		return "refsafe_replaces_rows";
	default:
		return "unknown";
	}
}

static const char *geom_label(const struct mdl_model *m, int g, char *buf, size_t len)
{
	if (m->geoms[g].name)
		snprintf(buf, len, "\"%s\"", m->geoms[g].name);
	else
		snprintf(buf, len, "%d", g);
	return buf;
}

void mpair_warning_text(const struct mdl_model *m, const struct mpair_pair *p, unsigned bit,
    char *msg, char *fix, size_t len)
{
	const struct mdl_option *o = &m->option;
	double h = o->timestep;
	char a[80], b[80];

	switch (bit) {
	case MPAIR_WARN_TIMECONST:
		if (o->refsafe)
			snprintf(msg, len,
			    "solref's timeconst %.6g s is below 2 x timestep = %.6g s: refsafe "
			    "replaces it with %.6g s, so the contact is softer than written",
			    p->solref[0], 2 * h, p->timeconst_used);
		else
			snprintf(msg, len,
			    "solref's timeconst %.6g s is below 2 x timestep = %.6g s and refsafe "
			    "is disabled: the step cannot resolve the contact spring",
			    p->solref[0], 2 * h);
		snprintf(fix, len,
		    "set solref's timeconst to at least %.6g s, or the timestep to at "
		    "most %.6g s",
		    2 * h, p->solref[0] / 2);
		break;
	case MPAIR_WARN_DAMPING:
		snprintf(msg, len,
		    "timeconst_used x dampratio = %.6g s is below the timestep %.6g s: the damping "
		    "acts within one step (refsafe's guard does not cover it)",
		    p->timeconst_used * p->dampratio_used, h);
		snprintf(fix, len,
		    "raise dampratio to at least %.6g, or timeconst to at least %.6g s",
		    h / p->timeconst_used, h / p->dampratio_used);
		break;
	case MPAIR_WARN_GROWTH:
		snprintf(msg, len,
		    "the contact spring grows by %.6g per step at timestep %.6g s with %s: a "
		    "penetration oscillates and grows",
		    p->growth, h, mdl_integrator_name(o->integrator));
		if (p->growth_timeconst > 0)
			snprintf(fix, len, "raise solref's timeconst to at least %.6g s",
			    p->growth_timeconst);
		else
			snprintf(fix, len,
			    "soften the contact (a smaller stiffness or a larger timeconst) "
			    "or shorten the timestep");
		break;
	case MPAIR_WARN_PRIORITY: {
		int win = p->hidden == p->geom1 ? p->geom2 : p->geom1;
		const struct mdl_geom *lo = &m->geoms[p->hidden];
		snprintf(msg, len,
		    "geom %s's solref (%.6g, %.6g) is not used: geom %s has the higher priority "
		    "and "
		    "supplies (%.6g, %.6g)",
		    geom_label(m, p->hidden, a, sizeof a), lo->solref[0], lo->solref[1],
		    geom_label(m, win, b, sizeof b), m->geoms[win].solref[0],
		    m->geoms[win].solref[1]);
		snprintf(fix, len,
		    "give both geoms the same priority (solmix then averages), or set the solref "
		    "wanted on geom %s, or add a <pair> for these geoms",
		    geom_label(m, win, b, sizeof b));
		break;
	}
	case MPAIR_WARN_REPLACED: {
		double dmax = core_law_impedance_clamp(p->solimp[1]);
		snprintf(msg, len,
		    "under the discrete integrator refsafe replaces this contact's rows where h^2 "
		    "K "
		    "imp > 1: at the deepest impedance %.6g, h^2 K imp = %.6g, so K becomes 1/(h^2 "
		    "imp) and B is divided by %.6g: the contact is softer than written",
		    dmax, p->replaced_q, sqrt(p->replaced_q));
		snprintf(fix, len,
		    "raise solref's timeconst x dampratio to at least %.6g s (timestep / "
		    "sqrt(dmax)), or shorten the timestep to at most %.6g s",
		    h / sqrt(dmax), p->timeconst_used * p->dampratio_used * sqrt(dmax));
		break;
	}
	case MPAIR_WARN_PAD:
		if (p->condim == 1)
			snprintf(msg, len,
			    "geom %s pinched by two pads like geom %s cannot be held: condim 1 has "
			    "no "
			    "friction, and its weight is %.6g N",
			    geom_label(m, p->object, a, sizeof a),
			    geom_label(m, p->pad, b, sizeof b), p->pad_weight);
		else
			snprintf(msg, len,
			    "geom %s pinched by two pads like geom %s cannot be held: each pad's "
			    "normal force is at most %.6g N (%s) before the object reaches the "
			    "pad's "
			    "centre (%.6g m deep), and 2 x friction %.6g x %.6g N is below its "
			    "weight %.6g N",
			    geom_label(m, p->object, a, sizeof a),
			    geom_label(m, p->pad, b, sizeof b), p->pad_force,
			    p->pad_pyramid ? "the sum of its pyramid edges" : "its normal row",
			    p->pad_depth, fmax(p->friction[0], p->friction[1]), p->pad_force,
			    p->pad_weight);
		if (p->condim == 1)
			snprintf(fix, len,
			    "give the pair condim 3 or more (condim on either geom, or a <pair>), "
			    "with "
			    "friction[0] of at least %.6g",
			    isfinite(p->hold_friction) ? p->hold_friction : 1.0);
		else if (p->pad_pyramid)
			/* the pyramid's edges soften as friction^2: a higher friction does not
			 * help, the force grows as impratio */
			snprintf(fix, len,
			    "raise impratio to at least %.6g (under the pyramidal cone a higher "
			    "friction does not help: the edges' regulariser grows with "
			    "friction^2), or make the contact stiffer (a smaller solref "
			    "timeconst) or the pad thicker",
			    p->hold_impratio);
		else
			snprintf(fix, len,
			    "raise the pair's friction[0] to at least %.6g, or make the contact "
			    "stiffer "
			    "(a smaller solref timeconst) or the pad thicker",
			    p->hold_friction);
		break;
	default:
		snprintf(msg, len, "unknown");
		snprintf(fix, len, "unknown");
	}
}
