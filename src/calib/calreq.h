/*
 * calreq.h: the calibration service's request bodies, validated: the calibration's
 * setup {"geom", "object", "option"} and measurement uploads {"drops", "presses",
 * "trajectories"}, each to canonical JSON (what the store keeps) and back to the
 * structs of fit/fit.h.
 *
 * A setup is a scene request with the pad as its floor: "geom" is the pad (defaults:
 * the Menagerie SO-101 "collision_gripper" class, CALIB_PAD_* of fit/knobs.h and
 * calib/knobs.h), "object" the body with MuJoCo's default geom, "option" the scene options
 * with timestep CALIB_DEFAULT_TIMESTEP by default; plus "class", the MJCF default class to paste
 * (when absent, "" here: the caller names it after the calibration,
 * CALIB_DEFAULT_CLASS_PREFIX and its id).
 */
#ifndef CONTACTD_CALIB_CALREQ_H
#define CONTACTD_CALIB_CALREQ_H

#include <stddef.h>
#include <jansson.h>

#include "core/scene.h"
#include "fit/fit.h"
#include "base/error.h"

#define CALREQ_CLASS_MAX 65
#define CALREQ_ATTRIBUTES_MAX 1024

/* A calibration's setup. */
struct calreq_setup {
	struct core_scene scene;           /* floor = pad, body + geom = object */
	char mjcf_class[CALREQ_CLASS_MAX]; /* "" when the setup names none */
	/* The pad geom's other MJCF attributes as given (group, rgba, ...), as XML text
	 * (' name="value"' each, escaped), for the snippet to keep them. */
	char mjcf_attributes[CALREQ_ATTRIBUTES_MAX];
};

/*
 * Parse a setup from JSON v (a request body, or the canonical JSON the store kept).
 * Errors carry the JSON Pointer of the offending field. On success *canonical (if not
 * NULL) is a new reference the caller owns.
 */
int calreq_setup_parse(json_t *v, struct calreq_setup *out, json_t **canonical, struct err *err);

/*
 * Validate an upload body v against setup and return its canonical JSON in *upload
 * (a new reference the caller owns): every list present, each measurement with every
 * field. Rejects non-finite numbers, negative forces, rebounds above their drop height,
 * trajectories whose t and z differ in length, are not increasing or lack 2 samples
 * before their lowest, and lists over the limits of calib/knobs.h and fit/knobs.h.
 */
int calreq_upload_parse(
    json_t *v, const struct calreq_setup *setup, json_t **upload, struct err *err);

/* Measurements of fit/fit.h pointing into the arrays it owns. */
struct calreq_data {
	struct calib_data data;
	struct calib_drop *drops;
	struct calib_press *presses;
	struct calib_trajectory *trajectories;
	double *samples; /* t and z of every trajectory */
};

/*
 * From the canonical measurements {"drops", "presses", "trajectories"} (as stored) to
 * *out; ERR_TOO_LARGE when they exceed the per-calibration limits. Release with
 * calreq_data_free() (also after a failure).
 */
int calreq_data(const json_t *all, struct calreq_data *out, struct err *err);

void calreq_data_free(struct calreq_data *d);

#endif
