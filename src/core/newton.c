/*
 * newton.c: MuJoCo's Newton constraint solver on the hold scene's two unknowns
 * (newton.h), read from engine_solver.c and engine_forward.c at the release tags
 * 2.2.2, 3.3.7, 3.5.0, 3.9.0, 3.10.0, 3.11.0 and 3.12.0 (formulas carry over; the code
 * is this project's).
 *
 * The mirror-symmetric subspace is invariant under the solver's steps: from a
 * symmetric start the gradient is symmetric, and the Hessian, which commutes with the
 * mirror, maps it to a symmetric direction. So every step is computed on (az, ap); only
 * the norms and dot products the tests use are the full problem's, where a pad's
 * coordinate counts `pads` times.
 */
#include "core/newton.h"

#include <math.h>

#include "core/knobs.h"
#include "core/mjver.h"

enum core_newton_era core_newton_era(int mujoco)
{
	struct core_mjver_rules r; /* its release boundaries, looked up once */

	core_mjver_rules(mujoco, &r);
	return r.newton_certificate ? CORE_NEWTON_3_11
	    : r.newton_shifted_costs ? CORE_NEWTON_3_10
	    : r.solver_islands       ? CORE_NEWTON_3_5
	                             : CORE_NEWTON_2_2;
}

/* The constraints at a point: the cost, its gradient and Hessian (at the point's
 * states) on (az, ap), and qfrc_constraint summed over the rows. */
struct point {
	double cost;
	double gz, gp;
	double hzz, hzp, hpp;
	double qz, qp; /* qfrc_constraint: the object's z, the pads' joints summed */
};

static void add_force(
    struct point *o, const struct core_newton_row *r, double f, double jz, double jp)
{
	o->qz += r->w * f * jz;
	o->qp += r->w * f * jp;
}

static void add_hessian(struct point *o, double w, double jz, double jp)
{
	o->hzz += w * jz * jz;
	o->hzp += w * jz * jp;
	o->hpp += w * jp * jp;
}

/* mj_constraintUpdate's cost, forces and states of row r at (az, ap); its cost alone
 * unless full. Inlined into evaluate: a call per row and point cost about a twentieth of
 * a grasp answer. */
static inline __attribute__((always_inline)) void row_update(
    const struct core_newton_row *r, double az, double ap, int full, struct point *o)
{
	double x = r->jz * az + r->jp * ap - r->aref;

	if (r->kind == CORE_NEWTON_INEQ) {
		if (x < 0) {
			o->cost += r->w * 0.5 * r->D * x * x;
			if (!full)
				return;
			add_force(o, r, -r->D * x, r->jz, r->jp);
			add_hessian(o, r->w * r->D, r->jz, r->jp);
		}
	} else if (r->kind == CORE_NEWTON_FRICTION) {
		double Rf = r->R * r->floss;

		if (-Rf < x && x < Rf) {
			o->cost += r->w * 0.5 * r->D * x * x;
			if (!full)
				return;
			add_force(o, r, -r->D * x, r->jz, r->jp);
			add_hessian(o, r->w * r->D, r->jz, r->jp);
		} else if (x <= -Rf) {
			o->cost += r->w * r->floss * (-0.5 * Rf - x);
			if (!full)
				return;
			add_force(o, r, r->floss, r->jz, r->jp);
		} else {
			o->cost += r->w * r->floss * (-0.5 * Rf + x);
			if (!full)
				return;
			add_force(o, r, -r->floss, r->jz, r->jp);
		}
	} else {
		double xt = -az - r->aref_t, mu = r->mu;
		double N = x * mu, T = fabs(xt * r->fr);

		if (N >= mu * T || (T <= 0 && N >= 0))
			return;
		if (mu * N + T <= 0 || (T <= 0 && N < 0)) {
			o->cost += r->w * 0.5 * (r->D * x * x + r->Dt * xt * xt);
			if (!full)
				return;
			add_force(o, r, -r->D * x, r->jz, r->jp);
			add_force(o, r, -r->Dt * xt, -1, 0);
			add_hessian(o, r->w * r->D, r->jz, r->jp);
			add_hessian(o, r->w * r->Dt, -1, 0);
		} else {
			double Dm = r->D / (mu * mu * (1 + mu * mu)), NmT = N - mu * T;
			double s = xt > 0 ? 1 : -1;

			o->cost += r->w * 0.5 * Dm * NmT * NmT;
			if (!full)
				return;
			add_force(o, r, -Dm * NmT * mu, r->jz, r->jp);
			add_force(o, r, Dm * NmT * mu * r->fr * r->fr * xt / T, -1, 0);
			/* N - mu T moves as mu (J0 - fr s Jt); T's curvature lies off the mirror's
			 * subspace (its other tangents are 0 here) */
			add_hessian(o, r->w * Dm * mu * mu, r->jz - r->fr * s * -1, r->jp);
		}
	}
}

