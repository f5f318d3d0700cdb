/*
 * contactd.h: the contact core of contactd as a C library (libcontactd).
 *
 * What it answers: MuJoCo's soft-contact numbers, reproduced exactly (to the bit where
 * MuJoCo's own arithmetic allows) for three small scenes, under the rules of several
 * MuJoCo releases:
 *   - a sphere or a flat box resting on, or dropped onto, a plane (ctd_sim_rest_scene,
 *     ctd_sim_drop_scene);
 *   - the stability of the linearised contact spring under an integrator
 *     (ctd_growth_stability);
 *   - a sphere pinched between two box pads pressed by motors: does it hold, creep or
 *     slip (ctd_hold_solve);
 *   - and every question of contactd's HTTP API, JSON in and JSON out, with the exact
 *     bytes the daemon answers (ctd_answer).
 *
 * Build:  cc prog.c $(pkg-config --cflags --libs contactd)
 *         (static: add --static to pkg-config; the library needs GSL, jansson,
 *         libxml2, libm and threads)
 *
 * Conventions, for every function below:
 *   - Units are SI: metres, kilograms, seconds, newtons. Heights are along +z, gravity
 *     is a magnitude pulling along -z.
 *   - The caller owns every struct it passes; the library keeps no pointer to it after
 *     the call returns, allocates nothing it hands back but ctd_answer()'s text (freed
 *     with ctd_answer_free()), and otherwise returns only static strings (never free
 *     them).
 *   - Threads: every function is reentrant and may run in several threads at once on
 *     distinct output structs; the library has no global state that changes after
 *     load, but ctd_endpoints()'s text, made once under a lock.
 *   - Inputs are not validated, but ctd_answer()'s. A function's "Requires" lists what
 *     its inputs must satisfy (all numbers finite); outside that the answers are
 *     meaningless, though the functions still return. contactd's daemon and CLI (and
 *     ctd_answer()) check their requests against these bounds (and tighter ones)
 *     before calling.
 *   - Errors: the functions that can fail say how they report it. Those that solve an
 *     equilibrium use GSL's root finder; GSL reports a failure of its own (a
 *     non-finite function value, no memory) through its process-wide error handler,
 *     which aborts by default. A program that prefers the failure as a return value
 *     calls gsl_set_error_handler_off() once at start-up (<gsl/gsl_errno.h>).
 *   - Names: every function and type is prefixed ctd_, every macro and enumerator
 *     CTD_ (the version macros CONTACTD_VERSION_). The shared library exports exactly the
 *     functions declared here.
 *   - Structs are plain data (copy them freely). They are this header's own, not the
 *     core's working types: the library copies them in and out, so its internals can
 *     change without moving them. Their layout changes only together with the soname
 *     (the library's major version; docs/operations.md, "The library's ABI").
 */
#ifndef CTD_CONTACTD_H
#define CTD_CONTACTD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions the shared library exports (all others are hidden). */
#if defined(__GNUC__) && __GNUC__ >= 4
#define CTD_API __attribute__((visibility("default")))
#else
#define CTD_API
#endif

/* ---- the library ---- */

/* The version of contactd this header belongs to, at compile time; ctd_version() says
 * which library a program runs with. */
#define CONTACTD_VERSION_MAJOR 0
#define CONTACTD_VERSION_MINOR 1
#define CONTACTD_VERSION_PATCH 0

/* The library's version, "MAJOR.MINOR.PATCH" (the release of contactd it was built
 * from; what `pkg-config --modversion contactd` says at build time). A static string.
 * Readable from any language that can call a C function. */
CTD_API const char *ctd_version(void);

/* ---- MuJoCo releases ----
 * A release is a small integer index into the library's table of supported releases,
 * oldest first. Index 0 follows MuJoCo 2.2.2's rules, so a zeroed option struct is
 * MuJoCo 2.2.2. */

/* Number of supported releases; valid indices run 0 .. ctd_mjver_count() - 1. */
CTD_API int ctd_mjver_count(void);

/* The index of the release used when none is named: the newest supported. */
CTD_API int ctd_mjver_default(void);

/* The index of release `name` (e.g. "3.12.0"), or -1 when it is not supported.
 * name: a NUL-terminated string; NULL gives -1. */
CTD_API int ctd_mjver_find(const char *name);

/* The name of release `index` ("2.2.2", ...), a static string. Requires a valid index. */
CTD_API const char *ctd_mjver_name(int index);

/* The supported releases, oldest first, as one static comma-separated string. */
CTD_API const char *ctd_mjver_supported(void);

