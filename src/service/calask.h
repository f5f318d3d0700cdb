/*
 * calask.h: the questions the calibration layer asks (base/questions.h), answered by
 * this layer: a setup read as a scene request (request.h), the hold question (hold.h).
 * A front end that runs calibrations binds it: questions_bind(&calask_questions).
 */
#ifndef CONTACTD_SERVICE_CALASK_H
#define CONTACTD_SERVICE_CALASK_H

#include "base/questions.h"

/* Every member set; reentrant and thread-safe as the functions it wraps. */
extern const struct questions calask_questions;

#endif
