/*
 * knobs.h: the questions' knobs: the lesson's experiment (the request defaults), the
 * request limits a question is validated against, the compute budget's step costs, and
 * find's defaults.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_SERVICE_KNOBS_H
#define CONTACTD_SERVICE_KNOBS_H

/* ---- the seed lesson's experiment: 10 cm, 1 kg cube dropped 10 cm for 2 s ---- */
#define DEFAULT_SHAPE_SIZE 0.05
#define DEFAULT_MASS 1.0
#define DEFAULT_HEIGHT 0.10
#define DEFAULT_DURATION 2.0

/* N: a grip force at most, far beyond any gripper, so the step stays finite */
#define LIMIT_MAX_HOLD_FORCE 1e6

/* option.noslip_iterations accepted by hold: each step may run this many sweeps */
#define LIMIT_MAX_HOLD_NOSLIP 100

/* The hold's pads (issue 48): a position servo's kp (N/m) and a damping, the joint's or
 * the servo's kv (N s/m), at most this: 1e4x the stiffest gripper servos and joints of
 * MuJoCo Menagerie (kp ~1e4, damping ~1e2), where h^2 kp / m is already far past
 * anything an explicit step survives; the armature is a mass (LIMIT_MAX_MASS) and the
 * frictionloss a force (LIMIT_MAX_HOLD_FORCE). */
#define LIMIT_MAX_HOLD_KP 1e9
#define LIMIT_MAX_HOLD_DAMPING 1e9

#define LIMIT_MAX_SIZE 100.0             /* metres: body half-size or radius */
#define LIMIT_MAX_MASS 1e9               /* kg */
#define LIMIT_MAX_HEIGHT 1e4             /* metres */
#define LIMIT_MAX_SWEEP_POINTS 10000     /* points in one sweep (grid = product) */
#define LIMIT_MAX_SWEEP_STEPS 200000000L /* simulated steps in one sweep, all points */
#define LIMIT_MAX_SWEEP_VARY 2           /* vary entries of one sweep: a line or a grid */
#define LIMIT_MAX_SWEEP_SHARDS 1000000   /* parts a sweep may be split into ("shard") */

/* Lower bounds of one step's CPU cost (ns) for the estimate before a question starts:
 * about a quarter of what one core of the reference machine takes (a drop or rest step
 * ~25-50 ns, a hold step with noslip 1.2-1.8 us), so only a question sure to be over
 * the budget is refused before it runs; the deadline stops the rest. */
#define BUDGET_STEP_NS 5.0
#define BUDGET_HOLD_STEP_NS 5.0
#define BUDGET_NOSLIP_STEP_NS 300.0

/* A running question asks whether its client is still there this often (CPU ns). */
#define BUDGET_GONE_CHECK_NS 10000000LL
#define SWEEP_PARSE_THREADS_MAX 64 /* threads that parse one sweep's grid points */
/* calls of one eval or grade batch: a class's assignment (30 students x ~300 calls) in one */
#define LIMIT_MAX_EVAL_CALLS 10000
#define LIMIT_MAX_EVAL_STEPS 20000         /* semi_implicit_euler steps in one eval call */
#define LIMIT_MAX_EVAL_BATCH_STEPS 200000L /* and in all calls of one batch */

/* find (POST /v1/find): the default tolerance is this fraction of the bracket's width;
 * each iteration is one question answered, and all of them share the sweep's step limit */
#define FIND_DEFAULT_TOLERANCE 1e-6
#define FIND_DEFAULT_ITERATIONS 100
#define FIND_MAX_ITERATIONS 1000
/* bytes of a request body (the daemon's --max-body): the largest sweep or batch body
 * written by hand is tens of kB */
#define LIMIT_MAX_BODY_BYTES (1024 * 1024)

/* A batch body (eval, grade) may also be this many bytes per call of --max-eval-calls:
 * 10,000 calls of ordinary arguments are about 2.3 MB (contact_accel's ~170 bytes,
 * semi_implicit_euler's ~250), so the documented call limit is reachable with the
 * default flags (svc_body_limit()). */
#define LIMIT_EVAL_CALL_BYTES 512

/* Points of a drop's "trajectory" answer at most: longer drops are decimated to each
 * bucket's lowest and highest sample (core/sim.h), so every extreme survives. */
#define LIMIT_TRAJECTORY_POINTS 2000

#define MODEL_REST_DURATION 2.0 /* s of the rest answers' settling, as the run */
#endif
