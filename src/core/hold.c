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

void ctd_hold_default(struct ctd_hold *h)
{
	memset(h, 0, sizeof *h);
	h->radius = DEFAULT_HOLD_RADIUS;
	h->mass = DEFAULT_HOLD_MASS;
	ctd_pair_geom_default(&h->object);
	ctd_pair_geom_default(&h->pad);
	/* Menagerie's SO-101 gripper class */
	h->pad.solref[0] = 0.01;
	h->pad.solref[1] = 1;
	h->pad.condim = 6;
	h->pad.friction[0] = 1;
	h->pad.friction[1] = 5e-3;
	h->pad.friction[2] = 5e-4;
	h->pad.priority = 1;
	h->pad_size[0] = DEFAULT_HOLD_PAD_HX;
	h->pad_size[1] = DEFAULT_HOLD_PAD_HY;
	h->pad_size[2] = DEFAULT_HOLD_PAD_HZ;
	h->pad_mass = DEFAULT_HOLD_PAD_MASS;
	h->grip_force = DEFAULT_HOLD_GRIP_FORCE;
	ctd_scene_option_default(&h->option);
	h->duration = DEFAULT_HOLD_DURATION;
	h->slip_limit = DEFAULT_HOLD_SLIP_LIMIT;
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
	{
		const double M[CTD_HOLD_NOSLIP_DOF] = {
		    h->mass, h->mass, m->inertia, h->pad_mass, h->pad_mass};
		const double a0[CTD_HOLD_NOSLIP_DOF] = {0, m->a0_object, 0, m->a0_pad, m->a0_pad};
		int i;

		for (i = 0; i < CTD_HOLD_NOSLIP_DOF; i++) {
			m->dof_mass[i] = M[i];
			m->dof_inv_mass[i] = 1 / M[i];
			m->dof_accel0[i] = a0[i];
		}
	}
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

/* ---- the asymmetric step (noslip) ----
 *
 * Coordinates a = (object x, object z, rotation about y, left pad, right pad); the
 * object's y, its rotations about x and z stay 0 by the mirror y -> -y, and every row
 * the reduction drops (the y tangent, the spin, the roll about z) has the normal row's
 * Jacobian in these coordinates. Contact 0 is the left pad (geom 1), contact 1 the
 * right one, each with MuJoCo's frame: normal (s, 0, 0) from the sphere to the pad,
 * tangents (0, 1, 0) and (0, 0, s). */

#define NS_DOF CTD_HOLD_NOSLIP_DOF
#define NS_ROWS 10     /* per contact: pyramidal 2*(condim-1) <= 10, elliptic condim <= 6 */
#define NS_CONE_ROWS 3 /* an elliptic contact's rows kept: normal, z tangent, roll about y */
#define NS_ROW_DOF 4   /* the coordinates a contact's rows act on: x, z, wy and its pad */

/* A contact's rows act on four of the five coordinates (the other pad's is 0 in all of
 * them): a row is kept as those four, the last standing for coordinate q (3 + side).
 * The sums and updates below take the terms in the order of the five-coordinate ones,
 * so the arithmetic is the same, and the zero terms are not computed. */
struct ns_contact {
	int active, nrows, elliptic, condim, q;
	double dist, imp, K, B, rr;
	double R0, R1, mu;     /* R of the normal (pyramid: every) row, the tangent rows; cone mu */
	double fr[5];          /* the contact's friction */
	double jn[NS_ROW_DOF]; /* the normal row */
	double jk[5][NS_ROW_DOF]; /* the tangent rows (y, z, spin, roll y, roll z) */
	double J[NS_ROWS][NS_ROW_DOF], aref[NS_ROWS], R[NS_ROWS], force[NS_ROWS];
	double D[NS_ROWS]; /* 1 / R */
	/* how many of MuJoCo's rows a row stands for: a pyramid's rows that equal the
	 * normal row here (both edges of the y slide, the spin and the roll about z) are
	 * one row, with the same force in each; pair0 is the first edge pair that can move */
	double mult[NS_ROWS];
	int pair0;
	int tangent[NS_ROWS];      /* a pyramid edge's tangent k: J = jn +- fr[k] jk[k] */
	double fric[NS_CONE_ROWS]; /* elliptic: a tangent row's friction coefficient */
};

/* written out: the step's inner loops are these five-term sums */
static inline double ns_dot(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4];
}

/* y += a x */
static inline void ns_axpy(double *y, double a, const double *x)
{
	y[0] += a * x[0];
	y[1] += a * x[1];
	y[2] += a * x[2];
	y[3] += a * x[3];
	y[4] += a * x[4];
}

/* a contact's row j (struct ns_contact: its pad's coordinate q) . the 5-vector v */
static inline double ns_row_dot(const double *j, int q, const double *v)
{
	return j[0] * v[0] + j[1] * v[1] + j[2] * v[2] + j[3] * v[q];
}

/* the 5-vector y += a j, j a contact's row */
static inline void ns_row_axpy(double *y, double a, const double *j, int q)
{
	y[0] += a * j[0];
	y[1] += a * j[1];
	y[2] += a * j[2];
	y[q] += a * j[3];
}

/* the coordinate of a row's entry i */
static inline int ns_row_coord(int i, int q)
{
	return i < 3 ? i : q;
}

/* Tangent k of a contact's frame (y, z, spin, roll y, roll z) has a Jacobian in these
 * coordinates only for z and the roll about y (odd k): the others act on the object's
 * y, its rotations about x and z, which stay 0. */
