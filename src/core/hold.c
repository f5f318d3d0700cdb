/*
 * hold.c: the hold scene as MuJoCo's exact two-unknown problem (docs/hold.md).
 *
 * By the mirror symmetry x -> -x (and y -> -y) the object's only motion is along z
 * and both pads move alike, so one step's constraint problem has two unknowns:
 * the object's vertical acceleration az and the pads' joint acceleration ap (toward
 * the object). Per pad (the right one; the left is its mirror image) the rows are:
 *
 *   pyramidal, 2*(condim-1) rows of R = Rpy:
 *     the sliding pair along z:  J = (-f, -1) and (+f, -1)   (C0 +- f*C_z)
 *     every other pair:          J = (0, -1), twice           (their tangent part is 0)
 *   elliptic, condim rows:
 *     row 0 (normal): J = (0, -1), R0;  the z tangent row: J = (-1, 0), R1 = R0/impratio;
 *     the other tangent rows have J = 0 and aref = 0 (K = 0, no velocity), so x = 0.
 *
 * The cost c(a) = 1/2 m (az-a0z)^2 + 2 * 1/2 MP (ap-a0p)^2 + 2 * sum_rows s(Ja - aref)
 * is convex and piecewise quadratic; its minimiser is the minimiser of one piece's
 * quadratic, so every piece is solved (a 2x2 system) and the cheapest point under
 * the true cost wins: the same point MuJoCo's Newton solver converges to.
 */
#include "core/hold.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "tunables.h"

static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

const char *ctd_hold_supported(const struct ctd_hold *h)
{
	if (h->option.integrator == CTD_SCENE_RK4)
		return "the RK4 integrator is not reproduced for the hold scene";
	return NULL;
}

void ctd_hold_prepare(const struct ctd_hold *h, struct ctd_hold_model *m)
{
	double a, b;
	int condim;

	ctd_mjver_rules(h->option.mujoco, &m->rules);
	/* the sphere has the smaller geom type: it is MuJoCo's geom1 */
	ctd_pair_combine(&h->object, &h->pad, &m->rules, &m->contact);
	ctd_law_solimp_release(m->contact.solimp, m->rules.power_shortcut, &m->solimp);
	ctd_law_solref_kb(
	    m->contact.solref, m->solimp.dwidth, h->option.timestep, h->option.refsafe, &m->gains);
	m->cone = h->option.cone;
	m->mass = h->mass;
	m->pad_mass = h->pad_mass;
	m->a0_object = -(h->mass * h->option.gravity) * (1 / h->mass);
	m->a0_pad = h->grip_force * (1 / h->pad_mass);
	/* body_invweight0: the free object's (a+a+a)/3; a pad on one slide joint has only
	 * the x entry of its translational block, 1/MP, so (1/MP + 0 + 0)/3 */
	a = 1 / h->mass;
	b = 1 / h->pad_mass;
	m->tran = (a + a + a) / 3 + (m->rules.simple_body_invweight ? b : (b + 0 + 0) / 3);
	m->impratio = h->option.impratio;
	m->slide = m->contact.friction[0];
	m->radius = h->radius;
	m->pad_margin = h->pad.margin;
	m->pad_gap = h->pad.gap;
	m->half_x = h->pad_size[0];
	m->half_z = h->pad_size[2];
	m->rest_dist = h->radius + h->pad_size[0];
	m->timestep = h->option.timestep;
	/* a solid sphere's body_inertia and MuJoCo's meaninertia: qM's diagonal is the
	 * object's m, m, m, I, I, I and the pads' MP, MP */
	m->inertia = 0.4 * h->mass * h->radius * h->radius;
	m->meaninertia = (h->mass * 3 + m->inertia * 3 + h->pad_mass * 2) / 8;
	m->noslip_iterations = h->noslip_iterations;
	m->noslip_tolerance = CTD_HOLD_NOSLIP_TOLERANCE;
	condim = m->contact.condim;
	if (condim == 1)
		m->rows_per_pad = 1;
	else
		m->rows_per_pad = m->cone == CTD_CONE_ELLIPTIC ? condim : 2 * (condim - 1);
}

/* The step loops call these two through static copies: an exported function of a
 * shared library's object is not inlined (it could be interposed). */
static inline double hold_dist(const struct ctd_hold_model *m, double q)
{
	/* the right pad's centre is at (R+HX) - q; sphere-box measures from the clamped
	 * face point, -HX + x, and subtracts the radius */
	double x = m->rest_dist - q;

	return fabs(-m->half_x + x) - m->radius;
}

static inline int hold_crushed(const struct ctd_hold_model *m, double q)
{
	/* the pads' inner faces are 2*(R - q) apart; within their own margin and gap they
	 * meet each other (the pair's margin is the max or, from 3.5.0, the sum) */
	return !(2 * (m->radius - q) > 2 * (m->pad_margin + m->pad_gap));
}

double ctd_hold_dist(const struct ctd_hold_model *m, double q)
{
	return hold_dist(m, q);
}

int ctd_hold_crushed(const struct ctd_hold_model *m, double q)
{
	return hold_crushed(m, q);
}

void ctd_hold_start(struct ctd_hold_state *s)
{
	s->z = s->vz = s->q = s->vq = 0;
	s->piece = -1;
	s->qacc_warm[0] = s->qacc_warm[1] = 0;
}

/* One quadratic piece of the cost: a row (or the sum of identical rows, count n)
 * 1/2 * w * n * (jz*az + jp*ap - aref)^2, per pad. */
struct piece {
	double jz, jp, aref, w, n;
};

/* The Gauss term's and the pieces' Hessian (both pads: factor 2) and its determinant:
 * they depend on the rows' D only, not on the state's speeds. */
struct piece_matrix {
	int set; /* the active set it belongs to; -1: none */
	double h00, h01, h11, det;
};

static inline void piece_matrix(
    const struct ctd_hold_model *m, const struct piece *p, int np, struct piece_matrix *H)
{
	int i;

	H->h00 = m->mass;
	H->h01 = 0;
	H->h11 = 2 * m->pad_mass;
	for (i = 0; i < np; i++) {
		double w = 2 * p[i].w * p[i].n;

		H->h00 += w * p[i].jz * p[i].jz;
		H->h01 += w * p[i].jz * p[i].jp;
		H->h11 += w * p[i].jp * p[i].jp;
	}
	H->det = H->h00 * H->h11 - H->h01 * H->h01;
}

/* The minimiser of the Gauss term plus the given pieces, whose Hessian is H. */
static inline void piece_solve(const struct ctd_hold_model *m, const struct piece *p, int np,
    const struct piece_matrix *H, double *az, double *ap)
{
	double r0 = m->mass * m->a0_object, r1 = 2 * m->pad_mass * m->a0_pad;
	int i;

	for (i = 0; i < np; i++) {
		double w = 2 * p[i].w * p[i].n;

		r0 += w * p[i].jz * p[i].aref;
		r1 += w * p[i].jp * p[i].aref;
	}
	*az = (r0 * H->h11 - H->h01 * r1) / H->det;
	*ap = (H->h00 * r1 - H->h01 * r0) / H->det;
}

static inline void solve_pieces(
    const struct ctd_hold_model *m, const struct piece *p, int np, double *az, double *ap)
{
	struct piece_matrix H;

	piece_matrix(m, p, np, &H);
	piece_solve(m, p, np, &H, az, ap);
}

