/*
 * bootstrap.h: the parametric bootstrap of a pad fit (internal to src/fit/): the standard
 * errors of the fitted logs from refits of data the model makes at the estimate plus noise.
 * fit/fit.c takes the largest of these, the covariance's (fit/uncertainty.h) and the
 * profiles' (fit/profile.h).
 */
#ifndef CONTACTD_FIT_BOOTSTRAP_H
#define CONTACTD_FIT_BOOTSTRAP_H

#include <gsl/gsl_vector.h>

#include "base/error.h"
#include "fit/problem.h"

/*
 * Parametric bootstrap. With two to six samples in contact at 5 ms, chi^2 is not the
 * smooth bowl the covariance assumes: a contact that begins within a step jumps to
 * MuJoCo's full damping impulse, so every later impact of a bouncing trajectory makes
 * chi^2 jump as the parameters move the step it begins in, and a trajectory alone
 * leaves a long curved valley of such pieces. The local slope then says nothing about
 * how far the estimate may be from the truth. The bootstrap asks the estimator itself:
 * CALIB_BOOT_REPLICAS synthetic data sets are made by the model at the estimate (the
 * fitted solref, releases and held parameters) plus Gaussian noise of each
 * measurement's sigma times the residual scale sqrt(chi^2/dof) (1 when dof is 0),
 * and each is refitted exactly as the data were (grid, descents, polish; the fitted
 * parameters free, the held ones held). The root-mean-square deviation of the refits
 * from the estimate is its standard error. Only the whole search sees the other
 * valleys: refits that start at the estimate stay in its piece and come out several
 * times too narrow.
 * The noise comes from a fixed seed: the same data always give the same answer.
 */
struct bootstrap_result {
	int replicas;
	double se_log[NPHYS];  /* RMS deviation of the refitted logs from the estimate */
	double correlation;    /* of the deviations, when both are fitted */
	double se_log_product; /* RMS deviation of log(timeconst*dampratio) */
};

/*
 * The bootstrap's standard errors at the estimate x into *bt; *bt is left as it was
 * (the caller zeroes it: no replicas) when x fits the data exactly. -1 with ERR_INTERNAL
 * when out of memory.
 */
int bootstrap_standard_errors(
    struct problem *P, const gsl_vector *x, struct bootstrap_result *bt, struct err *err);

#endif
