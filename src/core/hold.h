/*
 * hold.h: a sphere pinched between two box pads, as MuJoCo computes it: its creep
 * and slip under gravity while the pads' motors press it (the `hold` question).
 *
 * The question (struct core_hold) is the pinch model's input (pinch.h); its answers and
 * the run are here.
 * hold.c runs the scene: the mirror-symmetric step (pinch.h) or, with noslip, the
 * asymmetric one (noslip.h), until the rest of the run is known; docs/hold.md derives
 * both. No allocation.
 */
#ifndef CONTACTD_CORE_HOLD_H
#define CONTACTD_CORE_HOLD_H

#include "core/pinch.h"

/* The answers of a pinch. Speeds m/s, lengths m, forces N, times s. */
struct core_hold_answer {
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
void core_hold_default(struct core_hold *h);

/* NULL when the library answers the pinch h; else a static sentence saying why not
 * (the library reproduces MuJoCo only where its reduction of the scene is exact:
 * today, every integrator but RK4, discrete only in the releases that have it, 3.13.0
 * on). */
const char *core_hold_supported(const struct core_hold *h);

/* All answers of the pinch h, into *out. Never fails. Requires h as documented at
 * struct core_hold. */
void core_hold_solve(const struct core_hold *h, struct core_hold_answer *out);

#endif
