/*
 * request.h: the scene and stability requests, validated into core structs,
 * and their canonical JSON (every default filled, every number a real).
 *
 * The canonical JSON is built from the struct, so two bodies that mean the
 * same scene have the same canonical text, and parsing a canonical request
 * gives back the same struct.
 */
#ifndef CONTACTD_SERVICE_REQUEST_H
#define CONTACTD_SERVICE_REQUEST_H

#include <jansson.h>

#include "core/scene.h"
#include "base/error.h"
#include "service/answer.h"
#include "base/field.h"

/*
 * A validated rest or drop request: the core's scene (the floor fully
 * resolved) and which floor fields the request set. The others follow the
 * body's geom, in the canonical JSON too, so a sweep that varies a /geom/
 * field varies the floor's with it, as in the lesson's experiment.
 */
struct req_scene {
	struct core_scene scene;
	unsigned floor_given; /* bit i: the request set the floor's i-th field (solref, solimp,
	                         condim, friction, margin, gap, solmix, priority) */
};

/* POST /v1/stability: the linearized contact spring of one solref/solimp. */
struct req_stability {
	double solref[2];
	double solimp[5];
	double impedance; /* d of a = -d*B*v - d^2*K*r; default: the clamped solimp dwidth */
	double timestep;
	int refsafe;
	enum core_scene_integrator integrator;
	int mujoco; /* option.mujoco as an mjver index; no release changes these numbers */
};

/*
 * Validate the scene request v found at JSON Pointer path and fill *out. Every
 * omitted field takes its default; an omitted height is default_height (the
 * drop and rest experiments differ). Errors carry the offending field's path.
 */
int req_scene_parse(
    json_t *v, const char *path, double default_height, struct req_scene *out, struct err *err);

/* The canonical JSON of a validated scene; NULL if out of memory. Caller owns it. */
json_t *req_scene_json(const struct req_scene *r);

/* Simulated steps of a validated scene: round(duration / timestep). */
long req_scene_steps(const struct req_scene *r);

/*
 * Make the field ptr names exist in the canonical scene request v, so a JSON
 * Pointer into it resolves: a floor field the request left to the body's geom
 * is copied from the geom and so becomes the floor's own. Anything else is left
 * as it is. Returns 0, or -1 (err: internal) when out of memory.
 */
int req_scene_expose(json_t *v, const char *ptr, struct err *err);

/* The aliases of a scene request's fields (rest, drop), {NULL, NULL}-terminated (vary.h). */
extern const struct ans_alias req_scene_aliases[];

/* Validate the stability request v at path and fill *out. */
int req_stability_parse(json_t *v, const char *path, struct req_stability *out, struct err *err);

/* The canonical JSON of a validated stability request; NULL if out of memory. Caller owns it. */
json_t *req_stability_json(const struct req_stability *r);

/*
 * A geom's contact fields in c (solref, solimp, condim, friction, margin, gap, solmix,
 * priority), each kept as g has it when absent, validated by MuJoCo's rules in that order;
 * members c may hold besides are the caller's to check. 0, or -1 with c's error set.
 */
int req_geom_fields(const struct field_ctx *c, struct core_pair_geom *g);

/* Read c[key] as one of MuJoCo's MJCF integrator names ("Euler", "implicit",
 * "implicitfast", "RK4"); "discrete" is a 422 saying which questions take it (those
 * that read it with req_integrator_release). */
int req_integrator(const struct field_ctx *c, const char *key, enum core_scene_integrator *out);

/* req_integrator, also taking "discrete" when release (an mjver index) has it (MuJoCo
 * 3.13.0+); under an earlier release "discrete" is a 422 at c[key] naming the release. */
int req_integrator_release(
    const struct field_ctx *c, const char *key, int release, enum core_scene_integrator *out);

/* Read c[key] as a supported MuJoCo release ("3.12.0") into an mjver index; 422
 * naming the supported releases otherwise. *out is left alone when key is absent. */
int req_mujoco(const struct field_ctx *c, const char *key, int *out);

/* The members an <option> object of a scene may have (req_option()), NULL-terminated. */
extern const char *const req_option_keys[];

/*
 * The <option> fields of c (timestep, refsafe, gravity, impratio, mujoco and the release's
 * integrator, cone), each kept as *o has it when absent. known: the members c may have,
 * req_option_keys or a row's own list that adds members it then reads itself (the hold's
 * noslip_iterations). gravity_down: a negative gravity is refused (a scene held up by its
 * contacts, as the hold's; a body on the plane may fall upwards, away from it). 0, or -1
 * with c's error set.
 */
int req_option(const struct field_ctx *c, const char *const known[], int gravity_down,
    struct core_scene_option *o);

/* The MJCF name of a friction cone ("pyramidal", "elliptic"). */
const char *req_cone_name(enum core_cone cone);

/* The MJCF name of an integrator. */
const char *req_integrator_name(enum core_scene_integrator integrator);

#endif
