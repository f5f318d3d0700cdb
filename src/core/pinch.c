/*
 * pinch.c: the hold scene's model, and its mirror-symmetric step as MuJoCo's exact
 * two-unknown problem (docs/hold.md).
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
#include "core/pinch.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/knobs.h"

static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

void core_pinch_prepare(const struct core_hold *h, struct core_pinch_model *m)
{
	double a, b;
	int condim;

	core_mjver_rules(h->option.mujoco, &m->rules);
	/* the sphere has the smaller geom type: it is MuJoCo's geom1 */
	core_pair_combine(&h->object, &h->pad, &m->rules, &m->contact);
	core_law_solimp_release(m->contact.solimp, m->rules.power_shortcut, &m->solimp);
	m->discrete = h->option.integrator == CORE_SCENE_DISCRETE;
	/* discrete never clamps timeconst: its refsafe replaces a too-stiff row per step */
	core_law_solref_kb(m->contact.solref, m->solimp.dwidth, h->option.timestep,
	    m->discrete ? 0 : h->option.refsafe, &m->gains);
	m->discrete_refsafe = m->discrete && h->option.refsafe;
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
	m->radius = core_hold_half_width(h);
	m->pad_margin = h->pad.margin;
	m->pad_gap = h->pad.gap;
	m->obj_aamm = h->object.margin + (m->rules.aamm_gap ? h->object.gap : 0);
	m->pad_aamm = h->pad.margin + (m->rules.aamm_gap ? h->pad.gap : 0);
	m->half_x = h->pad_size[0];
	m->half_z = h->pad_size[2];
	m->rest_dist = core_hold_half_width(h) + h->pad_size[0];
	/* the R of MuJoCo's largest impedance, from the rows' raw diagApprox (the pyramid's
	 * tran + f0^2 tran) */
	{
		double f0 = m->contact.friction[0];
		double diag = m->contact.condim == 1 || m->cone == CORE_CONE_ELLIPTIC
		    ? m->tran
		    : m->tran + f0 * f0 * m->tran;

		m->R_floor = max2(MJ_MINVAL, (1 - MJ_MAXIMP) * diag / MJ_MAXIMP);
	}
	m->timestep = h->option.timestep;
	/* a solid sphere's body_inertia and MuJoCo's meaninertia: qM's diagonal is the
	 * object's m, m, m, I, I, I and the pads' MP, MP */
	m->inertia = 0.4 * h->mass * h->size[0] * h->size[0];
	m->meaninertia = (h->mass * 3 + m->inertia * 3 + h->pad_mass * 2) / 8;
	m->noslip_iterations = h->noslip_iterations;
	m->noslip_tolerance = CORE_HOLD_NOSLIP_TOLERANCE;
	{
		const double M[CORE_PINCH_DOF] = {
		    h->mass, h->mass, m->inertia, h->pad_mass, h->pad_mass};
		const double a0[CORE_PINCH_DOF] = {0, m->a0_object, 0, m->a0_pad, m->a0_pad};
		int i;

		for (i = 0; i < CORE_PINCH_DOF; i++) {
			m->dof_mass[i] = M[i];
			m->dof_inv_mass[i] = 1 / M[i];
			m->dof_accel0[i] = a0[i];
		}
	}
	condim = m->contact.condim;
	if (condim == 1)
		m->rows_per_pad = 1;
	else
		m->rows_per_pad = m->cone == CORE_CONE_ELLIPTIC ? condim : 2 * (condim - 1);
}

int core_pinch_start_asymmetric(const struct core_pinch_model *m)
{
	/* both pads' contacts start at the same dist (mjc_SphereBox's arithmetic is
	 * mirror-exact), with the pads' centres at -/+(R + HX) */
	double x0 = m->rest_dist;

	if (!(core_pinch_dist(m, 0) < m->contact.includemargin))
		return 0;
	return !(core_pinch_paired(m, 0, 0, -x0) && core_pinch_paired(m, 1, 0, x0));
}

void core_pinch_start(struct core_pinch_state *s)
{
	s->z = s->vz = s->q = s->vq = 0;
	s->piece = -1;
	s->replaced = 0;
	s->qacc_warm[0] = s->qacc_warm[1] = 0;
}

