/*
 * hold.h: a sphere pinched between two box pads, as MuJoCo computes it: its creep
 * and slip under gravity while the pads' motors press it (the `hold` question).
 *
 * The scene is MuJoCo's: no floor, the object a free body at the origin, two box
 * pads on slide joints along x at -(R+HX) and +(R+HX), just touching, each pushed
 * toward the object by a motor with ctrl = F; gravity along -z, along the pads.
 * By the scene's mirror symmetry the constraint problem of one step reduces to two
 * unknowns (the object's vertical and the pads' joint acceleration); its exact
 * minimiser is found by enumerating the active sets (pyramidal cone) or the cone
 * zones (elliptic cone), which is what MuJoCo's Newton solver converges to. With
 * noslip_iterations > 0 MuJoCo's noslip sweeps break the mirror x -> -x, and the scene
 * is stepped in five coordinates instead (ctd_hold_noslip_step).
 * docs/hold.md derives it. No allocation; ctd_hold_prepare does the per-scene work.
 */
#ifndef CONTACTD_CORE_HOLD_H
#define CONTACTD_CORE_HOLD_H

#include "core/law.h"
#include "core/pair.h"
#include "core/scene.h"

/* A validated hold request. */
struct ctd_hold {
	double radius;                  /* the sphere's radius, m */
	double mass;                    /* the object's mass, kg */
	struct ctd_pair_geom object;    /* the object's geom */
	double pad_size[3];             /* the pads' box half-sizes HX, HY, HZ, m */
	double pad_mass;                /* each pad's mass, kg */
	struct ctd_pair_geom pad;       /* the pads' geom */
	double grip_force;              /* each motor's force F, N */
	struct ctd_scene_option option; /* timestep, refsafe, gravity, impratio, cone, mujoco */
	int noslip_iterations; /* MuJoCo's option: 0, or the noslip sweeps after each solve */
	double duration;       /* simulated seconds */
	double slip_limit;     /* descent that counts as slipping, m */
};

/* The answers. */
struct ctd_hold_answer {
	double creep_velocity;    /* steady downward speed, m/s (>= 0 when descending) */
	int creep_closed_form;    /* 1: from the steady-state equations; 0: end of the step loop */
	double slip;              /* descent after duration, m (step for step) */
	double normal_force;      /* per pad, steady (the pad's force balance), N */
	double penetration;       /* steady pad penetration, m */
	double load;              /* m*g, N */
	double friction_capacity; /* 2*mu*N with mu the contact's sliding friction, N */
	int holds;                /* Coulomb: load < friction_capacity */
	double time_to_slip;      /* s, first step whose descent >= slip_limit; <0: never */
	int time_to_slip_extrapolated; /* 1: beyond duration, from the steady creep */
	int falls;                     /* the object's centre left the pads' faces (|z| > HZ) */
	double fall_time;              /* s, when it did; < 0 when it did not */
	/* the pads' faces reached the object's centre, or each other's margin
	 * (ctd_hold_crushed): past there MuJoCo's pinch is no longer two face contacts,
	 * and no other answer is meaningful */
	int crushed;
	long steps;        /* steps simulated */
	long stepped;      /* of them, steps computed one by one (the rest summed in closed form) */
	int creep_settled; /* the step loop settled to a constant speed (else: its mean speed) */
	/* 0: the run's outcome (slip, its times, falls, creep) moves by more than
	 * CTD_HOLD_REPRODUCE_REL when the pads start CTD_HOLD_SHADOW_NUDGE of the radius
	 * away: MuJoCo's own does too, and none of them is an answer */
	int reproducible;
	long creep_steps;     /* steps from the start after which creep_velocity was read */
	int refsafe_clamped;  /* solref's time constant was raised to 2*timestep */
	int solref_fell_back; /* a mixed-sign solref was replaced by (0.02, 1) */
	int friction_clamped; /* a friction coefficient was raised to mjMINMU */
};

/* Fill h with the hold request's defaults (src/tunables.h): issue 21's measured scene, a
 * 2 cm, 100 g sphere (MuJoCo's geom defaults) between 5 x 20 x 200 mm, 50 g pads of
 * Menagerie's SO-101 gripper class at 10 N, pyramidal, the default release. */
void ctd_hold_default(struct ctd_hold *h);

/* Why a scene is not answered: NULL when it is, else a static sentence. The core
 * reproduces MuJoCo only where its reduction is exact (docs/hold.md). */
const char *ctd_hold_supported(const struct ctd_hold *h);

/* All answers of a validated, supported scene. Never fails. */
void ctd_hold_solve(const struct ctd_hold *h, struct ctd_hold_answer *out);

#endif