/* ---- one geom's contact parameters (an MJCF <geom>'s attributes) ---- */

struct ctd_pair_geom {
	double solref[2];   /* (timeconst s, dampratio), or (-stiffness, -damping) */
	double solimp[5];   /* (d0, dwidth, width m, midpoint, power) */
	int condim;         /* 1, 3, 4 or 6 */
	double friction[3]; /* sliding, torsional (m), rolling (m) */
	double margin, gap; /* m, >= 0 */
	double solmix;      /* >= 0 */
	int priority;
};

/* Fill g with MuJoCo's geom defaults: solref (0.02, 1), solimp (0.9, 0.95, 0.001, 0.5, 2),
 * condim 3, friction (1, 0.005, 0.0001), margin and gap 0, solmix 1, priority 0. */
CTD_API void ctd_pair_geom_default(struct ctd_pair_geom *g);

/* ---- options and the plane scene ---- */

enum ctd_scene_shape { CTD_SCENE_SPHERE, CTD_SCENE_BOX };

/* MuJoCo's integrators. For these scenes implicit and implicitfast step exactly like
 * Euler (MuJoCo differentiates only smooth forces, never constraint forces). DISCRETE
 * (MuJoCo 3.13.0+, option integrator="discrete") evaluates each contact row's reference
 * spring at the end of the step and, with refsafe, replaces a row with
 * timestep^2 K imp > 1 instead of clamping timeconst (docs/releases.md). */
enum ctd_scene_integrator {
	CTD_SCENE_EULER,
	CTD_SCENE_IMPLICIT,
	CTD_SCENE_IMPLICITFAST,
	CTD_SCENE_RK4,
	CTD_SCENE_DISCRETE
};

/* MuJoCo's friction cones (option cone). */
enum ctd_cone { CTD_CONE_PYRAMIDAL, CTD_CONE_ELLIPTIC };

/* MuJoCo's <option> attributes that matter here. */
struct ctd_scene_option {
	double timestep; /* s, > 0 */
	int refsafe;     /* 1: solref's timeconst is raised to at least 2 * timestep */
	double gravity;  /* m/s^2, the magnitude along -z */
	double impratio; /* > 0 */
	enum ctd_scene_integrator integrator;
	int mujoco;         /* the release whose rules apply: a valid ctd_mjver index */
	enum ctd_cone cone; /* zero: pyramidal, MuJoCo's default */
};

/* Fill o with MuJoCo's option defaults: timestep 0.002 s, refsafe on, gravity 9.81,
 * impratio 1, Euler, pyramidal, and the default release (ctd_mjver_default). */
CTD_API void ctd_scene_option_default(struct ctd_scene_option *o);

/*
 * A body on a plane: a sphere (radius size[0]) or a box (half-sizes size[0..2], flat
 * on the plane, size[2] along z) of the given mass, whose lowest point starts at rest
 * at `height` above the plane.
 * Requires: size > 0, mass > 0, height >= 0, duration >= 0, both geoms' condim 1, 3,
 * 4 or 6, option as documented there. The time a call takes grows with
 * duration / option.timestep (its steps).
 */
struct ctd_scene {
	enum ctd_scene_shape shape;
	double size[3];             /* m: sphere radius in size[0]; box half-sizes */
	double mass;                /* kg */
	struct ctd_pair_geom geom;  /* the body's geom */
	struct ctd_pair_geom floor; /* the plane's geom */
	struct ctd_scene_option option;
	double height;   /* m, the lowest point's initial height above the plane */
	double duration; /* s simulated */
};

/* The rest of a body on the plane. Penetrations are m, positive into the plane. */
struct ctd_sim_rest {
	int has_equilibrium;        /* 0 when no force can hold the body (e.g. zero stiffness) */
	double penetration;         /* the exact equilibrium penetration (0 when none) */
	double settled_penetration; /* the penetration after `duration` of stepping */
	double impedance;           /* MuJoCo's impedance d at the equilibrium, in (0, 1) */
	double K;                   /* the reference spring's stiffness, 1/s^2 */
	double B;                   /* its damping, 1/s */
	double timeconst_used;      /* s, solref[0] after refsafe; 0 for a direct solref */
	int contacts;               /* contact points: 1 (sphere) or 4 (box corners) */
	int rows;                   /* constraint rows: MuJoCo's nefc */
	/* discrete only: 1 when refsafe replaced the rows at the equilibrium
	 * (timestep^2 K imp > 1); K and B are then the replacement K' = 1/(h^2 imp) and
	 * B' = B/sqrt(h^2 K imp). Always 0 under the other integrators. */
	int refsafe_replaced;
};

