/*
 * interval.c: the flat directions at a pad fit's estimate and its intervals off the map (see
 * interval.h).
 */
#include "fit/interval.h"

#include <math.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>

#include "fit/knobs.h"

/* Where chi^2 crosses level beyond p along log q toward side (0 low, 1 high): p's log moved by
 * the fraction of the way to the nearest point outside, linearly in chi^2; p's own where no
 * point lies that way. */
static double crossing(const struct map *M, const struct map_point *p, double chi2_min,
    double level, int q, int side)
{
	int s, dir = side ? 1 : -1;

	for (s = 1; s <= 1 << MAP_DEPTH; s *= 2) {
		int at[NPHYS] = {p->at[TC], p->at[DR]};
		const struct map_point *o;
		double din = p->chi2 - chi2_min, dout;

		at[q] += dir * s;
		o = map_find(M, at);
		if (!o)
			continue;
		dout = o->chi2 - chi2_min;
		if (!(dout > level))
			return p->logp[q];
		return p->logp[q] + (o->logp[q] - p->logp[q]) * fmax(0, level - din) / (dout - din);
	}
	return p->logp[q];
}

/* Widen [lo, hi] about centre to +-sqrt(level * var) (var NAN: not at all). */
static void bowl(double centre, double level, double var, double range[2])
{
	double half = sqrt(level * var);

	if (!isfinite(half))
		return;
	range[0] = fmin(range[0], centre - half);
	range[1] = fmax(range[1], centre + half);
}

void interval_read(const struct map *M, const struct descent_point *est,
    const double var[NPHYS + 1], struct interval_result *out)
{
	const struct problem *P = M->P;
	const struct map_point *ext[2][NPHYS + 1][2] = {{{NULL}}};
	double chi2_min = est->chi2, u0 = est->logp[TC] + est->logp[DR];
	size_t i;
	int k, q, side;

	for (i = 0; i < M->n; i++)
		chi2_min = fmin(chi2_min, M->pt[i].chi2);
	out->chi2_test = problem_levels(P, chi2_min, M->nparams, out->levels);
	out->product_open = 0;
	for (k = 0; k < 2; k++) {
		for (q = 0; q < NPHYS; q++) {
			out->log[q][k][0] = out->log[q][k][1] = M->free[q] ? est->logp[q] : NAN;
		}
		out->product[k][0] = out->product[k][1] = u0;
		for (i = 0; i < M->n; i++) {
			const struct map_point *p = &M->pt[i];
			double u = p->logp[TC] + p->logp[DR];

			if (!(p->chi2 - chi2_min <= out->levels[k]))
				continue;
			for (q = 0; q < NPHYS; q++) {
				if (!M->free[q])
					continue;
				if (p->logp[q] < out->log[q][k][0]) {
					out->log[q][k][0] = p->logp[q];
					ext[k][q][0] = p;
				}
				if (p->logp[q] > out->log[q][k][1]) {
					out->log[q][k][1] = p->logp[q];
					ext[k][q][1] = p;
				}
			}
			if (u < out->product[k][0]) {
				out->product[k][0] = u;
				ext[k][NPHYS][0] = p;
			}
			if (u > out->product[k][1]) {
				out->product[k][1] = u;
				ext[k][NPHYS][1] = p;
			}
		}
		for (q = 0; q < NPHYS; q++)
			if (M->free[q])
				bowl(est->logp[q], out->levels[k], var[q], out->log[q][k]);
		bowl(u0, out->levels[k], var[NPHYS], out->product[k]);
		for (q = 0; q < NPHYS; q++)
			for (side = 0; side < 2 && M->free[q]; side++) {
				const struct map_point *p = ext[k][q][side];

				if (!p)
					continue;
				/* an end at the box's edge: the region may go on beyond it */
				if (map_on_edge(M, p, q, side))
					out->log[q][k][side] = side ? INFINITY : -INFINITY;
				else
					out->log[q][k][side] =
					    crossing(M, p, chi2_min, out->levels[k], q, side);
			}
		for (side = 0; side < 2; side++) {
			const struct map_point *p = ext[k][NPHYS][side];

			/* the combination's end on an edge that moves it further out */
			if (k == 1 && p && (map_on_edge(M, p, TC, side) || map_on_edge(M, p, DR, side)))
				out->product_open = 1;
		}
	}
}

