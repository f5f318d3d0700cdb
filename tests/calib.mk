# Pad calibration (issue #4): the fit against real MuJoCo 2.2.2 (libmujoco, tests only).
check_PROGRAMS += tests/test_calib_fit
TESTS += tests/test_calib_fit
tests_test_calib_fit_SOURCES = tests/test_calib_fit.c tests/number_text.h $(MJSCENE_SOURCES)
tests_test_calib_fit_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GSL_CFLAGS) $(JANSSON_CFLAGS)
tests_test_calib_fit_LDADD = $(CALIB_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS)

# Issue 28: a setup under the discrete integrator (MuJoCo 3.13.0+) fits drops the official
# WebAssembly build of 3.14.0 made there (tests/mjref/mjref_js_calib_drops.mjs); 3.12.0
# refuses it naming /option/integrator.
check_PROGRAMS += tests/test_calib_discrete
TESTS += tests/test_calib_discrete
tests_test_calib_discrete_SOURCES = tests/test_calib_discrete.c tests/testlib.h \
	src/http/status.c src/http/status.h
tests_test_calib_discrete_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCALIB_DISCRETE_TABLE='"$(abs_top_srcdir)/tests/fixtures/calib-discrete-3.14.0.txt"'
tests_test_calib_discrete_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GSL_CFLAGS) $(JANSSON_CFLAGS)
tests_test_calib_discrete_LDADD = $(CALIB_LIBS) $(CHECK_LIBS)
EXTRA_DIST += tests/fixtures/calib-discrete-3.14.0.txt tests/mjref/mjref_js_calib_drops.mjs

# Issue #29: the status no better than the intervals back, and the drop's first_rebound,
# against real MuJoCo 2.2.2.
check_PROGRAMS += tests/test_calib_status
TESTS += tests/test_calib_status
tests_test_calib_status_SOURCES = tests/test_calib_status.c $(MJSCENE_SOURCES)
tests_test_calib_status_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GSL_CFLAGS)
tests_test_calib_status_LDADD = $(FIT_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS)

# Issue #29: presses as MuJoCo steps them (the core's press against libmujoco 2.2.2's on
# random bouncy and damped pads), the issue's press example, and a misfit note that names
# the inconsistent measurement.
check_PROGRAMS += tests/test_calib_press
TESTS += tests/test_calib_press
tests_test_calib_press_SOURCES = tests/test_calib_press.c $(MJSCENE_SOURCES)
tests_test_calib_press_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GSL_CFLAGS)
tests_test_calib_press_LDADD = $(FIT_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS)

# The fit's confidence intervals cover the truth at the nominal rates over noisy data
# sets made by libmujoco (issue #8), the fit is the best over its range (issue #16), and fresh
# non-bouncing and press sets drawn at run time keep their coverage (issue #29);
# `make bench-coverage` runs it with 20 sets per truth (120 counted per size).
check_PROGRAMS += tests/test_calib_coverage
TESTS += tests/test_calib_coverage
tests_test_calib_coverage_SOURCES = tests/test_calib_coverage.c tests/calgen.c tests/calgen.h \
	$(MJSCENE_SOURCES)
tests_test_calib_coverage_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GSL_CFLAGS)
tests_test_calib_coverage_LDADD = $(FIT_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS)
bench-coverage: tests/test_calib_coverage$(EXEEXT)
	CALIB_COVERAGE_SETS=20 CK_DEFAULT_TIMEOUT=0 ./tests/test_calib_coverage$(EXEEXT)
.PHONY: bench-coverage

# The daemon: bearer-token auth, bad measurements, the event stream, and SIGKILL while
# uploading (every acknowledged measurement stored, PRAGMA integrity_check ok).
TESTS += tests/calib_auth.sh tests/calib_crash.sh
EXTRA_DIST += tests/calib_auth.sh tests/calib_crash.sh tests/calib_lib.sh

# Revocation, a rotation's grace end and a watch URL's expiry end open event streams within
# 1 s, with a last event naming why; watch URLs are capped at an hour (issue #16).
TESTS += tests/calib_close.sh
EXTRA_DIST += tests/calib_close.sh

# A calibration request waiting for the store holds no HTTP thread: a question on another
# connection is answered first (issue 51, the question stalls of `make bench-calib`).
TESTS += tests/calib_stall.sh
EXTRA_DIST += tests/calib_stall.sh

# Fits beside the requests (issue #8): latency while a fit runs, ?wait, Idempotency-Key,
# measurement ids and DELETE, the fit limits; against the real daemon.
check_PROGRAMS += tests/test_calib_async
TESTS += tests/test_calib_async
tests_test_calib_async_SOURCES = tests/test_calib_async.c tests/number_text.h tests/live.c tests/live.h \
	tests/robot.c tests/robot.h