/* The rows of one pad at one state, in the reduced coordinates. */
struct rows {
	int elliptic, plain; /* plain: pyramid rows with J = (0, -1) */
	double f, D, Dt;     /* sliding friction; D of the (normal) rows; D of the z tangent row */
	double mu;           /* the regularised cone's mu (elliptic) */
	double aref_n;       /* aref of the rows with J = (0, -1) */
	double aref_p, aref_m; /* pyramid: the z pair's rows J = (-f,-1), (f,-1) */
	double aref_t;         /* elliptic: the z tangent row, J = (-1, 0) */
};

static double gauss(const struct ctd_hold_model *m, double az, double ap)
{
	double dz = az - m->a0_object, dp = ap - m->a0_pad;

	return 0.5 * m->mass * dz * dz + m->pad_mass * dp * dp;
}

static double half_sq_neg(double D, double x)
{
	return x < 0 ? 0.5 * D * x * x : 0;
}

/* The true cost of both pads' rows at (az, ap). */
static double cost(const struct ctd_hold_model *m, const struct rows *r, double az, double ap)
{
	double c = gauss(m, az, ap);

	if (!r->elliptic) {
		double xn = -ap - r->aref_n;
		double s = r->plain * half_sq_neg(r->D, xn);

		if (r->f > 0) {
			s += half_sq_neg(r->D, -r->f * az - ap - r->aref_p);
			s += half_sq_neg(r->D, r->f * az - ap - r->aref_m);
		}
		return c + 2 * s;
	} else {
		double x0 = -ap - r->aref_n, xt = -az - r->aref_t;
		double N = x0 * r->mu, T = fabs(xt * r->f), mu = r->mu;

		if (N >= mu * T || (T <= 0 && N >= 0))
			return c;
		if (mu * N + T <= 0 || (T <= 0 && N < 0))
			return c + 2 * (0.5 * r->D * x0 * x0 + 0.5 * r->Dt * xt * xt);
		{
			double Dm = r->D / (mu * mu * (1 + mu * mu)), NT = N - mu * T;

			return c + 2 * (0.5 * Dm * NT * NT);
		}
	}
}

/* The quadratic pieces of one active set (pyramid: bit 0 the plain rows, bit 1 and 2
 * the z pair; elliptic: 0 top, 1 bottom, 2 and 3 the middle zone with the tangent
 * row's x of sign + and -). Returns the number of pieces. */
static inline int pieces_of(const struct rows *r, int set, struct piece *p)
{
	int np = 0;

	if (!r->elliptic) {
		if ((set & 1) && r->plain > 0)
			p[np++] = (struct piece){0, -1, r->aref_n, r->D, r->plain};
		if ((set & 2) && r->f > 0)
			p[np++] = (struct piece){-r->f, -1, r->aref_p, r->D, 1};
		if ((set & 4) && r->f > 0)
			p[np++] = (struct piece){r->f, -1, r->aref_m, r->D, 1};
	} else if (set == 1) { /* bottom zone: the rows' own quadratics */
		p[np++] = (struct piece){0, -1, r->aref_n, r->D, 1};
		p[np++] = (struct piece){-1, 0, r->aref_t, r->Dt, 1};
	} else if (set >= 2) {
		/* middle zone, x_t of sign s: 1/2 Dm mu^2 (x0 - f s x_t)^2 */
		double mu2 = r->mu * r->mu, Dm = r->D / (mu2 * (1 + mu2)), sg = set == 2 ? 1 : -1;

		p[np++] =
		    (struct piece){r->f * sg, -1, r->aref_n - r->f * sg * r->aref_t, Dm * mu2, 1};
	}
	return np;
}

/* 1 when (az, ap) lies in the piece of set: then it is the convex cost's minimiser */
static int in_piece(const struct rows *r, int set, double az, double ap)
{
	if (!r->elliptic) {
		double xn = -ap - r->aref_n, xp = -r->f * az - ap - r->aref_p;
		double xm = r->f * az - ap - r->aref_m;

		if (r->plain > 0 && (set & 1 ? !(xn <= 0) : !(xn >= 0)))
			return 0;
		if (r->f > 0 && (set & 2 ? !(xp <= 0) : !(xp >= 0)))
			return 0;
		if (r->f > 0 && (set & 4 ? !(xm <= 0) : !(xm >= 0)))
			return 0;
		return 1;
	} else {
		double x0 = -ap - r->aref_n, xt = -az - r->aref_t;
		double N = x0 * r->mu, T = fabs(xt * r->f), mu = r->mu;
		int zone;

		if (N >= mu * T || (T <= 0 && N >= 0))
			zone = 0;
		else if (mu * N + T <= 0 || (T <= 0 && N < 0))
			zone = 1;
		else
			zone = xt > 0 ? 2 : 3;
		return zone == set;
	}
}

/* The exact minimiser. The previous step's piece (hint) is tried first and kept when
 * its stationary point lies in it (the KKT conditions of the convex cost); otherwise
 * every piece's stationary point is evaluated and the cheapest by true cost wins.
 * Returns the piece. */
static int minimise(const struct ctd_hold_model *m, const struct rows *r, int hint,
    struct piece_matrix *hint_matrix, double *az, double *ap)
{
	struct piece p[3];
	double best = INFINITY, z, a, c;
	int set, sets = r->elliptic ? 4 : 8, chosen = 0;

	if (hint >= 0 && hint < sets) {
		int np = pieces_of(r, hint, p);

		/* the hint's Hessian is kept while the rows' D are (hint_matrix->set) */
		if (hint_matrix->set != hint) {
			piece_matrix(m, p, np, hint_matrix);
			hint_matrix->set = hint;
		}
		piece_solve(m, p, np, hint_matrix, &z, &a);
		if (in_piece(r, hint, z, a)) {
			*az = z;
			*ap = a;
			return hint;
		}
	}
	for (set = 0; set < sets; set++) {
		solve_pieces(m, p, pieces_of(r, set, p), &z, &a);
		c = cost(m, r, z, a);
		if (c < best) {
			best = c;
			chosen = set;
			*az = z;
			*ap = a;
		}
	}
	return chosen;
}

/* The part of a state's rows that depends only on the contact distance (impedance,
 * R, D, mu): the pads settle to a repeating distance, where it is reused (the same
 * inputs give the same numbers). */
struct rows_cache {
	int valid;
	double dist;
	struct rows r; /* every field but the arefs */
	double spring, imp, R0;
	struct piece_matrix hint_matrix; /* the previous piece's Hessian at these rows */
};

static void make_rows_of_dist(const struct ctd_hold_model *m, double dist, struct rows_cache *c)
{
	double rr = dist - m->contact.includemargin;
	double imp = ctd_law_impedance(rr, &m->solimp, NULL);
	double f0 = m->contact.friction[0];
	double R0, R1, mu;
	int condim = m->contact.condim;
	struct rows *r = &c->r;

	memset(r, 0, sizeof *r);
	c->valid = 1;
	c->dist = dist;
	c->hint_matrix.set = -1;
	c->spring = m->gains.K * imp * rr;
	c->imp = imp;
	r->elliptic = m->cone == CTD_CONE_ELLIPTIC && condim > 1;
	r->f = condim > 1 ? m->contact.friction[1] : 0;
	if (condim == 1) {
		R0 = max2(MJ_MINVAL, (1 - imp) * m->tran / imp);
		r->plain = 1;
		r->D = 1 / R0;
	} else if (r->elliptic) {
		R0 = max2(MJ_MINVAL, (1 - imp) * m->tran / imp);
		R1 = R0 / max2(MJ_MINVAL, m->impratio);
		/* impratio 1: R1 = R0 exactly, so sqrt(R1 / R0) = 1 */
		mu = m->impratio == 1 ? f0 : f0 * sqrt(R1 / R0);
		r->mu = mu;
		r->D = 1 / R0;
		r->Dt = 1 / R1;
		r->plain = 0;
	} else {
		R0 = max2(MJ_MINVAL, (1 - imp) * (m->tran + f0 * f0 * m->tran) / imp);
		if (m->impratio == 1) {
			mu = f0;
		} else {
			R1 = R0 / max2(MJ_MINVAL, m->impratio);
			mu = f0 * sqrt(R1 / R0);
		}
		r->mu = mu;
		r->D = 1 / (2 * mu * mu * R0);
		r->plain = 2 * (condim - 2);
	}
	c->R0 = R0;
}