int interval_analyse(const struct problem *P, struct problem_scratch *S, const int moving[NPHYS],
    const struct descent_point *pt, struct interval_analysis *an, struct err *err)
{
	size_t p = an->cov->size1, i, j, k;
	gsl_matrix *J = gsl_matrix_alloc(P->n, p), *A = gsl_matrix_alloc(p, p);
	gsl_matrix *V = gsl_matrix_alloc(p, p);
	gsl_vector *eval = gsl_vector_alloc(p), *scale = gsl_vector_alloc(p);
	gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(p);
	double top;
	int rc = -1;

	an->phys_null = an->nuisance_null = 0;
	an->null_dir[TC] = an->null_dir[DR] = 0;
	if (!J || !A || !V || !eval || !scale || !ws) {
		err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory");
		goto out;
	}
	if (descent_jacobian(P, S, moving, pt, CALIB_SE_STEP, J, err) != 0)
		goto out;
	/* columns scaled to unit norm: parameters in seconds, metres and logs compare */
	for (j = 0; j < p; j++) {
		gsl_vector_view col = gsl_matrix_column(J, j);
		double norm = gsl_blas_dnrm2(&col.vector);

		gsl_vector_set(scale, j, norm > 0 ? norm : 1);
		gsl_vector_scale(&col.vector, 1 / gsl_vector_get(scale, j));
	}
	gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1, J, J, 0, A);
	gsl_eigen_symmv(A, eval, V, ws);
	gsl_eigen_symmv_sort(eval, V, GSL_EIGEN_SORT_VAL_DESC);
	top = gsl_vector_get(eval, 0);
	gsl_matrix_set_zero(an->cov);
	for (k = 0; k < p; k++) {
		double lambda = gsl_vector_get(eval, k), w[NPHYS] = {0, 0}, norm = 0, all = 0;
		size_t fk = 0;
		int q;

		if (lambda > top * CALIB_RANK_TOLERANCE * CALIB_RANK_TOLERANCE && lambda > 0) {
			for (i = 0; i < p; i++)
				for (j = 0; j < p; j++)
					*gsl_matrix_ptr(an->cov, i, j) += gsl_matrix_get(V, i, k) *
					    gsl_matrix_get(V, j, k) / lambda;
			continue;
		}
		/* flat: its direction in parameter units is scale^-1 v */
		for (i = 0; i < p; i++) {
			double c = gsl_matrix_get(V, i, k) / gsl_vector_get(scale, i);

			all += c * c;
		}
		for (q = 0; q < NPHYS; q++) {
			if (!moving[q])
				continue;
			w[q] = gsl_matrix_get(V, fk, k) / gsl_vector_get(scale, fk);
			norm += w[q] * w[q];
			fk++;
		}
		if (norm > 0.01 * all && !an->phys_null) {
			an->phys_null = 1;
			an->null_dir[TC] = w[TC] / sqrt(norm);
			an->null_dir[DR] = w[DR] / sqrt(norm);
		} else if (norm <= 0.01 * all) {
			an->nuisance_null = 1;
		}
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			*gsl_matrix_ptr(an->cov, i, j) /=
			    gsl_vector_get(scale, i) * gsl_vector_get(scale, j);
	rc = 0;
out:
	gsl_eigen_symmv_free(ws);
	gsl_vector_free(scale);
	gsl_vector_free(eval);
	gsl_matrix_free(V);
	gsl_matrix_free(A);
	gsl_matrix_free(J);
	return rc;
}
