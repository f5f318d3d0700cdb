/*
 * noslip.c: the hold scene's asymmetric step (noslip): the pads' frictionloss rows and
 * both contacts' rows, MuJoCo's Newton on them (nsnewton.c), MuJoCo's noslip sweeps over
 * the friction rows, then the integrator's velocity update (Euler's from qacc, or from
 * the forces where the pads' damping or a servo's kv is taken implicitly).
 *
 * Coordinates a = (object x, object z, rotation about y, left pad, right pad); the
 * object's y, its rotations about x and z stay 0 by the mirror y -> -y, and every row
 * the reduction drops (the y tangent, the spin, the roll about z) has the normal row's
 * Jacobian in these coordinates. Contact 0 is the left pad (geom 1), contact 1 the
 * right one, each with MuJoCo's frame: normal (s, 0, 0) from the sphere to the pad,
 * tangents (0, 1, 0) and (0, 0, s). */
#include "core/noslip.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/noslip_int.h"
#include "core/nsnewton.h"
#include "core/knobs.h"

static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

/* Tangent k of a contact's frame (y, z, spin, roll y, roll z) has a Jacobian in these
 * coordinates only for z and the roll about y (odd k): the others act on the object's
 * y, its rotations about x and z, which stay 0. */
static int ns_tangent_moves(int k)
{
	return k % 2 == 1;
}

/* A row's R0 from (1 - imp) diag / imp: Euler's, or the discrete integrator's (R0 / s,
 * floored at the largest impedance's R) */
static inline double ns_R0(
    const struct core_pinch_model *m, const struct core_noslip_contact *c, double raw)
{
	double R0 = max2(MJ_MINVAL, raw);

	return m->discrete ? max2(R0 / c->s, m->R_floor) : R0;
}

/* A spring row's aref at its velocity vel (J v): Euler's -B vel - K imp r, or the
 * discrete integrator's reference at the end of the step (core_law_aref_discrete) */
static inline double ns_aref(const struct core_pinch_model *m, const struct core_noslip_contact *c,
    double vel, double spring)
{
	if (m->discrete)
		return (-c->B * vel - c->Kimp * (c->rr + m->timestep * vel)) / c->s;
	return -c->B * vel - spring;
}

/* One contact's geometry with mjc_SphereBox's arithmetic (box frame = world, the
 * sphere at (x, 0, z)), then its rows at velocity v. side: 0 left, 1 right. */
