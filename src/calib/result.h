/*
 * result.h: a pad calibration fit (fit/fit.h) as the calibration service answers it: the
 * answer's "fit" object, with the MJCF <default> to paste.
 */
#ifndef CONTACTD_CALIB_RESULT_H
#define CONTACTD_CALIB_RESULT_H

#include <jansson.h>

#include "fit/fit.h"

/*
 * calresult_json: the fit as the answer's "fit" object (solref in both forms, solimp,
 * standard errors, residuals, identification, notes, and the MJCF <default> of class
 * mjcf_class to paste: the pad geom whole, its other attributes mjcf_attributes (XML text
 * ' name="value"' each, NULL: none) kept, every number written exactly). NULL if out of
 * memory; caller owns the result.
 */
json_t *calresult_json(
    const struct fit_result *fit, const char *mjcf_class, const char *mjcf_attributes);

#endif
