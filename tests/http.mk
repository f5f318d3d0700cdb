# Tests of the store and of the contactd daemon over real HTTP.
check_PROGRAMS += tests/test_store
TESTS += tests/test_store
tests_test_store_SOURCES = tests/test_store.c
tests_test_store_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(SQLITE_CFLAGS)
tests_test_store_LDADD = $(STORE_LIBS) $(SERVICE_LIBS) $(CHECK_LIBS)

# contactd over real HTTP: the programs under test are passed in at build time.
check_PROGRAMS += tests/test_http
TESTS += tests/test_http
tests_test_http_SOURCES = tests/test_http.c tests/live.c tests/live.h \
	src/http/status.c src/http/status.h src/base/error.c src/base/error.h
tests_test_http_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"' \
	-DCONTACT='"$(abs_top_builddir)/contact$(EXEEXT)"'
tests_test_http_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_test_http_LDADD = $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS)

# deploy/nginx.conf in a real nginx in front of the real daemon.
TESTS += tests/test_nginx.sh
EXTRA_DIST += tests/test_nginx.sh tests/http_lib.sh
# The documented log rotation (deploy/logrotate.conf) with a real logrotate.
TESTS += tests/logrotate_test.sh
EXTRA_DIST += tests/logrotate_test.sh
# Sends the bytes curl will not (shell tests of request framing).
check_PROGRAMS += tests/raw_http
tests_raw_http_SOURCES = tests/raw_http.c

# Benchmark (wrk; cached, uncached and sweep answers against nginx's static ceiling).
# Not part of `make check`: `make bench-http [BENCH_DURATION=10]`.
bench-http: all
	CONTACTD=$(abs_top_builddir)/contactd$(EXEEXT) srcdir=$(srcdir) \
		$(SHELL) $(srcdir)/bench/bench_http.sh
.PHONY: bench-http
EXTRA_DIST += bench/bench_http.sh

# WAL peak under uncached writes (wrk at 64 and 512 connections, with --cache-max-mb 1, and
# with answers over and just under the cache's per-answer cap) against the bound the README
# states. Not part of `make check`: `make bench-wal
# [WAL_DURATION=20]`.
bench-wal: all
	CONTACTD=$(abs_top_builddir)/contactd$(EXEEXT) srcdir=$(srcdir) \
		$(SHELL) $(srcdir)/bench/bench_wal.sh
.PHONY: bench-wal
EXTRA_DIST += bench/bench_wal.sh

# Soak: wrk at 256 connections for 60 s, cached and uncached, memory and WAL before and
# after. Not part of `make check`: `make soak [SOAK_DURATION=60]`.
soak: all
	CONTACTD=$(abs_top_builddir)/contactd$(EXEEXT) srcdir=$(srcdir) \
		$(SHELL) $(srcdir)/bench/soak.sh
.PHONY: soak
EXTRA_DIST += bench/soak.sh

# The OpenAPI assembler's "@aliases untold@" on a made-up part.
TESTS += tests/openapi_awk_test.sh
EXTRA_DIST += tests/openapi_awk_test.sh

# The served OpenAPI document against the real handlers.
check_PROGRAMS += tests/test_openapi
TESTS += tests/test_openapi
tests_test_openapi_SOURCES = tests/test_openapi.c tests/live.c tests/live.h tests/robot.c \
	tests/robot.h
tests_test_openapi_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"' -DSRCDIR='"$(abs_top_srcdir)"' \
	-DOPENAPI_JSON='"$(abs_top_builddir)/src/http/openapi.json"'
tests_test_openapi_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_test_openapi_LDADD = $(SERVICE_LIBS) $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS)

# The daemon's per-thread memory cache, alone.
check_PROGRAMS += tests/test_hotcache
TESTS += tests/test_hotcache
tests_test_hotcache_SOURCES = tests/test_hotcache.c src/http/hotcache.c src/http/hotcache.h
tests_test_hotcache_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(SODIUM_CFLAGS)
tests_test_hotcache_LDADD = $(SODIUM_LIBS) $(CHECK_LIBS)

# The compute pool's fairness: clients served in turn, each held to its share.
check_PROGRAMS += tests/test_admit
TESTS += tests/test_admit
tests_test_admit_SOURCES = tests/test_admit.c src/http/admit.c src/http/admit.h
tests_test_admit_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_admit_LDADD = $(BASE_LIBS) $(CHECK_LIBS) -lpthread

# Faults of a lab network: limits, signals, file modes, hostile bytes, overload.
check_PROGRAMS += tests/test_harden
TESTS += tests/test_harden
tests_test_harden_SOURCES = tests/test_harden.c tests/live.c tests/live.h tests/robot.c \
	tests/robot.h
tests_test_harden_CPPFLAGS = $(AM_CPPFLAGS) -DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"'
tests_test_harden_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS) \
	$(SQLITE_CFLAGS)
tests_test_harden_LDADD = $(JANSSON_LIBS) $(LIBCURL_LIBS) $(SQLITE_LIBS) $(CHECK_LIBS) -lpthread

