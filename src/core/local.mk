# core: pure computation, no I/O. Depends on nothing but libm and GSL.
# Built once, as a libtool convenience library: linked statically into the programs and
# tests (CORE_LIBS), and into libcontactd (src/lib/local.mk) behind the public header's
# functions (src/lib/capi.c); its objects are compiled with hidden visibility, so the
# shared library exports only what include/contactd.h declares. No file here includes
# that header: the core's types are its own (tests/install_test.sh checks both).
noinst_LTLIBRARIES += libcore.la
libcore_la_SOURCES = \
	src/core/law.c src/core/law.h \
	src/core/mjver.c src/core/mjver.h \
	src/core/pair.c src/core/pair.h \
	src/core/scene.c src/core/scene.h \
	src/core/sim.c src/core/sim.h \
	src/core/lanes.c src/core/lanes.h src/core/lanes_kernel.h src/core/lanes512.c \
	src/core/growth.c src/core/growth.h \
	src/core/pinch.c src/core/pinch.h \
	src/core/newton.c src/core/newton.h \
	src/core/nsnewton.c src/core/nsnewton.h \
	src/core/noslip.c src/core/noslip.h src/core/noslip_int.h \
	src/core/hold.c src/core/hold.h \
	src/core/budget.c src/core/budget.h
# no contraction (a*b+c fused): every answer keeps MuJoCo's rounding, and core_lanes the
# scalar code's, bit for bit (lanes.c also forbids it in its source, whatever CFLAGS say)
libcore_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off -fvisibility=hidden
CORE_LIBS = libcore.la $(GSL_LIBS) -lm
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/core/knobs.h
