/*
 * nsnewton.c: MuJoCo's Newton constraint solver on the asymmetric step's five
 * coordinates (nsnewton.h): newton.c's replay of mj_solNewton (the same rules per
 * release, read from engine_solver.c and engine_forward.c at the release tags), with the
 * rows' Jacobians as five-vectors instead of the mirror's two unknowns, an elliptic
 * contact's tangents as many as it keeps, and islands found from the rows.
 */
#include "core/nsnewton.h"

#include <math.h>
#include <string.h>

#include "core/knobs.h"

#define NDOF CORE_NSNEWTON_DOF

/* the trees of the coordinates: the object, the left pad, the right pad */
static int tree_of(int i)
{
	return i < 3 ? 0 : i - 2;
}

static double row_dot(const double *j, const double *v)
{
	return j[0] * v[0] + j[1] * v[1] + j[2] * v[2] + j[3] * v[3] + j[4] * v[4];
}

/* One solve: an island's rows and coordinates, or all of them. */
struct view {
	struct core_nsnewton_problem *p;
	int in[NDOF];
	int rows[CORE_NSNEWTON_ROWS], nrows;
	double scale;
};

/* The constraints at a point: the cost, its gradient and Hessian on the view's
 * coordinates, and qfrc_constraint. */
struct point {
	double cost;
	double g[NDOF], H[NDOF * NDOF], qfrc[NDOF];
};

static void add_force(struct point *o, double w, double f, const double *J)
{
	int i;

	for (i = 0; i < NDOF; i++)
		o->qfrc[i] += w * f * J[i];
}

static void add_hessian(struct point *o, double w, const double *Ja, const double *Jb)
{
	int i, j;

	for (i = 0; i < NDOF; i++)
		if (Ja[i] != 0)
			for (j = 0; j < NDOF; j++)
				o->H[i * NDOF + j] += w * Ja[i] * Jb[j];
}

/* a cone's zone at its rows' x: 1 top, 2 bottom, 3 middle; N = x0 mu, U_k = x_k fric_k,
 * T = |U| (newton.c's cone_zone) */
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

/* mj_constraintUpdate's cost, forces and states of row r at a; its cost alone unless
 * full (then its forces are set too) */
static void row_update(struct core_nsnewton_row *r, const double *a, int full, struct point *o)
{
	double x[CORE_NSNEWTON_CONE], w = r->w;
	int k, j;

	for (k = 0; k < r->dim; k++)
		x[k] = row_dot(r->J[k], a) - r->aref[k];
	if (r->kind == CORE_NEWTON_INEQ) {
		if (!(x[0] < 0)) {
			if (full)
				r->force[0] = 0;
			return;
		}
		o->cost += w * 0.5 * r->D[0] * x[0] * x[0];
		if (!full)
			return;
		r->force[0] = -r->D[0] * x[0];
		add_force(o, w, r->force[0], r->J[0]);
		add_hessian(o, w * r->D[0], r->J[0], r->J[0]);
	} else if (r->kind == CORE_NEWTON_FRICTION) {
		double Rf = r->R * r->floss;

		if (-Rf < x[0] && x[0] < Rf) {
			o->cost += w * 0.5 * r->D[0] * x[0] * x[0];
			if (!full)
				return;
			r->force[0] = -r->D[0] * x[0];
			add_hessian(o, w * r->D[0], r->J[0], r->J[0]);
		} else if (x[0] <= -Rf) {
			o->cost += w * r->floss * (-0.5 * Rf - x[0]);
			if (!full)
				return;
			r->force[0] = r->floss;
		} else {
			o->cost += w * r->floss * (-0.5 * Rf + x[0]);
			if (!full)
				return;
			r->force[0] = -r->floss;
		}
		add_force(o, w, r->force[0], r->J[0]);
	} else {
		double mu = r->mu, N = x[0] * mu, Tsqr = 0, T, U[CORE_NSNEWTON_CONE] = {0};
		int zone;

		for (k = 1; k < r->dim; k++) {
			U[k] = x[k] * r->fric[k];
			Tsqr += U[k] * U[k];
		}
		zone = cone_zone(N, Tsqr, mu, &T);
		if (zone == 1) {
			if (full)
				for (k = 0; k < r->dim; k++)
					r->force[k] = 0;
			return;
		}
		if (zone == 2) {
			for (k = 0; k < r->dim; k++) {
				o->cost += w * 0.5 * r->D[k] * x[k] * x[k];
				if (!full)
					continue;
				r->force[k] = -r->D[k] * x[k];
				add_force(o, w, r->force[k], r->J[k]);
				add_hessian(o, w * r->D[k], r->J[k], r->J[k]);
			}
			return;
		}
		{
			double Dm = r->D[0] / (mu * mu * (1 + mu * mu)), NT = N - mu * T;
			double g[CORE_NSNEWTON_CONE], c = -mu * Dm * NT / T;

			o->cost += w * 0.5 * Dm * NT * NT;
			if (!full)
				return;
			g[0] = mu;
			for (k = 1; k < r->dim; k++)
				g[k] = -mu * U[k] * r->fric[k] / T;
			for (k = 0; k < r->dim; k++) {
				r->force[k] = -Dm * NT * g[k];
				add_force(o, w, r->force[k], r->J[k]);
			}
			/* Dm g g' + (-mu Dm NT) d2T/dx2, d2T/dx2 = diag(fr) (I - u u') diag(fr) / T
			 */
			for (k = 0; k < r->dim; k++)
				for (j = 0; j < r->dim; j++) {
					double h = Dm * g[k] * g[j];

					if (k > 0 && j > 0)
						h += c * r->fric[k] * r->fric[j] *
						    ((k == j) - U[k] * U[j] / (T * T));
					if (h != 0)
						add_hessian(o, w * h, r->J[k], r->J[j]);
				}
		}
	}
}

