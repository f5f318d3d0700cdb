/*
 * knobs.h: the calibration use cases' knobs: the MJCF class prefix, upload limits,
 * audits' bounds, the fit workers, Idempotency-Keys, watch URLs and the setups kept parsed.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_CALIB_KNOBS_H
#define CONTACTD_CALIB_KNOBS_H

/* The rest of the Menagerie SO-101's gripper pad class "collision_gripper" (its solref:
 * fit/knobs.h) and its timestep: a calibration's starting geom unless its request names one. */
#define CALIB_DEFAULT_TIMESTEP 0.005
#define CALIB_PAD_CONDIM 6
#define CALIB_PAD_FRICTION_SLIDE 1.0
#define CALIB_PAD_FRICTION_SPIN 0.005
#define CALIB_PAD_FRICTION_ROLL 5e-4
#define CALIB_PAD_PRIORITY 1

/* The <default class> of the MJCF to paste unless the setup names one: this prefix and the
 * calibration's id, which no Menagerie model uses. */
#define CALIB_DEFAULT_CLASS_PREFIX "contactd_pad_"

#define CALIB_MAX_TRAJECTORIES 16  /* per calibration */
#define CALIB_MAX_SAMPLES 4096     /* per trajectory */
#define CALIB_MAX_DROP_HEIGHT 10.0 /* m */
/* m: a press's deflection at most, as large as a request's body may be (service/knobs.h
 * LIMIT_MAX_SIZE), far beyond any pad */
#define CALIB_MAX_DEFLECTION 100.0

/* The pads an audit (POST /v1/calibrations/{id}/evaluate) evaluates: timeconst (s) and
 * dampratio each positive and at most these; the fit searches well within them. */
#define CALIB_AUDIT_TIMECONST_MAX 10.0
#define CALIB_AUDIT_DAMPRATIO_MAX 100.0
#define CALIB_MAX_PRESS_FORCE 1e6 /* N */
#define CALIB_MAX_CALIBRATION_SAMPLES                                                              \
	16384 /* trajectory samples of one calibration, all uploads                                \
	       */

/* Fits run on their own threads (src/calib/work.h), never inside a request or a
 * transaction: this many by default, under SCHED_BATCH at this many nice levels above the HTTP
 * threads' (at most 19), so questions keep their latency while a fit runs. A fit running longer
 * than CALIB_FIT_SECONDS is stopped and recorded as failed. */
#define CALIB_FIT_WORKERS 2      /* the default of contactd's --fit-workers */
#define CALIB_FIT_WORKERS_MAX 64 /* --fit-workers' bound */
#define CALIB_FIT_NICE 10        /* nice levels below the HTTP threads: questions come first */
#define CALIB_FIT_SECONDS 120.0

/* Idempotency-Key: at most this many characters; a key is remembered this long. */
#define CALIB_IDEMPOTENCY_KEY_MAX 255
#define CALIB_IDEMPOTENCY_TTL_S (7 * 24 * 3600L)

/* A watch URL (POST /v1/calibrations/{id}/watch) can be opened for this long, unless the
 * request asks for another lifetime (?expires_in=SECONDS), which is clamped to
 * CALIB_WATCH_MAX_S; the server refuses a URL signed to live longer than that. */
#define CALIB_WATCH_TTL_S 300
#define CALIB_WATCH_MAX_S 3600

/* GET /v1/robots/{robot}/calibrations answers a page of a robot's calibrations: ?limit=
 * of them, this many unless asked, at most CALIB_LIST_MAX (a page of the largest is a few
 * MB: each entry holds its latest fit); ?after=ID and the answer's next_after walk on. */
#define CALIB_LIST_DEFAULT 100
#define CALIB_LIST_MAX 1000

/* Calibrations one robot may hold: a create beyond is 413 (a runaway client had made 20,000
 * in 7.5 s). A calibration a day for 27 years; there is no deletion of one to make room. */
#define CALIB_MAX_CALIBRATIONS 10000

/* Parsed setups kept in memory (src/calib/setup.h), most recently used. */
#define CALIB_SETUP_CACHE 256
#endif
