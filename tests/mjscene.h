/*
 * mjscene.h: the core's scene built in real MuJoCo (test and bench helper only).
 *
 * A `struct core_scene` becomes MJCF text (a plane and one free body), which is loaded
 * from memory with mj_loadXML; the trajectory of mj_step gives the reference
 * heights, and mj_forward at a chosen state gives the reference constraint rows.
 * Nothing in src/ may include this file: libmujoco is linked into tests and bench only.
 */
#ifndef CONTACTD_TESTS_MJSCENE_H
#define CONTACTD_TESTS_MJSCENE_H

#include <stddef.h>

#include <mujoco/mujoco.h>

#include "core/scene.h"
#include "core/sim.h"

/* Rows of one scene at most: 4 box corners x 2*(6-1) pyramid rows. */
#define MJSCENE_MAX_ROWS 40

/* A loaded scene. model and data are owned by the struct (freed by mjscene_close). */
struct mjscene {
	mjModel *model;
	mjData *data;
	double half_height; /* centre to lowest point: radius or half-size z */
	double height;      /* initial height of the lowest point */
	double z0;          /* initial centre height, qpos0[2] */
	double size[3];     /* half-sizes (a sphere's radius in all three) */
	int sphere;
};

/* The constraint rows of one state, as MuJoCo stores them after mj_forward. */
struct mjscene_efc {
	int ncon, nefc;
	double K[MJSCENE_MAX_ROWS], B[MJSCENE_MAX_ROWS];   /* efc_KBIP[4i], [4i+1] */
	double imp[MJSCENE_MAX_ROWS], R[MJSCENE_MAX_ROWS]; /* efc_KBIP[4i+2], efc_R */
	double impP[MJSCENE_MAX_ROWS];                     /* efc_KBIP[4i+3]: imp's slope */
	double aref[MJSCENE_MAX_ROWS];                     /* efc_aref */
	double qacc[6];                                    /* qacc of the free joint */
};

/* Append printf output to buf (len bytes) at *used, advancing it; -1 once the buffer is
 * full (its text is then cut). For the MJCF writers of tests/mjscene.c and mjhold.c. */
int mjscene_append(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Append one geom's contact attributes, every one explicit (%.17g: read back exactly). */
int mjscene_geom_params(char *buf, size_t len, size_t *used, const struct core_pair_geom *g);

/*
 * mjscene_xml: write the MJCF of scene s into buf (len bytes, NUL-terminated).
 * Every number is printed with %.17g, so MuJoCo parses exactly the doubles of s.
 * Returns 0, or -1 when buf is too small.
 */
int mjscene_xml(const struct core_scene *s, char *buf, size_t len);

/*
 * mjscene_open: compile scene s in MuJoCo and make its data, reset to the start
 * (lowest point at s->height, at rest). Installs a process-wide MuJoCo warning
 * handler that counts warnings (see mjscene_warnings). Returns 0, or -1 with a
 * NUL-terminated message in errbuf (errlen bytes) and *ms untouched on failure.
 */
int mjscene_open(struct mjscene *ms, const struct core_scene *s, char *errbuf, size_t errlen);

/* Free the model and data of an opened scene; ms may then be reopened. */
void mjscene_close(struct mjscene *ms);

/* mj_resetData: back to the start of the drop. */
void mjscene_reset(struct mjscene *ms);

/* MuJoCo's state after one step, reduced to what the 1-D core can be compared with. */
struct mjscene_sample {
	double z, vel; /* centre height qpos[2] and vertical speed qvel[2] */
	/* How far the body is off the core's axis. tilt: the largest height change of a
	 * bottom corner caused by the rotation (0 for a sphere, which rotation does not
	 * move). slip: horizontal speed of the centre plus |angular velocity| times the
	 * farthest point's distance. Both are exactly 0 while the body falls flat. */
	double tilt, slip;
};

/*
 * mjscene_run: reset, then call mj_step n times, recording the state after each
 * step into samples[i] (a caller-owned array of n). Returns the first step after
 * which MuJoCo had reset the state itself because qpos, qvel or qacc was NaN or
 * beyond mjMAXVAL (its bad-number guard), or -1 when it never did.
 */
long mjscene_run(struct mjscene *ms, long n, struct mjscene_sample *samples);

/*
 * mjscene_metrics: the drop metrics of shared/api-contract.md from n recorded
 * samples (one per step): bottom = z - half_height. jitter is the
 * population standard deviation of the last round(JITTER_WINDOW / timestep)
 * bottoms, computed in two passes (an implementation independent of core_sim_drop's).
 */
void mjscene_metrics(const struct mjscene_sample *samples, long n, double half_height,
    double height, double timestep, struct core_sim_drop *out);

/*
 * mjscene_efc: put the body flat at centre height z with vertical speed vel,
 * run mj_forward and copy the contact count, the constraint rows and qacc into
 * out. The data's state is left at (z, vel); call mjscene_reset before stepping.
 * Returns 0, or -1 when MuJoCo made more than MJSCENE_MAX_ROWS rows.
 */
int mjscene_efc(struct mjscene *ms, double z, double vel, struct mjscene_efc *out);

/* Number of MuJoCo warnings since the process started (all scenes). */
long mjscene_warnings(void);

/* The calibration tests' scene: a 2 cm, 100 g sphere (box: a 10 cm, 1 kg cube) on the
 * SO-101 gripper pad with solref (timeconst, dampratio), at the calibration's default
 * timestep with refsafe on, under MuJoCo 2.2.2's rules (libmujoco's), for duration s. */
struct core_scene mjscene_pad(int box, double timeconst, double dampratio, double duration);

#endif