/* The point (az, ap) into *o; its cost alone unless full (the same number). Inlined,
 * as line_eval: a step calls both a few times, and the calls' register saves showed. */
static inline __attribute__((always_inline)) void evaluate(
    const struct core_newton_problem *p, double az, double ap, int full, struct point *o)
{
	double dz = az - p->a0z, dp = ap - p->a0p;
	int i;

	*o = (struct point){0};
	for (i = 0; i < p->nrows; i++)
		row_update(&p->row[i], az, ap, full, o);
	o->cost += p->pads * 0.5 * (p->Mp * dp) * dp;
	if (!full) {
		if (p->with_z)
			o->cost += 0.5 * (p->Mz * dz) * dz;
		return;
	}
	o->hpp += p->pads * p->Mp;
	o->gp = p->pads * p->Mp * dp - o->qp;
	if (p->with_z) {
		o->cost += 0.5 * (p->Mz * dz) * dz;
		o->hzz += p->Mz;
		o->gz = p->Mz * dz - o->qz;
	} else {
		o->hzz = 1;
		o->hzp = o->gz = 0;
	}
}

/* x = H^-1 g on (az, ap) */
static void newton_direction(const struct point *o, double *xz, double *xp)
{
	double det = o->hzz * o->hpp - o->hzp * o->hzp;

	*xz = (o->hpp * o->gz - o->hzp * o->gp) / det;
	*xp = (o->hzz * o->gp - o->hzp * o->gz) / det;
}

/* the full problem's |grad| and grad . v */
static double grad_norm(const struct core_newton_problem *p, const struct point *o)
{
	return sqrt(o->gz * o->gz + o->gp * o->gp / p->pads);
}

/* A point of the line search: its shifted cost cost(alpha) - cost(0) and derivatives. */
struct lpoint {
	double alpha, cost, d0, d1;
};

/* One row on the line, as PrimalPrepare keeps it: what does not move with alpha, computed
 * once a line rather than at each of its evaluations (the same expressions, so the same
 * numbers). start and dir: the row's x at alpha 0 and its change per alpha. */
struct lrow {
	double start, dir;
	/* inequality: the quadratic's parts where x < 0 (w q0 - cost0, w dir D start,
	 * w dir D dir / 2) and w cost0, the cost at the start */
	double c0, c1, c2, cw;
	/* frictionloss: R floss, the start's zone and cost, w D, w D dir dir */
	double Rf, fcost0, wD, wDdd;
	int z0;
	/* cone: its quadratic q, U0, V0, UU, UV, VV, Dm, the start's T0, and (cost_dif's
	 * pieces) U0 - mu T0, mu U0 + T0; w 2 q2 */
	double q[3], U0, V0, UU, UV, VV, Dm, T0, r0, b0, w2q2;
};

/* The line: its start's rows and the direction, as PrimalPrepare keeps them. */
struct line {
	const struct core_newton_problem *p;
	double az, ap, sz, sp;
	double g1, g2; /* the Gauss term's alpha and alpha^2 coefficients */
	int evals;
	struct lrow lr[CORE_NEWTON_ROWS];
};

static double friction_cost(double x, double f, double Rf, double D)
{
	if (-Rf < x && x < Rf)
		return 0.5 * D * x * x;
	if (x <= -Rf)
		return f * (-0.5 * Rf - x);
	return f * (-0.5 * Rf + x);
}

static int friction_zone(double x, double Rf)
{
	return (-Rf < x && x < Rf) ? 0 : (x <= -Rf ? -1 : 1);
}

/* frictionCostDif: cost(x) - cost(start), the start's zone z0 and cost cost0 */
static double friction_cost_dif(
    double start, int z0, double cost0, double x, double f, double Rf, double D)
{
	int z1 = friction_zone(x, Rf);

	if (z0 == 0 && z1 == 0)
		return 0.5 * D * (x - start) * (x + start);
	if (z0 == -1 && z1 == -1)
		return f * (start - x);
	if (z0 == 1 && z1 == 1)
		return f * (x - start);
	return friction_cost(x, f, Rf, D) - cost0;
}

/* a cone's zone at (N, Tsqr): 1 top, 2 bottom, 3 middle; *T its T */
static int cone_zone(double N, double Tsqr, double mu, double *T)
{
	*T = 0;
	if (Tsqr <= 0)
		return N < 0 ? 2 : 1;
	*T = sqrt(Tsqr);
	if (N >= mu * *T)
		return 1;
	if (mu * N + *T <= 0)
		return 2;
	return 3;
}

