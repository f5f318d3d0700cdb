# benchmarks: built and run by `make bench` only, never by `make all` or `make check`.
# They link real MuJoCo (like the parity tests), never src/.
EXTRA_PROGRAMS = bench/bench_drop
CLEANFILES += $(EXTRA_PROGRAMS)

bench_bench_drop_SOURCES = bench/bench_drop.c tests/mjscene.c tests/mjscene.h
bench_bench_drop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_drop_LDADD = $(CORE_LIBS) $(MUJOCO_LIBS)

.PHONY: bench
bench: bench/bench_drop$(EXEEXT)
	./bench/bench_drop$(EXEEXT)

# Questions/s and uploads/s with 1, 2 and 3 nodes on one PostgreSQL store (issue #18).
.PHONY: bench-nodes
bench-nodes: contactd$(EXEEXT)
	CONTACTD=./contactd$(EXEEXT) srcdir=$(srcdir) $(SHELL) $(srcdir)/bench/bench_nodes.sh
EXTRA_DIST += bench/bench_nodes.sh docs/topology.md
