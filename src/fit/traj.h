/*
 * traj.h: what a trajectory's samples say before any fit (internal to src/fit/): where its
 * first impact begins, how many of its samples a fit uses (those before its second impact),
 * and its release from the free fall before the first impact, where the search starts it.
 */
#ifndef CONTACTD_FIT_TRAJ_H
#define CONTACTD_FIT_TRAJ_H

#include <stddef.h>

#include "fit/input.h"

/*
 * Where a trajectory's first impact begins: its first sample at most CALIB_BOUNCE_SIGMAS
 * sigma above the pad, or its lowest sample when none is. Not simply the lowest of all:
 * the later impacts of a pad that hardly bounces are as deep as the first within the
 * noise.
 */
size_t traj_first_impact(const struct calib_trajectory *tr);

/* How many of a trajectory's first samples a fit uses (those before its second impact, read
 * off the samples; see traj.c), h the timestep. */
size_t traj_fitted(const struct calib_trajectory *tr, double h);

/* Starting (t0, H) of a trajectory: the free-fall parabola with the known gravity
 * through its samples above the pad before the first impact, least squares. Semi-
 * implicit Euler from rest follows z = H + g h^2/8 - g/2 (t - t0 + h/2)^2, so the
 * parabola's vertex is shifted back. g is gravity's magnitude (when it is not positive,
 * the first sample is the start), h the timestep. */
void traj_start(const struct calib_trajectory *tr, double g, double h, double *t0, double *H);

#endif
