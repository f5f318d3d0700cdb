/*
 * status.h: a pad fit's status and notes (stage 5 of fit/fit.c), by today's rules (fit.h's
 * enum fit_status): a parameter is identified only when its 2-sigma interval is bounded on
 * both sides; one at an edge of the searched box is pinned there; a misfit is a chi^2 beyond
 * what the stated sigmas allow; and the notes say why, and which measurements would help.
 * Internal to the fit layer.
 */
#ifndef CONTACTD_FIT_STATUS_H
#define CONTACTD_FIT_STATUS_H

#include "fit/fit.h"
#include "fit/problem.h"

/* Add a note (printf's format); beyond FIT_MAX_NOTES it is dropped. */
void status_note(struct fit_result *fit, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The fit determines nothing: status insufficient_data, and the note why (always kept). */
void status_insufficient(struct fit_result *fit, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Why log `held` is held at value, for the flat direction dir the data leave. */
void status_explain_hold(struct fit_result *fit, const struct problem *P, int held,
    const double dir[NPHYS], double value);

/* Which log to hold for a flat direction: the one it moves most, dampratio on a tie. */
int status_choose_hold(const double dir[NPHYS]);

/* Whether the flat direction dir at logp is one free log's at an edge of the box: if so it
 * is pinned there (fit->pinned) and 1. */
int status_pin_at_edge(struct fit_result *fit, const struct problem *P, const int moving[NPHYS],
    const double logp[NPHYS], const double dir[NPHYS]);

/* A free log at an edge of the box is pinned there (chi^2 is lowest at the edge). */
void status_pin_edges(struct fit_result *fit, const struct problem *P, const int moving[NPHYS],
    const double logp[NPHYS]);

/* The status from the intervals and chi^2 (nfree logs fitted; product_open: the product's
 * 2-sigma interval is open), and the notes that explain it. */
void status_settle(struct fit_result *fit, const struct problem *P, int nfree, int product_open);

/* Notes on the fitted contact in MuJoCo at the setup's timestep: refsafe, growth, chatter,
 * priority; sets fit->refsafe_min, below_refsafe, growth and chatter. */
void status_check_contact(struct fit_result *fit);

#endif