tests_test_calib_async_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"'
tests_test_calib_async_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_test_calib_async_LDADD = $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS)

# Uncached question latency while four robots upload (issue #8). Not part of `make check`:
# `make bench-calib [BENCH_DURATION=10]`.
bench-calib: all
	CONTACTD=$(abs_top_builddir)/contactd$(EXEEXT) srcdir=$(srcdir) \
		$(SHELL) $(srcdir)/bench/bench_calib.sh
.PHONY: bench-calib
EXTRA_DIST += bench/bench_calib.sh


# The calibration layer (src/calib/, issue #16) without a daemon, against a temporary SQLite
# store: create, upload, Idempotency-Key replay and conflict, a deletion's refit, scope, token
# rotation and revocation, watch URLs and their cap.
check_PROGRAMS += tests/test_calib_layer
TESTS += tests/test_calib_layer
tests_test_calib_layer_SOURCES = tests/test_calib_layer.c
tests_test_calib_layer_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(SQLITE_CFLAGS) $(PQ_CFLAGS) \
	$(SODIUM_CFLAGS) $(XML_CFLAGS)
tests_test_calib_layer_LDADD = $(CALIB_LIBS) $(STORE_LIBS) $(CHECK_LIBS)

# Several nodes on one PostgreSQL calibration store behind nginx (issue #18): tokens,
# Idempotency-Key and event streams across nodes, SIGKILL mid-fit (the fit taken over once
# its lease lapses), PostgreSQL stopped and restarted under load. Starts its own
# PostgreSQL (initdb, pg_ctl as the postgres user), three contactd and nginx.
TESTS += tests/pg_cluster.sh
EXTRA_DIST += tests/pg_cluster.sh tests/pg_lib.sh
# The calibration layer's cases (tests/test_calib_layer) against the PostgreSQL store.
TESTS += tests/pg_calib_layer.sh
EXTRA_DIST += tests/pg_calib_layer.sh
# A node started while PostgreSQL is down: questions answered, calibration 503 with
# Retry-After, the store reached and migrated by itself once PostgreSQL starts; a store
# that can never work refused at start.
TESTS += tests/pg_start_down.sh
EXTRA_DIST += tests/pg_start_down.sh

# The audit: a calibration's measurements at a solref of the caller's (issue #29).
check_PROGRAMS += tests/test_calib_audit
TESTS += tests/test_calib_audit
tests_test_calib_audit_SOURCES = tests/test_calib_audit.c tests/live.c tests/live.h \
	tests/robot.c tests/robot.h
tests_test_calib_audit_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"'
tests_test_calib_audit_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_test_calib_audit_LDADD = $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS)

# The fit's global optimum: issue 29's example and fresh libmujoco sets against a dense grid.
check_PROGRAMS += tests/test_calib_global
TESTS += tests/test_calib_global
tests_test_calib_global_SOURCES = tests/test_calib_global.c tests/calgen.c tests/calgen.h \
	tests/testlib.h $(MJSCENE_SOURCES)
tests_test_calib_global_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GSL_CFLAGS)
tests_test_calib_global_LDADD = $(FIT_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS)

# The bound on the threads all fits take together (fit/parallel.h).
check_PROGRAMS += tests/test_fit_parallel
TESTS += tests/test_fit_parallel
tests_test_fit_parallel_SOURCES = tests/test_fit_parallel.c
tests_test_fit_parallel_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_fit_parallel_LDADD = $(FIT_LIBS) $(CHECK_LIBS)

# The fit's acceptance test, against fit/fit.h alone (issue 29's lab ranges, fresh libmujoco
# 2.2.2 sets of five kinds: bouncing drops, drops that do not bounce, presses on bouncy and on
# damped pads, trajectories): the best chi2 over the range, interval coverage, statuses backed
# by intervals, and the hold verdict against the truth's. `make check` runs 40 sets of each kind,
# `make bench-accept` 200 (FIT_ACCEPT_SETS).
check_PROGRAMS += tests/test_fit_accept
TESTS += tests/test_fit_accept
tests_test_fit_accept_SOURCES = tests/test_fit_accept.c tests/calgen.c tests/calgen.h \
	tests/testlib.h $(MJSCENE_SOURCES)
tests_test_fit_accept_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(GSL_CFLAGS)
tests_test_fit_accept_LDADD = $(FIT_LIBS) $(MUJOCO_LIBS) $(CHECK_LIBS)
bench-accept: tests/test_fit_accept$(EXEEXT)
	FIT_ACCEPT_SETS=200 ./tests/test_fit_accept$(EXEEXT)
.PHONY: bench-accept
