/* traj.h: what a trajectory's samples say before any fit (internal to src/fit/). */
#ifndef CONTACTD_FIT_TRAJ_H
#define CONTACTD_FIT_TRAJ_H

#include <stddef.h>

#include "fit/input.h"

/* Where its first impact begins: the first sample at most CALIB_BOUNCE_SIGMAS sigma above the
 * pad, else the lowest (not the lowest of all: one that hardly bounces hits as deep later). */
size_t traj_first_impact(const struct calib_trajectory *tr);

/* How many of its first samples a fit uses: those before its second impact (traj.c), h the
 * timestep. */
size_t traj_fitted(const struct calib_trajectory *tr, double h);

/* Its starting release (t0, H): the least-squares free-fall parabola through its samples above
 * the pad before the first impact, vertex shifted back (semi-implicit Euler from rest follows
 * z = H + g h^2/8 - g/2 (t - t0 + h/2)^2). g: gravity's magnitude (not positive: the first
 * sample), h the timestep. */
void traj_start(const struct calib_trajectory *tr, double g, double h, double *t0, double *H);

#endif
