/*
 * newton.h: MuJoCo's Newton constraint solver (mj_solNewton), iteration for iteration,
 * on the hold scene's two unknowns (newton.c). Internal to the library.
 *
 * The pinch's exact minimiser (pinch.c) is where Newton converges. MuJoCo stops short
 * of it by its tolerance, and where a step's velocity comes from the constraint forces
 * rather than from qacc (joint damping under Euler, implicit, implicitfast) the forces
 * at the point where it stopped move the object by far more than the gap in qacc: a
 * gap of 4e-6 m/s^2 in qacc was 6e-4 m/s^2 in the object's speed change. This replays
 * the solver's steps (warmstart choice, Newton direction, line search, termination) in
 * the mirror-symmetric subspace, where MuJoCo's direction stays; docs/hold.md.
 */
#ifndef CONTACTD_CORE_NEWTON_H
#define CONTACTD_CORE_NEWTON_H

/* The solver's rules in a release (core_newton_era). */
enum core_newton_era {
	CORE_NEWTON_2_2,  /* 2.2.0-3.4.x: the line search keeps p0 when p1 costs more */
	CORE_NEWTON_3_5,  /* 3.5.0-3.9.x */
	CORE_NEWTON_3_10, /* 3.10.0: shifted costs, termination on improvement > 0 */
	CORE_NEWTON_3_11  /* 3.11.0 on: the convergence certificate and the Newton decrement */
};

enum core_newton_kind { CORE_NEWTON_INEQ, CORE_NEWTON_FRICTION, CORE_NEWTON_CONE };

/* One kind of row, standing for w identical rows of MuJoCo's problem, on the unknowns
 * (az, ap): az the object's vertical acceleration, ap every pad's joint acceleration. */
struct core_newton_row {
	enum core_newton_kind kind;
	double w;
	double jz, jp, aref, D; /* the row; a cone's normal row */
	double R, floss;        /* friction (frictionloss): efc_R and the bound */
	double aref_t, Dt;      /* cone: the z tangent row, J = (-1, 0) */
	double mu, fr;          /* cone: its mu and the z tangent's friction */
};

#define CORE_NEWTON_ROWS 8

/* One step's constraint problem (an island of it). */
struct core_newton_problem {
	enum core_newton_era era;
	double Mz, Mp;   /* qM of the object's z and of one pad's joint */
	double a0z, a0p; /* qacc_smooth */
	double pads;     /* the pads in the problem: 2, or 1 (a pad alone in its island) */
	int with_z;      /* the object's z is in the problem */
	double scale;    /* 1 / the island's inertia (meaninertia * nv without islands) */
	int nrows;
	struct core_newton_row row[CORE_NEWTON_ROWS];
};

/* The solver's rules of release index mujoco (core_mjver). */
enum core_newton_era core_newton_era(int mujoco);

/*
 * core_newton_solve: MuJoCo's qacc for the problem p from the warmstart (*az, *ap)
 * (the previous step's qacc), as mj_fwdConstraint and mj_solNewton compute it with
 * MuJoCo's default tolerance, iterations and line search. On return (*az, *ap) is that
 * qacc and (*qfrc_z, *qfrc_p) MuJoCo's qfrc_constraint there (the object's z, one pad's
 * joint). Never fails; no allocation.
 */
void core_newton_solve(
    const struct core_newton_problem *p, double *az, double *ap, double *qfrc_z, double *qfrc_p);

#endif
