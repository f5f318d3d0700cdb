# Unit tests of the service layer and the `contact` CLI.
SERVICE_TEST_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(CHECK_CFLAGS)
SERVICE_TEST_LIBS = $(SERVICE_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/test_request
TESTS += tests/test_request
tests_test_request_SOURCES = tests/test_request.c tests/svc_test.c tests/svc_test.h
tests_test_request_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_request_LDADD = $(SERVICE_TEST_LIBS) -lm

check_PROGRAMS += tests/test_jsonptr
TESTS += tests/test_jsonptr
tests_test_jsonptr_SOURCES = tests/test_jsonptr.c
tests_test_jsonptr_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_jsonptr_LDADD = $(SERVICE_TEST_LIBS)

check_PROGRAMS += tests/test_service
TESTS += tests/test_service
tests_test_service_SOURCES = tests/test_service.c tests/svc_test.c tests/svc_test.h tests/lesson_step4.h \
	src/http/status.c src/http/status.h
tests_test_service_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_service_LDADD = $(SERVICE_TEST_LIBS) -lm

check_PROGRAMS += tests/test_eval
TESTS += tests/test_eval
tests_test_eval_SOURCES = tests/test_eval.c tests/svc_test.c tests/svc_test.h \
	src/http/status.c src/http/status.h
tests_test_eval_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_eval_LDADD = $(SERVICE_TEST_LIBS) -lm

# The `contact` CLI end to end.
TESTS += tests/cli_test.sh
EXTRA_DIST += tests/cli_test.sh

# A sweep split with --shard and joined with `contact merge` against one process's
# answer, byte for byte (CLI and API), and merge's refusals.
TESTS += tests/shard_test.sh
EXTRA_DIST += tests/shard_test.sh

# deploy/slurm/'s array job and merge on a one-node Slurm cluster the test starts (as
# root; otherwise the tasks run directly, and the test says so).
TESTS += tests/slurm_test.sh
EXTRA_DIST += tests/slurm_test.sh

# The one text form of JSON: shortest exact reals, jansson's bytes otherwise.
check_PROGRAMS += tests/test_jtext
TESTS += tests/test_jtext
tests_test_jtext_SOURCES = tests/test_jtext.c
tests_test_jtext_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_jtext_LDADD = $(SERVICE_TEST_LIBS) -lm

check_PROGRAMS += tests/test_grade
TESTS += tests/test_grade
tests_test_grade_SOURCES = tests/test_grade.c tests/svc_test.c tests/svc_test.h \
	src/http/status.c src/http/status.h
tests_test_grade_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_grade_LDADD = $(SERVICE_TEST_LIBS) -lm

check_PROGRAMS += tests/test_find
TESTS += tests/test_find
tests_test_find_SOURCES = tests/test_find.c tests/svc_test.c tests/svc_test.h
tests_test_find_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_find_LDADD = $(SERVICE_TEST_LIBS) -lm

# `contact --plot` and `contact plot`: well-formed SVG drawing the answers' numbers.
TESTS += tests/plot_test.sh
EXTRA_DIST += tests/plot_test.sh

# A sweep's rows against its points' single answers, and streamed against whole, byte for byte.
check_PROGRAMS += tests/test_sweep_bits
TESTS += tests/test_sweep_bits
tests_test_sweep_bits_SOURCES = tests/test_sweep_bits.c tests/svc_test.c tests/svc_test.h
tests_test_sweep_bits_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_sweep_bits_LDADD = $(SERVICE_TEST_LIBS) -lm

# The README's sweep example (docs/examples/), run by cli_test.sh.
EXTRA_DIST += docs/examples/sweep-req.json

# A sweep's point set in place on the parsed base against the full parse of its request.
check_PROGRAMS += tests/test_sceneset
TESTS += tests/test_sceneset
tests_test_sceneset_SOURCES = tests/test_sceneset.c tests/svc_test.c tests/svc_test.h
tests_test_sceneset_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_sceneset_LDADD = $(SERVICE_TEST_LIBS) -lm

check_PROGRAMS += tests/test_hold_sweep
TESTS += tests/test_hold_sweep
tests_test_hold_sweep_SOURCES = tests/test_hold_sweep.c tests/svc_test.c tests/svc_test.h
tests_test_hold_sweep_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_hold_sweep_LDADD = $(SERVICE_TEST_LIBS) -lm

check_PROGRAMS += tests/test_hold_find
TESTS += tests/test_hold_find
tests_test_hold_find_SOURCES = tests/test_hold_find.c tests/svc_test.c tests/svc_test.h
tests_test_hold_find_CFLAGS = $(SERVICE_TEST_CFLAGS)
tests_test_hold_find_LDADD = $(SERVICE_TEST_LIBS) -lm