static int ns_tangent_moves(int k)
{
	return k % 2 == 1;
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

	/* the scalars and the frame rows; the row arrays are written before they are read
	 * (rows < nrows), and clearing the whole struct was a tenth of the step */
	c->nrows = c->pair0 = c->elliptic = c->condim = 0;
	c->imp = c->K = c->B = c->rr = c->R0 = c->R1 = c->mu = 0;
	c->q = 3 + side;
	memset(c->jn, 0, sizeof c->jn);
	/* only the tangents that move here are read (ns_tangent_moves) */
	memset(c->jk[1], 0, sizeof c->jk[1]);
	memset(c->jk[3], 0, sizeof c->jk[3]);
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
	c->jn[3] = sg * (side == 0 ? 1 : -1);
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
		c->D[0] = 1 / c->R0;
		c->aref[0] = -c->B * ns_row_dot(c->jn, c->q, v) - spring;
		c->mult[0] = 1;
		c->nrows = c->pair0 = 1;
		return;
	}
	if (c->elliptic) {
		c->R0 = max2(MJ_MINVAL, (1 - c->imp) * m->tran / c->imp);
		c->R1 = c->R0 / max2(MJ_MINVAL, m->impratio);
		c->mu = f0 * sqrt(c->R1 / c->R0);
		memcpy(c->J[n], c->jn, sizeof c->jn);
		c->R[n] = c->R0;
		c->D[n] = 1 / c->R0;
		c->aref[n++] = -c->B * ns_row_dot(c->jn, c->q, v) - spring;
		c->fric[0] = 0;
		for (k = 0; k < condim - 1; k++) {
			/* a tangent without a Jacobian here (J = 0, aref = 0) has x = 0: no
			 * force, nothing added to the cone's T, and noslip leaves it at 0 */
			if (!ns_tangent_moves(k))
				continue;
			memcpy(c->J[n], c->jk[k], sizeof c->jn);
			c->fric[n] = c->fr[k];
			/* R_j mu_j^2 = R1 f0^2: the spin and roll rows' own R */
			c->R[n] =
			    k == 0 ? c->R1 : c->R1 * c->fr[0] * c->fr[0] / (c->fr[k] * c->fr[k]);
			c->D[n] = 1 / c->R[n];
			c->aref[n++] = -c->B * ns_row_dot(c->jk[k], c->q, v) - 0.0;
		}
		for (k = 0; k < n; k++)
			c->mult[k] = 1;
	} else {
		double R0 = max2(MJ_MINVAL, (1 - c->imp) * (m->tran + f0 * f0 * m->tran) / c->imp);
		double R1 = R0 / max2(MJ_MINVAL, m->impratio), mu = f0 * sqrt(R1 / R0);
		double Rpy = 2 * mu * mu * R0, Dpy = 1 / Rpy;
		int i;

		double same = 0;

		c->R0 = c->R1 = Rpy;
		for (k = 0; k < condim - 1; k++)
			same += ns_tangent_moves(k) ? 0 : 2;
		if (same > 0) {
			memcpy(c->J[n], c->jn, sizeof c->jn);
			c->R[n] = Rpy;
			c->D[n] = Dpy;
			c->aref[n] = -c->B * ns_row_dot(c->jn, c->q, v) - spring;
			c->mult[n++] = same;
		}
		c->pair0 = n;
		for (k = 0; k < condim - 1; k++) {
			double sgn;

			if (!ns_tangent_moves(k))
				continue;
			for (sgn = 1; sgn >= -1; sgn -= 2) {
#pragma GCC unroll 4
				for (i = 0; i < NS_ROW_DOF; i++)
					c->J[n][i] = c->jn[i] + sgn * c->fr[k] * c->jk[k][i];
				c->R[n] = Rpy;
				c->D[n] = Dpy;
				c->tangent[n] = k;
				c->aref[n] = -c->B * ns_row_dot(c->J[n], c->q, v) - spring;
				c->mult[n++] = 1;
			}
		}
	}
	c->nrows = n;
}

/* An elliptic contact's zone of MuJoCo's soft cone at the rows' x = J a - aref: top
 * (no force), bottom (every row its own quadratic: the cost is quadratic there) or
 * middle; with U_r = x_r fric_r, N = x_0 mu and T = |U|. */
enum { NS_ZONE_TOP, NS_ZONE_BOTTOM, NS_ZONE_MIDDLE };

static inline int ns_cone_zone(
    const struct ns_contact *ck, const double *x, double *U, double *N, double *T)
{
	double mu = ck->mu, t = 0;
	int r;

	for (r = 1; r < ck->nrows; r++) {
		U[r] = x[r] * ck->fric[r];
		t += U[r] * U[r];
	}
	t = sqrt(t);
	*N = x[0] * mu;
	*T = t;
	if (*N >= mu * t || (t <= 0 && *N >= 0))
		return NS_ZONE_TOP;
	if (mu * *N + t <= 0 || (t <= 0 && *N < 0))
		return NS_ZONE_BOTTOM;
	return NS_ZONE_MIDDLE;
}

/* The cost of both contacts' rows at a, with its gradient and Hessian (either may be
 * NULL), and the rows' forces when force is set. *piece (when not NULL) names the
 * quadratic piece of the cost a lies in (a bit per pushing row; an elliptic contact's
 * bottom zone a bit), or is -1 in an elliptic middle zone, where the cost is not
 * quadratic. */
static double ns_cost(const struct ctd_hold_model *m, struct ns_contact *c, const double *a,
    double *grad, double *hess, int force, long long *piece)
{
	const double *M = m->dof_mass, *a0 = m->dof_accel0;
	double cost = 0;
	int i, j, k, r;

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
		double x[NS_ROWS] = {0}, gx[NS_ROWS] = {0}, hx[NS_CONE_ROWS][NS_CONE_ROWS];

		if (!ck->active)
			continue;
		for (r = 0; r < ck->nrows; r++)
			x[r] = ns_row_dot(ck->J[r], ck->q, a) - ck->aref[r];
		if (!ck->elliptic) {
			/* each row its own quadratic: a diagonal hx, added row by row */
			for (r = 0; r < ck->nrows; r++) {
				double D = ck->D[r], n = ck->mult[r];

				if (force)
					ck->force[r] = x[r] < 0 ? -(D * x[r]) : -0.0;
				if (!(x[r] < 0))
					continue;
				if (piece && *piece >= 0)
					*piece |= 1LL << (k * NS_ROWS + r);
				cost += n * (0.5 * D * x[r] * x[r]);
				gx[r] = D * x[r];
				if (grad)
					ns_row_axpy(grad, n * gx[r], ck->J[r], ck->q);
				if (hess)
					for (i = 0; i < NS_ROW_DOF; i++)
						if (ck->J[r][i] != 0)
							ns_row_axpy(
							    &hess[ns_row_coord(i, ck->q) * NS_DOF],
							    ck->J[r][i] * (n * D), ck->J[r], ck->q);
			}
			continue;
		}
		memset(hx, 0, sizeof hx);
		{
			double mu = ck->mu, N, T, U[NS_ROWS] = {0};
			int zone = ns_cone_zone(ck, x, U, &N, &T);

			if (zone == NS_ZONE_TOP) {
				/* top zone: no force */
			} else if (zone == NS_ZONE_BOTTOM) {
				if (piece && *piece >= 0)
					*piece |= 1LL << (k * NS_ROWS);
				for (r = 0; r < ck->nrows; r++) {
					double D = ck->D[r];

					cost += 0.5 * D * x[r] * x[r];
					gx[r] = D * x[r];
					hx[r][r] = D;
				}
			} else {
				double Dm = ck->D[0] / (mu * mu * (1 + mu * mu)), NT = N - mu * T;
				double g[NS_ROWS], w = -mu * Dm * NT / T;

				if (piece)
					*piece = -1;
				cost += 0.5 * Dm * NT * NT;
				g[0] = mu;
				for (r = 1; r < ck->nrows; r++)
					g[r] = -mu * U[r] * ck->fric[r] / T;
				for (r = 0; r < ck->nrows; r++) {
					gx[r] = Dm * NT * g[r];
					for (j = 0; j < ck->nrows; j++)
						hx[r][j] = Dm * g[r] * g[j];
				}
				/* + (-mu Dm NT) * d2T/dx2: diag(fr) (I - u u') diag(fr) / T */
				for (r = 1; r < ck->nrows; r++)
					for (j = 1; j < ck->nrows; j++) {
						double e = (r == j) - U[r] * U[j] / (T * T);

						hx[r][j] += w * ck->fric[r] * ck->fric[j] * e;
					}
			}
		}
		if (force)
			for (r = 0; r < ck->nrows; r++)
				ck->force[r] = -gx[r];
		if (grad)
			for (r = 0; r < ck->nrows; r++)
				ns_row_axpy(grad, gx[r], ck->J[r], ck->q);
		if (hess)
			for (r = 0; r < ck->nrows; r++)
				for (j = 0; j < ck->nrows; j++) {
					if (hx[r][j] == 0)
						continue;
#pragma GCC unroll 4
					for (i = 0; i < NS_ROW_DOF; i++)
						if (ck->J[r][i] != 0)
							ns_row_axpy(
							    &hess[ns_row_coord(i, ck->q) * NS_DOF],
							    ck->J[r][i] * hx[r][j], ck->J[j],
							    ck->q);
				}
	}
	return cost;
}