/* The rows of a state whose contact is active at distance dist (cache: the previous
 * distance's, refreshed when dist differs). */
static void make_rows(const struct ctd_hold_model *m, double dist, double vz, double vq,
    struct rows *r, double *imp_out, double *R0_out, struct rows_cache *cache)
{
	double B = m->gains.B, spring;

	if (!(cache->valid && cache->dist == dist))
		make_rows_of_dist(m, dist, cache);
	*r = cache->r;
	spring = cache->spring;
	r->aref_n = -B * (-vq) - spring;
	if (r->elliptic) {
		r->aref_t = -B * (-vz) - 0.0;
	} else if (m->contact.condim > 1) {
		r->aref_p = -B * (-vq - r->f * vz) - spring;
		r->aref_m = -B * (-vq + r->f * vz) - spring;
	}
	*imp_out = cache->imp;
	*R0_out = cache->R0;
}

static void hold_step(const struct ctd_hold_model *m, struct ctd_hold_state *s,
    struct ctd_hold_step_state *st, struct rows_cache *cache)
{
	double dist = hold_dist(m, s->q);
	double az = m->a0_object, ap = m->a0_pad, h = m->timestep;
	double imp = 0, R0 = 0;
	struct rows r = {0};
	int active = dist < m->contact.includemargin;

	if (active) {
		make_rows(m, dist, s->vz, s->vq, &r, &imp, &R0, cache);
		s->piece = minimise(m, &r, s->piece, &cache->hint_matrix, &az, &ap);
	}
	if (st) {
		st->active = active;
		st->imp = imp;
		st->K = m->gains.K;
		st->B = m->gains.B;
		st->R_normal = active ? 1 / r.D : 0;
		st->R_friction = active ? (r.elliptic ? 1 / r.Dt : 1 / r.D) : 0;
		st->accel_object = az;
		st->accel_pad = ap;
		/* the pad's joint balance: MP (ap - a0p) = -(normal force) */
		st->normal_force = m->pad_mass * (m->a0_pad - ap);
		st->friction_force = 0.5 * m->mass * (az - m->a0_object);
	}
	s->qacc_warm[0] = az;
	s->qacc_warm[1] = ap;
	s->vz += h * az;
	s->z += h * s->vz;
	s->vq += h * ap;
	s->q += h * s->vq;
}

void ctd_hold_step(
    const struct ctd_hold_model *m, struct ctd_hold_state *s, struct ctd_hold_step_state *st)
{
	struct rows_cache cache;

	cache.valid = 0;
	hold_step(m, s, st, &cache);
}

/* The steady pad balance: F = (sum of the pad's row forces at rest) as a function of
 * the violation u = includemargin - dist >= 0, minus F. */
struct balance {
	const struct ctd_hold_model *m;
	double F;
};

/* R0 and R of the normal rows at impedance imp */
static void steady_R(const struct ctd_hold_model *m, double imp, double *Rn, double *Rt)
{
	double f0 = m->contact.friction[0], R0, R1, mu;
	int condim = m->contact.condim;

	if (condim == 1) {
		*Rn = *Rt = max2(MJ_MINVAL, (1 - imp) * m->tran / imp);
		return;
	}
	if (m->cone == CTD_CONE_ELLIPTIC) {
		R0 = max2(MJ_MINVAL, (1 - imp) * m->tran / imp);
		*Rn = R0;
		*Rt = R0 / max2(MJ_MINVAL, m->impratio);
		return;
	}
	R0 = max2(MJ_MINVAL, (1 - imp) * (m->tran + f0 * f0 * m->tran) / imp);
	R1 = R0 / max2(MJ_MINVAL, m->impratio);
	mu = f0 * sqrt(R1 / R0);
	*Rn = *Rt = 2 * mu * mu * R0;
}

static double pad_balance(double u, void *params)
{
	const struct balance *b = params;
	const struct ctd_hold_model *m = b->m;
	double imp = ctd_law_impedance(-u, &m->solimp, NULL), Rn, Rt;
	int rows = m->cone == CTD_CONE_ELLIPTIC ? 1 : m->rows_per_pad;

	steady_R(m, imp, &Rn, &Rt);
	return rows * (m->gains.K * imp * u) / Rn - b->F;
}

int ctd_hold_steady(
    const struct ctd_hold_model *m, double *creep, double *penetration, double *normal_force)
{
	struct balance b = {m, m->pad_mass * m->a0_pad};
	double u, imp, Rn, Rt, spring, f = m->contact.friction[1], load = -m->mass * m->a0_object;
	double v;

	if (m->contact.condim == 1 || !(m->gains.K > 0) || !(m->gains.B > 0))
		return -1;
	if (ctd_law_root_increasing(pad_balance, &b, &u) != 0)
		return -1;
	imp = ctd_law_impedance(-u, &m->solimp, NULL);
	steady_R(m, imp, &Rn, &Rt);
	spring = m->gains.K * imp * u;
	if (m->cone == CTD_CONE_ELLIPTIC) {
		/* bottom zone: the z tangent rows carry the load, x_t = B*v = load*R1/2 */
		double mu = m->contact.friction[0] * sqrt(Rt / Rn);
		double xt = load * Rt / 2;

		v = xt / m->gains.B;
		if (!(mu * (mu * -spring) + f * xt <= 0))
			return -1;
	} else {
		/* every row active: the z pair's forces differ by 2*D*B*f*v per pad */
		v = load * Rn / (4 * m->gains.B * f * f);
		if (!(spring - m->gains.B * f * v > 0))
			return -1;
	}
	*creep = v;
	*penetration = u - m->contact.includemargin;
	*normal_force = b.F;
	return 0;
}

/* The steady creep of the step loop: continue from *s (step `done` of the run; the
 * pads' height is ignored, as if they were long enough) until the speed is constant
 * for CTD_HOLD_SETTLE_RUN steps, or CTD_HOLD_SETTLE_MAX_STEPS have passed. A run that
 * does not settle (Euler's period-2 oscillation around an unstable fixed point, or an
 * object sliding ever faster) has no creep velocity: creep_settled stays 0. */
static void settle_creep(const struct ctd_hold_model *m, struct ctd_hold_state *s, long done,
    struct rows_cache *cache, struct ctd_hold_answer *out)
{
	double prev_v = s->vz;
	long k, settle = 0, last = CTD_HOLD_SETTLE_MAX_STEPS;