/* One quadratic piece of the cost: a row (or the sum of identical rows, count n)
 * 1/2 * w * n * (jz*az + jp*ap - aref)^2, per pad. */
struct piece {
	double jz, jp, aref, w, n;
};

static inline void piece_matrix(
    const struct core_pinch_model *m, const struct piece *p, int np, struct core_pinch_matrix *H)
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
static inline void piece_solve(const struct core_pinch_model *m, const struct piece *p, int np,
    const struct core_pinch_matrix *H, double *az, double *ap)
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
    const struct core_pinch_model *m, const struct piece *p, int np, double *az, double *ap)
{
	struct core_pinch_matrix H;

	piece_matrix(m, p, np, &H);
	piece_solve(m, p, np, &H, az, ap);
}

static double gauss(const struct core_pinch_model *m, double az, double ap)
{
	double dz = az - m->a0_object, dp = ap - m->a0_pad;

	return 0.5 * m->mass * dz * dz + m->pad_mass * dp * dp;
}

static double half_sq_neg(double D, double x)
{
	return x < 0 ? 0.5 * D * x * x : 0;
}

/* The true cost of both pads' rows at (az, ap). */
static double cost(
    const struct core_pinch_model *m, const struct core_pinch_rows *r, double az, double ap)
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
static inline int pieces_of(const struct core_pinch_rows *r, int set, struct piece *p)
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
static int in_piece(const struct core_pinch_rows *r, int set, double az, double ap)
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
static int minimise(const struct core_pinch_model *m, const struct core_pinch_rows *r, int hint,
    struct core_pinch_matrix *hint_matrix, double *az, double *ap)
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

/* A row's R0 from (1 - imp) diag / imp: Euler's, or the discrete integrator's for the
 * cache's factor s (scene.c's row_R0) */
static inline double row_R0(
    const struct core_pinch_model *m, const struct core_pinch_cache *c, double raw)
{
	double R0 = max2(MJ_MINVAL, raw);

	return m->discrete ? max2(R0 / c->s, m->R_floor) : R0;
}

