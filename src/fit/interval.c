/* interval.c: the flat directions at a pad fit's estimate and its intervals off the map. */
#include "fit/interval.h"

#include <math.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_pow_int.h>

#include "fit/knobs.h"

/* Where chi^2 crosses level beyond p along log q toward side (0 low, 1 high): linearly in chi^2
 * toward the nearest point that way if it lies outside the level, else p's own log. */
static double crossing(
    const struct map *M, const struct map_point *p, double chi2_min, double level, int q, int side)
{
	const struct map_point *o = NULL;
	double din = p->chi2 - chi2_min, dout;
	int s;

	for (s = 1; s <= 1 << MAP_DEPTH && !o; s *= 2) {
		int at[NPHYS] = {p->at[TC], p->at[DR]};

		at[q] += side ? s : -s;
		o = map_find(M, at);
	}
	if (!o || !(o->chi2 - chi2_min > level))
		return p->logp[q];
	dout = o->chi2 - chi2_min;
	return p->logp[q] + (o->logp[q] - p->logp[q]) * fmax(0, level - din) / (dout - din);
}

/* Coordinate q of logp: log q, or (q == NPHYS) log(timeconst * dampratio). */
static double coord(const double logp[NPHYS], int q)
{
	return q < NPHYS ? logp[q] : logp[TC] + logp[DR];
}

void interval_read(const struct map *M, const struct descent_point *est,
    const double var[NPHYS + 1], struct interval_result *out)
{
	const int used[NPHYS + 1] = {M->free[TC], M->free[DR], 1}; /* the logs', the product's */
	const struct map_point *ext[2][NPHYS + 1][2] = {{{NULL}}}; /* at each range's ends */
	double chi2_min = est->chi2, levels[3];
	size_t i;
	int k, q, side;

	for (i = 0; i < M->n; i++)
		chi2_min = fmin(chi2_min, M->pt[i].chi2);
	out->chi2_test = problem_levels(M->P, chi2_min, M->nparams, levels);
	for (k = 0; k < 2; k++) {
		const double level = levels[k];
		double *range[NPHYS + 1] = {out->log[TC][k], out->log[DR][k], out->product[k]};

		/* a held log's range is NAN, which no point extends */
		for (q = 0; q <= NPHYS; q++)
			range[q][0] = range[q][1] = used[q] ? coord(est->logp, q) : NAN;
		for (i = 0; i < M->n; i++)
			for (q = 0; q <= NPHYS && M->pt[i].chi2 - chi2_min <= level; q++)
				for (side = 0; side < 2; side++) {
					double v = coord(M->pt[i].logp, q);

					if (side ? v > range[q][1] : v < range[q][0]) {
						range[q][side] = v;
						ext[k][q][side] = &M->pt[i];
					}
				}
		for (q = 0; q < NPHYS; q++)
			for (side = 0; side < 2; side++) {
				const struct map_point *p = ext[k][q][side];

				/* an end at the box's edge: the region may go on beyond it */
				if (p && map_on_edge(M, p, q, side))
					range[q][side] = side ? INFINITY : -INFINITY;
				else if (p)
					range[q][side] = crossing(M, p, chi2_min, level, q, side);
			}
		/* at least the bowl +-sqrt(level * var), out to a first-grid step */
		for (q = 0; q <= NPHYS; q++) {
			double cap =
			    (1 << MAP_DEPTH) * (q < NPHYS ? M->step[q] : M->step[TC] + M->step[DR]);
			double centre = coord(est->logp, q), half = fmin(sqrt(level * var[q]), cap);

			if (used[q] && var[q] >= 0) {
				range[q][0] = fmin(range[q][0], centre - half);
				range[q][1] = fmax(range[q][1], centre + half);
			}
		}
	}
	/* the product's 2-sigma interval is open at an end on an edge that moves it further out */
	out->product_open = 0;
	for (side = 0; side < 2; side++) {
		const struct map_point *p = ext[1][NPHYS][side];

		out->product_open |=
		    p && (map_on_edge(M, p, TC, side) || map_on_edge(M, p, DR, side));
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
	double top, s2;
	int rc, q;

	an->phys_null = an->nuisance_null = 0;
	an->null_dir[TC] = an->null_dir[DR] = 0;
	rc = !J || !A || !V || !eval || !scale || !ws
	    ? err_set(err, ERR_INTERNAL, NULL, "calibration fit: out of memory")
	    : descent_jacobian(P, S, moving, pt, CALIB_SE_STEP, J, err);
	if (rc != 0)
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

		if (lambda > top * CALIB_RANK_TOLERANCE * CALIB_RANK_TOLERANCE && lambda > 0) {
			for (i = 0; i < p; i++)
				for (j = 0; j < p; j++)
					*gsl_matrix_ptr(an->cov, i, j) += gsl_matrix_get(V, i, k) *
					    gsl_matrix_get(V, j, k) / lambda;
			continue;
		}
		/* flat: its direction in parameter units is scale^-1 v */
		for (i = 0; i < p; i++)
			all += gsl_pow_2(gsl_matrix_get(V, i, k) / gsl_vector_get(scale, i));
		for (q = 0; q < NPHYS; q++)
			if (moving[q]) {
				w[q] = gsl_matrix_get(V, fk, k) / gsl_vector_get(scale, fk);
				norm += w[q] * w[q];
				fk++;
			}
		an->nuisance_null |= norm <= 0.01 * all;
		if (norm > 0.01 * all && !an->phys_null) {
			an->phys_null = 1;
			an->null_dir[TC] = w[TC] / sqrt(norm);
			an->null_dir[DR] = w[DR] / sqrt(norm);
		}
	}
	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			*gsl_matrix_ptr(an->cov, i, j) /=
			    gsl_vector_get(scale, i) * gsl_vector_get(scale, j);
	/* the logs come first: each moving one's variance, and their sum's */
	s2 = problem_residual_variance(pt->chi2, P->n, p);
	for (q = 0, k = 0; q < NPHYS; k += moving[q] != 0, q++)
		an->var[q] = moving[q] ? gsl_matrix_get(an->cov, k, k) * s2 : NAN;
	an->var[NPHYS] = k == 2 ? (gsl_matrix_get(an->cov, 0, 0) + gsl_matrix_get(an->cov, 1, 1) +
	                              2 * gsl_matrix_get(an->cov, 0, 1)) *
	        s2
	                        : an->var[moving[TC] ? TC : DR];
out:
	gsl_eigen_symmv_free(ws);
	gsl_vector_free(scale);
	gsl_vector_free(eval);
	gsl_matrix_free(V);
	gsl_matrix_free(A);
	gsl_matrix_free(J);
	return rc;
}