	out->creep_settled = 0;
	for (k = 1; k <= last; k++) {
		hold_step(m, s, NULL, cache);
		if (hold_crushed(m, s->q) || !isfinite(s->vz))
			break; /* no steady creep before the scene leaves its two-contact form */
		settle = fabs(s->vz - prev_v) <= CTD_HOLD_SETTLE_REL * fabs(s->vz) ? settle + 1 : 0;
		prev_v = s->vz;
		if (settle >= CTD_HOLD_SETTLE_RUN) {
			out->creep_settled = 1;
			break;
		}
	}
	out->creep_steps = done + (k > last ? last : k);
	out->creep_closed_form = 0;
	out->penetration = -hold_dist(m, s->q);
	out->creep_velocity = out->creep_settled ? -s->vz : 0;
}

static void noslip_run(
    const struct ctd_hold *h, const struct ctd_hold_model *m, struct ctd_hold_answer *out);

void ctd_hold_solve(const struct ctd_hold *h, struct ctd_hold_answer *out)
{
	struct ctd_hold_model m;
	struct ctd_hold_state s;
	struct rows_cache cache = {0};
	long n, k;
	double creep, pen, nf, h_t = h->option.timestep;
	int i;

	ctd_hold_prepare(h, &m);
	ctd_hold_start(&s);
	out->load = -m.mass * m.a0_object;
	out->normal_force = h->grip_force;
	/* condim 1 is frictionless: nothing holds the object up */
	out->friction_capacity =
	    m.contact.condim == 1 ? 0 : 2 * m.contact.friction[0] * h->grip_force;
	out->holds = out->load < out->friction_capacity;
	out->refsafe_clamped = m.gains.timeconst_used > 0 && !m.gains.fell_back &&
	    m.gains.timeconst_used > m.contact.solref[0];
	out->solref_fell_back = m.gains.fell_back;
	/* the friction the pair takes (the higher priority's, else the larger), before
	 * MuJoCo raises each coefficient to mjMINMU */
	out->friction_clamped = 0;
	for (i = 0; i < 3; i++) {
		double fo = h->object.friction[i], fp = h->pad.friction[i];
		double used = h->pad.priority > h->object.priority ? fp
		    : h->object.priority > h->pad.priority         ? fo
		                                                   : (fo > fp ? fo : fp);

		if (used < MJ_MINMU)
			out->friction_clamped = 1;
	}
	out->falls = 0;
	out->crushed = 0;
	out->fall_time = -1;
	out->time_to_slip = -1;
	out->time_to_slip_extrapolated = 0;
	if (m.noslip_iterations > 0) {
		noslip_run(h, &m, out);
		return;
	}

	n = lround(h->duration / h_t);
	for (k = 1; k <= n; k++) {
		hold_step(&m, &s, NULL, &cache);
		if (out->time_to_slip < 0 && -s.z >= h->slip_limit)
			out->time_to_slip = k * h_t;
		if (hold_crushed(&m, s.q)) {
			out->crushed = 1;
			break;
		}
		if (-s.z > m.half_z || s.z > m.half_z) {
			out->falls = 1;
			out->fall_time = k * h_t;
			break;
		}
	}
	out->steps = k > n ? n : k;
	out->slip = -s.z;
	if (out->crushed)
		return;

	if (out->holds) {
		settle_creep(&m, &s, out->steps, &cache, out);
	} else {
		/* below the Coulomb minimum the object slides ever faster: no steady creep */
		out->creep_settled = out->creep_closed_form = 0;
		out->creep_velocity = out->penetration = 0;
		out->creep_steps = out->steps;
	}
	if (ctd_hold_steady(&m, &creep, &pen, &nf) == 0 && out->creep_settled &&
	    fabs(creep - out->creep_velocity) <= CTD_HOLD_CLOSED_FORM_REL * fabs(creep)) {
		/* the loop settled where the closed form says: report the exact value */
		out->creep_velocity = creep;
		out->penetration = pen;
		out->creep_closed_form = 1;
	}
	if (out->time_to_slip < 0 && !out->falls && out->creep_settled && out->creep_velocity > 0) {
		out->time_to_slip = n * h_t + (h->slip_limit - out->slip) / out->creep_velocity;
		out->time_to_slip_extrapolated = 1;
	}
}

/* ---- the asymmetric step (noslip) ----
 *
 * Coordinates a = (object x, object z, rotation about y, left pad, right pad); the
 * object's y, its rotations about x and z stay 0 by the mirror y -> -y, and every row
 * the reduction drops (the y tangent, the spin, the roll about z) has the normal row's
 * Jacobian in these coordinates. Contact 0 is the left pad (geom 1), contact 1 the
 * right one, each with MuJoCo's frame: normal (s, 0, 0) from the sphere to the pad,
 * tangents (0, 1, 0) and (0, 0, s). */

#define NS_DOF 5
#define NS_ROWS 10 /* per contact: pyramidal 2*(condim-1) <= 10, elliptic condim <= 6 */

struct ns_contact {
	int active, nrows, elliptic, condim;
	double dist, imp, K, B, rr;
	double R0, R1, mu;    /* R of the normal (pyramid: every) row, the tangent rows; cone mu */
	double fr[5];         /* the contact's friction */
	double jn[NS_DOF];    /* the normal row */
	double jk[5][NS_DOF]; /* the tangent rows (y, z, spin, roll y, roll z) */
	double J[NS_ROWS][NS_DOF], aref[NS_ROWS], R[NS_ROWS], force[NS_ROWS];
};

static double ns_dot(const double *a, const double *b)
{
	double s = 0;
	int i;

	for (i = 0; i < NS_DOF; i++)
		s += a[i] * b[i];
	return s;
}

static void ns_mass(const struct ctd_hold_model *m, double *M)
{
	M[0] = M[1] = m->mass;
	M[2] = m->inertia;
	M[3] = M[4] = m->pad_mass;
}

/* One contact's geometry with mjc_SphereBox's arithmetic (box frame = world, the
 * sphere at (x, 0, z)), then its rows at velocity v. side: 0 left, 1 right. */