/* The point a into *o; its cost alone unless full (the same number). */
static void evaluate(const struct view *v, const double *a, int full, struct point *o)
{
	const struct core_nsnewton_problem *p = v->p;
	int i;

	memset(o, 0, sizeof *o);
	for (i = 0; i < v->nrows; i++)
		row_update(&v->p->row[v->rows[i]], a, full, o);
	for (i = 0; i < NDOF; i++) {
		double d = a[i] - p->a0[i];

		if (!v->in[i])
			continue;
		o->cost += 0.5 * (p->M[i] * d) * d;
		if (!full)
			continue;
		o->H[i * NDOF + i] += p->M[i];
		o->g[i] = p->M[i] * d - o->qfrc[i];
	}
}

/* x = H^-1 g on the view's coordinates (0 elsewhere), by Cholesky (mju_cholFactor's
 * pivots floored at MJ_MINVAL) */
static void newton_direction(const struct view *v, const struct point *o, double *x)
{
	double L[NDOF * NDOF], y[NDOF];
	int idx[NDOF], n = 0, i, j, k;

	for (i = 0; i < NDOF; i++)
		if (v->in[i])
			idx[n++] = i;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			L[i * n + j] = o->H[idx[i] * NDOF + idx[j]];
	for (j = 0; j < n; j++) {
		double t = L[j * n + j];

		for (k = 0; k < j; k++)
			t -= L[j * n + k] * L[j * n + k];
		if (t < MJ_MINVAL)
			t = MJ_MINVAL;
		L[j * n + j] = sqrt(t);
		for (i = j + 1; i < n; i++) {
			double s = L[i * n + j];

			for (k = 0; k < j; k++)
				s -= L[i * n + k] * L[j * n + k];
			L[i * n + j] = s / L[j * n + j];
		}
	}
	for (i = 0; i < n; i++) {
		double s = o->g[idx[i]];

		for (k = 0; k < i; k++)
			s -= L[i * n + k] * y[k];
		y[i] = s / L[i * n + i];
	}
	for (i = n - 1; i >= 0; i--) {
		double s = y[i];

		for (k = i + 1; k < n; k++)
			s -= L[k * n + i] * y[k];
		y[i] = s / L[i * n + i];
	}
	memset(x, 0, NDOF * sizeof x[0]);
	for (i = 0; i < n; i++)
		x[idx[i]] = y[i];
}

static double dot_in(const struct view *v, const double *a, const double *b)
{
	double s = 0;
	int i;

	for (i = 0; i < NDOF; i++)
		if (v->in[i])
			s += a[i] * b[i];
	return s;
}

/* ---- the line search: newton.c's, on these rows ---- */

struct lpoint {
	double alpha, cost, d0, d1;
};

/* One row on the line (PrimalPrepare): what does not move with alpha. */
struct lrow {
	double start[CORE_NSNEWTON_CONE], dir[CORE_NSNEWTON_CONE];
	double c0, c1, c2, cw;       /* inequality */
	double Rf, fcost0, wD, wDdd; /* frictionloss */
	int z0;                      /* frictionloss, cone: the start's zone */
	double q[3], U0, V0, UU, UV, VV, Dm, T0, r0, b0, w2q2; /* cone */
};