/* The drop of a body onto the plane. Heights are of the lowest point, m. */
struct ctd_sim_drop {
	double peak_penetration;  /* the deepest penetration over all steps */
	double rebound;           /* the highest point after the first penetrating step, >= 0 */
	double max_height;        /* the highest point over all steps */
	double jitter;            /* population std of the height over the last 0.5 s */
	double final_penetration; /* the penetration after the last step */
	int energy_gain;          /* 1: the rebound is higher than the drop height */
	long steps;               /* steps simulated: round(duration / timestep) */
	/* The first bounce's apex (the calibration's rebound, issue #29): the highest point
	 * after the first penetrating step up to the step after the apex, once the body has
	 * left the pad (risen above max(0, includemargin)); >= 0, 0 if it never leaves. A
	 * later bounce may be higher (rebound then is). */
	double first_rebound;
};

/*
 * A drop's height over time, decimated to at most cap points: the start (t = 0), then
 * for each bucket of consecutive steps its lowest and highest sample in time order,
 * then the last step; every extreme is kept (the lowest z is -peak_penetration). The
 * caller owns the arrays t (s) and z (m), cap >= 4 entries each; count is set to the
 * points written.
 */
struct ctd_sim_trace {
	double *t, *z;
	size_t cap;
	size_t count;
};

/* The equilibrium and the settling of scene->body placed at scene->height, stepped
 * for scene->duration. Fills *out; never fails (no equilibrium: has_equilibrium 0).
 * Requires a scene as documented at struct ctd_scene. */
CTD_API void ctd_sim_rest_scene(const struct ctd_scene *scene, struct ctd_sim_rest *out);

/* The drop of scene's body from rest at scene->height for scene->duration, as MuJoCo's
 * mj_step steps it. Fills *out and, unless trace is NULL, *trace. Never fails.
 * Requires a scene as documented at struct ctd_scene. */
CTD_API void ctd_sim_drop_scene(
    const struct ctd_scene *scene, struct ctd_sim_drop *out, struct ctd_sim_trace *trace);

/* ---- stability of the contact spring ---- */

struct ctd_growth_report {
	double growth;          /* spectral radius of one step: > 1 grows */
	double h_omega;         /* timestep * the reference spring's natural frequency */
	int stable;             /* growth <= 1 */
	double timeconst_used;  /* s, after refsafe; 0 for a direct solref */
	int guard_gap;          /* refsafe was on and the step is still unstable */
	double error_reduction; /* the fraction of a violation one implicit step removes */
	double impedance;       /* the impedance the spring was linearised at */
	double K, B;            /* the reference spring's gains, 1/s^2 and 1/s */
	/* discrete only: refsafe replaced the row (timestep^2 K imp > 1); K, B are then the
	 * replacement's K' = 1/(h^2 imp), B' = B/sqrt(h^2 K imp) */
	int refsafe_replaced;
};

/* The stability of a contact with solref and solimp (as at struct ctd_pair_geom), its
 * spring a = -d*B*v - d*d*K*r linearised at impedance d (d <= 0: solimp's dwidth, the
 * deepest), stepped at timestep (s, > 0) with integrator. Under CTD_SCENE_DISCRETE the
 * row is the discrete integrator's (reference spring at the end of the step, MuJoCo's R
 * floor, refsafe's replacement) for one frictionless contact of unit inverse weight,
 * the scene the Euler answer's k = d*d*K, c = d*B describe. Fills *out; never fails. */
CTD_API void ctd_growth_stability(const double solref[2], const double solimp[5], double impedance,
    double timestep, int refsafe, enum ctd_scene_integrator integrator,
    struct ctd_growth_report *out);

/* ---- the pinch: an object held between two pads ---- */

/* The held object's shape: a sphere (size[0] its radius), a capsule lying along y
 * (size[0] its radius, size[1] its segment's half-length; MJCF's euler="90 0 0"), or an
 * axis-aligned box (size[0..2] its half-sizes). */
enum ctd_hold_shape { CTD_HOLD_SPHERE, CTD_HOLD_CAPSULE, CTD_HOLD_BOX };

/* What pushes each pad: a motor of force grip_force, or a position servo (force
 * kp (squeeze - q) - kv q', q the pad's joint position past the touching pose, clamped
 * to forcerange when forcelimited). */
enum ctd_hold_drive { CTD_HOLD_MOTOR, CTD_HOLD_POSITION };

