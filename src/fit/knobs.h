/*
 * knobs.h: the pad calibration fit's knobs, each beside the reason for its value: the
 * Menagerie pad a calibration starts from, the noise scales, the measurement model's
 * windows, the searched box and its chi-square map, the descents, the intervals' levels,
 * the per-calibration limits a refit's cost rests on, and the fit's threads.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_FIT_KNOBS_H
#define CONTACTD_FIT_KNOBS_H

/* ---- what a calibration starts from and how its measurements are weighed ---- */

/* The Menagerie SO-101's gripper pad class "collision_gripper" and its timestep: the
 * starting geom of a calibration whose request omits one. */
#define CALIB_DEFAULT_TIMESTEP 0.005
#define CALIB_PAD_TIMECONST 0.01
#define CALIB_PAD_DAMPRATIO 1.0
#define CALIB_PAD_CONDIM 6
#define CALIB_PAD_FRICTION_SLIDE 1.0
#define CALIB_PAD_FRICTION_SPIN 0.005
#define CALIB_PAD_FRICTION_ROLL 5e-4
#define CALIB_PAD_PRIORITY 1

/* Noise scales (one standard deviation) of a measurement that states no "sigma": a filmed
 * rebound apex or trajectory sample is good to about half a millimetre; a dial-gauge
 * deflection to 1 um or 1 %, whichever is larger. */
#define CALIB_SIGMA_REBOUND 5e-4
#define CALIB_SIGMA_TRAJECTORY 5e-4
#define CALIB_SIGMA_DEFLECTION_ABS 1e-6
#define CALIB_SIGMA_DEFLECTION_REL 0.01

/* A weighted residual that replaces a non-finite or absurd one (an exploding simulation):
 * the descent sees a bad step rather than a NaN. */
#define RESIDUAL_CAP 1e8

/* A drop bounced when its rebound exceeds this many standard deviations: drops that do not
 * bounce bound dampratio from below only. */
#define CALIB_BOUNCE_SIGMAS 3.0

/* ---- the model of a measurement (fit/model.h) ---- */

/* A drop's rebound ends at the first apex after the object left the pad, or this many
 * seconds after the first contact if it never leaves. */
#define CALIB_DROP_SETTLE 1.0

/* A press is stepped this long (s) and its depth averaged over the last WINDOW s: a damped
 * pad has settled by then, a bouncy one hops in a steady cycle (issue #29). */
#define CALIB_PRESS_DURATION 4.0
#define CALIB_PRESS_WINDOW 1.0

/* Rest time of the chatter check: the lesson's "2 s at rest"; a body that still moves more
 * than JITTER (m, standard deviation over the check's last window) chatters. */
#define CHATTER_DURATION 2.0
#define CALIB_CHATTER_JITTER 1e-6

/* ---- the searched box and its chi-square map (fit/map.h) ---- */

/* The box of (timeconst, dampratio) the fit searches and answers over: one timestep (a
 * stiffer contact is not resolved) to 0.5 s (far softer than a gripper pad); dampratio 0.05
 * (rings for many periods) to 4 (a rebound hardly changes beyond). */
#define CALIB_GRID_TIMECONST_MIN_STEPS 1.0
#define CALIB_GRID_TIMECONST_MAX 0.5
#define CALIB_GRID_DAMPRATIO_MIN 0.05
#define CALIB_GRID_DAMPRATIO_MAX 4.0

/* The map's first grid, log-spaced, points per axis: about 0.07 log units a step in
 * timeconst at 5 ms, fine enough that every valley a few drops make is sampled at least
 * once near its floor; a trajectory profiles its release at every point, so its grid is
 * coarser and the refinement does the rest. */
#define MAP_POINTS_TC 64
#define MAP_POINTS_DR 48
#define MAP_TRAJ_POINTS_TC 48
#define MAP_TRAJ_POINTS_DR 32

