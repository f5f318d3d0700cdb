# benchmarks: built and run by `make bench` only, never by `make all` or `make check`.
# They link real MuJoCo (like the parity tests), never src/.
EXTRA_PROGRAMS = bench/bench_drop bench/bench_hold
CLEANFILES += $(EXTRA_PROGRAMS)

bench_bench_drop_SOURCES = bench/bench_drop.c tests/mjscene.c tests/mjscene.h
bench_bench_drop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_drop_LDADD = $(CORE_LIBS) $(MUJOCO_LIBS)

bench_bench_hold_SOURCES = bench/bench_hold.c tests/mjhold.c tests/mjhold.h
bench_bench_hold_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_hold_LDADD = $(CORE_LIBS) $(MUJOCO_LIBS)

.PHONY: bench
bench: bench/bench_drop$(EXEEXT) bench/bench_hold$(EXEEXT)
	./bench/bench_drop$(EXEEXT)
	./bench/bench_hold$(EXEEXT)