/* ellipticCostDif: cost(alpha) - cost(0) of the cone c (start zone z0), at alpha in zone
 * za, where N and T are its */
static double cone_cost_dif(
    const struct lrow *c, int z0, double alpha, double mu, int za, double N, double T)
{
	const double *q = c->q;

	if (z0 == 1 && za == 1)
		return 0;
	if (z0 == 2 && za == 2)
		return alpha * alpha * q[2] + alpha * q[1];
	if (z0 == 3 && za == 3) {
		double Td = alpha * (2 * c->UV + alpha * c->VV) / (T + c->T0);
		double rd = alpha * c->V0 - mu * Td;

		return 0.5 * c->Dm * rd * (2 * c->r0 + rd);
	}
	if (z0 == 3 && za == 2)
		return alpha * (alpha * q[2] + q[1]) + 0.5 * c->Dm * c->b0 * c->b0;
	if (z0 == 2 && za == 3) {
		double b = mu * N + T;

		return alpha * (alpha * q[2] + q[1]) - 0.5 * c->Dm * b * b;
	}
	if (z0 == 1 && za == 2)
		return alpha * alpha * q[2] + alpha * q[1] + q[0];
	if (z0 == 1 && za == 3)
		return 0.5 * c->Dm * (N - mu * T) * (N - mu * T);
	if (z0 == 3 && za == 1)
		return -0.5 * c->Dm * c->r0 * c->r0;
	if (z0 == 2 && za == 1)
		return -q[0];
	return 0;
}

/* PrimalPrepare: each row's part of the line that alpha does not move */
static void line_prepare(struct line *l)
{
	const struct core_newton_problem *p = l->p;
	int i;

	for (i = 0; i < p->nrows; i++) {
		const struct core_newton_row *r = &p->row[i];
		struct lrow *c = &l->lr[i];
		double start = r->jz * l->az + r->jp * l->ap - r->aref;
		double dir = r->jz * l->sz + r->jp * l->sp, w = r->w;

		c->start = start;
		c->dir = dir;
		if (r->kind == CORE_NEWTON_FRICTION) {
			c->Rf = r->R * r->floss;
			c->z0 = friction_zone(start, c->Rf);
			c->fcost0 = friction_cost(start, r->floss, c->Rf, r->D);
			c->wD = w * r->D;
			c->wDdd = w * r->D * dir * dir;
		} else if (r->kind == CORE_NEWTON_INEQ) {
			double q0 = 0.5 * r->D * start * start, cost0 = start < 0 ? q0 : 0;

			c->c0 = w * (q0 - cost0);
			c->c1 = w * (dir * r->D * start);
			c->c2 = w * (0.5 * dir * r->D * dir);
			c->cw = w * cost0;
		} else {
			double st = -l->az - r->aref_t, dt = -l->sz, mu = r->mu;
			double Ut = st * r->fr, Vt = dt * r->fr;

			c->U0 = start * mu;
			c->V0 = dir * mu;
			c->UU = Ut * Ut;
			c->UV = Ut * Vt;
			c->VV = Vt * Vt;
			c->Dm = r->D / ((mu * mu) * (1 + (mu * mu)));
			c->q[0] = 0.5 * (start * r->D * start + st * r->Dt * st);
			c->q[1] = dir * r->D * start + dt * r->Dt * st;
			c->q[2] = 0.5 * (dir * r->D * dir + dt * r->Dt * dt);
			c->z0 = cone_zone(c->U0, c->UU, mu, &c->T0);
			c->r0 = c->U0 - mu * c->T0;
			c->b0 = mu * c->U0 + c->T0;
			c->w2q2 = w * (2 * c->q[2]);
		}
	}
}

/* PrimalEval: the shifted cost and its derivatives at p->alpha */
static inline __attribute__((always_inline)) void line_eval(
    struct line *l, struct lpoint *pt)
{
	const struct core_newton_problem *p = l->p;
	double alpha = pt->alpha, cost = 0, d0 = 0, d1 = 0, qt[3] = {0, l->g1, l->g2};
	int i;