/* Each pad's slide joint: MJCF's <joint> attributes, 0 when not wanted. */
struct ctd_hold_joint {
	double damping;      /* N s/m, >= 0 */
	double armature;     /* kg, >= 0 */
	double frictionloss; /* N, >= 0 */
};

/* Each pad's actuator. */
struct ctd_hold_actuator {
	enum ctd_hold_drive type;
	double kp, kv;        /* position: N/m > 0, N s/m >= 0 */
	double squeeze;       /* position: its ctrl, m past the touching pose */
	int forcelimited;     /* position: 1 when forcerange clamps the force */
	double forcerange[2]; /* lo <= hi, N */
};

/*
 * An object (a free body, its centre at the origin) between two box pads on slide joints
 * along x, just touching it at the start, each pushed toward it by its actuator; gravity
 * pulls it along -z, along the pads' faces.
 * Requires: size (as shape reads it), mass, pad_size, pad_mass > 0; grip_force >= 0;
 * joint and actuator as documented at their structs; duration >= 0; slip_limit > 0;
 * noslip_iterations >= 0; the geoms and option as documented at their structs; and
 * ctd_hold_supported(h) == NULL. The time a call takes grows with noslip_iterations and
 * with the steps stepped (at most duration / option.timestep, usually far fewer: a
 * settled run's rest is summed in closed form).
 */
struct ctd_hold {
	enum ctd_hold_shape shape;
	double size[3];                    /* the object's, m: see enum ctd_hold_shape */
	double mass;                       /* the object's mass, kg */
	struct ctd_pair_geom object;       /* the object's geom */
	double pad_size[3];                /* the pads' box half-sizes HX, HY, HZ, m */
	double pad_mass;                   /* each pad's mass, kg */
	struct ctd_pair_geom pad;          /* the pads' geom */
	struct ctd_hold_joint joint;       /* each pad's slide joint */
	struct ctd_hold_actuator actuator; /* each pad's actuator */
	double grip_force;                 /* the motor's force, N */
	struct ctd_scene_option option;    /* its integrator: ctd_hold_supported's */
	int noslip_iterations;             /* MuJoCo's option: 0, or the noslip sweeps per step */
	double duration;                   /* s simulated */
	double slip_limit;                 /* m of descent that counts as slipping */
};

/* The answers of a pinch. Speeds m/s, lengths m, forces N, times s. */
struct ctd_hold_answer {
	double creep_velocity;    /* steady downward speed (>= 0 when descending) */
	int creep_closed_form;    /* 1: from the steady-state equations; 0: from the steps */
	double slip;              /* descent after duration */
	double normal_force;      /* per pad, steady */
	double penetration;       /* steady pad penetration */
	double load;              /* mass * gravity */
	double friction_capacity; /* 2 * mu * grip_force, mu the contact's sliding friction */
	/* 1: over duration the sphere neither fell nor descended slip_limit, as MuJoCo steps
	 * it (not the Coulomb comparison load < friction_capacity, which a sphere that creeps
	 * out of the grip passes) */
	int holds;
	double time_to_slip;           /* first time the descent reached slip_limit; < 0: never */
	int time_to_slip_extrapolated; /* 1: beyond duration, from the steady creep */
	int falls;                     /* the sphere's centre left the pads' faces */
	double fall_time;              /* when it did; < 0 when it did not */
	/* 1: the pads reached the sphere's centre or each other's margin, where MuJoCo's
	 * pinch is no longer two face contacts: no other answer is meaningful */
	int crushed;
	long steps;        /* steps simulated */
	long stepped;      /* of them, steps computed one by one (the rest in closed form) */
	int creep_settled; /* 1: the steps settled to a constant speed (else creep_velocity 0) */
	/* 0: the outcome (slip, its times, falls, creep) moves by more than a relative 1e-7
	 * when the pads start 1e-16 of the radius further away; MuJoCo's own does too, and
	 * none of these answers reproduces it */
	int reproducible;
	long creep_steps;     /* steps after which creep_velocity was read */
	int refsafe_clamped;  /* solref's time constant was raised to 2 * timestep */
	int solref_fell_back; /* a mixed-sign solref was replaced by (0.02, 1) */
	int friction_clamped; /* a friction coefficient was raised to MuJoCo's 1e-5 */
	/* discrete only: 1 when refsafe replaced a pad contact's row (timestep^2 K imp > 1 at
	 * that step's impedance) on at least one step of the duration; the steps after the
	 * run settled (stepped < steps) repeat the last stepped step's rows. Always 0 under
	 * the other integrators. */
	int refsafe_replaced;
};

