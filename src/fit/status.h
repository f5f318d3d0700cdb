/* status.h: a pad fit's status by fit.h's rules, and notes why and what would help (stage 5). */
#ifndef CONTACTD_FIT_STATUS_H
#define CONTACTD_FIT_STATUS_H

#include "fit/problem.h"

/* Add a note (printf's format), dropped beyond FIT_MAX_NOTES. status_insufficient(): the fit
 * determines nothing, status insufficient_data, and the note why (always kept). */
void status_note(struct fit_result *fit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void status_insufficient(struct fit_result *fit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The note why log `held` is held at value, dir the flat direction. */
void status_explain_hold(struct fit_result *fit, const struct problem *P, int held,
    const double dir[NPHYS], double value);

/* Pin each free log at an edge of the box (fit->pinned); with a flat direction dir (NULL: none),
 * only a log dir moves alone, returning whether one was. */
int status_pin(struct fit_result *fit, const struct problem *P, const int moving[NPHYS],
    const double logp[NPHYS], const double *dir);

/* The status, and the notes why, from the intervals and chi^2 (nfree logs fitted; product_open:
 * the product's 2-sigma interval is open). */
void status_settle(struct fit_result *fit, const struct problem *P, int nfree, int product_open);

/* Notes on the fit in MuJoCo at the setup's timestep (refsafe, growth, chatter, priority); sets
 * fit->refsafe_min, below_refsafe, growth and chatter. */
void status_check_contact(struct fit_result *fit);

#endif
