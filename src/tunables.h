/*
 * tunables.h: every limit, default and version number of contactd in one place.
 *
 * Physics defaults are MuJoCo's (shared spec, "Defaults"); service limits are ours.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_TUNABLES_H
#define CONTACTD_TUNABLES_H

/* Version of the contact core's numerics. Part of every cache key: bump it whenever
 * a change to src/core/, or to how answers print, can change any answer's bytes, so
 * cached answers are never stale. core-2: reals print as their shortest exact text.
 * core-3: MuJoCo release rules (option.mujoco, default 3.12.0). core-4: eval follows
 * its "mujoco" release; eval and find answers carry mujoco and core_version. core-5: one
 * spelling per quantity. core-6: hold answers' noslip steps keep to MuJoCo in their last
 * bits differently (faster solves), the tail is accelerated, and they carry reproducible.
 * core-7: a zero is never -0 in a request or an answer; releases 3.13.0 and 3.14.0 (the
 * default), the discrete integrator, and rest, stability and hold answers carry
 * refsafe_replaced; the pinch's one-pad start of 3.8.0-3.13.0. */
#define CORE_VERSION "core-7"

/* ---- MuJoCo constants (engine headers, 2.2.2) ---- */
#define MJ_MINVAL 1e-15 /* smallest denominator MuJoCo allows */
#define MJ_MINIMP 1e-4  /* lower clamp of solimp d0, dwidth, midpoint */
#define MJ_MAXIMP 0.9999
#define MJ_MINMU 1e-5     /* lower clamp of every friction coefficient */
#define MJ_TOLERANCE 1e-8 /* opt.tolerance: the solver's convergence threshold */

/* ---- MuJoCo defaults ---- */
#define DEFAULT_MUJOCO "3.14.0" /* option.mujoco when a request names none: the newest verified    \
	                         */
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

/* ---- the hold scene (issue 21): a sphere between two pads ---- */
#define DEFAULT_HOLD_SLIP_LIMIT 1e-3 /* m of descent that counts as slipping */
#define DEFAULT_HOLD_RADIUS 0.02     /* the measured scene: a 2 cm, 100 g sphere */
#define DEFAULT_HOLD_MASS 0.1
#define DEFAULT_HOLD_PAD_HX 0.005 /* pads: box half-sizes 5 x 20 x 200 mm, 50 g each */
#define DEFAULT_HOLD_PAD_HY 0.02
#define DEFAULT_HOLD_PAD_HZ 0.2
#define DEFAULT_HOLD_PAD_MASS 0.05
#define DEFAULT_HOLD_GRIP_FORCE 10.0 /* N per pad */
#define LIMIT_MAX_HOLD_FORCE 1e6     /* N */
#define DEFAULT_HOLD_DURATION 1.0    /* s */
/* steps the step loop may add after the duration to find the steady creep (and to
 * confirm the closed form's fixed point is where the loop goes) */
#define CORE_HOLD_SETTLE_MAX_STEPS 200000L
/* past the duration, a speed changing by less than REL of itself + ABS (m/s, about the
 * rounding noise noslip's sweeps leave on the speed) per step is steady */
#define CORE_HOLD_SETTLE_REL 1e-10
#define CORE_HOLD_SETTLE_ABS 2e-14
#define CORE_HOLD_SETTLE_RUN 20    /* for this many steps in a row (or a whole state that repeats) */
#define CORE_HOLD_CLOSED_FORM_REL 1e-9 /* the settled loop must agree with the closed form */
/* a state whose vertical speed changes by less than REL (relative) + ABS (m/s), its
 * other speeds (m/s at the contact) by less than OTHER and its positions by less than
 * REL * radius per step, CORE_HOLD_SETTLE_RUN steps in a row, repeats: the rest of the
 * run is summed in closed form */