	for (i = 0; i < p->nrows; i++) {
		const struct core_newton_row *r = &p->row[i];
		const struct lrow *c = &l->lr[i];
		double dir = c->dir, w = r->w;
		double x = c->start + alpha * dir;

		if (r->kind == CORE_NEWTON_FRICTION) {
			double Rf = c->Rf;

			cost += w *
			    friction_cost_dif(c->start, c->z0, c->fcost0, x, r->floss, Rf, r->D);
			if (-Rf < x && x < Rf) {
				d0 += c->wD * x * dir;
				d1 += c->wDdd;
			} else {
				d0 += w * (x <= -Rf ? -r->floss : r->floss) * dir;
			}
		} else if (r->kind == CORE_NEWTON_INEQ) {
			if (x < 0) {
				qt[0] += c->c0;
				qt[1] += c->c1;
				qt[2] += c->c2;
			} else {
				cost -= c->cw;
			}
		} else {
			double mu = r->mu, T;
			double N = c->U0 + alpha * c->V0;
			double Tsqr = c->UU + alpha * (2 * c->UV + alpha * c->VV);
			int z = cone_zone(N, Tsqr, mu, &T);

			cost += w * cone_cost_dif(c, c->z0, alpha, mu, z, N, T);
			if (z == 2) {
				d0 += w * (2 * alpha * c->q[2] + c->q[1]);
				d1 += c->w2q2;
			} else if (z == 3) {
				double UV = c->UV, VV = c->VV, V0 = c->V0, Dm = c->Dm;
				double T1 = (UV + alpha * VV) / T;
				double T2 = VV / T - (UV + alpha * VV) * T1 / (T * T);

				d0 += w * (Dm * (N - mu * T) * (V0 - mu * T1));
				d1 += w *
				    (Dm *
				        ((V0 - mu * T1) * (V0 - mu * T1) +
				            (N - mu * T) * (-mu * T2)));
			}
		}
	}
	cost += alpha * alpha * qt[2] + alpha * qt[1] + qt[0];
	d0 += 2 * alpha * qt[2] + qt[1];
	d1 += 2 * qt[2];
	if (d1 <= 0)
		d1 = MJ_MINVAL;
	pt->cost = cost;
	pt->d0 = d0;
	pt->d1 = d1;
	l->evals++;
}

/* updateBracket */
static int update_bracket(
    struct line *l, struct lpoint *b, const struct lpoint *cand, struct lpoint *next)
{
	int flag = 0, i;

	for (i = 0; i < 3; i++) {
		if (b->d0 < 0 && cand[i].d0 < 0 && b->d0 < cand[i].d0) {
			*b = cand[i];
			flag = 1;
		} else if (b->d0 > 0 && cand[i].d0 > 0 && b->d0 > cand[i].d0) {
			*b = cand[i];
			flag = 2;
		}
	}
	if (flag) {
		next->alpha = b->alpha - b->d0 / b->d1;
		line_eval(l, next);
	}
	return flag;
}

/* PrimalSearch (CGsearch before 3.5.0): the step along the line, and the improvement
 * (-shifted cost) it found. Shifted costs throughout: before 3.10.0 MuJoCo compared
 * absolute costs with p0's, the same comparisons. */
static double line_search(
    struct line *l, enum core_newton_era era, double snorm, double scale, double *improvement)
{
	struct lpoint p0, p1, p2, pmid, p1n, p2n;
	double gtol = MJ_TOLERANCE * MJ_LS_TOLERANCE * snorm / scale;
	int late = era >= CORE_NEWTON_3_10, dir, p2update, i;

	*improvement = 0;
	p0.alpha = 0;
	line_eval(l, &p0);
	p1.alpha = p0.alpha - p0.d0 / p0.d1;
	line_eval(l, &p1);
	if (era == CORE_NEWTON_2_2 && p0.cost < p1.cost)
		p1 = p0;
	if (fabs(p1.d0) < gtol && (!late || p1.alpha == 0 || p1.cost < 0)) {
		*improvement = -p1.cost;
		return p1.alpha;
	}
	dir = p1.d0 < 0 ? 1 : -1;
	p2 = p0;
	p2update = era != CORE_NEWTON_2_2;
	while (p1.d0 * dir <= -gtol && l->evals < MJ_LS_ITERATIONS) {
		p2 = p1;
		p2update = 1;
		p1.alpha -= p1.d0 / p1.d1;
		line_eval(l, &p1);
		if (fabs(p1.d0) < gtol && (!late || p1.cost < 0)) {
			*improvement = -p1.cost;
			return p1.alpha;
		}
	}
	if (l->evals >= MJ_LS_ITERATIONS || !p2update) {
		*improvement = -p1.cost;
		return p1.alpha;
	}
	p2n = p1;
	p1n.alpha = p1.alpha - p1.d0 / p1.d1;
	line_eval(l, &p1n);
	while (l->evals < MJ_LS_ITERATIONS) {
		struct lpoint cand[3];
		int best = -1, b1, b2;

		pmid.alpha = 0.5 * (p1.alpha + p2.alpha);
		line_eval(l, &pmid);
		cand[0] = p1n;
		cand[1] = p2n;
		cand[2] = pmid;
		for (i = 0; i < 3; i++)
			if (fabs(cand[i].d0) < gtol &&
			    (best == -1 || cand[i].cost < cand[best].cost))
				best = i;
		if (best >= 0) {
			*improvement = -cand[best].cost;
			return cand[best].alpha;
		}
		b1 = update_bracket(l, &p1, cand, &p1n);
		b2 = update_bracket(l, &p2, cand, &p2n);
		if (!b1 && !b2) {
			*improvement = -pmid.cost;
			return pmid.alpha;
		}
	}
	if (p1.cost <= p2.cost && p1.cost < 0) {
		*improvement = -p1.cost;
		return p1.alpha;
	}
	if (p2.cost <= p1.cost && p2.cost < 0) {
		*improvement = -p2.cost;
		return p2.alpha;
	}
	return 0;
}

