/*
 * types.h: a compiled model's data (model.h compiles it): the option, bodies, geoms,
 * joints, actuators, explicit pairs, excludes, the first <key> giving ctrl, and the notes,
 * shared by the model layer's modules.
 */
#ifndef CONTACTD_MODEL_TYPES_H
#define CONTACTD_MODEL_TYPES_H

#include <libxml/tree.h>

#include "core/pair.h"
#include "core/scene.h"

/* MuJoCo's geom types, in mjtGeom's order (the order the collision table sorts by);
 * sdf is 3.x's and never collides here. */
enum mdl_geom_type {
	MDL_PLANE,
	MDL_HFIELD,
	MDL_SPHERE,
	MDL_CAPSULE,
	MDL_ELLIPSOID,
	MDL_CYLINDER,
	MDL_BOX,
	MDL_MESH,
	MDL_SDF,
	MDL_GEOM_TYPES
};

/* MuJoCo's <option> and <option><flag> as far as contacts depend on them. */
struct mdl_option {
	double timestep; /* s */
	enum core_scene_integrator integrator;
	enum core_cone cone;
	double impratio;
	int noslip_iterations;
	double gravity[3]; /* m/s^2 */
	int refsafe;       /* flags: 1 enabled (refsafe, filterparent, contact, constraint, */
	int filterparent;  /* gravity are on by default; override off) */
	int contact;
	int constraint;
	int gravity_on;
	int override;
	double o_margin, o_solref[2], o_solimp[5];
	int collision; /* 0 all, 1 predefined, 2 dynamic (MuJoCo's mjtCollision) */
};

struct mdl_body {
	char *name;   /* NULL when unnamed; "world" for body 0 */
	int parent;   /* -1 for the world */
	int weld;     /* MuJoCo's body_weldid: itself when it has a joint, else its parent's */
	int joints;   /* joints (a freejoint counts one) */
	int free;     /* its only joint is a free joint */
	int children; /* child bodies */
	int geomadr, geomnum;
	double pos[3];  /* m, in the parent's frame */
	int rotated;    /* its frame is not the parent's orientation */
	double quat[4]; /* its orientation in the parent's frame (w, x, y, z), unit */
	double xpos[3]; /* m: its frame in the world at qpos0 */
	double xquat[4];
	int jntadr, jntnum;  /* its joints: ids jntadr .. jntadr + jntnum - 1 */
	int has_inertial;    /* an <inertial> element gives its mass */
	int inertial_offset; /* the <inertial> has a pos or orientation off the body frame */
	double mass;         /* kg, as MuJoCo compiles it; NaN when a mesh geom's volume counts */
	xmlNodePtr el;
};

struct mdl_geom {
	char *name; /* NULL when unnamed */
	int body;
	enum mdl_geom_type type;
	double size[3]; /* m, after fromto and defaults */
	int condim, contype, conaffinity, priority, group;
	double solmix, solref[2], solimp[5], friction[3], margin, gap;
	double mass;    /* kg: mass, or density x volume; NaN for mesh, hfield and sdf */
	double pos[3];  /* m, in the body frame */
	int rotated;    /* its frame is not the body's orientation */
	double quat[4]; /* its orientation in the body frame (w, x, y, z), unit */
	int answerable; /* 0: a mesh, heightfield or SDF (its shape is not read) */
	xmlNodePtr el;
};

/* An explicit <pair>: the geoms ordered as MuJoCo's compiler orders them (geom1's body
 * id <= geom2's), the values given or its class's or the element's defaults. */
struct mdl_pair_spec {
	int geom1, geom2;
	int condim;
	double friction[5], solref[2], solimp[5], margin, gap;
	double solreffriction[2]; /* (0, 0) unless set: the friction rows use solref (2.3.6+) */
	xmlNodePtr el;
};

/* MuJoCo's joint types (mjtJoint's order). */
enum mdl_joint_type { MDL_FREE, MDL_BALL, MDL_SLIDE, MDL_HINGE };

/* A joint, its attributes resolved through its classes (0 where MuJoCo's default is). */
struct mdl_joint {
	char *name; /* NULL when unnamed */
	int body;
	enum mdl_joint_type type;
	int qposadr;
	double axis[3]; /* unit, in the body frame */
	double ref, stiffness, damping, armature, frictionloss, margin;
	int limited; /* 1 when its range binds (limited, or auto with autolimits and a range) */
	double range[2];
	int friction_params; /* solreffriction or solimpfriction set: not MuJoCo's defaults */
	xmlNodePtr el;
};

/* MuJoCo's actuator gain, bias and dynamics types as far as they are told apart here. */
enum mdl_act_gain { MDL_GAIN_FIXED, MDL_GAIN_OTHER };
enum mdl_act_bias { MDL_BIAS_NONE, MDL_BIAS_AFFINE, MDL_BIAS_OTHER };

/*
 * An <actuator> child as MuJoCo's compiler makes it: the element's kind ("motor"), its
 * class defaults applied in MuJoCo's order, then its own attributes. read: 0 when the
 * kind (or a kind among its class's defaults) is not one this layer reads (general,
 * motor, position), or its transmission is not a joint; unread then says what (a note).
 */
struct mdl_actuator {
	char *name; /* NULL when unnamed */
	const char *kind;
	int read;
	char unread[160];
	int joint; /* the joint it drives, -1 when another transmission */
	double gear;
	int gear_other; /* gear[1..5] nonzero (a joint's gear reads gear[0] only) */
	enum mdl_act_gain gaintype;
	enum mdl_act_bias biastype;
	int dynamic;   /* dyntype other than none: the force lags the ctrl */
	int dampratio; /* a position's kv given as dampratio (3.x): the compiler's kv */
	double gainprm[3], biasprm[3];
	int ctrllimited, forcelimited;
	double ctrlrange[2], forcerange[2];
	xmlNodePtr el;
};

struct mdl_exclude {
	int body1, body2; /* body1 <= body2 */
};

struct mdl_model {
	int mujoco; /* the release (a core_mjver index) whose compiler and collision rules apply */
	struct mdl_option option;
	int angle_degree; /* compiler angle: 1 degree (MuJoCo's default), 0 radian */
	int autolimits;   /* compiler autolimits */
	struct mdl_body *bodies;
	int nbody;
	struct mdl_geom *geoms;
	int ngeom;
	struct mdl_pair_spec *pairs;
	int npair;
	struct mdl_exclude *excludes;
	int nexclude;
	struct mdl_joint *joints;
	int njoint, nq;
	struct mdl_actuator *actuators;
	int nu;
	/* the first <key> that gives ctrl (MuJoCo's mj_resetData leaves every ctrl 0): its
	 * ctrl (nkey_ctrl values), whether it gives qpos equal to qpos0 at every joint */
	xmlNodePtr key;
	double *key_ctrl;
	int nkey_ctrl;
	int key_qpos, key_qpos_differs;
	/* <option><flag>s a grasp depends on (1: enabled, MuJoCo's default) */
	int flag_actuation, flag_clampctrl, flag_frictionloss, flag_damper, flag_eulerdamp;
	int solver_newton; /* option solver is Newton (MuJoCo's default) */
	/* what the document asks that the release does not have (a later attribute value),
	 * and what this layer does not read (actuators), one line each, for the answer's
	 * notes */
	char notes[24][240];
	int nnotes, notes_dropped; /* notes past the 24 kept: counted */
};

#endif