#define CORE_HOLD_STEADY_REL 1e-12
#define CORE_HOLD_STEADY_ABS 1e-15
#define CORE_HOLD_STEADY_OTHER 1e-13
/* the transient's tail (core/hold.c, struct tail): the rest of a run is summed as one
 * geometric mode once the ratio r of the leading coordinate's successive changes is at
 * most MAX_RATIO and moves by less than RATIO_REL, every coordinate's change is r times
 * its last to MODE_REL (or its rounding) and within NEAR (relative) of its limit, and the
 * predicted limit speed moves by less than SPEED_REL (+ SPEED_ABS, m/s) and the predicted
 * final height by less than HEIGHT_REL (+ HEIGHT_ABS, m), AGREE steps in a row (the
 * limit speed Aitken-accelerated where SQUARE_REL says). The tolerances are 1e4 times
 * inside the 1e-6 that the answers keep to MuJoCo; SPEED_REL is 10x inside
 * CLOSED_FORM_REL, so a predicted creep can confirm the closed form. */
#define CORE_HOLD_TAIL_MAX_RATIO 0.95
#define CORE_HOLD_TAIL_RATIO_REL 1e-2
#define CORE_HOLD_TAIL_SPEED_REL 1e-10
#define CORE_HOLD_TAIL_SPEED_ABS 1e-13
#define CORE_HOLD_TAIL_HEIGHT_REL 1e-10
#define CORE_HOLD_TAIL_HEIGHT_ABS 1e-13
#define CORE_HOLD_TAIL_NEAR 1e-4
#define CORE_HOLD_TAIL_MODE_REL 1e-2
#define CORE_HOLD_TAIL_AGREE 2
/* the predicted limit speed is Aitken-accelerated where its changes shrink by r^2 (the
 * transient's next mode, the square of its first), to this fraction of r - r^2 */
#define CORE_HOLD_TAIL_SQUARE_REL 0.1
/* a hold whose pads leave the object more often than this has no creep (core/hold.c) */
#define CORE_HOLD_BOUNCE_MAX 20
/* a run that did not settle, or whose pads left the object, is run again from the pads'
 * start backed off by NUDGE of the radius; ending more than REPRODUCE_REL (+ _ABS, m) apart,
 * its outcome is not reproducible (core/hold.c, hold_reproducible). A settling run
 * moves by about the nudge (relative); REL is 1e5 times that, 10x inside the 1e-6 the
 * answers keep to MuJoCo */
#define CORE_HOLD_SHADOW_NUDGE 1e-16
#define CORE_HOLD_REPRODUCE_REL 1e-7
#define CORE_HOLD_REPRODUCE_ABS 1e-11
/* noslip: MuJoCo's default opt.noslip_tolerance; the asymmetric step's main solve takes
 * at most NEWTON_MAX Newton steps, and stops at a step of NEWTON_REL (relative) or a
 * Newton decrement of DECREMENT (cost units), the rounding of its minimiser */
#define CORE_HOLD_NOSLIP_TOLERANCE 1e-6
#define CORE_HOLD_NOSLIP_NEWTON_MAX 60
#define CORE_HOLD_NOSLIP_NEWTON_REL 1e-14
#define CORE_HOLD_NOSLIP_DECREMENT 1e-28
/* ... after at most this many active-set steps (each the minimiser of the quadratic piece
 * of the rows that push at the last one) have not settled */
#define CORE_HOLD_NOSLIP_PIECE_TRIES 4
/* option.noslip_iterations accepted by hold: each step may run this many sweeps */
#define LIMIT_MAX_HOLD_NOSLIP 100

/* ---- request limits (validation) ---- */
#define LIMIT_MAX_STEPS 10000000L        /* duration / timestep per simulation */
#define LIMIT_MAX_SIZE 100.0             /* metres: body half-size or radius */
#define LIMIT_MAX_MASS 1e9               /* kg */
#define LIMIT_MAX_HEIGHT 1e4             /* metres */
#define LIMIT_MAX_SWEEP_POINTS 10000     /* points in one sweep (grid = product) */
#define LIMIT_MAX_SWEEP_STEPS 200000000L /* simulated steps in one sweep, all points */
#define LIMIT_MAX_SWEEP_VARY 2           /* vary entries of one sweep: a line or a grid */
#define LIMIT_MAX_SWEEP_SHARDS 1000000   /* parts a sweep may be split into ("shard") */
/* The compute budget (service/budget.h): CPU seconds one question may take, all its
 * threads together (--max-cpu-seconds; 0: none). The largest drop sweep the limits
 * above allow (LIMIT_MAX_SWEEP_STEPS) takes about 5-10 s; a hold with noslip up to ~30 s. */
