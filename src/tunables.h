/*
 * tunables.h: every limit, default and version number of contactd in one place.
 *
 * Physics defaults are MuJoCo's (shared spec, "Defaults"); service limits are ours.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_TUNABLES_H
#define CONTACTD_TUNABLES_H

/* Version of the contact core's numerics. Part of every cache key: bump it whenever
 * a change to src/core/ can change any answer, so cached answers are never stale. */
#define CORE_VERSION "core-1"

/* ---- MuJoCo constants (engine headers, 2.2.2) ---- */
#define MJ_MINVAL 1e-15 /* smallest denominator MuJoCo allows */
#define MJ_MINIMP 1e-4  /* lower clamp of solimp d0, dwidth, midpoint */
#define MJ_MAXIMP 0.9999
#define MJ_MINMU 1e-5 /* lower clamp of every friction coefficient */

/* ---- MuJoCo defaults ---- */
#define DEFAULT_TIMECONST 0.02
#define DEFAULT_DAMPRATIO 1.0
#define DEFAULT_SOLIMP_D0 0.9
#define DEFAULT_SOLIMP_DWIDTH 0.95
#define DEFAULT_SOLIMP_WIDTH 0.001
#define DEFAULT_SOLIMP_MIDPOINT 0.5
#define DEFAULT_SOLIMP_POWER 2.0
#define DEFAULT_FRICTION_SLIDE 1.0
#define DEFAULT_FRICTION_SPIN 0.005
#define DEFAULT_FRICTION_ROLL 0.0001
#define DEFAULT_CONDIM 3
#define DEFAULT_SOLMIX 1.0
#define DEFAULT_TIMESTEP 0.002
#define DEFAULT_GRAVITY 9.81
#define DEFAULT_IMPRATIO 1.0

/* ---- the seed lesson's experiment: 10 cm, 1 kg cube dropped 10 cm for 2 s ---- */
#define DEFAULT_SHAPE_SIZE 0.05
#define DEFAULT_MASS 1.0
#define DEFAULT_HEIGHT 0.10
#define DEFAULT_DURATION 2.0
#define JITTER_WINDOW 0.5 /* seconds at the end of a drop over which jitter is measured */

/* ---- request limits (validation) ---- */
#define LIMIT_MAX_STEPS 10000000L   /* duration / timestep per simulation */
#define LIMIT_MAX_SIZE 100.0        /* metres: body half-size or radius */
#define LIMIT_MAX_MASS 1e9          /* kg */
#define LIMIT_MAX_HEIGHT 1e4        /* metres */
#define LIMIT_MAX_SWEEP_POINTS 10000 /* points in one sweep (grid = product) */
#define LIMIT_MAX_SWEEP_STEPS 200000000L /* simulated steps in one sweep, all points */
#define LIMIT_MAX_EVAL_CALLS 10000
#define LIMIT_MAX_JSON_DEPTH 16
#define LIMIT_MAX_BODY_BYTES (1024 * 1024)

/* ---- daemon defaults ---- */
#define DAEMON_DEFAULT_PORT 8750
#define DAEMON_DEFAULT_BIND "127.0.0.1"
#define DAEMON_DEFAULT_DB "contactd.db"
#define DAEMON_CONNECTION_TIMEOUT 10 /* seconds of client silence before a connection is closed */
#define DAEMON_CONNECTION_LIMIT 1024

#endif
