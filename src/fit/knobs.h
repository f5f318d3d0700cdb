/*
 * knobs.h: the pad calibration fit's knobs: the Menagerie pad it starts from, the
 * noise scales, the press model's windows, the search's grids, descents and tolerances,
 * the intervals' levels, the per-calibration limits a refit's cost rests on, and the fit's
 * threads.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_FIT_KNOBS_H
#define CONTACTD_FIT_KNOBS_H

/* ---- pad calibration (robots upload measurements; the service fits solref) ---- */
/* A weighted residual that replaces a non-finite or absurd one (an exploding
 * simulation), so the trust region sees a bad step rather than a NaN. */
#define RESIDUAL_CAP 1e8

/* Forward-difference steps: in log units, seconds of release time (relative to the
 * timestep), metres of release height. Large enough that rounding (1e-16 relative)
 * stays far below the difference, small against every curvature of the model. */
#define FD_STEP_LOG 1e-6
#define FD_STEP_TIME 1e-4
#define FD_STEP_HEIGHT 1e-7

/* Convergence of the trust region: relative step, gradient, residual change. The step's
 * tolerance, 1e-7 relative, is a tenth of FD_STEP_LOG: the Jacobian resolves nothing finer, and on
 * the drops' rough chi^2 a descent that has arrived spends its last trials shrinking a rejected
 * step (issue #29: 1e-10 cost 15 % of a fit with presses and moved chi^2 by under 3e-4). */
#define FIT_XTOL 1e-7
#define FIT_GTOL 1e-12
#define FIT_FTOL 1e-14

/* Release shifts of a third of a step tried either way at each point of the starting
 * grid, up to two thirds of a step. */
#define GRID_RELEASE_SHIFTS 2

/* Rest time of the chatter check: the lesson's "2 s at rest". */
#define CHATTER_DURATION 2.0

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

/* Noise scales (one standard deviation) that weight each kind of residual, unless a
 * measurement gives its own "sigma": a filmed rebound apex or trajectory sample is good
 * to about half a millimetre; a dial-gauge deflection to 1 um or 1 %, whichever is larger. */
#define CALIB_SIGMA_REBOUND 5e-4
#define CALIB_SIGMA_TRAJECTORY 5e-4
#define CALIB_SIGMA_DEFLECTION_ABS 1e-6
#define CALIB_SIGMA_DEFLECTION_REL 0.01

/* A drop's model rebound ends at the first apex after the object left the pad, or this
 * many seconds after the first contact if it never leaves. */
#define CALIB_DROP_SETTLE 1.0

/* A press's model (issue #29; fit/model.h): the object pressed from rest touching the pad for
 * CALIB_PRESS_DURATION s, its depth the mean penetration over the last CALIB_PRESS_WINDOW s
 * (a bouncy pad never settles under a press: MuJoCo keeps it hopping). */
#define CALIB_PRESS_DURATION 4.0
#define CALIB_PRESS_WINDOW 1.0

/* Starting grid of the fit: timeconst from this many timesteps to CALIB_GRID_TIMECONST_MAX
 * seconds, dampratio between the two bounds, log-spaced, CALIB_GRID_POINTS per axis. Its
 * box is also the searched range: the fit never ends outside it. */
#define CALIB_GRID_TIMECONST_MIN_STEPS 1.0
#define CALIB_GRID_TIMECONST_MAX 0.5
#define CALIB_GRID_DAMPRATIO_MIN 0.05
#define CALIB_GRID_DAMPRATIO_MAX 4.0
#define CALIB_GRID_POINTS 32
#define CALIB_MAX_ITERATIONS 200 /* trust-region iterations of one descent */

/* Descents from the best local minima of the grid, at most; one whose chi^2 per degree of
 * freedom is at most CALIB_ACCEPT_CHI2 (an exact fit: noise-free data) ends the search. */
#define CALIB_STARTS 6

/* In the fit's own search, then also from the best point of each edge of the grid: a
 * valley along an edge (a pad about one timestep stiff: chi^2 a narrow bowl in timeconst,
 * its floor at a dampratio edge) ranks far below the rough interior's minima on the
 * coarse grid, yet holds the best fit. Starts in all, at most: */
#define CALIB_MAX_STARTS (CALIB_STARTS + 4)
#define CALIB_ACCEPT_CHI2 1e-12

/* Then a fine grid of (2 * POINTS + 1)^2 points spanning +-SPAN in each log parameter
 * around the best descent, and a new descent from any better point, ROUNDS times. */
#define CALIB_REFINE_POINTS 5
#define CALIB_REFINE_SPAN 0.1
#define CALIB_REFINE_ROUNDS 3

/* Then, in the fit's own search, a fine grid of (2 * POINTS + 1)^2 points spanning +-SPAN
 * in each log around the best fit and each other distinct minimum, descents from its STARTS
 * lowest local minima, ROUNDS times around the best while it moves. */
#define CALIB_WIDE_POINTS 20
#define CALIB_WIDE_SPAN 0.2
#define CALIB_WIDE_STARTS 12
#define CALIB_WIDE_ROUNDS 3

/* And before the fine grids, in the fit's own search, a dense log grid over the whole
 * searched range, POINTS_TC x POINTS_DR, and descents from its STARTS lowest local minima away
 * from the best fit so far: distant valleys the coarse grid's starts missed (issue #29,
 * item 3: a 3-drop fit at chi2 2.609 where a pad across the range scores 0.249). */