#define DAEMON_MAX_CPU_SECONDS 20.0
/* Lower bounds of one step's CPU cost (ns) for the estimate before a question starts:
 * about a quarter of what one core of the reference machine takes (a drop or rest step
 * ~25-50 ns, a hold step with noslip 1.2-1.8 us), so only a question sure to be over
 * the budget is refused before it runs; the deadline stops the rest. */
#define BUDGET_STEP_NS 5.0
#define BUDGET_HOLD_STEP_NS 5.0
#define BUDGET_NOSLIP_STEP_NS 300.0
/* A running question asks whether its client is still there this often (CPU ns). */
#define BUDGET_GONE_CHECK_NS 10000000LL
#define STREAM_FLUSH_SECONDS 0.02 /* a streamed sweep's rows wait at most this long in a buffer */
#define STREAM_BUFFER_BYTES 65536 /* `contact sweep`'s output buffer (a file or pipe, not a terminal) */
#define SWEEP_PARSE_THREADS_MAX 64 /* threads that parse one sweep's grid points */
#define STREAM_CHUNK_BYTES 16384  /* the most a streamed sweep hands libmicrohttpd at once */
#define LIMIT_MAX_EVAL_CALLS 10000
#define LIMIT_MAX_EVAL_STEPS 20000         /* semi_implicit_euler steps in one eval call */
#define LIMIT_MAX_EVAL_BATCH_STEPS 200000L /* and in all calls of one batch */
#define LIMIT_MAX_JSON_DEPTH 16
/* find (POST /v1/find): the default tolerance is this fraction of the bracket's width;
 * each iteration is one question answered, and all of them share the sweep's step limit */
#define FIND_DEFAULT_TOLERANCE 1e-6
#define FIND_DEFAULT_ITERATIONS 100
#define FIND_MAX_ITERATIONS 1000
#define LIMIT_MAX_BODY_BYTES (1024 * 1024)
/* A batch body (eval, grade) may also be this many bytes per call of --max-eval-calls:
 * 10,000 calls of ordinary arguments are about 2.3 MB (contact_accel's ~170 bytes,
 * semi_implicit_euler's ~250), so the documented call limit is reachable with the
 * default flags (svc_body_limit()). */
#define LIMIT_EVAL_CALL_BYTES 512
/* Points of a drop's "trajectory" answer at most: longer drops are decimated to each
 * bucket's lowest and highest sample (core/sim.h), so every extreme survives. */
#define LIMIT_TRAJECTORY_POINTS 2000
#define BODY_CHUNK_BYTES 4096 /* first allocation of a request body, grown by doubling */

/* ---- daemon defaults ---- */
#define DAEMON_DEFAULT_PORT 8750
#define DAEMON_DEFAULT_BIND "127.0.0.1"
#define DAEMON_DEFAULT_DB "contactd.db"
#define DAEMON_CONNECTION_TIMEOUT 10 /* seconds of client silence before a connection is closed */
#define DAEMON_CONNECTION_LIMIT 1024
#define DAEMON_CONNECTION_MEMORY (64 * 1024) /* bytes per connection for headers and buffers */
#define DAEMON_DRAIN_TIMEOUT 30              /* seconds shutdown waits for requests in flight */
/* Questions admitted beyond the compute threads (waiting for one, their connections
 * suspended); one more is answered 503 with Retry-After: DAEMON_RETRY_AFTER seconds. */
#define DAEMON_COMPUTE_QUEUE 256
#define DAEMON_RETRY_AFTER "1"
/* Open connections from one client address; 0 is no limit (behind a reverse proxy every
 * connection comes from the proxy's address). */