static void ns_contact_make(const struct ctd_hold_model *m, const struct ctd_hold_noslip_state *s,
    int side, struct ns_contact *c)
{
	double x0 = m->rest_dist, hx = m->half_x, R = m->radius;
	double pad = side == 0 ? -x0 + s->qL : x0 - s->qR;
	double cx = s->x - pad, cl = cx < -hx ? -hx : cx > hx ? hx : cx, t = cl - cx;
	double sg = t > 0 ? 1 : -1, deepest = cx + sg * R, pos, lever;
	double v[NS_DOF] = {s->vx, s->vz, s->wy, s->vqL, s->vqR};
	double spring, f0;
	int k, n = 0, condim = m->contact.condim;

	memset(c, 0, sizeof *c);
	c->dist = fabs(t) - R;
	pos = (0 + cl * 0.5) + deepest * 0.5;
	lever = (pos + pad) - s->x;
	c->active = c->dist < m->contact.includemargin;
	if (!c->active)
		return;
	c->condim = condim;
	c->elliptic = m->cone == CTD_CONE_ELLIPTIC && condim > 1;
	memcpy(c->fr, m->contact.friction, sizeof c->fr);
	/* n . (v_pad - v_object at the contact), the pad's joint axis +x (left) or -x */
	c->jn[0] = -sg;
	c->jn[3 + side] = sg * (side == 0 ? 1 : -1);
	/* the z tangent (0, 0, sg): -sg (vz - wy lever); the roll about y: -wy */
	c->jk[1][1] = -sg;
	c->jk[1][2] = sg * lever;
	c->jk[3][2] = -1;
	c->rr = c->dist - m->contact.includemargin;
	c->imp = ctd_law_impedance(c->rr, &m->solimp, NULL);
	c->K = m->gains.K;
	c->B = m->gains.B;
	spring = c->K * c->imp * c->rr;
	f0 = m->contact.friction[0];
	if (condim == 1) {
		c->R0 = max2(MJ_MINVAL, (1 - c->imp) * m->tran / c->imp);
		memcpy(c->J[0], c->jn, sizeof c->jn);
		c->R[0] = c->R0;
		c->aref[0] = -c->B * ns_dot(c->jn, v) - spring;
		c->nrows = 1;
		return;
	}
	if (c->elliptic) {
		c->R0 = max2(MJ_MINVAL, (1 - c->imp) * m->tran / c->imp);
		c->R1 = c->R0 / max2(MJ_MINVAL, m->impratio);
		c->mu = f0 * sqrt(c->R1 / c->R0);
		memcpy(c->J[n], c->jn, sizeof c->jn);
		c->R[n] = c->R0;
		c->aref[n++] = -c->B * ns_dot(c->jn, v) - spring;
		for (k = 0; k < condim - 1; k++) {
			memcpy(c->J[n], c->jk[k], sizeof c->jn);
			/* R_j mu_j^2 = R1 f0^2: the spin and roll rows' own R */
			c->R[n] =
			    k == 0 ? c->R1 : c->R1 * c->fr[0] * c->fr[0] / (c->fr[k] * c->fr[k]);
			c->aref[n++] = -c->B * ns_dot(c->jk[k], v) - 0.0;
		}
	} else {
		double R0 = max2(MJ_MINVAL, (1 - c->imp) * (m->tran + f0 * f0 * m->tran) / c->imp);
		double R1 = R0 / max2(MJ_MINVAL, m->impratio), mu = f0 * sqrt(R1 / R0);
		double Rpy = 2 * mu * mu * R0;
		int i;

		c->R0 = c->R1 = Rpy;
		for (k = 0; k < condim - 1; k++) {
			double sgn;

			for (sgn = 1; sgn >= -1; sgn -= 2) {
				for (i = 0; i < NS_DOF; i++)
					c->J[n][i] = c->jn[i] + sgn * c->fr[k] * c->jk[k][i];
				c->R[n] = Rpy;
				c->aref[n] = -c->B * ns_dot(c->J[n], v) - spring;
				n++;
			}
		}
	}
	c->nrows = n;
}

/* The cost of both contacts' rows at a, with its gradient and Hessian (either may be
 * NULL), and the rows' forces when force is set. *piece (when not NULL) names the
 * quadratic piece of the cost a lies in (a bit per pushing row; an elliptic contact's
 * bottom zone a bit), or is -1 in an elliptic middle zone, where the cost is not
 * quadratic. */
static double ns_cost(const struct ctd_hold_model *m, struct ns_contact *c, const double *a,
    double *grad, double *hess, int force, long long *piece)
{
	double M[NS_DOF], a0[NS_DOF] = {0, m->a0_object, 0, m->a0_pad, m->a0_pad};
	double cost = 0;
	int i, j, k, r;

	ns_mass(m, M);
	for (i = 0; i < NS_DOF; i++) {
		double d = a[i] - a0[i];

		cost += 0.5 * M[i] * d * d;
		if (grad)
			grad[i] = M[i] * d;
	}
	if (hess) {
		memset(hess, 0, sizeof(double) * NS_DOF * NS_DOF);
		for (i = 0; i < NS_DOF; i++)
			hess[i * NS_DOF + i] = M[i];
	}
	if (piece)
		*piece = 0;
	for (k = 0; k < 2; k++) {
		struct ns_contact *ck = &c[k];
		double x[NS_ROWS] = {0}, gx[NS_ROWS] = {0}, hx[NS_ROWS][NS_ROWS];

		if (!ck->active)
			continue;
		for (r = 0; r < ck->nrows; r++)
			x[r] = ns_dot(ck->J[r], a) - ck->aref[r];
		if (!ck->elliptic) {
			/* each row its own quadratic: a diagonal hx, added row by row */
			for (r = 0; r < ck->nrows; r++) {
				double D = 1 / ck->R[r];

				if (force)
					ck->force[r] = x[r] < 0 ? -(D * x[r]) : -0.0;
				if (!(x[r] < 0))
					continue;
				if (piece && *piece >= 0)
					*piece |= 1LL << (k * NS_ROWS + r);
				cost += 0.5 * D * x[r] * x[r];
				gx[r] = D * x[r];
				if (grad)
					for (i = 0; i < NS_DOF; i++)
						grad[i] += ck->J[r][i] * gx[r];
				if (hess)
					for (i = 0; i < NS_DOF; i++) {
						int l;

						if (ck->J[r][i] == 0)
							continue;
						for (l = 0; l < NS_DOF; l++)
							hess[i * NS_DOF + l] +=
							    ck->J[r][i] * D * ck->J[r][l];
					}
			}
			continue;
		}
		memset(hx, 0, sizeof hx);
		{
			double mu = ck->mu, N = x[0] * mu, T = 0, U[NS_ROWS] = {0};

			for (r = 1; r < ck->nrows; r++) {
				U[r] = x[r] * ck->fr[r - 1];
				T += U[r] * U[r];
			}
			T = sqrt(T);
			if (N >= mu * T || (T <= 0 && N >= 0)) {
				/* top zone: no force */
			} else if (mu * N + T <= 0 || (T <= 0 && N < 0)) {
				if (piece && *piece >= 0)
					*piece |= 1LL << (k * NS_ROWS);
				for (r = 0; r < ck->nrows; r++) {
					double D = 1 / ck->R[r];

					cost += 0.5 * D * x[r] * x[r];
					gx[r] = D * x[r];
					hx[r][r] = D;
				}
			} else {
				double Dm = (1 / ck->R[0]) / (mu * mu * (1 + mu * mu)),
				       NT = N - mu * T;
				double g[NS_ROWS], w = -mu * Dm * NT / T;

				if (piece)
					*piece = -1;
				cost += 0.5 * Dm * NT * NT;
				g[0] = mu;
				for (r = 1; r < ck->nrows; r++)
					g[r] = -mu * U[r] * ck->fr[r - 1] / T;
				for (r = 0; r < ck->nrows; r++) {
					gx[r] = Dm * NT * g[r];
					for (j = 0; j < ck->nrows; j++)
						hx[r][j] = Dm * g[r] * g[j];
				}
				/* + (-mu Dm NT) * d2T/dx2: diag(fr) (I - u u') diag(fr) / T */
				for (r = 1; r < ck->nrows; r++)
					for (j = 1; j < ck->nrows; j++) {
						double e = (r == j) - U[r] * U[j] / (T * T);

						hx[r][j] += w * ck->fr[r - 1] * ck->fr[j - 1] * e;
					}
			}
		}
		if (force)
			for (r = 0; r < ck->nrows; r++)
				ck->force[r] = -gx[r];
		if (grad)
			for (r = 0; r < ck->nrows; r++)
				for (i = 0; i < NS_DOF; i++)
					grad[i] += ck->J[r][i] * gx[r];
		if (hess)
			for (r = 0; r < ck->nrows; r++)
				for (j = 0; j < ck->nrows; j++) {
					if (hx[r][j] == 0)
						continue;
					for (i = 0; i < NS_DOF; i++) {
						int l;

						for (l = 0; l < NS_DOF; l++)
							hess[i * NS_DOF + l] +=
							    ck->J[r][i] * hx[r][j] * ck->J[j][l];
					}
				}
	}
	return cost;
}

