# `make install` into tests/install-root of the build directory, and a program of a
# library user built against it through pkg-config (tests/install_test.sh).
TESTS += tests/install_test.sh
EXTRA_DIST += tests/install_test.sh tests/install_rest.c
# What the installation test needs to know of this build (eval'ed by the script).
print-install-dirs:
	@echo "bindir='$(bindir)' libdir='$(libdir)' includedir='$(includedir)'"
	@echo "mandir='$(mandir)' systemdsystemunitdir='$(systemdsystemunitdir)'"
	@echo "version='$(VERSION)'"
.PHONY: print-install-dirs
clean-local: clean-install-test
clean-install-test:
	rm -rf tests/install-root tests/install-root.log tests/install_rest_shared \
		tests/install_rest_static
.PHONY: clean-install-test
AM_TESTS_ENVIRONMENT += MAKE='$(MAKE)'; export MAKE; CC='$(CC)'; export CC; \
	SANITIZER_CFLAGS='$(SANITIZER_CFLAGS)'; export SANITIZER_CFLAGS; \
	SANITIZER_LDFLAGS='$(SANITIZER_LDFLAGS)'; export SANITIZER_LDFLAGS;

# The library's one JSON entry point, ctd_answer(), against the daemon and the CLI, byte
# for byte (tests/answer_test.sh; answer_cat is a library user's program, linked against
# the shared libcontactd and reading only contactd.h).
check_PROGRAMS += tests/answer_cat
tests_answer_cat_SOURCES = tests/answer_cat.c
tests_answer_cat_LDADD = libcontactd.la
TESTS += tests/answer_test.sh
EXTRA_DIST += tests/answer_test.sh

# The public header's C interface (src/lib/capi.c: the public structs copied to the core's
# and back) against ctd_answer()'s JSON for the same questions, bit for bit: a library
# user's program, linked against the shared libcontactd and reading only contactd.h.
check_PROGRAMS += tests/test_capi
TESTS += tests/test_capi
tests_test_capi_SOURCES = tests/test_capi.c tests/testlib.h
tests_test_capi_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(JANSSON_CFLAGS)
tests_test_capi_LDADD = libcontactd.la $(JANSSON_LIBS) $(CHECK_LIBS) -lm
