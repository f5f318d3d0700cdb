/*
 * quiet.c: GSL's error handler turned off once (see quiet.h).
 */
#include "base/quiet.h"

#include <pthread.h>

#include <gsl/gsl_errno.h>

static pthread_once_t gsl_once = PTHREAD_ONCE_INIT;

static void turn_gsl_handler_off(void)
{
	gsl_set_error_handler_off();
}

void quiet_gsl(void)
{
	pthread_once(&gsl_once, turn_gsl_handler_off);
}
