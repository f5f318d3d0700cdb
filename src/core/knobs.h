/*
 * knobs.h: the contact core's knobs: MuJoCo's constants and defaults, the lesson's
 * jitter window, the pinch's settling and tail tolerances, the core's version. Nothing
 * above the core changes them; a change here can change answers, so CORE_VERSION moves
 * with it.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_CORE_KNOBS_H
#define CONTACTD_CORE_KNOBS_H

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
#define MJ_ITERATIONS 100   /* opt.iterations: Newton's steps at most (newton.c) */
#define MJ_LS_TOLERANCE 0.01 /* opt.ls_tolerance: the line search's, times tolerance */
#define MJ_LS_ITERATIONS 50  /* opt.ls_iterations: the line search's evaluations at most */

/* ---- MuJoCo defaults ---- */
#define DEFAULT_MUJOCO                                                                             \
	"3.14.0" /* option.mujoco when a request names none: the newest verified                   \
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
#define DEFAULT_HOLD_DURATION 1.0    /* s */

/* steps the step loop may add after the duration to find the steady creep (and to
 * confirm the closed form's fixed point is where the loop goes) */
#define CORE_HOLD_SETTLE_MAX_STEPS 200000L

/* past the duration, a speed changing by less than REL of itself + ABS (m/s, about the
 * rounding noise noslip's sweeps leave on the speed) per step is steady */
#define CORE_HOLD_SETTLE_REL 1e-10
#define CORE_HOLD_SETTLE_ABS 2e-14
#define CORE_HOLD_SETTLE_RUN 20 /* for this many steps in a row (or a whole state that repeats) */
#define CORE_HOLD_CLOSED_FORM_REL 1e-9 /* the settled loop must agree with the closed form */
/* past the duration, a speed this close to the closed form's for SETTLE_RUN steps has
 * settled there: from 3.11.0 Newton's certificate keeps a start within its tolerance,
 * and the speed circles the limit by up to 3e-9 relative (a box on motors, measured) */
#define CORE_HOLD_ANCHOR_REL 1e-7

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
/* a ringing tail (hold.c's struct ring) is taken only when its speed, stepped on this
 * many steps, keeps its sign: by then its ringing (ratio <= TAIL_MAX_RATIO a step) is
 * below 0.95^400 = 1.2e-9 of where it started */
#define CORE_HOLD_RING_CHECK_STEPS 400
/* while a ring's lead rings, the vertical speed may settle in a geometric mode of its own
 * (the elliptic creep does not depend on the grip): its ratio steady to this, where the
 * speed is decoupled from the pads (issue 48's servo scenes: to 1e-10); a speed the pads
 * still pull on (a pyramid, whose friction follows the normal force) drifts by more */
#define CORE_HOLD_RING_OWN_REL 1e-6

/* a hold whose pads leave the object more often than this has no creep (core/hold.c) */
#define CORE_HOLD_BOUNCE_MAX 20

/* a run that did not settle, or whose pads left the object, is run again from the pads'
 * start backed off by NUDGE of the radius; ending more than REPRODUCE_REL (+ _ABS, m) apart,
 * its outcome is not reproducible (core/hold.c, hold_reproducible). A settling run
 * moves by about the nudge (relative); REL is 1e5 times that, 10x inside the 1e-6 the
 * answers keep to MuJoCo */
#define CORE_HOLD_SHADOW_NUDGE 1e-16
/* ... and the second shadow presses the pads in by this many ulps of their distance from
 * the object's centre after the first step: a servo's pads that return to the touching
 * pose meet the object there an ulp inside or outside, as MuJoCo's arithmetic has it */
#define CORE_HOLD_SHADOW_PRESS_ULPS 4
#define CORE_HOLD_REPRODUCE_REL 1e-7
#define CORE_HOLD_REPRODUCE_ABS 1e-11

/* noslip: MuJoCo's default opt.noslip_tolerance */
#define CORE_HOLD_NOSLIP_TOLERANCE 1e-6

/* ---- request limits (validation) ---- */
#define LIMIT_MAX_STEPS 10000000L /* duration / timestep per simulation */
#endif