/* Refinement: a cell is split in four, at most DEPTH times (a 16th of the first step, about
 * 0.004 log units: a drop's rebound sawtooth in the step's phase is a few hundredths wide),
 * where its corners say it may hold a point below the best plus the 3-sigma level, or cross
 * an interval's end; at most MAX_POINTS points in all bound the work. */
#define MAP_DEPTH 4
#define MAP_MAX_POINTS 60000

/* ---- the descents (fit/descent.h) ---- */

/* Levenberg-Marquardt descents start from the map's lowest points that lie at least
 * DISTINCT log units apart: a valley is one start, and a second valley that fits almost as
 * well gets its own. */
#define MAP_STARTS 6
#define CALIB_DISTINCT_LOG 0.03
#define CALIB_MAX_ITERATIONS 200 /* trust-region iterations of one descent */

/* Convergence of the trust region: relative step, gradient, residual change. The step's
 * tolerance is a tenth of FD_STEP_LOG: the Jacobian resolves nothing finer. */
#define FIT_XTOL 1e-7
#define FIT_GTOL 1e-12
#define FIT_FTOL 1e-14

/* Forward-difference steps: in log units, seconds of release time (relative to the
 * timestep), metres of release height. Large enough that rounding (1e-16 relative) stays
 * far below the difference, small against every curvature of the model. */
#define FD_STEP_LOG 1e-6
#define FD_STEP_TIME 1e-4
#define FD_STEP_HEIGHT 1e-7

/* A trajectory's release is profiled at each point of the map from the best of a scan of
 * 2 SCAN + 1 releases along its free fall's valley, a step either way (which step the impact
 * falls in, and where within it, makes chi^2 jump along that line at a fraction of a step). */
#define MAP_RELEASE_SCAN 8

/* ---- identification and intervals (fit/interval.h) ---- */

/* The intervals' levels of chi^2 - chi^2_min are (k^2 + this) times the residual
 * variance: the truth's chi^2 less the best fit's averaged 2.57 over 100 noisy 8-drop sets
 * of the tuning truths (tests/test_calib_coverage.c), against 2 for a smooth model with two
 * parameters: the rough pieces' lowest lies that much below the smooth bowl. */
#define CALIB_ROUGH_LEVEL 0.5

/* A fitted log parameter within this of the searched box's edge is at the edge. */
#define CALIB_EDGE_LOG 1e-6

/* A direction of parameter space is unidentified when its singular value of the
 * column-scaled, weighted Jacobian is below this fraction of the largest; that Jacobian
 * takes its slopes over CALIB_SE_STEP (log units), the scale of a typical uncertainty, not
 * the local slope of a model that is rough on finer scales. */
#define CALIB_RANK_TOLERANCE 1e-7
#define CALIB_SE_STEP 0.01

/* Honest errors: with fewer residual degrees of freedom than this the residuals cannot
 * check the sigmas (status few_dof, the levels from the stated sigmas and the chi^2 test);
 * a chi^2 whose upper tail probability is below CALIB_MISFIT_P contradicts them (status
 * misfit). Errors are never scaled below the stated sigmas. */
#define CALIB_MIN_DOF 3
#define CALIB_MISFIT_P 1e-4

/* ---- limits and threads ---- */

/* Limits that keep one refit within seconds (validated at upload). */
#define CALIB_MAX_DROPS 200              /* per calibration */
#define CALIB_MAX_PRESSES 200            /* per calibration */
#define CALIB_MAX_SAMPLES 4096           /* per trajectory */
#define CALIB_MAX_TRAJECTORY_STEPS 20000 /* simulated steps behind one trajectory */

/* The fit workers' nice value: 10 levels below the HTTP threads, so questions come first. */
#define CALIB_FIT_NICE 10

/* The threads one fit steps its batches on (its own and a helper, fit/parallel.h), and all
 * fits together at once: a fit on an idle machine takes both cores, two fits a core each.
 * 1: no helpers. */
#define CALIB_FIT_THREADS 2
#endif
