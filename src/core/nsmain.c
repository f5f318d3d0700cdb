/*
 * nsmain.c: the main constraint solve of the hold scene's asymmetric step: the exact
 * minimiser of MuJoCo's convex cost over both contacts' rows (core_nsmain_solve), in
 * noslip.c's five coordinates (object x, z, rotation about y, left pad, right pad).
 */
#include "core/nsmain.h"

#include <math.h>
#include <string.h>

#include "core/knobs.h"

static inline double max2(double a, double b)
{
	return a > b ? a : b;
}

/* written out: the step's inner loops are these five-term sums */
static inline double ns_dot(const double *a, const double *b)
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4];
}

/* An elliptic contact's zone of MuJoCo's soft cone at the rows' x = J a - aref: top
 * (no force), bottom (every row its own quadratic: the cost is quadratic there) or
 * middle; with U_r = x_r fric_r, N = x_0 mu and T = |U|. */
enum { NS_ZONE_TOP, NS_ZONE_BOTTOM, NS_ZONE_MIDDLE };

static inline int ns_cone_zone(
    const struct core_nsmain_contact *ck, const double *x, double *U, double *N, double *T)
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
static double ns_cost(const struct core_pinch_model *m, struct core_nsmain_contact *c,
    const double *a0, const double *a, double *grad, double *hess, int force, long long *piece)
{
	const double *M = m->dof_mass;
	double cost = 0;
	int i, j, k, r;

	for (i = 0; i < CORE_NSMAIN_DOF; i++) {
		double d = a[i] - a0[i];

		cost += 0.5 * M[i] * d * d;
		if (grad)
			grad[i] = M[i] * d;
	}
	if (hess) {
		memset(hess, 0, sizeof(double) * CORE_NSMAIN_DOF * CORE_NSMAIN_DOF);
		for (i = 0; i < CORE_NSMAIN_DOF; i++)
			hess[i * CORE_NSMAIN_DOF + i] = M[i];
	}
	if (piece)
		*piece = 0;
	for (k = 0; k < 2; k++) {
		struct core_nsmain_contact *ck = &c[k];
		double x[CORE_NSMAIN_ROWS] = {0}, gx[CORE_NSMAIN_ROWS] = {0},
		       hx[CORE_NSMAIN_CONE_ROWS][CORE_NSMAIN_CONE_ROWS];

		if (!ck->active)
			continue;
		for (r = 0; r < ck->nrows; r++)
			x[r] = core_nsmain_row_dot(ck->J[r], ck->q, a) - ck->aref[r];
		if (!ck->elliptic) {
			/* each row its own quadratic: a diagonal hx, added row by row */
			for (r = 0; r < ck->nrows; r++) {
				double D = ck->D[r], n = ck->mult[r];

				if (force)
					ck->force[r] = x[r] < 0 ? -(D * x[r]) : -0.0;
				if (!(x[r] < 0))
					continue;
				if (piece && *piece >= 0)
					*piece |= 1LL << (k * CORE_NSMAIN_ROWS + r);
				cost += n * (0.5 * D * x[r] * x[r]);
				gx[r] = D * x[r];
				if (grad)
					core_nsmain_row_axpy(grad, n * gx[r], ck->J[r], ck->q);
				if (hess)
					for (i = 0; i < CORE_NSMAIN_ROW_DOF; i++)
						if (ck->J[r][i] != 0)
							core_nsmain_row_axpy(
							    &hess[core_nsmain_row_coord(i, ck->q) *
							        CORE_NSMAIN_DOF],
							    ck->J[r][i] * (n * D), ck->J[r], ck->q);
			}
			continue;
		}
		memset(hx, 0, sizeof hx);
		{
			double mu = ck->mu, N, T, U[CORE_NSMAIN_ROWS] = {0};
			int zone = ns_cone_zone(ck, x, U, &N, &T);

			if (zone == NS_ZONE_TOP) {
				/* top zone: no force */
			} else if (zone == NS_ZONE_BOTTOM) {
				if (piece && *piece >= 0)
					*piece |= 1LL << (k * CORE_NSMAIN_ROWS);
				for (r = 0; r < ck->nrows; r++) {
					double D = ck->D[r];

					cost += 0.5 * D * x[r] * x[r];
					gx[r] = D * x[r];
					hx[r][r] = D;
				}
			} else {
				double Dm = ck->D[0] / (mu * mu * (1 + mu * mu)), NT = N - mu * T;
				double g[CORE_NSMAIN_ROWS], w = -mu * Dm * NT / T;

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
				core_nsmain_row_axpy(grad, gx[r], ck->J[r], ck->q);
		if (hess)
			for (r = 0; r < ck->nrows; r++)
				for (j = 0; j < ck->nrows; j++) {
					if (hx[r][j] == 0)
						continue;
#pragma GCC unroll 4
					for (i = 0; i < CORE_NSMAIN_ROW_DOF; i++)
						if (ck->J[r][i] != 0)
							core_nsmain_row_axpy(
							    &hess[core_nsmain_row_coord(i, ck->q) *
							        CORE_NSMAIN_DOF],
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
	const int n = CORE_NSMAIN_DOF;
	double inv[CORE_NSMAIN_DOF], ld[CORE_NSMAIN_DOF];
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
static double ns_slope(const struct core_pinch_model *m, struct core_nsmain_contact *c,
    const double *a0, const double *a, const double *d, double t, int force, long long *piece)
{
	double p[CORE_NSMAIN_DOF], g[CORE_NSMAIN_DOF];
	int i;

	for (i = 0; i < CORE_NSMAIN_DOF; i++)
		p[i] = a[i] + t * d[i];
	ns_cost(m, c, a0, p, g, NULL, force, piece);
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
static int ns_minimise_piece(const struct core_pinch_model *m, struct core_nsmain_contact *c,
    const double *a0, double *a, double *next)
{
	const double *M = m->dof_mass;
	double H[CORE_NSMAIN_DOF * CORE_NSMAIN_DOF] = {0}, b[CORE_NSMAIN_DOF], sol[CORE_NSMAIN_DOF];
	int push[2][CORE_NSMAIN_ROWS], zone[2] = {0, 0}, i, j, k, r;

	for (i = 0; i < CORE_NSMAIN_DOF; i++) {
		H[i * CORE_NSMAIN_DOF + i] = M[i];
		b[i] = M[i] * a0[i];
	}
	for (k = 0; k < 2; k++) {
		const struct core_nsmain_contact *ck = &c[k];

		if (!ck->active)
			continue;
		if (ck->elliptic) {
			double x[CORE_NSMAIN_ROWS] = {0}, U[CORE_NSMAIN_ROWS], N, T;

			for (r = 0; r < ck->nrows; r++)
				x[r] = core_nsmain_row_dot(ck->J[r], ck->q, a) - ck->aref[r];
			zone[k] = ns_cone_zone(ck, x, U, &N, &T);
			if (zone[k] == NS_ZONE_MIDDLE)
				return -1;
		}
		for (r = 0; r < ck->nrows; r++) {
			const double *u = ck->J[r];
			double w = ck->mult[r] * ck->D[r];

			push[k][r] = ck->elliptic
			    ? zone[k] == NS_ZONE_BOTTOM
			    : core_nsmain_row_dot(u, ck->q, a) - ck->aref[r] < 0;
			if (!push[k][r])
				continue;
#pragma GCC unroll 4
			for (i = 0; i < CORE_NSMAIN_ROW_DOF; i++) {
				double wj = w * u[i];
				int ci = core_nsmain_row_coord(i, ck->q);

				b[ci] += wj * ck->aref[r];
				/* H's lower triangle (all the factorisation reads): w J_i J_j */
#pragma GCC unroll 4
				for (j = 0; j <= i; j++)
					H[ci * CORE_NSMAIN_DOF + core_nsmain_row_coord(j, ck->q)] +=
					    wj * u[j];
			}
		}
	}
	if (ns_ldl_solve5(H, b, sol) != 0)
		return -1;
	for (k = 0; k < 2; k++) {
		struct core_nsmain_contact *ck = &c[k];
		double x[CORE_NSMAIN_ROWS] = {0}, U[CORE_NSMAIN_ROWS], N, T;

		if (!ck->active)
			continue;
		for (r = 0; r < ck->nrows; r++)
			x[r] = core_nsmain_row_dot(ck->J[r], ck->q, sol) - ck->aref[r];
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
static void ns_minimise(
    const struct core_pinch_model *m, struct core_nsmain_contact *c, const double *a0, double *a)
{
	double g[CORE_NSMAIN_DOF], H[CORE_NSMAIN_DOF * CORE_NSMAIN_DOF], d[CORE_NSMAIN_DOF],
	    nb[CORE_NSMAIN_DOF];
	int it, i;

	for (it = 0; it < CORE_HOLD_NOSLIP_NEWTON_MAX; it++) {
		double s0, s1, lo, hi, t, size = 0, da = 0, cost0;
		long long piece0, piece1;
		int ls, moved;

		cost0 = ns_cost(m, c, a0, a, g, H, 0, &piece0);
		for (i = 0; i < CORE_NSMAIN_DOF; i++)
			nb[i] = -g[i];
		if (ns_ldl_solve5(H, nb, d) != 0)
			break;
		for (i = 0; i < CORE_NSMAIN_DOF; i++) {
			size = max2(size, fabs(a[i]));
			da = max2(da, fabs(d[i]));
		}
		/* a step at the rounding of a: the minimiser (the pyramid's lands exactly) */
		if (!(da > CORE_HOLD_NOSLIP_NEWTON_REL * (size + 1e-300)))
			break;
		s0 = ns_dot(g, d);
		/* Newton's decrement at the rounding of the cost: the minimiser */
		if (!(s0 < -CORE_HOLD_NOSLIP_DECREMENT * (1 + fabs(cost0))))
			break;
		s1 = ns_slope(m, c, a0, a, d, 1, 1, &piece1);
		if (piece0 >= 0 && piece1 == piece0) {
			/* the forces are the ones ns_slope left, at a + 1 d */
			for (i = 0; i < CORE_NSMAIN_DOF; i++)
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
				shi = ns_slope(m, c, a0, a, d, hi, 0, NULL);
			}
			for (ls = 0; ls < 100; ls++) {
				double st;

				t = lo - slo * (hi - lo) / (shi - slo);
				if (!(t > lo && t < hi))
					t = 0.5 * (lo + hi);
				st = ns_slope(m, c, a0, a, d, t, 0, NULL);
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
		for (i = 0; i < CORE_NSMAIN_DOF; i++) {
			double before = a[i];

			a[i] += t * d[i];
			moved |= a[i] != before;
		}
		if (!moved)
			break;
	}
	ns_cost(m, c, a0, a, NULL, NULL, 1, NULL);
}

/* The main solve from a (the previous step's qacc): the pieces of the rows that push
 * there, then at that piece's minimiser, and so on (the active set usually settles in a
 * step or two); Newton's loop from a when they do not settle. */
void core_nsmain_solve(
    const struct core_pinch_model *m, struct core_nsmain_contact *c, const double *a0, double *a)
{
	double at[CORE_NSMAIN_DOF], next[CORE_NSMAIN_DOF];
	int tries, rc = 1;

	memcpy(at, a, sizeof at);
	for (tries = 0; tries < CORE_HOLD_NOSLIP_PIECE_TRIES && rc == 1; tries++) {
		rc = ns_minimise_piece(m, c, a0, at, next);
		if (rc == 0) {
			memcpy(a, at, sizeof at);
			return;
		}
		memcpy(at, next, sizeof at);
	}
	ns_minimise(m, c, a0, a);
}