/* The warmstart: the cheaper of the previous qacc and qacc_smooth, evaluated into *o */
static void warmstart(const struct core_newton_problem *p, double *az, double *ap, struct point *o)
{
	struct point s;

	if (!p->with_z)
		*az = p->a0z;
	evaluate(p, *az, *ap, 1, o);
	/* qacc_smooth's cost first: it is rarely the cheaper */
	evaluate(p, p->a0z, p->a0p, 0, &s);
	if (o->cost > s.cost) {
		*az = p->a0z;
		*ap = p->a0p;
		evaluate(p, *az, *ap, 1, o);
	}
}

void core_newton_solve(
    const struct core_newton_problem *p, double *az, double *ap, double *qfrc_z, double *qfrc_p)
{
	struct point o;
	double sz, sp, scale = p->scale, tol = MJ_TOLERANCE;
	int iter = 0, done = 0;

	warmstart(p, az, ap, &o);
	newton_direction(&o, &sz, &sp);
	if (p->era == CORE_NEWTON_3_11) {
		/* the certificate: the gap bound 0.5 grad' M^-1 grad and the gradient both below
		 * tolerance at the start; then the Newton decrement */
		double gap = 0.5 * scale *
		    ((p->with_z ? o.gz * o.gz / p->Mz : 0) + o.gp * o.gp / (p->pads * p->Mp));
		int gradient_ok = scale * grad_norm(p, &o) < tol;

		done = (gap > 0 ? gap : 0) < tol && gradient_ok;
		if (!done) {
			double dec = 0.5 * scale * (o.gz * sz + o.gp * sp);

			done = gradient_ok && (dec > 0 ? dec : 0) < tol;
		}
	}
	sz = -sz;
	sp = -sp;
	if (!p->with_z)
		sz = 0;
	while (!done && iter < MJ_ITERATIONS) {
		struct line l; /* its rows: line_prepare */
		double snorm = sqrt(sz * sz + p->pads * sp * sp), ls_improvement, alpha,
		       improvement;
		double oldcost = o.cost, gradient, mz, mp;

		if (snorm < MJ_MINVAL)
			break;
		l.p = p;
		l.az = *az;
		l.ap = *ap;
		l.sz = sz;
		l.sp = sp;
		l.evals = 0;
		l.g1 = sz * (p->with_z ? p->Mz * (*az - p->a0z) : 0) +
		    sp * p->pads * p->Mp * (*ap - p->a0p);
		l.g2 = 0.5 * ((p->with_z ? p->Mz * sz * sz : 0) + p->pads * p->Mp * sp * sp);
		line_prepare(&l);
		alpha = line_search(&l, p->era, snorm, scale, &ls_improvement);
		if (alpha == 0)
			break;
		*az += alpha * sz;
		*ap += alpha * sp;
		evaluate(p, *az, *ap, 1, &o);
		improvement =
		    scale * (p->era >= CORE_NEWTON_3_10 ? ls_improvement : oldcost - o.cost);
		iter++;
		if (p->era >= CORE_NEWTON_3_10 ? (improvement > 0 && improvement < tol)
		                               : improvement < tol)
			break;
		/* the gradient and the next direction only when the improvement went on */
		gradient = scale * grad_norm(p, &o);
		if (gradient < tol)
			break;
		newton_direction(&o, &mz, &mp);
		if (p->era == CORE_NEWTON_3_11) {
			double dec = 0.5 * scale * (o.gz * mz + o.gp * mp);

			if ((dec > 0 ? dec : 0) < tol)
				break;
		}
		sz = p->with_z ? -mz : 0;
		sp = -mp;
	}
	*qfrc_z = o.qz;
	*qfrc_p = o.qp / p->pads;
}