static void ns_contact_make(const struct core_pinch_model *m, const struct core_noslip_state *s,
    int side, struct core_noslip_contact *c)
{
	double x0 = m->rest_dist, hx = m->half_x, R = m->radius;
	double pad = side == 0 ? -x0 + s->qL : x0 - s->qR;
	double cx = s->x - pad, cl = cx < -hx ? -hx : cx > hx ? hx : cx, t = cl - cx;
	double sg = t > 0 ? 1 : -1, deepest = cx + sg * R, pos, lever;
	double v[CORE_NOSLIP_DOF] = {s->vx, s->vz, s->wy, s->vqL, s->vqR};
	double spring, f0;
	int k, n = 0, condim = m->contact.condim;

	/* the scalars and the frame rows; the row arrays are written before they are read
	 * (rows < nrows), and clearing the whole struct was a tenth of the step */
	c->nrows = c->pair0 = c->elliptic = c->condim = c->replaced = 0;
	c->imp = c->K = c->B = c->rr = c->R0 = c->R1 = c->mu = 0;
	c->s = c->sB = 1;
	c->Kimp = 0;
	c->q = 3 + side;
	memset(c->jn, 0, sizeof c->jn);
	/* only the tangents that move here are read (ns_tangent_moves) */
	memset(c->jk[1], 0, sizeof c->jk[1]);
	memset(c->jk[3], 0, sizeof c->jk[3]);
	c->dist = fabs(t) - R;
	pos = (0 + cl * 0.5) + deepest * 0.5;
	lever = (pos + pad) - s->x;
	/* 3.8.0-3.13.0 make no contact for a touching pad mj_SAP's float32 tie leaves out */
	c->active = c->dist < m->contact.includemargin && core_pinch_paired(m, side, s->x, pad);
	if (!c->active)
		return;
	c->condim = condim;
	c->elliptic = m->cone == CORE_CONE_ELLIPTIC && condim > 1;
	memcpy(c->fr, m->contact.friction, sizeof c->fr);
	/* n . (v_pad - v_object at the contact), the pad's joint axis +x (left) or -x */
	c->jn[0] = -sg;
	c->jn[3] = sg * (side == 0 ? 1 : -1);
	/* the z tangent (0, 0, sg): -sg (vz - wy lever); the roll about y: -wy */
	c->jk[1][1] = -sg;
	c->jk[1][2] = sg * lever;
	c->jk[3][2] = -1;
	c->rr = c->dist - m->contact.includemargin;
	c->imp = core_law_impedance(c->rr, &m->solimp, NULL);
	c->K = m->gains.K;
	c->B = m->gains.B;
	spring = c->K * c->imp * c->rr;
	if (m->discrete) {
		struct core_law_discrete d;

		core_law_discrete_gains(&m->gains, c->imp, m->timestep, m->discrete_refsafe, &d);
		c->K = d.K;
		c->B = d.B;
		c->s = d.s;
		c->replaced = d.replaced;
		c->Kimp = d.K * c->imp;
		/* an elliptic friction row keeps the unreplaced B (K = 0: never replaced) */
		c->sB = 1 + m->timestep * m->gains.B;
	}
	f0 = m->contact.friction[0];
	if (condim == 1) {
		c->R0 = ns_R0(m, c, (1 - c->imp) * m->tran / c->imp);
		memcpy(c->J[0], c->jn, sizeof c->jn);
		c->R[0] = c->R0;
		c->D[0] = 1 / c->R0;
		c->aref[0] = ns_aref(m, c, core_noslip_row_dot(c->jn, c->q, v), spring);
		c->mult[0] = 1;
		c->nrows = c->pair0 = 1;
		return;
	}
	if (c->elliptic) {
		c->R0 = ns_R0(m, c, (1 - c->imp) * m->tran / c->imp);
		c->R1 = c->R0 / max2(MJ_MINVAL, m->impratio);
		c->mu = f0 * sqrt(c->R1 / c->R0);
		memcpy(c->J[n], c->jn, sizeof c->jn);
		c->R[n] = c->R0;
		c->D[n] = 1 / c->R0;
		c->aref[n++] = ns_aref(m, c, core_noslip_row_dot(c->jn, c->q, v), spring);
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
			c->aref[n++] = m->discrete
			    ? -m->gains.B * core_noslip_row_dot(c->jk[k], c->q, v) / c->sB
			    : -c->B * core_noslip_row_dot(c->jk[k], c->q, v) - 0.0;
		}
		for (k = 0; k < n; k++)
			c->mult[k] = 1;
	} else {
		double R0 = ns_R0(m, c, (1 - c->imp) * (m->tran + f0 * f0 * m->tran) / c->imp);
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
			c->aref[n] = ns_aref(m, c, core_noslip_row_dot(c->jn, c->q, v), spring);
			c->mult[n++] = same;
		}
		c->pair0 = n;
		for (k = 0; k < condim - 1; k++) {
			double sgn;

			if (!ns_tangent_moves(k))
				continue;
			for (sgn = 1; sgn >= -1; sgn -= 2) {
#pragma GCC unroll 4
				for (i = 0; i < CORE_NOSLIP_ROW_DOF; i++)
					c->J[n][i] = c->jn[i] + sgn * c->fr[k] * c->jk[k][i];
				c->R[n] = Rpy;
				c->D[n] = Dpy;
				c->tangent[n] = k;
				c->aref[n] =
				    ns_aref(m, c, core_noslip_row_dot(c->J[n], c->q, v), spring);
				c->mult[n++] = 1;
			}
		}
	}
	c->nrows = n;
}

/* The rows' generalised force J' f, into g. */
static void ns_qfrc(const struct core_noslip_contact *c, double *g)
{
	int k, r;

	memset(g, 0, CORE_NOSLIP_DOF * sizeof g[0]);
	for (k = 0; k < 2; k++)
		for (r = 0; r < c[k].nrows && c[k].active; r++)
			if (c[k].force[r] != 0)
				core_noslip_row_axpy(
				    g, c[k].mult[r] * c[k].force[r], c[k].J[r], c[k].q);
}

/* The acceleration the rows' forces give: a0 + M^-1 J' f (a0: the step's qacc_smooth),
 * the frictionloss rows' forces floss on the pads included. */