static void make_rows_of_dist(
    const struct core_pinch_model *m, double dist, struct core_pinch_cache *c)
{
	double rr = dist - m->contact.includemargin;
	double imp = core_law_impedance(rr, &m->solimp, NULL);
	double f0 = m->contact.friction[0];
	double R0, R1, mu;
	int condim = m->contact.condim;
	struct core_pinch_rows *r = &c->r;

	memset(r, 0, sizeof *r);
	c->valid = 1;
	c->dist = dist;
	c->hint_matrix.set = -1;
	c->K = m->gains.K;
	c->B = m->gains.B;
	c->s = 1;
	c->replaced = 0;
	if (m->discrete) {
		struct core_law_discrete d;

		core_law_discrete_gains(&m->gains, imp, m->timestep, m->discrete_refsafe, &d);
		c->K = d.K;
		c->B = d.B;
		c->s = d.s;
		c->replaced = d.replaced;
	}
	c->Kimp = c->K * imp;
	/* an elliptic friction row keeps the unreplaced B (refsafe replaces spring rows) */
	c->sB = 1 + m->timestep * m->gains.B;
	c->spring = m->gains.K * imp * rr;
	c->imp = imp;
	r->elliptic = m->cone == CORE_CONE_ELLIPTIC && condim > 1;
	r->f = condim > 1 ? m->contact.friction[1] : 0;
	if (condim == 1) {
		R0 = row_R0(m, c, (1 - imp) * m->tran / imp);
		r->plain = 1;
		r->D = 1 / R0;
	} else if (r->elliptic) {
		R0 = row_R0(m, c, (1 - imp) * m->tran / imp);
		R1 = R0 / max2(MJ_MINVAL, m->impratio);
		/* impratio 1: R1 = R0 exactly, so sqrt(R1 / R0) = 1 */
		mu = m->impratio == 1 ? f0 : f0 * sqrt(R1 / R0);
		r->mu = mu;
		r->D = 1 / R0;
		r->Dt = 1 / R1;
		r->plain = 0;
	} else {
		R0 = row_R0(m, c, (1 - imp) * (m->tran + f0 * f0 * m->tran) / imp);
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
static void make_rows(const struct core_pinch_model *m, double dist, double vz, double vq,
    struct core_pinch_rows *r, double *imp_out, double *R0_out, struct core_pinch_cache *cache)
{
	double B = m->gains.B, spring;

	if (!(cache->valid && cache->dist == dist))
		make_rows_of_dist(m, dist, cache);
	*r = cache->r;
	spring = cache->spring;
	if (m->discrete) {
		/* the reference at the end of the step (core_law_aref_discrete) */
		double Bd = cache->B, Kimp = cache->Kimp, sd = cache->s, h = m->timestep;
		double rr = dist - m->contact.includemargin, v;

		v = -vq;
		r->aref_n = (-Bd * v - Kimp * (rr + h * v)) / sd;
		if (r->elliptic) {
			/* a friction row has no spring (K = 0) and is never replaced: its B is
			 * the gains' own, its s 1 + h B */
			r->aref_t = -B * (-vz) / cache->sB;
		} else if (m->contact.condim > 1) {
			v = -vq - r->f * vz;
			r->aref_p = (-Bd * v - Kimp * (rr + h * v)) / sd;
			v = -vq + r->f * vz;
			r->aref_m = (-Bd * v - Kimp * (rr + h * v)) / sd;
		}
	} else {
		r->aref_n = -B * (-vq) - spring;
		if (r->elliptic) {
			r->aref_t = -B * (-vz) - 0.0;
		} else if (m->contact.condim > 1) {
			r->aref_p = -B * (-vq - r->f * vz) - spring;
			r->aref_m = -B * (-vq + r->f * vz) - spring;
		}
	}
	*imp_out = cache->imp;
	*R0_out = cache->R0;
}

void core_pinch_step_cached(const struct core_pinch_model *m, struct core_pinch_state *s,
    struct core_pinch_step_state *st, struct core_pinch_cache *cache)
{
	double dist = core_pinch_dist(m, s->q);
	double az = m->a0_object, ap = m->a0_pad, h = m->timestep;
	double imp = 0, R0 = 0;
	struct core_pinch_rows r = {0};
	int active = dist < m->contact.includemargin;

	if (active) {
		make_rows(m, dist, s->vz, s->vq, &r, &imp, &R0, cache);
		s->piece = minimise(m, &r, s->piece, &cache->hint_matrix, &az, &ap);
	}
	if (st) {
		st->active = active;
		st->imp = imp;
		st->K = active ? cache->K : m->gains.K;
		st->B = active ? cache->B : m->gains.B;
		st->replaced = active && cache->replaced;
		st->R_normal = active ? 1 / r.D : 0;
		st->R_friction = active ? (r.elliptic ? 1 / r.Dt : 1 / r.D) : 0;
		st->accel_object = az;
		st->accel_pad = ap;
		/* the pad's joint balance: MP (ap - a0p) = -(normal force) */
		st->normal_force = m->pad_mass * (m->a0_pad - ap);
		st->friction_force = 0.5 * m->mass * (az - m->a0_object);
	}
	s->replaced = active && cache->replaced;
	s->qacc_warm[0] = az;
	s->qacc_warm[1] = ap;
	s->vz += h * az;
	s->z += h * s->vz;
	s->vq += h * ap;
	s->q += h * s->vq;
}

void core_pinch_step(
    const struct core_pinch_model *m, struct core_pinch_state *s, struct core_pinch_step_state *st)
{
	struct core_pinch_cache cache;

	cache.valid = 0;
	core_pinch_step_cached(m, s, st, &cache);
}

/* The steady pad balance: F = (sum of the pad's row forces at rest) as a function of
 * the violation u = includemargin - dist >= 0, minus F. */
struct balance {
	const struct core_pinch_model *m;
	double F;
};

/* The rows of the steady state at impedance imp: R of the normal (pyramid: every) row
 * and of the tangent rows; the spring rows' K imp, and the factors that turn a row's
 * velocity and violation into its aref, aref = -(Bv * vel + Kr * K imp * r): Euler's
 * B and 1, the discrete integrator's (B + h K imp) / s and 1 / s (core_law_aref_discrete);
 * Bt, the elliptic friction row's aref = -Bt vel: B, or B / (1 + h B) under discrete. */
struct steady_rows {
	double Rn, Rt, Kimp, Bv, Kr, Bt;
};

static void steady_rows(const struct core_pinch_model *m, double imp, struct steady_rows *o)
{
	double f0 = m->contact.friction[0], R0, R1, mu, h = m->timestep, s = 1;
	double K = m->gains.K, B = m->gains.B;
	int condim = m->contact.condim;

	if (m->discrete) {
		struct core_law_discrete d;

		core_law_discrete_gains(&m->gains, imp, h, m->discrete_refsafe, &d);
		K = d.K;
		B = d.B;
		s = d.s;
	}
	o->Kimp = K * imp;
	o->Bv = m->discrete ? (B + h * o->Kimp) / s : B;
	o->Kr = m->discrete ? 1 / s : 1;
	o->Bt = m->discrete ? m->gains.B / (1 + h * m->gains.B) : m->gains.B;
	if (condim == 1) {
		R0 = max2(MJ_MINVAL, (1 - imp) * m->tran / imp);
		o->Rn = o->Rt = m->discrete ? max2(R0 / s, m->R_floor) : R0;
		return;
	}
	if (m->cone == CORE_CONE_ELLIPTIC) {
		R0 = max2(MJ_MINVAL, (1 - imp) * m->tran / imp);
		if (m->discrete)
			R0 = max2(R0 / s, m->R_floor);
		o->Rn = R0;
		o->Rt = R0 / max2(MJ_MINVAL, m->impratio);
		return;
	}
	R0 = max2(MJ_MINVAL, (1 - imp) * (m->tran + f0 * f0 * m->tran) / imp);
	if (m->discrete)
		R0 = max2(R0 / s, m->R_floor);
	R1 = R0 / max2(MJ_MINVAL, m->impratio);
	mu = f0 * sqrt(R1 / R0);
	o->Rn = o->Rt = 2 * mu * mu * R0;
}

static double pad_balance(double u, void *params)
{
	const struct balance *b = params;
	const struct core_pinch_model *m = b->m;
	double imp = core_law_impedance(-u, &m->solimp, NULL);
	struct steady_rows o;
	int rows = m->cone == CORE_CONE_ELLIPTIC ? 1 : m->rows_per_pad;

	steady_rows(m, imp, &o);
	return rows * (o.Kr * o.Kimp * u) / o.Rn - b->F;
}

int core_pinch_steady(
    const struct core_pinch_model *m, double *creep, double *penetration, double *normal_force)
{
	struct balance b = {m, m->pad_mass * m->a0_pad};
	double u, imp, spring, f = m->contact.friction[1], load = -m->mass * m->a0_object;
	double v;
	struct steady_rows o;

	if (m->contact.condim == 1 || !(m->gains.K > 0) || !(m->gains.B > 0))
		return -1;
	if (core_law_root_increasing(pad_balance, &b, &u) != 0)
		return -1;
	imp = core_law_impedance(-u, &m->solimp, NULL);
	steady_rows(m, imp, &o);
	/* the normal rows' x at rest: -(K imp u) (discrete: over s) */
	spring = o.Kr * o.Kimp * u;
	if (m->cone == CORE_CONE_ELLIPTIC) {
		/* bottom zone: the z tangent rows carry the load, x_t = Bt*v = load*R1/2 */
		double mu = m->contact.friction[0] * sqrt(o.Rt / o.Rn);
		double xt = load * o.Rt / 2;

		v = xt / o.Bt;
		if (!(mu * (mu * -spring) + f * xt <= 0))
			return -1;
	} else {
		/* every row active: the z pair's forces differ by 2*D*Bv*f*v per pad */
		v = load * o.Rn / (4 * o.Bv * f * f);
		if (!(spring - o.Bv * f * v > 0))
			return -1;
	}
	*creep = v;
	*penetration = u - m->contact.includemargin;
	*normal_force = b.F;
	return 0;
}