struct line {
	const struct view *v;
	double g1, g2;
	int evals;
	struct lrow lr[CORE_NSNEWTON_ROWS];
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

/* ellipticCostDif (newton.c's cone_cost_dif) */
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

static void line_prepare(struct line *l, const double *a, const double *s)
{
	const struct view *v = l->v;
	int i, k;

	for (i = 0; i < v->nrows; i++) {
		const struct core_nsnewton_row *r = &v->p->row[v->rows[i]];
		struct lrow *c = &l->lr[i];
		double w = r->w;

		for (k = 0; k < r->dim; k++) {
			c->start[k] = row_dot(r->J[k], a) - r->aref[k];
			c->dir[k] = row_dot(r->J[k], s);
		}
		if (r->kind == CORE_NEWTON_FRICTION) {
			c->Rf = r->R * r->floss;
			c->z0 = friction_zone(c->start[0], c->Rf);
			c->fcost0 = friction_cost(c->start[0], r->floss, c->Rf, r->D[0]);
			c->wD = w * r->D[0];
			c->wDdd = w * r->D[0] * c->dir[0] * c->dir[0];
		} else if (r->kind == CORE_NEWTON_INEQ) {
			double st = c->start[0], dir = c->dir[0];
			double q0 = 0.5 * r->D[0] * st * st, cost0 = st < 0 ? q0 : 0;

			c->c0 = w * (q0 - cost0);
			c->c1 = w * (dir * r->D[0] * st);
			c->c2 = w * (0.5 * dir * r->D[0] * dir);
			c->cw = w * cost0;
		} else {
			double mu = r->mu;

			c->U0 = c->start[0] * mu;
			c->V0 = c->dir[0] * mu;
			c->UU = c->UV = c->VV = 0;
			c->q[0] = c->q[1] = c->q[2] = 0;
			for (k = 0; k < r->dim; k++) {
				double st = c->start[k], dt = c->dir[k];

				c->q[0] += 0.5 * st * r->D[k] * st;
				c->q[1] += dt * r->D[k] * st;
				c->q[2] += 0.5 * dt * r->D[k] * dt;
				if (k > 0) {
					double Ut = st * r->fric[k], Vt = dt * r->fric[k];

					c->UU += Ut * Ut;
					c->UV += Ut * Vt;
					c->VV += Vt * Vt;
				}
			}
			c->Dm = r->D[0] / ((mu * mu) * (1 + (mu * mu)));
			c->z0 = cone_zone(c->U0, c->UU, mu, &c->T0);
			c->r0 = c->U0 - mu * c->T0;
			c->b0 = mu * c->U0 + c->T0;
			c->w2q2 = w * (2 * c->q[2]);
		}
	}
}

/* PrimalEval: the shifted cost and its derivatives at pt->alpha */
static void line_eval(struct line *l, struct lpoint *pt)
{
	const struct view *v = l->v;
	double alpha = pt->alpha, cost = 0, d0 = 0, d1 = 0, qt[3] = {0, l->g1, l->g2};
	int i;

	for (i = 0; i < v->nrows; i++) {
		const struct core_nsnewton_row *r = &v->p->row[v->rows[i]];
		const struct lrow *c = &l->lr[i];
		double dir = c->dir[0], w = r->w;
		double x = c->start[0] + alpha * dir;

		if (r->kind == CORE_NEWTON_FRICTION) {
			double Rf = c->Rf;

			cost += w *
			    friction_cost_dif(
			        c->start[0], c->z0, c->fcost0, x, r->floss, Rf, r->D[0]);
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

/* PrimalSearch (newton.c's line_search, the same rules per release) */
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

/* mj_solNewton on one view from a (newton.c's core_newton_solve) */
static void solve_view(const struct view *v, double *a)
{
	const struct core_nsnewton_problem *p = v->p;
	struct point o;
	double s[NDOF], mg[NDOF], scale = v->scale, tol = MJ_TOLERANCE;
	int iter = 0, done = 0, i;

	evaluate(v, a, 1, &o);
	newton_direction(v, &o, s);
	if (p->era == CORE_NEWTON_3_11) {
		double gap = 0, dec;
		int gradient_ok;

		for (i = 0; i < NDOF; i++)
			if (v->in[i])
				gap += o.g[i] * o.g[i] / p->M[i];
		gap *= 0.5 * scale;
		gradient_ok = scale * sqrt(dot_in(v, o.g, o.g)) < tol;
		done = (gap > 0 ? gap : 0) < tol && gradient_ok;
		if (!done) {
			dec = 0.5 * scale * dot_in(v, o.g, s);
			done = gradient_ok && (dec > 0 ? dec : 0) < tol;
		}
	}
	for (i = 0; i < NDOF; i++)
		s[i] = -s[i];
	while (!done && iter < MJ_ITERATIONS) {
		struct line l;
		double snorm = sqrt(dot_in(v, s, s)), ls_improvement, alpha, improvement;
		double oldcost = o.cost, gradient;

		if (snorm < MJ_MINVAL)
			break;
		l.v = v;
		l.evals = 0;
		l.g1 = l.g2 = 0;
		for (i = 0; i < NDOF; i++)
			if (v->in[i]) {
				l.g1 += s[i] * (p->M[i] * (a[i] - p->a0[i]));
				l.g2 += p->M[i] * s[i] * s[i];
			}
		l.g2 *= 0.5;
		line_prepare(&l, a, s);
		alpha = line_search(&l, p->era, snorm, scale, &ls_improvement);
		if (alpha == 0)
			break;
		for (i = 0; i < NDOF; i++)
			a[i] += alpha * s[i];
		evaluate(v, a, 1, &o);
		improvement =
		    scale * (p->era >= CORE_NEWTON_3_10 ? ls_improvement : oldcost - o.cost);
		iter++;
		if (p->era >= CORE_NEWTON_3_10 ? (improvement > 0 && improvement < tol)
		                               : improvement < tol)
			break;
		gradient = scale * sqrt(dot_in(v, o.g, o.g));
		if (gradient < tol)
			break;
		newton_direction(v, &o, mg);
		if (p->era == CORE_NEWTON_3_11) {
			double dec = 0.5 * scale * dot_in(v, o.g, mg);

			if ((dec > 0 ? dec : 0) < tol)
				break;
		}
		for (i = 0; i < NDOF; i++)
			s[i] = -mg[i];
	}
	/* the forces at the point it stopped (evaluate's last full call set them, but a
	 * direction that was not taken leaves them at the start's) */
	evaluate(v, a, 1, &o);
}

/* the trees a row touches, as bits */
static int row_trees(const struct core_nsnewton_row *r)
{
	int t = 0, i, k;

	for (k = 0; k < r->dim; k++)
		for (i = 0; i < NDOF; i++)
			if (r->J[k][i] != 0)
				t |= 1 << tree_of(i);
	return t;
}

void core_nsnewton_solve(struct core_nsnewton_problem *p, double *a, double *qfrc)
{
	struct view all;
	struct point ws, sm;
	int i, r;

	memset(&all, 0, sizeof all);
	all.p = p;
	all.scale = p->scale;
	for (i = 0; i < NDOF; i++)
		all.in[i] = 1;
	for (r = 0; r < p->nrows; r++)
		all.rows[all.nrows++] = r;
	if (p->nrows == 0) {
		memcpy(a, p->a0, NDOF * sizeof a[0]);
	} else {
		/* the warmstart: the cheaper of a and qacc_smooth, over the whole problem */
		evaluate(&all, a, 0, &ws);
		evaluate(&all, p->a0, 0, &sm);
		if (ws.cost > sm.cost)
			memcpy(a, p->a0, NDOF * sizeof a[0]);
		if (!p->islands) {
			solve_view(&all, a);
		} else {
			/* islands: the trees joined by rows (the object joins the pads it
			 * touches); a tree in no island takes qacc_smooth */
			int trees[CORE_NSNEWTON_ROWS], joined[3] = {0, 0, 0}, t, u, changed = 1;

			for (r = 0; r < p->nrows; r++) {
				trees[r] = row_trees(&p->row[r]);
				for (t = 0; t < 3; t++)
					if (trees[r] >> t & 1)
						joined[t] |= trees[r];
			}
			while (changed) {
				changed = 0;
				for (t = 0; t < 3; t++)
					for (u = 0; u < 3; u++)
						if ((joined[t] >> u & 1) &&
						    (joined[u] | joined[t]) != joined[t]) {
							joined[t] |= joined[u];
							changed = 1;
						}
			}
			for (i = 0; i < NDOF; i++)
				if (!joined[tree_of(i)])
					a[i] = p->a0[i];
			for (t = 0; t < 3; t++) {
				struct view v;
				double inertia = 0;

				/* each island once: at its lowest tree */
				if (!joined[t] || (joined[t] & ((1 << t) - 1)))
					continue;
				memset(&v, 0, sizeof v);
				v.p = p;
				for (i = 0; i < NDOF; i++)
					v.in[i] = joined[t] >> tree_of(i) & 1;
				for (u = 0; u < 3; u++)
					if (joined[t] >> u & 1)
						inertia += p->tree_inertia[u];
				v.scale = 1 / inertia;
				for (r = 0; r < p->nrows; r++)
					if (trees[r] & joined[t])
						v.rows[v.nrows++] = r;
				solve_view(&v, a);
			}
		}
	}
	if (qfrc) {
		struct point o;

		evaluate(&all, a, 1, &o);
		memcpy(qfrc, o.qfrc, NDOF * sizeof qfrc[0]);
	}
}
