# Pad calibration (issue #4): the fit against real MuJoCo 2.2.2 (libmujoco, tests only).
check_PROGRAMS += tests/test_calib_fit
TESTS += tests/test_calib_fit
tests_test_calib_fit_SOURCES = tests/test_calib_fit.c $(MJSCENE_SOURCES)
tests_test_calib_fit_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GSL_CFLAGS) $(JANSSON_CFLAGS)
tests_test_calib_fit_LDADD = $(SERVICE_LIBS) $(SODIUM_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS)

# The daemon: bearer-token auth, bad measurements, the event stream, and SIGKILL while
# uploading (every acknowledged measurement stored, PRAGMA integrity_check ok).
TESTS += tests/calib_auth.sh tests/calib_crash.sh
EXTRA_DIST += tests/calib_auth.sh tests/calib_crash.sh tests/calib_lib.sh
