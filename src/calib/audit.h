/*
 * audit.h: the audit use case (issue #29): a calibration's measurements evaluated at a pad
 * of the caller's choice, in the fit's own model (fit/audit.h): each measurement's model
 * value, residual, sigma and contribution, and chi^2. Policy as for reading the calibration
 * (cases.h's calcase_visible()); nothing is stored.
 */
#ifndef CONTACTD_CALIB_AUDIT_H
#define CONTACTD_CALIB_AUDIT_H

#include <jansson.h>

#include "base/calstore.h"
#include "base/error.h"
#include "calib/token.h"

/*
 * The solref of an audit body {"solref": [timeconst, dampratio]} into solref[2], checked as
 * calaudit_check() checks it. Errors carry the field's JSON Pointer: ERR_MISSING_FIELD,
 * ERR_BAD_TYPE, ERR_UNKNOWN_FIELD, ERR_BAD_VALUE.
 */
int calaudit_parse(json_t *body, double solref[2], struct err *err);

/*
 * Is solref [timeconst (s), dampratio] one an audit evaluates: each finite, timeconst in
 * (0, CALIB_AUDIT_TIMECONST_MAX], dampratio in (0, CALIB_AUDIT_DAMPRATIO_MAX]? Else
 * ERR_BAD_VALUE at "/solref/0" or "/solref/1".
 */
int calaudit_check(const double solref[2], struct err *err);

/*
 * Calibration id's measurements (all of them, as its next fit sees them) evaluated at solref
 * [timeconst, dampratio], as p may read it: *answer (the caller's) {"calibration", "solref",
 * "measurements", "chi2", "drops", "presses", "trajectories", "fit_id"}, each drop and press
 * with its model, residual (measured - model), sigma and contribution; ERR_NOT_FOUND as
 * calcase_visible(), ERR_BAD_VALUE as calaudit_check().
 */
int calaudit_evaluate(struct calstore *cs, const struct caltoken_principal *p, long long id,
    const double solref[2], json_t **answer, struct err *err);

#endif
