/*
 * quiet.h: GSL's process-wide error handler turned off, once, for the layers above the
 * core that compute with GSL (law.h: the core's callers own GSL's handler).
 */
#ifndef CONTACTD_BASE_QUIET_H
#define CONTACTD_BASE_QUIET_H

/*
 * Turn GSL's process-wide error handler (abort by default) off, once, so that the
 * core's and the calibration's GSL failures come back as return codes. Thread-safe
 * and idempotent; every entry point of the service and of the fit calls it before
 * computing.
 */
void quiet_gsl(void);

#endif