#define DAEMON_PER_IP_CONNECTION_LIMIT 256
/* libmicrohttpd's own limit is --max-connections plus DAEMON_REFUSAL_SLOTS: the guard
 * refuses past --max-connections itself, with a 503, so those slots hold the refusals in
 * the moment before they close (at libmicrohttpd's limit a new client would wait unanswered
 * in the listen backlog). Under load, once half of --max-connections are open, one address
 * may hold at most 1/DAEMON_LOAD_SHARE of them (and --max-connections-per-ip as ever; no
 * share when that is 0, behind a proxy, or below DAEMON_LOAD_SHARE connections): a few
 * addresses cannot take every slot. */
#define DAEMON_REFUSAL_SLOTS 64
#define DAEMON_LOAD_SHARE 8
/* The whole request head (from the connection's start or the previous answer) is due
 * within DAEMON_HEAD_TIMEOUT seconds however it trickles, and a body averages at least
 * DAEMON_MIN_BODY_RATE bytes/s once it had as long: 408 and a close otherwise (slowloris).
 * Twice the idle timeout, so an idle keep-alive connection is closed by that one first. */
#define DAEMON_HEAD_TIMEOUT 20
#define DAEMON_MIN_BODY_RATE 1024
#define DAEMON_GUARD_PERIOD_MS 250 /* how often the deadlines are checked */
/* A declared body over --max-body by at most this much is read and dropped before the 413,
 * so that a client still sending reads the answer; a larger one is answered at once. */
#define DAEMON_DISCARD_BODY_MAX (16 * 1024 * 1024)

#define CORS_MAX_ORIGINS 32 /* --cors-origin given at most this often */
#define CORS_MAX_AGE 600    /* seconds a browser may reuse a preflight */
/* The request headers a cross-origin page may send (preflight answer). */
#define CORS_ALLOW_HEADERS "Content-Type, Authorization, Idempotency-Key, Accept"
/* The answer headers a cross-origin page may read. */
#define CORS_EXPOSE_HEADERS "X-Cache, Content-Length"
/* The largest values contactd's flags accept. */
#define DAEMON_MAX_THREADS 1024        /* --threads, --sweep-threads */
#define DAEMON_MAX_TIMEOUT 86400       /* --timeout, --drain-timeout: seconds */
#define DAEMON_MAX_CONNECTIONS 1000000 /* --max-connections */
#define DAEMON_LOG_LINE_MAX 1024       /* bytes of one log line, newline included */
/* Per window of DAEMON_LOG_WINDOW_S seconds: log lines alike but for their digits written
 * (the rest counted and summed up), all lines written; slots telling kinds of lines apart.
 * A repeated error (10 a second on a full disk) comes to about 2 lines a second. */
#define DAEMON_LOG_WINDOW_S 10
#define DAEMON_LOG_SIMILAR_PER_WINDOW 20
#define DAEMON_LOG_LINES_PER_WINDOW 5000
#define DAEMON_LOG_SLOTS 256
#define DAEMON_EVENTS_KEEPALIVE_S 15   /* seconds between comments on an idle event stream */
/* How often sleeping event streams are checked for a client that closed its side. */
#define DAEMON_EVENTS_CLOSE_CHECK_MS 500
#define DAEMON_EVENTS_PER_TOKEN 32 /* event streams one token may hold open; 503 beyond */
#define DAEMON_EVENTS_RETRY_AFTER "5" /* seconds: Retry-After of that 503 */

/* ---- store ---- */
#define STORE_BUSY_TIMEOUT_MS 5000 /* how long a connection waits for another writer */
#define STORE_BUSY_STEP_US 250      /* and how often it looks again meanwhile */
/* How long a question waits for another writer to keep its answer in the cache: an upload's
 * durable commit or a checkpoint can hold the write lock for as long as the disk takes to
 * sync (hundreds of milliseconds seen), and an answer is worth more now than cached. Beyond,
 * it is served and not kept (contactd_cache_busy_total). A few scheduler slices: a writer
 * descheduled mid-commit on a busy machine is not given up on. */
#define STORE_CACHE_BUSY_MS 5
/* /v1/health's store check (store_health()): the write lock may be held by another writer
 * this long (a commit) before the store counts as locked; and a disk with less free than
 * this counts as full (the WAL's peak, STORE_WAL_PEAK_BYTES, and a margin). */
#define STORE_PROBE_WAIT_MS 200
#define STORE_MIN_FREE_BYTES (16L * 1024 * 1024)