/* Solve the SPD system H d = b (n x n, H overwritten) by Cholesky. Returns -1 when not
 * positive definite. */
static int ns_chol_solve(double *H, const double *b, double *d, int n)
{
	int i, j, k;

	for (j = 0; j < n; j++) {
		double s = H[j * n + j];

		for (k = 0; k < j; k++)
			s -= H[j * n + k] * H[j * n + k];
		if (!(s > 0))
			return -1;
		H[j * n + j] = sqrt(s);
		for (i = j + 1; i < n; i++) {
			double t = H[i * n + j];

			for (k = 0; k < j; k++)
				t -= H[i * n + k] * H[j * n + k];
			H[i * n + j] = t / H[j * n + j];
		}
	}
	for (i = 0; i < n; i++) {
		double t = b[i];

		for (k = 0; k < i; k++)
			t -= H[i * n + k] * d[k];
		d[i] = t / H[i * n + i];
	}
	for (i = n - 1; i >= 0; i--) {
		double t = d[i];

		for (k = i + 1; k < n; k++)
			t -= H[k * n + i] * d[k];
		d[i] = t / H[i * n + i];
	}
	return 0;
}

/* The slope of the cost along d at a + t d; with force set, the rows' forces there
 * and the piece (ns_cost). */
static double ns_slope(const struct ctd_hold_model *m, struct ns_contact *c, const double *a,
    const double *d, double t, int force, long long *piece)
{
	double p[NS_DOF], g[NS_DOF];
	int i;

	for (i = 0; i < NS_DOF; i++)
		p[i] = a[i] + t * d[i];
	ns_cost(m, c, p, g, NULL, force, piece);
	return ns_dot(g, d);
}

/* The exact minimiser of the main solver's convex cost: Newton's direction, an exact
 * line search (the cost is convex along it; piecewise quadratic for the pyramid, so
 * the step that lands in the right active set is exact), until the step vanishes.
 * A full step that lands in the quadratic piece its Hessian was taken in has reached
 * that piece's minimiser inside the piece: the convex cost's minimiser (the
 * optimality condition), so it stops there; from the previous step's qacc this is
 * usually the first step. */
static void ns_minimise(const struct ctd_hold_model *m, struct ns_contact *c, double *a)
{
	double g[NS_DOF], H[NS_DOF * NS_DOF], d[NS_DOF], nb[NS_DOF];
	int it, i;

	for (it = 0; it < CTD_HOLD_NOSLIP_NEWTON_MAX; it++) {
		double s0, s1, lo, hi, t, size = 0, da = 0, cost0;
		long long piece0, piece1;
		int ls, moved;

		cost0 = ns_cost(m, c, a, g, H, 0, &piece0);
		for (i = 0; i < NS_DOF; i++)
			nb[i] = -g[i];
		if (ns_chol_solve(H, nb, d, NS_DOF) != 0)
			break;
		for (i = 0; i < NS_DOF; i++) {
			size = max2(size, fabs(a[i]));
			da = max2(da, fabs(d[i]));
		}
		/* a step at the rounding of a: the minimiser (the pyramid's lands exactly) */
		if (!(da > CTD_HOLD_NOSLIP_NEWTON_REL * (size + 1e-300)))
			break;
		s0 = ns_dot(g, d);
		/* Newton's decrement at the rounding of the cost: the minimiser */
		if (!(s0 < -CTD_HOLD_NOSLIP_DECREMENT * (1 + fabs(cost0))))
			break;
		s1 = ns_slope(m, c, a, d, 1, 1, &piece1);
		if (piece0 >= 0 && piece1 == piece0) {
			/* the forces are the ones ns_slope left, at a + 1 d */
			for (i = 0; i < NS_DOF; i++)
				a[i] += d[i];
			return;
		}
		t = 1;
		if (fabs(s1) > 1e-13 * fabs(s0)) {
			/* bracket the slope's root, then regula falsi with bisection */
			lo = 0;
			hi = 1;
			double slo = s0, shi = s1;

			for (ls = 0; shi < 0 && ls < 60; ls++) {
				lo = hi;
				slo = shi;
				hi *= 2;
				shi = ns_slope(m, c, a, d, hi, 0, NULL);
			}
			for (ls = 0; ls < 100; ls++) {
				double st;

				t = lo - slo * (hi - lo) / (shi - slo);
				if (!(t > lo && t < hi))
					t = 0.5 * (lo + hi);
				st = ns_slope(m, c, a, d, t, 0, NULL);
				if (st == 0 || fabs(st) <= 1e-14 * fabs(s0))
					break;
				if (st < 0) {
					lo = t;
					slo = st;
				} else {
					hi = t;
					shi = st;
				}
				if (hi - lo <= 1e-16 * hi)
					break;
			}
		}
		moved = 0;
		for (i = 0; i < NS_DOF; i++) {
			double before = a[i];

			a[i] += t * d[i];
			moved |= a[i] != before;
		}
		if (!moved)
			break;
	}
	ns_cost(m, c, a, NULL, NULL, 1, NULL);
}

/* The acceleration the rows' forces give: a0 + M^-1 J' f. */
static void ns_qacc(const struct ctd_hold_model *m, const struct ns_contact *c, double *a)
{
	double M[NS_DOF], f[NS_DOF] = {0};
	int i, k, r;

	ns_mass(m, M);
	for (k = 0; k < 2; k++)
		for (r = 0; r < c[k].nrows && c[k].active; r++)
			for (i = 0; i < NS_DOF; i++)
				f[i] += c[k].J[r][i] * c[k].force[r];
	a[0] = 0 + f[0] / M[0];
	a[1] = m->a0_object + f[1] / M[1];
	a[2] = 0 + f[2] / M[2];
	a[3] = m->a0_pad + f[3] / M[3];
	a[4] = m->a0_pad + f[4] / M[4];
}

/* costChange: the dual cost's change for a block; a rise above 1e-10 is undone. */
static double ns_cost_change(
    const double *A, double *f, const double *old, const double *res, int n)
{
	double delta[NS_ROWS], change = 0;
	int i, j;

	for (i = 0; i < n; i++)
		delta[i] = f[i] - old[i];
	for (i = 0; i < n; i++) {
		double v = 0;

		for (j = 0; j < n; j++)
			v += A[i * n + j] * delta[j];
		change += 0.5 * delta[i] * v + delta[i] * res[i];
	}
	if (change > 1e-10) {
		for (i = 0; i < n; i++)
			f[i] = old[i];
		change = 0;
	}
	return change;
}

/* mju_QCQP: min 1/2 x'Ax + x'b subject to sum (x_i/mu_i)^2 <= r^2, by Newton on the
 * multiplier with MuJoCo's iteration count and thresholds. Returns 1 when the
 * constraint is active. */
