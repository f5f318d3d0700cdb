# benchmarks: built and run by `make bench` only, never by `make all` or `make check`.
# They link real MuJoCo (like the parity tests), never src/.
EXTRA_PROGRAMS = bench/bench_drop bench/bench_sweep bench/bench_hold bench/bench_fit
CLEANFILES += $(EXTRA_PROGRAMS)

bench_bench_drop_SOURCES = bench/bench_drop.c tests/mjscene.c tests/mjscene.h
bench_bench_drop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_drop_LDADD = $(CORE_LIBS) $(MUJOCO_LIBS)

bench_bench_hold_SOURCES = bench/bench_hold.c bench/bench_stats.h tests/mjhold.c tests/mjhold.h $(MJSCENE_SOURCES)
bench_bench_hold_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_hold_LDADD = $(CORE_LIBS) $(MUJOCO_LIBS)

# A 5,000-point drop sweep against MuJoCo: the core's lanes, the whole `contact sweep`
# process and the time to the first streamed row over HTTP.
bench_bench_sweep_SOURCES = bench/bench_sweep.c bench/bench_stats.h tests/mjscene.c tests/mjscene.h
bench_bench_sweep_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_sweep_LDADD = $(CORE_LIBS) $(MUJOCO_LIBS) -lpthread

.PHONY: bench bench-sweep bench-hold
bench: bench/bench_drop$(EXEEXT) bench/bench_hold$(EXEEXT)
	./bench/bench_drop$(EXEEXT)
	./bench/bench_hold$(EXEEXT)

# The hold answers alone: `make bench-hold HOLD_TABLE=grasp` times issue 48's shapes and
# drives, HOLD_TABLE=sphere issue 21's scenes; empty, both (bench/bench_hold.c).
HOLD_PAIRS = 15
HOLD_TABLE =
bench-hold: bench/bench_hold$(EXEEXT)
	./bench/bench_hold$(EXEEXT) $(HOLD_PAIRS) $(HOLD_TABLE)

bench-sweep: bench/bench_sweep$(EXEEXT) contact$(EXEEXT) contactd$(EXEEXT)
	./bench/bench_sweep$(EXEEXT) ./contact$(EXEEXT) ./contactd$(EXEEXT)

# Questions/s and uploads/s with 1, 2 and 3 nodes on one PostgreSQL store (issue #18).
.PHONY: bench-nodes
bench-nodes: contactd$(EXEEXT)
	CONTACTD=./contactd$(EXEEXT) srcdir=$(srcdir) $(SHELL) $(srcdir)/bench/bench_nodes.sh
EXTRA_DIST += bench/bench_nodes.sh docs/topology.md

# The calibration fit's wall time on fresh sets made by libmujoco 2.2.2 (issue #29).
bench_bench_fit_SOURCES = bench/bench_fit.c bench/bench_stats.h tests/calgen.c tests/calgen.h \
	tests/testlib.h $(MJSCENE_SOURCES)
bench_bench_fit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_fit_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
bench_bench_fit_LDADD = $(FIT_LIBS) $(MUJOCO_LIBS)
.PHONY: bench-fit
bench-fit: bench/bench_fit$(EXEEXT)
	./bench/bench_fit$(EXEEXT)
