# Unit tests of the contact core.
check_PROGRAMS += tests/test_core
TESTS += tests/test_core
tests_test_core_SOURCES = tests/test_core.c tests/lesson_step4.h
tests_test_core_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_core_LDADD = $(CORE_LIBS) $(CHECK_LIBS)