static int ns_qcqp(
    double *x, const double *Ain, const double *bin, const double *mu, double r, int n)
{
	double A[4], b[2], la = 0, v[2] = {0, 0};
	int it, i, j;

	for (i = 0; i < n; i++) {
		b[i] = bin[i] * mu[i];
		for (j = 0; j < n; j++)
			A[i * n + j] = Ain[i * n + j] * mu[i] * mu[j];
	}
	for (it = 0; it < 20; it++) {
		double L[4], w[2], val, deriv, delta, negb[2] = {-b[0], -b[1]};

		for (i = 0; i < n * n; i++)
			L[i] = A[i];
		for (i = 0; i < n; i++)
			L[i * n + i] += la;
		if (ns_chol_solve(L, negb, v, n) != 0) {
			x[0] = x[1] = 0;
			return 0;
		}
		val = -r * r;
		for (i = 0; i < n; i++)
			val += v[i] * v[i];
		if (val < 1e-10)
			break;
		for (i = 0; i < n * n; i++)
			L[i] = A[i];
		for (i = 0; i < n; i++)
			L[i * n + i] += la;
		ns_chol_solve(L, v, w, n);
		deriv = 0;
		for (i = 0; i < n; i++)
			deriv += v[i] * w[i];
		deriv *= -2.0;
		delta = -val / deriv;
		if (delta < 1e-10)
			break;
		la += delta;
	}
	for (i = 0; i < n; i++)
		x[i] = v[i] * mu[i];
	return la != 0;
}

/* What noslip's sweeps read, set up once per step (the rows do not change during
 * them): a row's residual J_r qacc - aref_r is MuJoCo's efc_b + A f, b_r + (J_r M^-1) g
 * with b_r = J_r a0 - aref_r and the generalised force g = J' f, which each block's
 * update changes by J' (its forces' change); each block's A = J M^-1 J' (diagonal
 * clamped to 1e-10) is fixed too. */
struct ns_sweep {
	double jm[2][NS_ROWS][NS_DOF]; /* J_r M^-1 */
	double b[2][NS_ROWS];
	double g[NS_DOF];
};

static double ns_residual(const struct ns_sweep *w, int k, int r)
{
	return w->b[k][r] + ns_dot(w->jm[k][r], w->g);
}

/* g += J' (f - old) over the block's rows */
static void ns_sweep_update(
    struct ns_sweep *w, const struct ns_contact *ck, const int *rows, const double *old, int n)
{
	int i, l;

	for (i = 0; i < n; i++) {
		double df = ck->force[rows[i]] - old[i];

		if (df != 0)
			for (l = 0; l < NS_DOF; l++)
				w->g[l] += ck->J[rows[i]][l] * df;
	}
}

static void ns_sweep_prepare(
    const struct ctd_hold_model *m, const struct ns_contact *c, struct ns_sweep *w)
{
	double Minv[NS_DOF] = {
	    1 / m->mass, 1 / m->mass, 1 / m->inertia, 1 / m->pad_mass, 1 / m->pad_mass};
	double a0[NS_DOF] = {0, m->a0_object, 0, m->a0_pad, m->a0_pad};
	int k, r, l;

	memset(w->g, 0, sizeof w->g);
	for (k = 0; k < 2; k++)
		for (r = 0; r < c[k].nrows && c[k].active; r++) {
			for (l = 0; l < NS_DOF; l++) {
				w->jm[k][r][l] = c[k].J[r][l] * Minv[l];
				w->g[l] += c[k].J[r][l] * c[k].force[r];
			}
			w->b[k][r] = ns_dot(c[k].J[r], a0) - c[k].aref[r];
		}
}

/* MuJoCo's noslip: sweeps of the friction rows with the normal forces fixed, R left
 * out, contact by contact; stops after maxiter sweeps or when a sweep's scaled
 * improvement falls below the tolerance. Returns the sweeps run. */
static int ns_noslip(const struct ctd_hold_model *m, struct ns_contact *c)
{
	double scale = m->meaninertia * 8; /* meaninertia * max(1, nv): nv = 8 */
	/* pyramid: each edge pair's A (A00, A01, A10, A11), and whether it can move */
	double Apair[2][NS_ROWS / 2][4];
	int moves[2][NS_ROWS / 2];
	struct ns_sweep w;
	int iter = 0, k, r;

	ns_sweep_prepare(m, c, &w);
	for (k = 0; k < 2; k++) {
		struct ns_contact *ck = &c[k];

		if (!ck->active || ck->condim == 1 || ck->elliptic)
			continue;
		for (r = 0; r < ck->nrows; r += 2) {
			double *A = Apair[k][r / 2];

			A[0] = max2(1e-10, ns_dot(w.jm[k][r], ck->J[r]));
			A[1] = ns_dot(w.jm[k][r], ck->J[r + 1]);
			A[2] = ns_dot(w.jm[k][r + 1], ck->J[r]);
			A[3] = max2(1e-10, ns_dot(w.jm[k][r + 1], ck->J[r + 1]));
			/* a pair of identical rows (their tangent has no Jacobian here: the y
			 * slide, the spin, the roll about z) with equal forces stays as it is:
			 * K1 = 0 gives both the mean, the same forces, and no cost change */
			moves[k][r / 2] = memcmp(ck->J[r], ck->J[r + 1], sizeof ck->J[r]) != 0 ||
			    ck->force[r] != ck->force[r + 1];
		}
	}
	while (iter < m->noslip_iterations) {
		double improvement = 0;

		if (iter == 0)
			for (k = 0; k < 2; k++)
				for (r = 0; r < c[k].nrows && c[k].active; r++)
					improvement +=
					    0.5 * c[k].force[r] * c[k].force[r] * c[k].R[r];
		for (k = 0; k < 2; k++) {
			struct ns_contact *ck = &c[k];

			if (!ck->active || ck->condim == 1)
				continue;
			if (!ck->elliptic) {
				int j;

				for (j = 0; j < ck->nrows; j += 2) {
					const double *Ac = Apair[k][j / 2];
					double res[2], old[2], bc[2], mid, y, K0, K1;
					int rows[2] = {j, j + 1};

					if (!moves[k][j / 2])
						continue;
					res[0] = ns_residual(&w, k, j);
					res[1] = ns_residual(&w, k, j + 1);
					old[0] = ck->force[j];
					old[1] = ck->force[j + 1];
					bc[0] = res[0] - (Ac[0] * old[0] + Ac[1] * old[1]);
					bc[1] = res[1] - (Ac[2] * old[0] + Ac[3] * old[1]);
					mid = 0.5 * (ck->force[j] + ck->force[j + 1]);
					K1 = Ac[0] + Ac[3] - Ac[1] - Ac[2];
					K0 = mid * (Ac[0] - Ac[3]) + bc[0] - bc[1];
					if (K1 < MJ_MINVAL) {
						ck->force[j] = ck->force[j + 1] = mid;
					} else {
						y = -K0 / K1;
						if (y < -mid) {
							ck->force[j] = 0;
							ck->force[j + 1] = 2 * mid;
						} else if (y > mid) {
							ck->force[j] = 2 * mid;
							ck->force[j + 1] = 0;
						} else {
							ck->force[j] = mid + y;
							ck->force[j + 1] = mid - y;
						}
					}
					improvement -=
					    ns_cost_change(Ac, ck->force + j, old, res, 2);
					ns_sweep_update(&w, ck, rows, old, 2);
				}
			} else {
				/* the tangent rows that move here: z (row 2), and the roll about y
				 * (row 4) at condim 6; the others stay 0 (their block is apart) */
				int rows[2] = {2, 4}, n = ck->condim == 6 ? 2 : 1, i, j;
				double res[2], old[2], Ac[4], bc[2], mu[2], f[2];

				for (i = 0; i < n; i++) {
					res[i] = ns_residual(&w, k, rows[i]);
					old[i] = ck->force[rows[i]];
					mu[i] = ck->fr[rows[i] - 1];
					for (j = 0; j < n; j++)
						Ac[i * n + j] =
						    ns_dot(w.jm[k][rows[i]], ck->J[rows[j]]);
					Ac[i * n + i] = max2(1e-10, Ac[i * n + i]);
				}
				for (i = 0; i < n; i++) {
					bc[i] = res[i];
					for (j = 0; j < n; j++)
						bc[i] -= Ac[i * n + j] * old[j];
				}
				if (ck->force[0] < MJ_MINVAL) {
					f[0] = f[1] = 0;
				} else if (ns_qcqp(f, Ac, bc, mu, ck->force[0], n)) {
					double sq = 0, sc;

					for (i = 0; i < n; i++)
						sq += f[i] * f[i] / (mu[i] * mu[i]);
					sc =
					    sqrt(ck->force[0] * ck->force[0] / max2(MJ_MINVAL, sq));
					for (i = 0; i < n; i++)
						f[i] *= sc;
				}
				for (i = 0; i < n; i++)
					ck->force[rows[i]] = f[i];
				improvement -= ns_cost_change(Ac, f, old, res, n);
				for (i = 0; i < n; i++)
					ck->force[rows[i]] = f[i];
				ns_sweep_update(&w, ck, rows, old, n);
			}
		}
		improvement = improvement / scale;
		iter++;
		if (improvement < m->noslip_tolerance)
			break;
	}
	return iter;
}