/* Fill h with a default pinch: a sphere of 2 cm radius, 100 g, with MuJoCo's geom defaults
 * between 5 x 20 x 200 mm (half-sizes), 50 g pads (solref (0.01, 1), condim 6, friction
 * (1, 0.005, 0.0005), priority 1) pressed at 10 N each, MuJoCo's default options,
 * noslip off, 1 s, a slip limit of 1 mm. */
CTD_API void ctd_hold_default(struct ctd_hold *h);

/* NULL when the library answers the pinch h; else a static sentence saying why not
 * (the library reproduces MuJoCo only where its reduction of the scene is exact:
 * today, every integrator but RK4, discrete only in the releases that have it, 3.13.0
 * on). */
CTD_API const char *ctd_hold_supported(const struct ctd_hold *h);

/* All answers of the pinch h, into *out. Never fails. Requires h as documented at
 * struct ctd_hold. */
CTD_API void ctd_hold_solve(const struct ctd_hold *h, struct ctd_hold_answer *out);

/* ---- every question, as JSON ----
 * The one entry point for any language that can call a C function and read a string
 * (Python's ctypes, ...): no struct to mirror. It answers every question endpoint the
 * `contact` CLI answers offline (rest, drop, stability, sweep, eval, find, hold, model,
 * grade; ctd_endpoints() lists them) with the service layer the CLI and the daemon
 * share, so the bytes are the daemon's, compared byte for byte by the test suite. */

/*
 * Answer request_json (len bytes of a JSON request body, need not be NUL-terminated)
 * as POST /v1/ENDPOINT answers it, endpoint being "drop", "eval", ... (NUL-terminated).
 *
 * Returns the HTTP status a client of the daemon would get: 200 with the answer, or
 * the error's status (400, 404 for an unknown endpoint, 413, 422, 500, 503, ...) with
 * the contract's error object {"error","message","path"} (docs/api.md: the error's
 * name, a sentence, and the JSON Pointer of the field at fault). Either way
 * *answer_json is the body's exact bytes: canonical JSON (compact, sorted keys, the
 * shortest reals that read back exactly), newline-terminated, NUL-terminated; and
 * *answer_len (unless NULL) its length without the NUL. The caller owns *answer_json
 * and frees it with ctd_answer_free(). Only when memory runs out is *answer_json NULL
 * (and the status 500). A NULL request_json is an empty body; a NULL endpoint, a 404.
 *
 * The daemon's default limits apply (body bytes, sweep points, eval calls),
 * but no CPU-time budget, as `contact` answers; a sweep uses one thread per online core.
 * Thread-safe: calls may run in several threads at once. The first call turns GSL's
 * process-wide error handler off (as the daemon and the CLI do), so that a numerical
 * failure is an error answer, never an abort.
 */
CTD_API int ctd_answer(const char *endpoint, const char *request_json, size_t len,
    char **answer_json, size_t *answer_len);

/* Free a string of ctd_answer(); NULL is a no-op. */
CTD_API void ctd_answer_free(char *answer_json);

/*
 * What ctd_answer() answers: the question endpoints, in the order `contact --help` lists
 * them, as one canonical JSON text (newline-terminated), read from the same table the
 * daemon routes by:
 *
 *   {"endpoints": [{"name": "drop", "summary": "...", "units": "...", "sweepable": true,
 *     "csv": false, "headline": "rebound",
 *     "fields": [{"name": "peak_penetration", "unit": "m"}, ..., {"name": "energy_gain"}]},
 *    ...]}
 *
 * name: the endpoint (POST /v1/NAME, ctd_answer's endpoint); summary: one line saying
 * what it answers; units: one line of its answer's units, when it has one; sweepable:
 * POST /v1/sweep and /v1/find accept it as their "query"; csv: its answer also prints as
 * CSV; fields: present when the answer is one flat object, its members in their order,
 * each number with its unit (SI, "1/s^2" for 1/s squared; "" for a pure number) and no
 * unit for the others (booleans, counts, texts); headline: a sweepable endpoint's field
 * a plot draws first. Members may be added; none will be removed or change meaning
 * within a soname.
 *
 * The text is static: made once by the first call, never freed (do not free it), the
 * same pointer for every later call. Thread-safe. NULL only when memory ran out making
 * it (a later call tries again).
 */
CTD_API const char *ctd_endpoints(void);

#ifdef __cplusplus
}
#endif
#endif
