# benchmarks: built and run by `make bench` only, never by `make all` or `make check`.
# They link real MuJoCo (like the parity tests), never src/.
EXTRA_PROGRAMS = bench/bench_drop bench/calib_coverage
CLEANFILES += $(EXTRA_PROGRAMS)

bench_bench_drop_SOURCES = bench/bench_drop.c tests/mjscene.c tests/mjscene.h
bench_bench_drop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_drop_LDADD = $(CORE_LIBS) $(MUJOCO_LIBS)

.PHONY: bench
bench: bench/bench_drop$(EXEEXT)
	./bench/bench_drop$(EXEEXT)

# How often the fit's 1- and 2-sigma intervals cover the truth over many noisy MuJoCo-made
# data sets (issue #8). A measurement, not part of `make check` (a fit takes about a second):
# `[CALIB_COVERAGE_SETS=40] make bench-coverage`.
bench_calib_coverage_SOURCES = bench/calib_coverage.c $(MJSCENE_SOURCES)
bench_calib_coverage_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_calib_coverage_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(JANSSON_CFLAGS)
bench_calib_coverage_LDADD = $(FIT_LIBS) $(MUJOCO_LIBS)
bench-coverage: bench/calib_coverage$(EXEEXT)
	./bench/calib_coverage$(EXEEXT)
.PHONY: bench-coverage