static void ns_qacc(const struct core_pinch_model *m, const double *a0,
    const struct core_noslip_contact *c, const double *floss, double *a)
{
	const double *M = m->dof_mass;
	double f[CORE_NOSLIP_DOF];

	ns_qfrc(c, f);
	f[3] += floss[0];
	f[4] += floss[1];
	a[0] = 0 + f[0] / M[0];
	a[1] = a0[1] + f[1] / M[1];
	a[2] = 0 + f[2] / M[2];
	a[3] = a0[3] + f[3] / M[3];
	a[4] = a0[4] + f[4] / M[4];
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
	struct core_noslip_contact *c;
	/* its rows: n consecutive rows of c (2 for an edge pair, 1 or 2 elliptic), their
	 * forces and Jacobians there */
	int n, q;
	double *force;
	double (*J)[CORE_NOSLIP_ROW_DOF];
	double A[4]; /* n x n */
	double jm[2][CORE_NOSLIP_ROW_DOF], b[2];
	double mu[2]; /* elliptic: the rows' friction coefficients */
	/* an edge pair (pair set): its rows' difference J_0 - J_1, times M^-1, b_0 - b_1,
	 * and the sums of A its update takes (the same at every sweep; A_00 - A_11 is 0) */
	int pair;
	double jd[CORE_NOSLIP_ROW_DOF], jdm[CORE_NOSLIP_ROW_DOF], bd;
	double K1, a02, a13, inv_K1; /* inv_K1 = 1 / K1 */
};

/* An elliptic contact's friction block (n rows from r0). */
static inline __attribute__((always_inline)) void ns_block_make(const struct core_pinch_model *m,
    const double *a0, struct core_noslip_contact *c, int r0, int n, struct ns_block *bk)
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
		for (l = 0; l < CORE_NOSLIP_ROW_DOF; l++)
			bk->jm[i][l] = J[l] * Minv[core_noslip_row_coord(l, c->q)];
		bk->b[i] = core_noslip_row_dot(J, c->q, a0) - c->aref[r0 + i];
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
static inline __attribute__((always_inline)) void ns_pair_make(const struct core_pinch_model *m,
    const double *a0, struct core_noslip_contact *c, int r0, struct ns_block *bk)
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
	for (l = 0; l < CORE_NOSLIP_ROW_DOF; l++) {
		double minv = Minv[core_noslip_row_coord(l, c->q)];

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
	bk->bd = (core_noslip_row_dot(c->J[r0], c->q, a0) - c->aref[r0]) -
	    (core_noslip_row_dot(c->J[r0 + 1], c->q, a0) - c->aref[r0 + 1]);
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
		res[i] = bk->b[i] + core_noslip_row_dot(bk->jm[i], bk->q, g);
		old[i] = bk->force[i];
	}
	ns_cone_solve(bk, res, old, f, n);
	change = ns_cost_change(bk->A, f, old, res, n);
#pragma GCC unroll 2
	for (i = 0; i < n; i++) {
		double df = f[i] - old[i];

		bk->force[i] = f[i];
		if (df != 0)
			core_noslip_row_axpy(g, df, bk->J[i], bk->q);
	}
	return change;
}

/* MuJoCo's noslip: sweeps of the friction rows with the normal forces fixed, R left
 * out, contact by contact; stops after maxiter sweeps or when a sweep's scaled
 * improvement falls below the tolerance. Returns the sweeps run. */
/* Each pad joint's frictionloss row in noslip's sweeps ("dry friction", swept before the
 * contacts): b = a0 - aref of the pad's coordinate, its force, clamped to +-floss. */
struct ns_floss {
	int n; /* 2 with frictionloss, else 0 */
	double b[2], force[2], R;
};

static int ns_noslip(const struct core_pinch_model *m, const double *a0,
    struct core_noslip_contact *c, struct ns_floss *fl)
{
	double scale = m->meaninertia * 8; /* meaninertia * max(1, nv): nv = 8 */
	double g[CORE_NOSLIP_DOF] = {0};
	double start = 0;
	struct ns_block blocks[2 * CORE_NOSLIP_ROWS / 2];
	int nblocks = 0, iter = 0, k, r;

