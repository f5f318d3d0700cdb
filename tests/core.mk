# Unit tests of the contact core.
check_PROGRAMS += tests/test_core
TESTS += tests/test_core
tests_test_core_SOURCES = tests/test_core.c tests/lesson_step4.h
tests_test_core_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_core_LDADD = $(CORE_LIBS) $(CHECK_LIBS)

# The lanes (many drops per vector) against one drop at a time, bit for bit.
check_PROGRAMS += tests/test_lanes
TESTS += tests/test_lanes
tests_test_lanes_SOURCES = tests/test_lanes.c
tests_test_lanes_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_test_lanes_LDADD = $(CORE_LIBS) $(CHECK_LIBS)