# A structure-aware fuzzer against the real daemon, bounded to FUZZ_SECONDS (20) here;
# FUZZ_REQUESTS=N runs N requests by hand.
check_PROGRAMS += tests/fuzz_http
TESTS += tests/fuzz_http
tests_fuzz_http_SOURCES = tests/fuzz_http.c tests/live.c tests/live.h tests/robot.c tests/robot.h
tests_fuzz_http_CPPFLAGS = $(AM_CPPFLAGS) -DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"'
tests_fuzz_http_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_fuzz_http_LDADD = $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS)

# What a web page sees: CORS, the embedded dashboard files, the drop trajectory.
check_PROGRAMS += tests/test_cors
TESTS += tests/test_cors
tests_test_cors_SOURCES = tests/test_cors.c tests/live.c tests/live.h tests/robot.c tests/robot.h
tests_test_cors_CPPFLAGS = $(AM_CPPFLAGS) -DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"'
tests_test_cors_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_test_cors_LDADD = $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS) -lm

# The dashboard in a real browser: Debian's chromium driven by playwright-core, whose
# node_modules `npm ci` puts in tests/browser of the source tree (tests/run-all.sh
# does). distcheck builds from the tarball, which has no node_modules: it is handed
# the source tree's. Screenshots go to tests/screenshots/ of the build directory;
# `make screenshots` copies them into docs/screenshots/ for the README.
TESTS += tests/test_browser.sh
AM_TESTS_ENVIRONMENT = srcdir='$(srcdir)'; export srcdir; \
	CONTACTD='$(abs_top_builddir)/contactd$(EXEEXT)'; export CONTACTD; \
	CHROMIUM='$(CHROMIUM)'; export CHROMIUM; NODE='$(NODE)'; export NODE; \
	BROWSER_NODE_MODULES='$(BROWSER_NODE_MODULES)'; export BROWSER_NODE_MODULES; \
	MJREF_NODE_MODULES='$(MJREF_NODE_MODULES)'; export MJREF_NODE_MODULES; \
	SCREENSHOTS='$(abs_top_builddir)/tests/screenshots'; export SCREENSHOTS;
AM_DISTCHECK_CONFIGURE_FLAGS = BROWSER_NODE_MODULES='$(abs_top_srcdir)/tests/browser/node_modules' \
	MJREF_NODE_MODULES='$(abs_top_srcdir)/tests/mjref/node_modules'
EXTRA_DIST += tests/test_browser.sh tests/browser/run.js tests/browser/model.js tests/browser/hold.js \
	tests/browser/live.js tests/browser/package.json \
	tests/browser/package-lock.json
DASHBOARD_SHOTS = sweep drop hold live api
screenshots: all
	rm -rf tests/screenshots
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/test_browser.sh
	$(MKDIR_P) $(srcdir)/docs/screenshots
	for s in $(DASHBOARD_SHOTS); do \
		cp tests/screenshots/$$s.png $(srcdir)/docs/screenshots/$$s.png || exit 1; \
	done
.PHONY: screenshots
clean-local: clean-screenshots
clean-screenshots:
	rm -rf tests/screenshots
.PHONY: clean-screenshots

# The third hardening round's refusals: a body's media type, ambiguous heads, the global
# connection limit and the share of one address under load.
check_PROGRAMS += tests/test_strict
TESTS += tests/test_strict
tests_test_strict_SOURCES = tests/test_strict.c tests/live.c tests/live.h tests/robot.c \
	tests/robot.h
tests_test_strict_CPPFLAGS = $(AM_CPPFLAGS) -DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"'
tests_test_strict_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_test_strict_LDADD = $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS)
# A question's compute budget and its cancellation with its client (service/budget.h).
check_PROGRAMS += tests/test_budget
TESTS += tests/test_budget
tests_test_budget_SOURCES = tests/test_budget.c tests/live.c tests/live.h
tests_test_budget_CPPFLAGS = $(AM_CPPFLAGS) -DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"'
tests_test_budget_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_test_budget_LDADD = $(SERVICE_LIBS) $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS) -lpthread
# POST /v1/model with an application/xml body over real HTTP.
check_PROGRAMS += tests/test_http_model
TESTS += tests/test_http_model
tests_test_http_model_SOURCES = tests/test_http_model.c tests/live.c tests/live.h
tests_test_http_model_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCONTACTD='"$(abs_top_builddir)/contactd$(EXEEXT)"' \
	-DCONTACT='"$(abs_top_builddir)/contact$(EXEEXT)"'
tests_test_http_model_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS) $(LIBCURL_CFLAGS)
tests_test_http_model_LDADD = $(JANSSON_LIBS) $(LIBCURL_LIBS) $(CHECK_LIBS) -lpthread
# The README's "First questions" examples run against a real daemon, their printed
# answers compared key by key (README.md cannot drift from what the daemon says).
TESTS += tests/readme_test.sh
EXTRA_DIST += tests/readme_test.sh tests/readme_check.py
