/* knobs.h: the pad calibration fit's knobs, each with its value's reason. Change them here only. */
#ifndef CONTACTD_FIT_KNOBS_H
#define CONTACTD_FIT_KNOBS_H

/* The solref of the Menagerie SO-101's gripper pad class "collision_gripper" (the rest of it:
 * calib/knobs.h): a calibration's starting pad unless its request names one. */
#define CALIB_PAD_TIMECONST 0.01
#define CALIB_PAD_DAMPRATIO 1.0

/* Noise scales (m, one sigma) of a measurement stating none: a filmed apex or trajectory sample
 * is good to about half a millimetre; a dial-gauge deflection to 1 um or 1 %, whichever larger. */
#define CALIB_SIGMA_REBOUND 5e-4
#define CALIB_SIGMA_TRAJECTORY 5e-4
#define CALIB_SIGMA_DEFLECTION_ABS 1e-6
#define CALIB_SIGMA_DEFLECTION_REL 0.01

/* Stands in for a non-finite or absurd weighted residual: a descent sees a bad step, not NaN. */
#define RESIDUAL_CAP 1e8

/* A drop bounced if its rebound exceeds this many sigma; others bound dampratio from below only. */
#define CALIB_BOUNCE_SIGMAS 3.0

/* A drop that never leaves the pad is followed SETTLE s past first contact; a press's depth is
 * averaged over the last WINDOW of DURATION s, when a pad has settled or hops in a steady cycle. */
#define CALIB_DROP_SETTLE 1.0
#define CALIB_PRESS_DURATION 4.0
#define CALIB_PRESS_WINDOW 1.0

/* The chatter check: the lesson's "2 s at rest"; a body still moving more than this (m,
 * standard deviation over the check's last window) chatters. */
#define CHATTER_DURATION 2.0
#define CALIB_CHATTER_JITTER 1e-6

/* The searched box: timeconst from one timestep (stiffer is not resolved) to 0.5 s (far softer
 * than a pad); dampratio 0.05 (rings for many periods) to 4 (a rebound hardly changes beyond). */
#define CALIB_GRID_TIMECONST_MIN_STEPS 1.0
#define CALIB_GRID_TIMECONST_MAX 0.5
#define CALIB_GRID_DAMPRATIO_MIN 0.05
#define CALIB_GRID_DAMPRATIO_MAX 4.0
#define CALIB_EDGE_LOG 1e-6 /* a fitted log within this of the box's edge is at it */

/* The map's first grid, points per log axis: 0.07 log units a step in timeconst at 5 ms samples
 * every valley a few drops make near its floor; trajectories (narrower valleys, a release profile
 * a point) need 48 x 32 to miss none in the acceptance test (36 x 24 missed two of 40). */
#define MAP_POINTS_TC 64
#define MAP_POINTS_DR 48
#define MAP_TRAJ_POINTS_TC 48
#define MAP_TRAJ_POINTS_DR 32

/* A cell is split at most DEPTH times (a 16th of the first step: a drop's sawtooth in the
 * step's phase is a few hundredths of a log unit wide); MAX_POINTS bounds the work. */
#define MAP_DEPTH 4
#define MAP_MAX_POINTS 60000

/* A trajectory's release is profiled from the best of 2 SCAN + 1 along its free fall's valley, a
 * step either way (where among the steps the impact falls makes chi^2 jump along that line). */
#define MAP_RELEASE_SCAN 8

/* Descents (fit/descent.h) start from the map's lowest local minima at least DISTINCT log
 * units apart, STARTS of them, and from each edge's lowest point. */
#define MAP_STARTS 6
#define CALIB_DISTINCT_LOG 0.03
#define CALIB_MAX_ITERATIONS 200 /* trust-region iterations of one descent */

/* The best descent's end is polished by a compass search (fit/fit.c): the trust region stops
 * where chi^2 is lowest on a cliff's edge (a press settling into another hopping pattern a hair
 * away), short of lower points along it. 64 directions follow an edge at 27 degrees that 16 miss
 * (the acceptance test's bouncy-press set 67 of 200); steps down to a 64th of the lattice's. */
#define POLISH_DIRECTIONS 64
#define POLISH_HALVINGS 6
#define POLISH_ROUNDS 40

/* The trust region converges on a relative step (a tenth of FD_STEP_LOG: the Jacobian resolves
 * nothing finer), gradient or residual change. Its forward differences step the logs, release
 * time (times the timestep) and height (m): rounding far below them, every curvature far above. */
#define FIT_XTOL 1e-7
#define FIT_GTOL 1e-12
#define FIT_FTOL 1e-14
#define FD_STEP_LOG 1e-6
#define FD_STEP_TIME 1e-4
#define FD_STEP_HEIGHT 1e-7

/* Interval levels are (k^2 + ROUGH) residual variances: the truth's chi^2 less the best fit's
 * averaged 2.57 on 100 noisy 8-drop sets (tests/test_calib_coverage.c), vs a smooth model's 2. */
#define CALIB_ROUGH_LEVEL 0.5

/* A direction is flat when its singular value of the column-scaled Jacobian (slopes over SE_STEP
 * logs: an error's scale, not the rough model's local one) is under RANK_TOLERANCE of the top. */
#define CALIB_RANK_TOLERANCE 1e-7
#define CALIB_SE_STEP 0.01

/* Under MIN_DOF degrees of freedom the residuals cannot check the sigmas (few_dof: levels from
 * the chi^2 test); a chi^2 whose upper tail is below MISFIT_P contradicts them (misfit). */
#define CALIB_MIN_DOF 3
#define CALIB_MISFIT_P 1e-4

/* Per-calibration limits, validated at upload: they bound a refit's cost. */
#define CALIB_MAX_DROPS 200
#define CALIB_MAX_PRESSES 200
#define CALIB_MAX_TRAJECTORY_STEPS 20000 /* simulated steps behind one trajectory */

#define CALIB_FIT_THREADS 2 /* one fit's threads, and all fits' together (fit/parallel.h) */
#endif