void ctd_hold_noslip_start(struct ctd_hold_noslip_state *s)
{
	memset(s, 0, sizeof *s);
}

void ctd_hold_noslip_step(const struct ctd_hold_model *m, struct ctd_hold_noslip_state *s)
{
	struct ns_contact c[2];
	double a[NS_DOF] = {0, m->a0_object, 0, m->a0_pad, m->a0_pad}, h = m->timestep;

	ns_contact_make(m, s, 0, &c[0]);
	ns_contact_make(m, s, 1, &c[1]);
	s->noslip_sweeps = 0;
	if (c[0].active || c[1].active) {
		memcpy(a, s->qacc, sizeof a);
		if (a[1] == 0 && a[3] == 0)
			a[1] = m->a0_object, a[3] = a[4] = m->a0_pad;
		ns_minimise(m, c, a);
		if (m->noslip_iterations > 0) {
			s->noslip_sweeps = ns_noslip(m, c);
			ns_qacc(m, c, a);
		}
	}
	memcpy(s->qacc, a, sizeof a);
	s->vx += h * a[0];
	s->vz += h * a[1];
	s->wy += h * a[2];
	s->vqL += h * a[3];
	s->vqR += h * a[4];
	s->x += h * s->vx;
	s->z += h * s->vz;
	s->qL += h * s->vqL;
	s->qR += h * s->vqR;
}

/* 1 when the step from p to s left every coordinate but z where it was: the state
 * repeats and the object descends at a constant speed. */
static int ns_steady(const struct ctd_hold_model *m, const struct ctd_hold_noslip_state *p,
    const struct ctd_hold_noslip_state *s)
{
	/* z's speed tightly; the others (whose rounding noise, 1e-13 m/s at the contact,
	 * moves the descent only through the rows) to CTD_HOLD_NOSLIP_STEADY_OTHER */
	double tolz = CTD_HOLD_NOSLIP_STEADY_REL * fabs(s->vz) + CTD_HOLD_NOSLIP_STEADY_ABS;
	double tolv = CTD_HOLD_NOSLIP_STEADY_OTHER;
	double tolx = CTD_HOLD_NOSLIP_STEADY_REL * m->radius;

	return fabs(s->vz - p->vz) <= tolz && fabs(s->vx - p->vx) <= tolv &&
	    fabs(s->wy - p->wy) * m->radius <= tolv && fabs(s->vqL - p->vqL) <= tolv &&
	    fabs(s->vqR - p->vqR) <= tolv && fabs(s->x - p->x) <= tolx &&
	    fabs(s->qL - p->qL) <= tolx && fabs(s->qR - p->qR) <= tolx;
}

/* The answers with noslip: step the asymmetric scene; once its state repeats (every
 * coordinate but z, for CTD_HOLD_SETTLE_RUN steps) the rest of the run is a constant
 * descent, summed in closed form. */
static void noslip_run(
    const struct ctd_hold *h, const struct ctd_hold_model *m, struct ctd_hold_answer *out)
{
	struct ctd_hold_noslip_state s, p;
	double ht = h->option.timestep;
	long n = lround(h->duration / ht), k, run = 0;
	int steady = 0;

	ctd_hold_noslip_start(&s);
	out->creep_closed_form = 0;
	for (k = 1; k <= n; k++) {
		p = s;
		ctd_hold_noslip_step(m, &s);
		if (out->time_to_slip < 0 && -s.z >= h->slip_limit)
			out->time_to_slip = k * ht;
		if (hold_crushed(m, 0.5 * (s.qL + s.qR))) {
			out->crushed = 1;
			break;
		}
		if (-s.z > m->half_z || s.z > m->half_z) {
			out->falls = 1;
			out->fall_time = k * ht;
			break;
		}
		run = ns_steady(m, &p, &s) ? run + 1 : 0;
		if (run >= CTD_HOLD_SETTLE_RUN && k < n) {
			/* z after j more steps: z + j h vz */
			double dz = ht * s.vz, left = (double)(n - k);

			steady = 1;
			if (out->time_to_slip < 0 && dz < 0 && -(s.z + left * dz) >= h->slip_limit)
				out->time_to_slip = (k + ceil((h->slip_limit + s.z) / -dz)) * ht;
			if (dz != 0 && fabs(s.z + left * dz) > m->half_z) {
				double j = floor((m->half_z - fabs(s.z)) / fabs(dz)) + 1;

				out->falls = 1;
				out->fall_time = (k + j) * ht;
				s.z += j * dz;
				k += (long)j;
				break;
			}
			s.z += left * dz;
			k = n;
			break;
		}
	}
	out->steps = k > n ? n : k;
	out->slip = -s.z;
	if (out->crushed)
		return;
	out->penetration = -0.5 * (hold_dist(m, s.qL) + hold_dist(m, s.qR));
	out->creep_velocity = 0;
	out->creep_settled = 0;
	out->creep_steps = out->steps;
	if (!out->holds)
		return;
	if (steady && !out->falls) {
		out->creep_settled = 1;
	} else {
		/* the creep as if the pads were long enough: step on until the speed settles */
		double prev_v = s.vz;
		long j, settle = 0;

		for (j = 1; j <= CTD_HOLD_SETTLE_MAX_STEPS; j++) {
			ctd_hold_noslip_step(m, &s);
			if (hold_crushed(m, 0.5 * (s.qL + s.qR)) || !isfinite(s.vz))
				break;
			settle = fabs(s.vz - prev_v) <=
			        CTD_HOLD_SETTLE_REL * fabs(s.vz) + CTD_HOLD_NOSLIP_STEADY_ABS
			    ? settle + 1
			    : 0;
			prev_v = s.vz;
			if (settle >= CTD_HOLD_SETTLE_RUN) {
				out->creep_settled = 1;
				break;
			}
		}
		out->creep_steps += j > CTD_HOLD_SETTLE_MAX_STEPS ? CTD_HOLD_SETTLE_MAX_STEPS : j;
		out->penetration = -0.5 * (hold_dist(m, s.qL) + hold_dist(m, s.qR));
	}
	if (out->creep_settled)
		out->creep_velocity = -s.vz;
	if (out->time_to_slip < 0 && !out->falls && out->creep_settled && out->creep_velocity > 0) {
		out->time_to_slip = n * ht + (h->slip_limit - out->slip) / out->creep_velocity;
		out->time_to_slip_extrapolated = 1;
	}
}
