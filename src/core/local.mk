# core: pure computation, no I/O. Depends on nothing but libm and GSL.
noinst_LIBRARIES += libcore.a
libcore_a_SOURCES = \
	src/core/law.c src/core/law.h \
	src/core/mjver.c src/core/mjver.h \
	src/core/pair.c src/core/pair.h \
	src/core/scene.c src/core/scene.h \
	src/core/sim.c src/core/sim.h \
	src/core/lanes.c src/core/lanes.h src/core/lanes_kernel.h src/core/lanes512.c \
	src/core/growth.c src/core/growth.h \
	src/core/hold.c src/core/hold.h
# no contraction (a*b+c fused): every answer keeps MuJoCo's rounding, and ctd_lanes the
# scalar code's, bit for bit (lanes.c also forbids it in its source, whatever CFLAGS say)
libcore_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
CORE_LIBS = libcore.a $(GSL_LIBS) -lm