/* Solve the main solve's 5 x 5 SPD system H d = b (H overwritten; only its lower
 * triangle is read) by an LDL' factorisation. Returns -1 when not positive definite (a
 * pivot is not positive). Its size is a constant, so the unroll pragmas take effect: the
 * generic loops cost the step more than the arithmetic. The factorisation is one chain
 * of dependent operations: LDL' has no square roots, and each column's divisions are
 * multiplications by its pivot's inverse (a division's latency is several
 * multiplications'; the last bits differ from a Cholesky's, and the answers keep to
 * MuJoCo as before). */
static int ns_ldl_solve5(double *H, const double *b, double *d)
{
	const int n = NS_DOF;
	double inv[NS_DOF], ld[NS_DOF];
	int i, j, k;

#pragma GCC unroll 5
	for (j = 0; j < n; j++) {
		double p = H[j * n + j];

		/* ld[k] = L_jk D_k, for column j's entries below */
#pragma GCC unroll 5
		for (k = 0; k < j; k++) {
			ld[k] = H[j * n + k] * H[k * n + k];
			p -= H[j * n + k] * ld[k];
		}
		if (!(p > 0))
			return -1;
		H[j * n + j] = p;
		inv[j] = 1 / p;
#pragma GCC unroll 5
		for (i = j + 1; i < n; i++) {
			double t = H[i * n + j];

#pragma GCC unroll 5
			for (k = 0; k < j; k++)
				t -= H[i * n + k] * ld[k];
			H[i * n + j] = t * inv[j];
		}
	}
#pragma GCC unroll 5
	for (i = 0; i < n; i++) {
		double t = b[i];

#pragma GCC unroll 5
		for (k = 0; k < i; k++)
			t -= H[i * n + k] * d[k];
		d[i] = t;
	}
#pragma GCC unroll 5
	for (i = 0; i < n; i++)
		d[i] *= inv[i];
#pragma GCC unroll 5
	for (i = n - 1; i >= 0; i--) {
		double t = d[i];

#pragma GCC unroll 5
		for (k = i + 1; k < n; k++)
			t -= H[k * n + i] * d[k];
		d[i] = t;
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

/* The shortcut where every row is its own quadratic (a pyramid's rows; an elliptic
 * contact's in its bottom zone, none in its top zone): the minimiser of the quadratic
 * piece made of the rows that push at a (the previous step's qacc), which is the convex
 * cost's minimiser when exactly those rows push there too (the optimality conditions).
 * Returns 0 with a and the rows' forces set; 1, a untouched, when the rows that push
 * changed, with next the piece's minimiser (the next piece to try: an active-set step);
 * -1 when no piece applies (an elliptic contact in its middle zone, where the cost is
 * not quadratic). */
static int ns_minimise_piece(
    const struct ctd_hold_model *m, struct ns_contact *c, double *a, double *next)
{
	const double *M = m->dof_mass, *a0 = m->dof_accel0;
	double H[NS_DOF * NS_DOF] = {0}, b[NS_DOF], sol[NS_DOF];
	int push[2][NS_ROWS], zone[2] = {0, 0}, i, j, k, r;

	for (i = 0; i < NS_DOF; i++) {
		H[i * NS_DOF + i] = M[i];
		b[i] = M[i] * a0[i];
	}
	for (k = 0; k < 2; k++) {
		const struct ns_contact *ck = &c[k];

		if (!ck->active)
			continue;
		if (ck->elliptic) {
			double x[NS_ROWS] = {0}, U[NS_ROWS], N, T;

			for (r = 0; r < ck->nrows; r++)
				x[r] = ns_row_dot(ck->J[r], ck->q, a) - ck->aref[r];
			zone[k] = ns_cone_zone(ck, x, U, &N, &T);
			if (zone[k] == NS_ZONE_MIDDLE)
				return -1;
		}
		for (r = 0; r < ck->nrows; r++) {
			const double *u = ck->J[r];
			double w = ck->mult[r] * ck->D[r];

			push[k][r] = ck->elliptic ? zone[k] == NS_ZONE_BOTTOM
			                          : ns_row_dot(u, ck->q, a) - ck->aref[r] < 0;
			if (!push[k][r])
				continue;
#pragma GCC unroll 4
			for (i = 0; i < NS_ROW_DOF; i++) {
				double wj = w * u[i];
				int ci = ns_row_coord(i, ck->q);

				b[ci] += wj * ck->aref[r];
				/* H's lower triangle (all the factorisation reads): w J_i J_j */
#pragma GCC unroll 4
				for (j = 0; j <= i; j++)
					H[ci * NS_DOF + ns_row_coord(j, ck->q)] += wj * u[j];
			}
		}
	}
	if (ns_ldl_solve5(H, b, sol) != 0)
		return -1;
	for (k = 0; k < 2; k++) {
		struct ns_contact *ck = &c[k];
		double x[NS_ROWS] = {0}, U[NS_ROWS], N, T;

		if (!ck->active)
			continue;
		for (r = 0; r < ck->nrows; r++)
			x[r] = ns_row_dot(ck->J[r], ck->q, sol) - ck->aref[r];
		if (ck->elliptic && ns_cone_zone(ck, x, U, &N, &T) != zone[k]) {
			memcpy(next, sol, sizeof sol);
			return 1;
		}
		for (r = 0; r < ck->nrows; r++) {
			int pushes = ck->elliptic ? zone[k] == NS_ZONE_BOTTOM : x[r] < 0;

			if (pushes != push[k][r]) {
				memcpy(next, sol, sizeof sol);
				return 1;
			}
			ck->force[r] = pushes ? -(ck->D[r] * x[r]) : -0.0;
		}
	}
	memcpy(a, sol, sizeof sol);
	return 0;
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
		if (ns_ldl_solve5(H, nb, d) != 0)
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

/* The main solve from a (the previous step's qacc): the pieces of the rows that push
 * there, then at that piece's minimiser, and so on (the active set usually settles in a
 * step or two); Newton's loop from a when they do not settle. */
static void ns_minimise_pieces(const struct ctd_hold_model *m, struct ns_contact *c, double *a)
{
	double at[NS_DOF], next[NS_DOF];
	int tries, rc = 1;

	memcpy(at, a, sizeof at);
	for (tries = 0; tries < CTD_HOLD_NOSLIP_PIECE_TRIES && rc == 1; tries++) {
		rc = ns_minimise_piece(m, c, at, next);
		if (rc == 0) {
			memcpy(a, at, sizeof at);
			return;
		}
		memcpy(at, next, sizeof at);
	}
	ns_minimise(m, c, a);
}

/* The acceleration the rows' forces give: a0 + M^-1 J' f. */
static void ns_qacc(const struct ctd_hold_model *m, const struct ns_contact *c, double *a)
{
	const double *M = m->dof_mass;
	double f[NS_DOF] = {0};
	int k, r;

	for (k = 0; k < 2; k++)
		for (r = 0; r < c[k].nrows && c[k].active; r++)
			if (c[k].force[r] != 0)
				ns_row_axpy(f, c[k].mult[r] * c[k].force[r], c[k].J[r], c[k].q);
	a[0] = 0 + f[0] / M[0];
	a[1] = m->a0_object + f[1] / M[1];
	a[2] = 0 + f[2] / M[2];
	a[3] = m->a0_pad + f[3] / M[3];
	a[4] = m->a0_pad + f[4] / M[4];
}

/* costChange: the dual cost's change for a block of n <= 2 rows; a rise above 1e-10 is
 * undone. */
static inline double ns_cost_change(
    const double *A, double *f, const double *old, const double *res, int n)
{
	double delta[2], change = 0;
	int i, j;

#pragma GCC unroll 2
	for (i = 0; i < n; i++)
		delta[i] = f[i] - old[i];
#pragma GCC unroll 2
	for (i = 0; i < n; i++) {
		double v = 0;

#pragma GCC unroll 2
		for (j = 0; j < n; j++)
			v += A[i * n + j] * delta[j];
		change += 0.5 * delta[i] * v + delta[i] * res[i];
	}
	if (change > 1e-10) {
#pragma GCC unroll 2
		for (i = 0; i < n; i++)
			f[i] = old[i];
		change = 0;
	}
	return change;
}

/* (L + la I)^-1 y for n <= 2, L symmetric, by the explicit inverse: mju_QCQP's
 * Cholesky of the 2 x 2 system is a chain of two square roots and their inverses, this
 * one division (the last bits differ). Returns -1 when L + la I is not positive definite
 * (where that factorisation fails). */
static inline int ns_solve2(const double *L, double la, const double *y, double *x, int n)
{
	double a00 = L[0] + la, det, inv;

	if (!(a00 > 0))
		return -1;
	if (n == 1) {
		x[0] = y[0] / a00;
		return 0;
	}
	det = a00 * (L[3] + la) - L[1] * L[2];
	if (!(det > 0))
		return -1;
	inv = 1 / det;
	x[0] = ((L[3] + la) * y[0] - L[1] * y[1]) * inv;
	x[1] = (a00 * y[1] - L[2] * y[0]) * inv;
	return 0;
}

/* mju_QCQP: min 1/2 x'Ax + x'b subject to sum (x_i/mu_i)^2 <= r^2, by Newton on the
 * multiplier with MuJoCo's iteration count and thresholds. Returns 1 when the
 * constraint is active. */
static inline int ns_qcqp(
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
		double w[2] = {0, 0}, val, deriv, delta, negb[2] = {-b[0], -b[1]};

		if (ns_solve2(A, la, negb, v, n) != 0) {
			x[0] = x[1] = 0;
			return 0;
		}
		val = -r * r;
		for (i = 0; i < n; i++)
			val += v[i] * v[i];
		if (val < 1e-10)
			break;
		ns_solve2(A, la, v, w, n);
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

/* One block of noslip's sweep: an edge pair of a contact's pyramid, or an elliptic
 * contact's friction rows that move here. What does not change during the sweeps is set
 * up once per step (the rows do not): a row's residual J_r qacc - aref_r is MuJoCo's
 * efc_b + A f, b_r + (J_r M^-1) g with b_r = J_r a0 - aref_r and the generalised force
 * g = J' f, which each block's update changes by J' (its forces' change); the block's
 * A = J M^-1 J' (diagonal clamped to 1e-10) is fixed too. */
struct ns_block {
	struct ns_contact *c;
	/* its rows: n consecutive rows of c (2 for an edge pair, 1 or 2 elliptic), their
	 * forces and Jacobians there */
	int n, q;
	double *force;
	double (*J)[NS_ROW_DOF];
	double A[4]; /* n x n */
	double jm[2][NS_ROW_DOF], b[2];
	double mu[2]; /* elliptic: the rows' friction coefficients */
	/* an edge pair (pair set): its rows' difference J_0 - J_1, times M^-1, b_0 - b_1,
	 * and the sums of A its update takes (the same at every sweep; A_00 - A_11 is 0) */
	int pair;
	double jd[NS_ROW_DOF], jdm[NS_ROW_DOF], bd;
	double K1, a02, a13, inv_K1; /* inv_K1 = 1 / K1 */
};

/* An elliptic contact's friction block (n rows from r0). */
static inline __attribute__((always_inline)) void ns_block_make(const struct ctd_hold_model *m,
    const double *a0, struct ns_contact *c, int r0, int n, struct ns_block *bk)
{
	const double *Minv = m->dof_inv_mass;
	int i, j, l;

	bk->c = c;
	bk->force = &c->force[r0];
	bk->J = &c->J[r0];
	bk->n = n;
	bk->q = c->q;
	for (i = 0; i < n; i++) {
		const double *J = bk->J[i];

#pragma GCC unroll 4
		for (l = 0; l < NS_ROW_DOF; l++)
			bk->jm[i][l] = J[l] * Minv[ns_row_coord(l, c->q)];
		bk->b[i] = ns_row_dot(J, c->q, a0) - c->aref[r0 + i];
		bk->mu[i] = c->fric[r0 + i];
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			bk->A[i * n + j] = bk->jm[i][0] * bk->J[j][0] + bk->jm[i][1] * bk->J[j][1] +
			    bk->jm[i][2] * bk->J[j][2] + bk->jm[i][3] * bk->J[j][3];
	for (i = 0; i < n; i++)
		bk->A[i * n + i] = max2(1e-10, bk->A[i * n + i]);
	bk->pair = 0;
}

/* A pyramid edge pair's block (rows r0, r0 + 1 of c: J = jn +- f jk, tangent k). The
 * normal row acts on x and the pad, the tangent on z and the rotation, so jn M^-1 jk = 0
 * and A = nn + f^2 kk on the diagonal, nn - f^2 kk off it (nn = jn M^-1 jn, kk = jk M^-1
 * jk): two sums instead of A's four. J_0 - J_1 = 2 f jk, entry by entry as the rows'
 * own difference (their supports are apart). */
static inline __attribute__((always_inline)) void ns_pair_make(const struct ctd_hold_model *m,
    const double *a0, struct ns_contact *c, int r0, struct ns_block *bk)
{
	const double *Minv = m->dof_inv_mass, *jn = c->jn, *jk = c->jk[c->tangent[r0]];
	double nn = 0, kk = 0, f = c->fr[c->tangent[r0]], f2kk;
	int l;

	bk->c = c;
	bk->force = &c->force[r0];
	bk->J = &c->J[r0];
	bk->n = 2;
	bk->q = c->q;
	bk->pair = 1;
#pragma GCC unroll 4
	for (l = 0; l < NS_ROW_DOF; l++) {
		double minv = Minv[ns_row_coord(l, c->q)];

		nn += jn[l] * minv * jn[l];
		kk += jk[l] * minv * jk[l];
		/* the rows' entries where jk is not 0 are +-f jk exactly (jn is 0 there) */
		bk->jd[l] = c->J[r0][l] - c->J[r0 + 1][l];
		bk->jdm[l] = c->J[r0][l] * minv - c->J[r0 + 1][l] * minv;
	}
	f2kk = f * f * kk;
	bk->A[0] = bk->A[3] = max2(1e-10, nn + f2kk);
	bk->A[1] = bk->A[2] = nn - f2kk;
	bk->K1 = bk->A[0] + bk->A[3] - bk->A[1] - bk->A[2];
	bk->inv_K1 = bk->K1 < MJ_MINVAL ? 0 : 1 / bk->K1;
	bk->a02 = bk->A[0] - bk->A[2];
	bk->a13 = bk->A[1] - bk->A[3];
	bk->bd = (ns_row_dot(c->J[r0], c->q, a0) - c->aref[r0]) -
	    (ns_row_dot(c->J[r0 + 1], c->q, a0) - c->aref[r0 + 1]);
}

/* A pyramid edge pair's update in a sweep, with its sum fixed (MuJoCo's K0, K1 and
 * clamps), by the rows' difference: only res_0 - res_1 = bd + jdm . g enters the solve,
 * and the forces' change (+-delta, to the rounding of their sum) moves g and the dual
 * cost along J_0 - J_1 alone: half the work of the two rows' residuals and updates.
 * -K0 / K1 is a multiplication by 1 / K1, taken once a step: the sweeps are one chain of
 * dependent updates, whose longest link was that division. J_0 - J_1 = 2 f jk acts on
 * z and the rotation only (entries 1 and 2), so only those terms of its products are
 * taken (the others are 0: the same sums). Returns the dual cost's change (a rise above
 * 1e-10 is undone, as costChange does). */
static inline double ns_pair_update(const struct ns_block *bk, double *g)
{
	const double *A = bk->A;
	double old0 = bk->force[0], old1 = bk->force[1],
	       diff = bk->bd + (bk->jdm[1] * g[1] + bk->jdm[2] * g[2]);
	double mid = 0.5 * (old0 + old1), K1 = bk->K1;
	/* MuJoCo's mid (A_00 - A_11) term is 0 here: the pair's diagonal is one number */
	double K0 = diff - (bk->a02 * old0 + bk->a13 * old1);
	double f0, f1, d0, d1, change;

	if (K1 < MJ_MINVAL) {
		f0 = f1 = mid;
	} else {
		double y = -K0 * bk->inv_K1;

		if (y < -mid) {
			f0 = 0;
			f1 = 2 * mid;
		} else if (y > mid) {
			f0 = 2 * mid;
			f1 = 0;
		} else {
			f0 = mid + y;
			f1 = mid - y;
		}
	}
	d0 = f0 - old0;
	d1 = f1 - old1;
	change = 0.5 * (d0 * (A[0] * d0 + A[1] * d1) + d1 * (A[2] * d0 + A[3] * d1)) + d0 * diff;
	if (change > 1e-10)
		return 0;
	bk->force[0] = f0;
	bk->force[1] = f1;
	g[1] += d0 * bk->jd[1];
	g[2] += d0 * bk->jd[2];
	return change;
}

/* An elliptic contact's friction block (n = bk->n, a constant where inlined): its QCQP
 * inside the cone of the normal force. */
static inline __attribute__((always_inline)) void ns_cone_solve(
    const struct ns_block *bk, const double *res, const double *old, double *f, int n)
{
	double bc[2], normal = bk->c->force[0];
	int i, j;

	for (i = 0; i < n; i++) {
		bc[i] = res[i];
		for (j = 0; j < n; j++)
			bc[i] -= bk->A[i * n + j] * old[j];
	}
	f[0] = f[1] = 0;
	if (normal < MJ_MINVAL)
		return;
	if (ns_qcqp(f, bk->A, bc, bk->mu, normal, n)) {
		double sq = 0, sc;

		for (i = 0; i < n; i++)
			sq += f[i] * f[i] / (bk->mu[i] * bk->mu[i]);
		sc = sqrt(normal * normal / max2(MJ_MINVAL, sq));
		for (i = 0; i < n; i++)
			f[i] *= sc;
	}
}

/* An elliptic block's update in a sweep (n: its size), with g = J' f kept up to date. Returns
 * the dual cost's change. It is inlined with n a constant and its loops (and
 * ns_cost_change's) unrolled: loop overhead was most of a sweep's instructions. */
static inline __attribute__((always_inline)) double ns_block_update(
    const struct ns_block *bk, double *g, int n)
{
	double res[2] = {0, 0}, old[2] = {0, 0}, f[2] = {0, 0}, change;
	int i;

#pragma GCC unroll 2
	for (i = 0; i < n; i++) {
		res[i] = bk->b[i] + ns_row_dot(bk->jm[i], bk->q, g);
		old[i] = bk->force[i];
	}
	ns_cone_solve(bk, res, old, f, n);
	change = ns_cost_change(bk->A, f, old, res, n);
#pragma GCC unroll 2
	for (i = 0; i < n; i++) {
		double df = f[i] - old[i];

		bk->force[i] = f[i];
		if (df != 0)
			ns_row_axpy(g, df, bk->J[i], bk->q);
	}
	return change;
}

/* MuJoCo's noslip: sweeps of the friction rows with the normal forces fixed, R left
 * out, contact by contact; stops after maxiter sweeps or when a sweep's scaled
 * improvement falls below the tolerance. Returns the sweeps run. */
static int ns_noslip(const struct ctd_hold_model *m, struct ns_contact *c)
{
	double scale = m->meaninertia * 8; /* meaninertia * max(1, nv): nv = 8 */
	const double *a0 = m->dof_accel0;
	double g[NS_DOF] = {0};
	double start = 0;
	struct ns_block blocks[2 * NS_ROWS / 2];
	int nblocks = 0, iter = 0, k, r;

	for (k = 0; k < 2; k++) {
		struct ns_contact *ck = &c[k];

		if (!ck->active)
			continue;
		for (r = 0; r < ck->nrows; r++) {
			ns_row_axpy(g, ck->mult[r] * ck->force[r], ck->J[r], ck->q);
			start += ck->mult[r] * (0.5 * ck->force[r] * ck->force[r] * ck->R[r]);
		}
		if (ck->condim == 1)
			continue;
		if (ck->elliptic) {
			/* the tangent rows that move here (ns_contact_make kept only them): z, and
			 * the roll about y at condim 6; the others stay 0 (their block is apart) */
			ns_block_make(m, a0, ck, 1, ck->nrows - 1, &blocks[nblocks++]);
			continue;
		}
		/* a pair of identical rows (their tangent has no Jacobian here) with equal
		 * forces stays as it is: K1 = 0 gives both the mean, the same forces and no
		 * cost change; ns_contact_make kept them as one row before pair0 */
		for (r = ck->pair0; r < ck->nrows; r += 2)
			if (memcmp(ck->J[r], ck->J[r + 1], sizeof ck->J[r]) != 0 ||
			    ck->force[r] != ck->force[r + 1])
				ns_pair_make(m, a0, ck, r, &blocks[nblocks++]);
	}
	while (iter < m->noslip_iterations) {
		double improvement = iter == 0 ? start : 0;
		int b;

		for (b = 0; b < nblocks; b++) {
			/* the size made a constant: the update's loops unrolled */
			if (blocks[b].pair)
				improvement -= ns_pair_update(&blocks[b], g);
			else if (blocks[b].n == 2)
				improvement -= ns_block_update(&blocks[b], g, 2);
			else
				improvement -= ns_block_update(&blocks[b], g, 1);
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

static void ns_step(const struct ctd_hold_model *m, struct ctd_hold_noslip_state *s)
{
	struct ns_contact c[2];
	double a[NS_DOF], h = m->timestep;

	memcpy(a, m->dof_accel0, sizeof a);
	ns_contact_make(m, s, 0, &c[0]);
	ns_contact_make(m, s, 1, &c[1]);
	s->noslip_sweeps = 0;
	if (c[0].active || c[1].active) {
		memcpy(a, s->qacc, sizeof a);
		if (a[1] == 0 && a[3] == 0)
			a[1] = m->a0_object, a[3] = a[4] = m->a0_pad;
		ns_minimise_pieces(m, c, a);
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

void ctd_hold_noslip_step(const struct ctd_hold_model *m, struct ctd_hold_noslip_state *s)
{
	ns_step(m, s);
}

/* ---- the run ----
 *
 * Both scenes (the mirror-symmetric one and noslip's asymmetric one) are run by one
 * loop: step until the duration, or until the rest of the run is known, then sum the
 * rest of the descent in closed form. The rest is known when
 *  - the state repeats: every coordinate but z moves by less than its rounding for
 *    CTD_HOLD_SETTLE_RUN steps in a row, so the object descends at a constant speed;
 *  - or the transient has become one geometric mode (struct tail): every coordinate's
 *    successive changes shrink by one ratio r, so vz_j = v + (vz_k - v) r^(j-k), the
 *    state is within CTD_HOLD_TAIL_NEAR of its limit, and the predictions of the limit
 *    speed v and of the final height that this makes agree from step to step.
 * The second ends most runs after about a third of the steps the first needs (the
 * transient decays by about 0.57 a step; the first waits for it to reach the rounding).
 */

/* Either scene, stepped by one function. */
struct sim {
	const struct ctd_hold_model *m;
	int noslip;
	struct ctd_hold_state s; /* the mirror-symmetric scene (noslip_iterations 0) */
	struct rows_cache cache;
	struct ctd_hold_noslip_state ns; /* the asymmetric scene */
};

/* The state besides z, as one vector: c[0] the vertical speed, then the other speeds
 * (m/s; the rotation's at the contact), then the positions (m). */
#define SIM_COORDS 8
struct sim_vec {
	double c[SIM_COORDS];
	int speeds, n; /* c[0..speeds) are speeds, c[speeds..n) positions */
};

static void sim_start(struct sim *w, const struct ctd_hold_model *m)
{
	memset(w, 0, sizeof *w);
	w->m = m;
	w->noslip = m->noslip_iterations > 0;
	ctd_hold_start(&w->s);
	ctd_hold_noslip_start(&w->ns);
}

static void sim_step(struct sim *w)
{
	if (w->noslip)
		ns_step(w->m, &w->ns);
	else
		hold_step(w->m, &w->s, NULL, &w->cache);
}

static double sim_z(const struct sim *w)
{
	return w->noslip ? w->ns.z : w->s.z;
}

static double sim_vz(const struct sim *w)
{
	return w->noslip ? w->ns.vz : w->s.vz;
}

/* the pads' mean joint position (their penetration, from touching) */
static double sim_pad_q(const struct sim *w)
{
	return w->noslip ? 0.5 * (w->ns.qL + w->ns.qR) : w->s.q;
}

/* the pads' mean joint position in a state vector */
static double sim_vec_pad_q(const struct sim_vec *v)
{
	return v->n == 3 ? v->c[2] : 0.5 * (v->c[6] + v->c[7]);
}

static void sim_vec(const struct sim *w, struct sim_vec *v)
{
	if (w->noslip) {
		const struct ctd_hold_noslip_state *s = &w->ns;

		*v = (struct sim_vec){
		    {s->vz, s->vx, s->wy * w->m->radius, s->vqL, s->vqR, s->x, s->qL, s->qR}, 5, 8};
	} else {
		*v = (struct sim_vec){{w->s.vz, w->s.vq, w->s.q}, 2, 3};
	}
}

/* the rounding each coordinate of v moves by in a state that repeats; filled once per
 * step for the tests below, which read it several times */
static void sim_noise(const struct ctd_hold_model *m, const struct sim_vec *v, double *noise)
{
	int i;

	noise[0] = CTD_HOLD_STEADY_REL * fabs(v->c[0]) + CTD_HOLD_STEADY_ABS;
	for (i = 1; i < v->n; i++)
		noise[i] = i < v->speeds ? CTD_HOLD_STEADY_OTHER : CTD_HOLD_STEADY_REL * m->radius;
}

/* 1 when the step from p to v (its noise: sim_noise) left every coordinate but z where
 * it was */
static int sim_repeats(const struct sim_vec *p, const struct sim_vec *v, const double *noise)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (!(fabs(v->c[i] - p->c[i]) <= noise[i]))
			return 0;
	return 1;
}

/* The transient's last steps, and what they predict. */
struct tail {
	struct sim_vec last[3]; /* the last three states, newest last */
	long seen;
	int agreed;           /* predictions in a row that agreed with the one before */
	double r;             /* the mode's ratio; 0: no prediction */
	double v_end;         /* the limit vertical speed */
	double z_end;         /* the height at the run's last step */
	struct sim_vec limit; /* every coordinate's limit */
	double v_seen[2];     /* the mode's last two limit speeds, oldest first */
	int v_count;          /* how many of them there are */
};

/* r^j for j >= 0 by squaring: the height is predicted at every step, and libm's pow
 * was a third of the run loop's own work (its rounding: a few ulps of r^j, far below
 * the tail's tolerances) */
static double tail_pow(double r, long j)
{
	double p = 1;

	for (; j > 0; j >>= 1) {
		if (j & 1)
			p *= r;
		r *= r;
	}
	return p;
}

/* The height j steps after step k (height z, speed vz) in the mode of ratio r and limit
 * speed v: z_{k+j} = z + h sum_{i=1..j} (v + (vz - v) r^i). r = 0: a constant speed. */
static double tail_height(double z, double vz, double v, double r, long j, double h)
{
	if (r == 0)
		return z + h * ((double)j * vz);
	return z + h * ((double)j * v + (vz - v) * r * (1 - tail_pow(r, j)) / (1 - r));
}

/* The limit speed the mode (ratio r) predicts converges geometrically too, by the
 * transient's next mode. Where that is the mode's square (r^2 a step: the step is
 * quadratic in the transient, as the impedance and the pads' depth make it), Aitken's
 * step on the last three predictions takes it out too, so that they agree
 * (tail_observe) a few steps sooner, and closer to the limit. Where the predictions
 * converge at another rate (a second mode of the step's own, which the one-mode sum
 * does not hold either), they are left as they are, and agree only once that mode has
 * died out. Noise in predictions that have converged is at their rounding, far below
 * the agreement asked. */
static void tail_accelerate(struct tail *t, double r)
{
	double plain = t->limit.c[0];

	if (t->v_count == 2) {
		double d1 = t->v_seen[1] - t->v_seen[0], d2 = plain - t->v_seen[1];
		double rho = d1 != 0 ? d2 / d1 : 0;

		/* within a tenth of the gap between r^2 and r: not the first mode's own rate */
		if (rho > 0 && fabs(rho - r * r) <= CTD_HOLD_TAIL_SQUARE_REL * (r - r * r))
			t->limit.c[0] = plain + d2 * rho / (1 - rho);
	}
	t->v_seen[0] = t->v_seen[1];
	t->v_seen[1] = plain;
	t->v_count = t->v_count < 2 ? t->v_count + 1 : 2;
}

/* Observe the state v (height z; its noise: sim_noise) after step k of a run of n steps
 * (n <= k: the height is not predicted). Returns 1 when the prediction can be taken
 * (t->r, limit, z_end): every coordinate moves in one mode (its change is r times its
 * last one, to CTD_HOLD_TAIL_MODE_REL or its rounding), is within CTD_HOLD_TAIL_NEAR of
 * its limit, and the predictions agreed CTD_HOLD_TAIL_AGREE times in a row. A transient
 * of several modes (the pads still settling while the speed looks steady) fails the
 * first test. */
static int tail_observe(const struct ctd_hold_model *m, struct tail *t, const struct sim_vec *v,
    const double *noise, double z, long k, long n)
{
	const struct sim_vec *a = &t->last[0], *b = &t->last[1];
	double d0 = 0, d1 = 0, r, zn = 0, speed, vz = v->c[0], lead = 0;
	int agree, mode = 1, near = 1, i;

	t->last[0] = t->last[1];
	t->last[1] = t->last[2];
	t->last[2] = *v;
	if (++t->seen < 3)
		return 0;
	/* the mode's ratio, from the coordinate that moves most above its rounding (the
	 * speed while the object creeps; a pad while a held object sits still) */
	for (i = 0; i < v->n; i++) {
		double e1 = fabs(v->c[i] - b->c[i]) / noise[i];

		if (e1 > lead) {
			lead = e1;
			d0 = b->c[i] - a->c[i];
			d1 = v->c[i] - b->c[i];
		}
	}
	r = d1 / d0;
	if (!(lead > 1 && d0 != 0 && r > 0 && r <= CTD_HOLD_TAIL_MAX_RATIO)) {
		t->agreed = 0;
		t->r = 0;
		t->v_count = 0;
		return 0;
	}
	t->limit.speeds = v->speeds;
	t->limit.n = v->n;
	for (i = 0; i < v->n; i++) {
		double e0 = b->c[i] - a->c[i], e1 = v->c[i] - b->c[i];

		mode &= fabs(e1 - r * e0) <= CTD_HOLD_TAIL_MODE_REL * fabs(e1) + noise[i];
		t->limit.c[i] = v->c[i] + e1 * r / (1 - r);
	}
	tail_accelerate(t, r);
	/* near the limit: each position within NEAR of its own, each speed within NEAR of
	 * the scene's speed scale (the creep, plus the pads' penetration per step) */
	speed = fabs(t->limit.c[0]) + fabs(sim_vec_pad_q(&t->limit)) / m->timestep;
	for (i = 0; i < v->n; i++) {
		double rest = fabs(t->limit.c[i] - v->c[i]);

		near &= rest <=
		    CTD_HOLD_TAIL_NEAR * (i < v->speeds ? speed : fabs(t->limit.c[i])) + noise[i];
	}
	if (n > k)
		zn = tail_height(z, vz, t->limit.c[0], r, n - k, m->timestep);
	agree = mode && t->r > 0 && fabs(r - t->r) <= CTD_HOLD_TAIL_RATIO_REL * r &&
	    fabs(t->limit.c[0] - t->v_end) <=
	        CTD_HOLD_TAIL_SPEED_REL * fabs(t->limit.c[0]) + CTD_HOLD_TAIL_SPEED_ABS &&
	    fabs(zn - t->z_end) <= CTD_HOLD_TAIL_HEIGHT_REL * fabs(zn) + CTD_HOLD_TAIL_HEIGHT_ABS;
	t->agreed = agree ? t->agreed + 1 : 0;
	t->r = r;
	t->v_end = t->limit.c[0];
	t->z_end = zn;
	/* descending (or rising) all the way to the limit, so that the height is monotone
	 * (or held, the limit speed within its rounding of 0) */
	return t->agreed >= CTD_HOLD_TAIL_AGREE && near &&
	    ((vz < 0 && t->limit.c[0] < 0) || (vz > 0 && t->limit.c[0] > 0) ||
	        fabs(t->limit.c[0]) <= CTD_HOLD_STEADY_ABS);
}

/* How a run ended. */
struct run_end {
	int known;    /* the rest is known: 1 the state repeats, 2 the tail's mode */
	long bounces; /* the steps at which the pads left the object (see ctd_hold_solve) */
	long k;       /* the last step simulated */
	double z, vz; /* there */
	struct tail tail;
};

/* The height j steps past the end of the simulated part */
static double run_height(const struct run_end *e, long j, double h)
{
	if (e->known == 2)
		return tail_height(e->z, e->vz, e->tail.v_end, e->tail.r, j, h);
	return tail_height(e->z, e->vz, e->vz, 0, j, h);
}

/* The first j in [1, jmax] whose height is past limit (-z >= limit, or |z| > limit when
 * above is set), or 0 when none: the height is monotone there (tail_observe). */
static long run_first(const struct run_end *e, long jmax, double limit, int above, double h)
{
	long lo = 0, hi = jmax; /* p(lo) false, p(hi) true */
	double z = run_height(e, jmax, h);

	if (!(above ? fabs(z) > limit : -z >= limit))
		return 0;
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		z = run_height(e, mid, h);
		if (above ? fabs(z) > limit : -z >= limit)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Step w from step k0 on, at most to step n (the pads' height counts when track is
 * set: time_to_slip and falls are filled), stopping early when the rest is known or the
 * pads crush the object. */
static void run_steps(const struct ctd_hold *hq, struct sim *w, long k0, long n, int track,
    struct ctd_hold_answer *out, struct run_end *e)
{
	const struct ctd_hold_model *m = w->m;
	double ht = m->timestep;
	struct sim_vec prev, cur;
	double noise[SIM_COORDS];
	long k, run = 0, bounces;
	int touched = 1, touching;

	bounces = e->bounces;
	memset(e, 0, sizeof *e);
	e->bounces = bounces;
	sim_vec(w, &prev);
	for (k = k0 + 1; k <= n; k++) {
		double z;

		sim_step(w);
		z = sim_z(w);
		if (track && out->time_to_slip < 0 && -z >= hq->slip_limit)
			out->time_to_slip = (double)k * ht;
		if (hold_crushed(m, sim_pad_q(w)) || !isfinite(sim_vz(w))) {
			out->crushed = track || out->crushed;
			break;
		}
		touching = hold_dist(m, sim_pad_q(w)) < m->contact.includemargin;
		e->bounces += touched && !touching;
		touched = touching;
		if (track && (-z > m->half_z || z > m->half_z)) {
			out->falls = 1;
			out->fall_time = (double)k * ht;
			break;
		}
		if (k == n)
			break;
		sim_vec(w, &cur);
		/* past the duration only the creep is read: a speed that repeats will do (the
		 * rest of the state may wander in its rounding) */
		sim_noise(m, &cur, noise);
		run = sim_repeats(&prev, &cur, noise) ||
		        (!track &&
		            fabs(cur.c[0] - prev.c[0]) <=
		                CTD_HOLD_SETTLE_REL * fabs(cur.c[0]) + CTD_HOLD_SETTLE_ABS)
		    ? run + 1
		    : 0;
		if (run >= CTD_HOLD_SETTLE_RUN) {
			e->known = 1;
			break;
		}
		if (tail_observe(m, &e->tail, &cur, noise, z, k, track ? n : k)) {
			e->known = 2;
			break;
		}
		prev = cur;
	}
	e->k = k > n ? n : k;
	e->z = sim_z(w);
	e->vz = sim_vz(w);
}

/* Whether the run that ended as e (its last step e->k, height e->z) survives a nudge:
 * the same scene from the pads' start backed off by CTD_HOLD_SHADOW_NUDGE of the radius
 * (the left pad alone in noslip's scene, so that an asymmetry can grow too), stepped as
 * far, must end within CTD_HOLD_REPRODUCE_REL (+ _ABS) of the same height. Pads that bounce
 * off the object or sweep in a period-2 orbit can amplify rounding about 2.5x a step:
 * there MuJoCo's own slip moves by 10% to 6x when a pad starts 1e-15 m away, so no
 * reproduction holds to 1e-6, and the answer says so instead of giving a number. */
static int hold_reproducible(
    const struct ctd_hold *h, const struct ctd_hold_model *m, const struct run_end *e)
{
	struct sim w;
	struct run_end shadow = {0};
	struct ctd_hold_answer scratch;
	double nudge = CTD_HOLD_SHADOW_NUDGE * m->radius, z;

	memset(&scratch, 0, sizeof scratch);
	scratch.time_to_slip = scratch.fall_time = -1;
	sim_start(&w, m);
	/* backed off: the pads start just touching, where a contact turns on, and pressed in
	 * by the nudge they would touch one step sooner (a change of the scene, not of its
	 * rounding) */
	if (w.noslip)
		w.ns.qL -= nudge;
	else
		w.s.q -= nudge;
	run_steps(h, &w, 0, e->k, 1, &scratch, &shadow);
	if (shadow.k < e->k) {
		/* it stopped sooner: its rest is known, or it fell or was crushed earlier */
		if (!shadow.known)
			return 0;
		z = run_height(&shadow, e->k - shadow.k, m->timestep);
	} else {
		z = shadow.z;
	}
	return fabs(z - e->z) <= CTD_HOLD_REPRODUCE_REL * fabs(e->z) + CTD_HOLD_REPRODUCE_ABS;
}

void ctd_hold_solve(const struct ctd_hold *h, struct ctd_hold_answer *out)
{
	struct ctd_hold_model m;
	struct sim w;
	struct run_end e = {0};
	long n;
	double creep, pen, nf, ht = h->option.timestep;
	int i;

	ctd_hold_prepare(h, &m);
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
	out->creep_closed_form = 0;
	out->creep_settled = 0;
	out->creep_velocity = out->penetration = 0;

	n = lround(h->duration / ht);
	sim_start(&w, &m);
	run_steps(h, &w, 0, n, 1, out, &e);
	out->steps = out->stepped = e.k;
	out->slip = -e.z;
	/* a run that settled without a bounce is reproducible (its transient decayed); the
	 * others are checked by a nudged run */
	out->reproducible =
	    out->crushed || (e.known && e.bounces == 0) || hold_reproducible(h, &m, &e);
	if (e.known && e.k < n && !out->crushed) {
		/* the rest of the run in closed form: when it slips, when it falls */
		long left = n - e.k, j;

		if (out->time_to_slip < 0 && (j = run_first(&e, left, h->slip_limit, 0, ht)) > 0)
			out->time_to_slip = (double)(e.k + j) * ht;
		j = run_first(&e, left, m.half_z, 1, ht);
		if (j > 0) {
			out->falls = 1;
			out->fall_time = (double)(e.k + j) * ht;
			out->steps = e.k + j;
			out->slip = -run_height(&e, j, ht);
		} else {
			out->steps = n;
			out->slip = -run_height(&e, left, ht);
		}
	}
	out->creep_steps = out->steps;
	if (out->crushed)
		return;
	if (!out->holds) {
		/* below the Coulomb minimum the object slides ever faster: no steady creep */
		out->penetration = -hold_dist(&m, sim_pad_q(&w));
		return;
	}
	if (!e.known && e.bounces <= CTD_HOLD_BOUNCE_MAX) {
		/* the creep as if the pads were long enough (the run ended at the duration, or
		 * where the object left the pads' faces): step on until it settles */
		long k0 = e.k;

		run_steps(h, &w, k0, k0 + CTD_HOLD_SETTLE_MAX_STEPS, 0, out, &e);
		out->creep_steps += e.k - k0;
	}
	/* pads that bounce off the object again and again leave it free between the hits:
	 * MuJoCo's free body picks up its rounding's asymmetry, the hits amplify it, and the
	 * mirror-symmetric (or noslip's) scene no longer follows it (a stiff direct solref
	 * was seen to settle here after 12,000 chaotic steps, and in MuJoCo never): a creep
	 * it settles to is not claimed */
	out->creep_settled = e.known != 0 && e.bounces <= CTD_HOLD_BOUNCE_MAX;
	if (e.known == 2) {
		out->creep_velocity = -e.tail.v_end;
		out->penetration = -hold_dist(&m, sim_vec_pad_q(&e.tail.limit));
	} else {
		out->creep_velocity = e.known ? -e.vz : 0;
		out->penetration = -hold_dist(&m, sim_pad_q(&w));
	}
	if (!out->creep_settled)
		out->creep_velocity = 0;
	if (!w.noslip && ctd_hold_steady(&m, &creep, &pen, &nf) == 0 && out->creep_settled &&
	    fabs(creep - out->creep_velocity) <= CTD_HOLD_CLOSED_FORM_REL * fabs(creep)) {
		/* the loop settled where the closed form says: report the exact value */
		out->creep_velocity = creep;
		out->penetration = pen;
		out->creep_closed_form = 1;
	}
	if (out->time_to_slip < 0 && !out->falls && out->creep_settled && out->creep_velocity > 0) {
		out->time_to_slip =
		    (double)n * ht + (h->slip_limit - out->slip) / out->creep_velocity;
		out->time_to_slip_extrapolated = 1;
	}
}
