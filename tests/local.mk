# tests: each area includes its own fragment
include $(srcdir)/tests/core.mk
include $(srcdir)/tests/parity.mk
include $(srcdir)/tests/service.mk
include $(srcdir)/tests/model.mk
include $(srcdir)/tests/http.mk
include $(srcdir)/tests/calib.mk
include $(srcdir)/tests/install.mk
include $(srcdir)/tests/python.mk
include $(srcdir)/tests/requirements.mk

# The README's two commands in fresh clones, in both orders (tests/fresh_clone.sh). Not in
# `make check`: it runs the whole suite twice. Clones the source tree's committed HEAD.
check-fresh-clone:
	$(SHELL) $(srcdir)/tests/fresh_clone.sh $(abs_top_srcdir)
.PHONY: check-fresh-clone
EXTRA_DIST += tests/fresh_clone.sh tests/run-all.sh

# Every test's wall time, written beside its log (tests/NAME.time) by a thin wrapper around
# automake's driver; tests/times.sh (and tests/run-all.sh at its end) prints them, longest first.
LOG_DRIVER = $(SHELL) $(srcdir)/tests/timed-driver.sh $(SHELL) $(top_srcdir)/build-aux/test-driver
EXTRA_DIST += tests/timed-driver.sh tests/times.sh tests/testlib.h

# Check's per-case timeouts (tcase_set_timeout) catch a hang, not a slow machine: each is
# a few times the case's time on an idle 2-core machine, and a sanitised build on a busy
# one (a second suite, parallel builds) can take ten times that. Every timeout is
# multiplied by CK_TIMEOUT_MULTIPLIER (10 unless the caller sets it), so no test fails for
# the machine's speed; a real hang still ends, and CI's 90 minutes bound the whole run.
AM_TESTS_ENVIRONMENT += CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-10}; export CK_TIMEOUT_MULTIPLIER;
CLEANFILES += tests/*.time
check-times:
	@$(SHELL) $(srcdir)/tests/times.sh
.PHONY: check-times

# The quick tier, for a developer's every minute: `make check-quick` runs every test of
# `make check` but those below (about a minute on the 2-core development machine without
# sanitizers; CONTRIBUTING.md has the times). A new test is in the quick tier unless it is
# named here. Left out: the fuzzer, the long fits and their coverage, crash and restart
# tests, the live-MuJoCo parity sweeps, PostgreSQL clusters, Slurm, the browser, the
# install tree and the Python package's venv install (each 15 s or more, or needing root,
# a database or a browser).
SLOW_TESTS = tests/fuzz_http tests/test_calib_fit tests/test_calib_coverage tests/test_calib_global tests/test_harden \
	tests/test_calib_press tests/test_fit_accept \
	tests/test_parity tests/test_hold tests/pg_cluster.sh tests/pg_calib_layer.sh \
	tests/pg_start_down.sh tests/slurm_test.sh tests/test_browser.sh tests/install_test.sh \
	tests/python_install_test.sh
check-quick:
	@quick=; for t in $(TESTS); do \
		case " $(SLOW_TESTS) " in *" $$t "*) ;; *) quick="$$quick $$t" ;; esac; \
	done; \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$$quick"
.PHONY: check-quick

# The house rules of src/ a reader can check: layers one way, the core on its own, no two
# modules including each other, knobs per layer, no file over 1,000 lines (docs/architecture.md).
TESTS += tests/house_test.sh
EXTRA_DIST += tests/house_test.sh tests/house.py
