/*
 * uncertainty.c: the covariance and the unidentified directions of a pad fit, from the
 * eigenvectors of J'J, the Jacobian's columns scaled (see uncertainty.h).
 */
#include "fit/uncertainty.h"

#include <math.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>

#include "fit/knobs.h"

int uncertainty_analyse(
    struct problem *P, const gsl_vector *x, struct uncertainty_analysis *an, struct err *err)
{
	size_t p = P->p, i, j, k;
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
	/* the model is rough on the scale of a few ulps of contact timing: the covariance
	 * uses the slope over CALIB_SE_STEP, the scale of a typical uncertainty, rather
	 * than the slope of the piece the solution happens to sit on */
	P->fd_step_log = CALIB_SE_STEP;
	problem_jacobian(x, P, J);
	P->fd_step_log = FD_STEP_LOG;
	/* scale columns to unit norm: parameters in seconds, metres and logs compare */
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
		double lambda = gsl_vector_get(eval, k);

		if (lambda > top * CALIB_RANK_TOLERANCE * CALIB_RANK_TOLERANCE && lambda > 0) {
			for (i = 0; i < p; i++)
				for (j = 0; j < p; j++)
					*gsl_matrix_ptr(an->cov, i, j) += gsl_matrix_get(V, i, k) *
					    gsl_matrix_get(V, j, k) / lambda;
			continue;
		}
		/* unidentified: its direction in parameter units is scale^-1 v */
		{
			double w[NPHYS] = {0, 0}, norm = 0, all = 0;
			size_t fk = 0;
			int q;

			for (i = 0; i < p; i++) {
				double c = gsl_matrix_get(V, i, k) / gsl_vector_get(scale, i);
				all += c * c;
			}
			for (q = 0; q < NPHYS; q++) {
				if (!P->free[q])
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
