/*
 * knobs.h: the MJCF layer's limits: how large a user's model and its includes may be,
 * so that reading and pairing one stays within a question's budget.
 * Change a value here, nowhere else.
 */
#ifndef CONTACTD_MODEL_KNOBS_H
#define CONTACTD_MODEL_KNOBS_H

/* ---- the model endpoint (issue 30): a user's MJCF ---- */
#define MJCF_MAX_BYTES (4L << 20) /* all files of one model together */
#define MJCF_MAX_FILES 64         /* the main file and the files it includes */
#define MJCF_MAX_INCLUDE_DEPTH 8  /* includes within includes */
#define MJCF_MAX_DEPTH 64         /* nested elements in one file */
#define MJCF_MAX_NAME 256         /* bytes of a file name */
#define MODEL_MAX_BODIES 1000     /* bodies of one model */
#define MODEL_MAX_GEOMS 2000      /* geoms of one model */
#define MODEL_MAX_CLASSES 1000    /* default classes */
#define MODEL_MAX_PAIRS 20000     /* geom pairs listed in one answer */
/* Attributes of one element, counted before libxml2 reads the file: libxml2 (2.9) checks an
 * element's attributes for duplicates pairwise, in time that grows as their count squared
 * (one element of 90,000 took 16 s); MuJoCo's elements have a few dozen at most (a 3.x
 * <geom>, the largest, 33), and this bounds the check's work to 128 per attribute. */
#define MJCF_MAX_ATTRIBUTES 128
/* A grasp (grasp.h) is the hold scene where its frames and placements agree to this
 * relative tolerance (a rotation matrix's entries, positions relative to their size, at
 * least a millimetre): far below anything a contact resolves, and above the rounding of
 * the decimals an MJCF writes (0.004 + 0.008 is not 0.012 in binary) and of MuJoCo's
 * own quaternions (euler="90 0 0" leaves 6e-17 off the axis). */
#define MODEL_GRASP_TOL 1e-9
#endif