/* ---- the store's upkeep (src/store/store.h, src/http/upkeep.h) ---- */
#define STORE_WAL_LIMIT_TEXT "8388608" /* journal_size_limit: bytes a reset WAL keeps */
#define STORE_WAL_CHECKPOINT_BYTES (4L * 1024 * 1024) /* a WAL larger is checkpointed */
/* The WAL's stated peak: the threshold plus the commits under way when a writer crosses it
 * (tests/test_harden.c and bench/bench_wal.sh hold it; 4.0-4.2 MiB measured). */
#define STORE_WAL_PEAK_BYTES (5L * 1024 * 1024)
/* The largest answer the cache keeps (bytes): a larger one is served, not cached, so
 * that one commit cannot carry the WAL far past its threshold (the stated peak is the
 * threshold plus about two such commits under way). 256 KiB: a sweep of ~3,000 points. */
#define STORE_CACHE_MAX_ANSWER (256L * 1024)
#define STORE_CHECKPOINT_TRIES 100 /* a checkpoint that collides with a writer's, retried (1 ms)   \
	                            */
#define STORE_EVICT_BATCH 1024     /* most answers deleted by one statement while evicting */
#define STORE_BACKUP_PAGES 1024    /* pages copied per step of an online backup */
#define DAEMON_UPKEEP_MS 100       /* period of the WAL and cache upkeep */
#define DAEMON_CACHE_MAX_MB 1024   /* --cache-max-mb: answer bytes the cache keeps; 0: no bound */

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
 * tolerance, 1e-7 relative, is a tenth of FD_STEP_LOG: the Jacobian resolves nothing finer, and on the drops'
 * rough chi^2 a descent that has arrived spends its last trials shrinking a rejected step
 * (issue #29: 1e-10 cost 15 % of a fit with presses and moved chi^2 by under 3e-4). */
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
/* The <default class> of the MJCF to paste unless the setup names one: this prefix and the
 * calibration's id, which no Menagerie model uses. */
#define CALIB_DEFAULT_CLASS_PREFIX "contactd_pad_"
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
#define CALIB_MAX_TRAJECTORIES 16        /* per calibration */
#define CALIB_MAX_SAMPLES 4096           /* per trajectory */
#define CALIB_MAX_TRAJECTORY_STEPS 20000 /* simulated steps behind one trajectory */
#define CALIB_MAX_DROP_HEIGHT 10.0       /* m */
/* The pads an audit (POST /v1/calibrations/{id}/evaluate) evaluates: timeconst (s) and
 * dampratio each positive and at most these; the fit searches well within them. */
#define CALIB_AUDIT_TIMECONST_MAX 10.0
#define CALIB_AUDIT_DAMPRATIO_MAX 100.0
#define CALIB_MAX_PRESS_FORCE 1e6        /* N */
#define CALIB_MAX_CALIBRATION_SAMPLES                                                              \
	16384 /* trajectory samples of one calibration, all uploads                                \
	       */
/* Fits run on their own threads (src/calib/work.h), never inside a request or a
 * transaction: this many by default, under SCHED_BATCH at this many nice levels above the HTTP threads'
 * (at most 19), so questions keep their latency while a fit runs. A fit running longer than CALIB_FIT_SECONDS is stopped
 * and recorded as failed. */
#define CALIB_FIT_WORKERS 2     /* the default of contactd's --fit-workers */
#define CALIB_FIT_WORKERS_MAX 64 /* --fit-workers' bound */
#define CALIB_FIT_NICE 10
#define CALIB_FIT_SECONDS 120.0
/* The threads one fit steps its batches of pads on (its own and helpers, fit/model.c), and
 * all fits together at once (fit/parallel.h: a helper joins only while fewer fits run): a
 * fit on an idle machine takes both cores, two fits a core each; helpers inherit the fit
 * worker's low priority, so questions still come first. 1: no helpers. */
#define CALIB_FIT_THREADS 2
/* Chains of refits (descents, walks, bootstrap refits) a fit thread runs side by side
 * (parallel_for_lockstep()): their few points a step are stepped together, in the lanes' full
 * vectors instead of one vector of a few lanes each, latency-bound. */
#define CALIB_LOCKSTEP_JOBS 6
/* ?wait=SECONDS (or Prefer: wait=SECONDS) on an upload, a deletion or GET of a calibration
 * blocks (its connection suspended, no thread held) at most this long for the fit. */
#define CALIB_MAX_WAIT_S 300
/* Idempotency-Key: at most this many characters; a key is remembered this long. */
#define CALIB_IDEMPOTENCY_KEY_MAX 255
#define CALIB_IDEMPOTENCY_TTL_S (7 * 24 * 3600L)
/* A watch URL (POST /v1/calibrations/{id}/watch) can be opened for this long, unless the
 * request asks for another lifetime (?expires_in=SECONDS), which is clamped to
 * CALIB_WATCH_MAX_S; the server refuses a URL signed to live longer than that. */
#define CALIB_WATCH_TTL_S 300
#define CALIB_WATCH_MAX_S 3600
/* How often an open event stream's token (revoked? expired? its rotation's grace over?) and
 * watch URL (expired?) are looked at: a stream ends within this long of either. The token is
 * read from the store, so a revocation by another process (`contactd token`) is seen too. */
#define CALIB_STREAM_CHECK_MS 500
/* Parsed setups kept in memory (src/calib/setup.h), most recently used. */
#define CALIB_SETUP_CACHE 256
/* A token's last use is recorded to this many seconds (one write per token per interval). */
#define CALIB_TOKEN_USE_GRANULARITY_S 60
/* A store shared by several nodes (PostgreSQL): a claimed fit holds a lease this long,
 * renewed every CALIB_FIT_LEASE_S / 4 while its node computes it; every CALIB_FIT_ADOPT_S
 * each node looks for fits whose lease lapsed (their node died) and pending fits nobody
 * claimed, so a dead node's fit is taken over within CALIB_FIT_LEASE_S + CALIB_FIT_ADOPT_S
 * (12 s; the promise is 15 s). */
#define CALIB_FIT_LEASE_S 10
#define CALIB_FIT_ADOPT_S 2

/* ---- the PostgreSQL calibration store (src/store/pgstore.h, --store postgresql://) ---- */
#define PGSTORE_POOL 8              /* connections of one process, besides its listener */
#define PGSTORE_CONNECT_TIMEOUT_S 2 /* a connection attempt gives up after this long */
#define PGSTORE_RETRY_S 1.0         /* after a failed attempt, requests fail fast this long */
/* A calibration request answered 503 because the store is unreachable says Retry-After: */
#define CALIB_RETRY_AFTER_S 2

/* ---- the daemon's per-thread memory cache of answers (src/http/hotcache.h) ---- */
#define HOT_SLOTS 1024                /* direct-mapped entries per thread */
#define HOT_MAX_ANSWER (64 * 1024)    /* larger answers (big sweeps) are not kept */
#define HOT_BUDGET (16 * 1024 * 1024) /* answer bytes per thread */

/* ---- `contact --plot` (src/cli/plot.h) ---- */
#define PLOT_WIDTH 720 /* pixels of a line plot (a heat map adds its colour bar) */
#define PLOT_HEIGHT 480
#define PLOT_MARKED_POINTS 60 /* lines of at most this many points mark each one */


/* ---- the model endpoint (issue 30): a user's MJCF ---- */
#define MJCF_MAX_BYTES (4L << 20)   /* all files of one model together */
#define MJCF_MAX_FILES 64           /* the main file and the files it includes */
#define MJCF_MAX_INCLUDE_DEPTH 8    /* includes within includes */
#define MJCF_MAX_DEPTH 64           /* nested elements in one file */
#define MJCF_MAX_NAME 256           /* bytes of a file name */
#define MODEL_MAX_BODIES 1000       /* bodies of one model */
#define MODEL_MAX_GEOMS 2000        /* geoms of one model */
#define MODEL_MAX_CLASSES 1000      /* default classes */
#define MODEL_MAX_PAIRS 20000       /* geom pairs listed in one answer */
#define MODEL_REST_DURATION 2.0     /* s of the rest answers' settling, as the run */

#endif