#define CALIB_GLOBAL_POINTS_TC 128
#define CALIB_GLOBAL_POINTS_DR 64
#define CALIB_GLOBAL_STARTS 8

/* The confidence intervals' levels of chi^2 - chi^2_min are (k^2 + this) times the
 * residual variance: the truth's chi^2 less the best fit's averaged 2.57 over 100 noisy
 * 8-drop sets of the tuning truths (test_calib_coverage.c), against 2 for a smooth model
 * with two parameters: the rough pieces' lowest lies that much below the smooth bowl. */
#define CALIB_ROUGH_LEVEL 0.5

/* A fitted log parameter within this of the searched range's edge is at the edge. */
#define CALIB_EDGE_LOG 1e-6

/* Another descent's minimum, distinct by more than CALIB_DISTINCT_LOG in a log parameter
 * and within this many standard deviations in chi^2, widens the standard errors. */
#define CALIB_AMBIGUITY_SIGMAS 2.0
#define CALIB_DISTINCT_LOG 1e-3

/* Profile likelihood: each profile is walked from the estimate in log steps that start at
 * the covariance's standard error (within STEP_MIN and STEP_MAX) and grow by GROWTH,
 * until chi^2 is STOP times the residual variance above its minimum (4 sigma: past the
 * 3-sigma interval, so a valley beyond a ridge still counts), STEPS steps or SPAN log
 * units; a point lower by IMPROVE times the residual variance moves the estimate there,
 * RESTARTS times at most. */
#define CALIB_PROFILE_STEP_MIN 1e-6
#define CALIB_PROFILE_STEP_MAX 0.05
#define CALIB_PROFILE_GROWTH 1.5
#define CALIB_PROFILE_STOP 16.0
#define CALIB_PROFILE_STEPS 40
#define CALIB_PROFILE_SPAN 3.0
#define CALIB_PROFILE_IMPROVE 0.1
#define CALIB_PROFILE_RESTARTS 3

/* Standard errors by parametric bootstrap: this many synthetic data sets from the model
 * at the estimate, with noise from this fixed seed, each refitted as the data were. */
#define CALIB_BOOT_REPLICAS 8

/* A batch of at least SAMPLE_MIN pads whose chi^2 matters only below a cap (the scan) steps
 * its measurements in the order a sample of SAMPLE of its pads says rules pads out soonest
 * (fit/problem.c's within_order()). */
#define CALIB_WITHIN_SAMPLE 128
#define CALIB_WITHIN_SAMPLE_MIN 4096

/* The confidence intervals of a fit with fewer than CALIB_MIN_DOF degrees of freedom
 * scan chi^2 over the starting grid's box at this many log-spaced points per axis:
 * timeconst finely, as a coarse timestep makes a drop's apex swing with it by
 * millimetres within a few per cent. */
#define CALIB_SCAN_POINTS_TC 512
#define CALIB_SCAN_POINTS_DR 128
#define CALIB_BOOT_SEED 4u

/* A drop bounced when its rebound exceeds this many standard deviations: drops that do
 * not bounce only bound dampratio from below. */
#define CALIB_BOUNCE_SIGMAS 3.0

/* A direction of parameter space is unidentified when its singular value of the
 * column-scaled, weighted Jacobian is below this fraction of the largest. */
#define CALIB_RANK_TOLERANCE 1e-7

/* Honest errors: with fewer residual degrees of freedom than this the residuals cannot
 * check the sigmas (status few_dof, errors from the stated sigmas); a chi^2 whose upper
 * tail probability is below CALIB_MISFIT_P contradicts them (status misfit, errors scaled
 * up). Errors are never scaled below the stated sigmas. */
#define CALIB_MIN_DOF 3
#define CALIB_MISFIT_P 1e-4

/* Step (log units) of the Jacobian behind the standard errors: the slope over a 1 %
 * change, not the local slope of a model that is rough on finer scales. */
#define CALIB_SE_STEP 0.01

/* A body placed on the fitted pad that still moves more than this (m, standard deviation
 * over the last JITTER_WINDOW of 2 s) is reported as chattering. */
#define CALIB_CHATTER_JITTER 1e-6

/* Limits that keep one refit within milliseconds (validated at upload). */
#define CALIB_MAX_DROPS 200              /* per calibration: a refit costs ~5 ms per drop */
#define CALIB_MAX_PRESSES 200            /* per calibration */
#define CALIB_MAX_SAMPLES 4096           /* per trajectory */
#define CALIB_MAX_TRAJECTORY_STEPS 20000 /* simulated steps behind one trajectory */

#define CALIB_FIT_NICE 10

/* The threads one fit steps its batches of pads on (its own and helpers, fit/model.c), and
 * all fits together at once (fit/parallel.h: a helper joins only while fewer fits run): a
 * fit on an idle machine takes both cores, two fits a core each; helpers inherit the fit
 * worker's low priority, so questions still come first. 1: no helpers. */
#define CALIB_FIT_THREADS 2

/* Chains of refits (descents, walks, bootstrap refits) a fit thread runs side by side
 * (parallel_for_lockstep()): their few points a step are stepped together, in the lanes' full
 * vectors instead of one vector of a few lanes each, latency-bound. */
#define CALIB_LOCKSTEP_JOBS 6
#endif