	for (k = 0; k < fl->n; k++) {
		g[3 + k] += fl->force[k];
		start += 0.5 * fl->force[k] * fl->force[k] * fl->R;
	}
	for (k = 0; k < 2; k++) {
		struct core_noslip_contact *ck = &c[k];

		if (!ck->active)
			continue;
		for (r = 0; r < ck->nrows; r++) {
			core_noslip_row_axpy(g, ck->mult[r] * ck->force[r], ck->J[r], ck->q);
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

		for (k = 0; k < fl->n; k++) {
			/* A = 1 / qM of the pad (efc_AR less R): its inverse the pad's qM */
			double Ainv = m->dof_mass[3 + k],
			       res = fl->b[k] + g[3 + k] * m->dof_inv_mass[3 + k];
			double old = fl->force[k], f = old - res * Ainv, delta;

			f = f < -m->floss ? -m->floss : f > m->floss ? m->floss : f;
			fl->force[k] = f;
			delta = f - old;
			g[3 + k] += delta;
			improvement -= 0.5 * delta * delta / Ainv + delta * res;
		}

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

void core_noslip_start(struct core_noslip_state *s)
{
	memset(s, 0, sizeof *s);
}

/* The pads' own forces at this step (docs/hold.md, "The pads' own forces"): each pad's
 * qfrc_smooth (its actuator, clamped, and its damping's passive force) and the velocity
 * derivative the integrator takes implicitly after the solve (joint damping; the servo's kv
 * under implicit and implicitfast, from 3.5.0 not while the force sits at a bound). */
struct ns_pads {
	double qfrc[2], implicit[2];
};

static void ns_pads_make(
    const struct core_pinch_model *m, const struct core_noslip_state *s, struct ns_pads *p)
{
	const double q[2] = {s->qL, s->qR}, v[2] = {s->vqL, s->vqR};
	int i, clamped;

	for (i = 0; i < 2; i++) {
		p->qfrc[i] = core_pinch_drive(m, q[i], v[i], &clamped) + -m->damping * v[i];
		p->implicit[i] = m->implicit_damping ? m->damping : 0;
		if (m->implicit_kv && !(clamped && m->kv_dropped_at_bound))
			p->implicit[i] += m->kv;
	}
}

/* The step's constraint problem for MuJoCo's Newton (nsnewton.h): each pad joint's
 * frictionloss row (MuJoCo's rows come first, dof by dof), then both contacts' rows, from
 * qacc_smooth a0. */
static void ns_problem(const struct core_pinch_model *m, const struct core_noslip_state *s,
    const double *a0, const struct core_noslip_contact *c, struct core_nsnewton_problem *p)
{
	const double vq[2] = {s->vqL, s->vqR};
	int i, k, r, j;

	memset(p, 0, sizeof *p);
	p->era = (enum core_newton_era)m->newton_era;
	p->islands = m->islands;
	for (i = 0; i < CORE_NSNEWTON_DOF; i++) {
		p->M[i] = m->dof_mass[i];
		p->a0[i] = a0[i];
	}
	p->scale = 1 / (m->meaninertia * 8); /* meaninertia * max(1, nv): nv = 8 */
	p->tree_inertia[0] = m->mass * 3 + m->inertia_trace;
	p->tree_inertia[1] = m->dof_mass[3];
	p->tree_inertia[2] = m->dof_mass[4];
	if (m->floss > 0)
		for (i = 0; i < 2; i++) {
			struct core_nsnewton_row *fr = &p->row[p->nrows++];
			double sB = m->discrete ? 1 + m->timestep * m->floss_B : 1;

			fr->kind = CORE_NEWTON_FRICTION;
			fr->w = 1;
			fr->dim = 1;
			fr->J[0][3 + i] = 1;
			fr->R = m->floss_R / sB;
			fr->D[0] = 1 / fr->R;
			fr->aref[0] = -m->floss_B * vq[i] / sB;
			fr->floss = m->floss;
		}
	for (k = 0; k < 2; k++) {
		const struct core_noslip_contact *ck = &c[k];

		if (!ck->active)
			continue;
		if (ck->elliptic) {
			struct core_nsnewton_row *cr = &p->row[p->nrows++];

			cr->kind = CORE_NEWTON_CONE;
			cr->w = 1;
			cr->dim = ck->nrows;
			cr->mu = ck->mu;
			for (r = 0; r < ck->nrows; r++) {
				for (j = 0; j < CORE_NOSLIP_ROW_DOF; j++)
					cr->J[r][core_noslip_row_coord(j, ck->q)] = ck->J[r][j];
				cr->aref[r] = ck->aref[r];
				cr->D[r] = ck->D[r];
				cr->fric[r] = ck->fric[r];
			}
			continue;
		}
		for (r = 0; r < ck->nrows; r++) {
			struct core_nsnewton_row *ir = &p->row[p->nrows++];

			ir->kind = CORE_NEWTON_INEQ;
			ir->w = ck->mult[r];
			ir->dim = 1;
			for (j = 0; j < CORE_NOSLIP_ROW_DOF; j++)
				ir->J[0][core_noslip_row_coord(j, ck->q)] = ck->J[r][j];
			ir->aref[0] = ck->aref[r];
			ir->D[0] = ck->D[r];
		}
	}
}

/* The forces of the problem's rows (ns_problem's order) back into the contacts' rows;
 * the frictionloss rows' into floss (0 without them). */
static void ns_forces(const struct core_pinch_model *m, const struct core_nsnewton_problem *p,
    struct core_noslip_contact *c, double *floss)
{
	int i = 0, k, r;

	floss[0] = floss[1] = 0;
	if (m->floss > 0) {
		floss[0] = p->row[0].force[0];
		floss[1] = p->row[1].force[0];
		i = 2;
	}
	for (k = 0; k < 2; k++) {
		if (!c[k].active)
			continue;
		if (c[k].elliptic) {
			for (r = 0; r < c[k].nrows; r++)
				c[k].force[r] = p->row[i].force[r];
			i++;
			continue;
		}
		for (r = 0; r < c[k].nrows; r++)
			c[k].force[r] = p->row[i++].force[0];
	}
}

void core_noslip_step(const struct core_pinch_model *m, struct core_noslip_state *s)
{
	struct core_noslip_contact c[2];
	struct core_nsnewton_problem np;
	struct ns_pads p;
	double a[CORE_NOSLIP_DOF], acc[CORE_NOSLIP_DOF], a0[CORE_NOSLIP_DOF], floss[2] = {0, 0};
	double h = m->timestep;
	int i, via_forces = 0, moving = m->position || m->damping > 0;

	/* qacc_smooth: pads whose force moves with their state have the step's own (the
	 * motor's is the model's, set once) */
	memcpy(a0, m->dof_accel0, sizeof a0);
	if (moving) {
		ns_pads_make(m, s, &p);
		for (i = 0; i < 2; i++)
			a0[3 + i] = p.qfrc[i] * m->dof_inv_mass[3 + i];
		/* Euler's damping, implicit(fast)'s qDeriv: the velocity from the forces,
		 * (qM - h qDeriv)^-1 (qfrc_smooth + qfrc_constraint), for every coordinate
		 * (MuJoCo takes qacc only when no dof has any) */
		via_forces = !m->implicit_in_solve && (p.implicit[0] > 0 || p.implicit[1] > 0);
	}
	memcpy(a, a0, sizeof a);
	ns_contact_make(m, s, 0, &c[0]);
	ns_contact_make(m, s, 1, &c[1]);
	s->noslip_sweeps = 0;
	s->replaced = c[0].replaced || c[1].replaced;
	if (c[0].active || c[1].active || m->floss > 0) {
		memcpy(a, s->qacc, sizeof a);
		ns_problem(m, s, a0, c, &np);
		core_nsnewton_solve(&np, a, NULL);
		ns_forces(m, &np, c, floss);
		/* before 3.3.6 the next step starts from the main solver's qacc */
		memcpy(s->qacc, a, sizeof a);
		if (m->noslip_iterations > 0) {
			struct ns_floss fl = {0};

			if (m->floss > 0) {
				const double vq[2] = {s->vqL, s->vqR};

				double sB = m->discrete ? 1 + h * m->floss_B : 1;

				fl.n = 2;
				fl.R = m->floss_R / sB;
				for (i = 0; i < 2; i++) {
					fl.b[i] = a0[3 + i] - -m->floss_B * vq[i] / sB;
					fl.force[i] = floss[i];
				}
			}
			s->noslip_sweeps = ns_noslip(m, a0, c, &fl);
			floss[0] = fl.force[0];
			floss[1] = fl.force[1];
			ns_qacc(m, a0, c, floss, a);
		}
	}
	if (m->rules.warmstart_after_noslip || !(c[0].active || c[1].active || m->floss > 0))
		memcpy(s->qacc, a, sizeof a);
	/* the acceleration the velocity takes: qacc, or the one from the forces */
	memcpy(acc, a, sizeof acc);
	if (via_forces) {
		double g[CORE_NOSLIP_DOF];

		ns_qfrc(c, g);
		g[3] += floss[0];
		g[4] += floss[1];
		acc[0] = g[0] * (1 / m->dof_mass[0]);
		acc[1] = (m->mass * m->a0_object + g[1]) * (1 / m->dof_mass[1]);
		acc[2] = g[2] * (1 / m->dof_mass[2]);
		for (i = 0; i < 2; i++)
			acc[3 + i] =
			    (p.qfrc[i] + g[3 + i]) / (m->dof_mass[3 + i] + h * p.implicit[i]);
	}
	s->vx += h * acc[0];
	s->vz += h * acc[1];
	s->wy += h * acc[2];
	s->vqL += h * acc[3];
	s->vqR += h * acc[4];
	s->x += h * s->vx;
	s->z += h * s->vz;
	s->qL += h * s->vqL;
	s->qR += h * s->vqR;
}
