# core: pure computation, no I/O. Depends on nothing but libm and GSL.
noinst_LIBRARIES += libcore.a
libcore_a_SOURCES = \
	src/core/law.c src/core/law.h \
	src/core/mjver.c src/core/mjver.h \
	src/core/pair.c src/core/pair.h \
	src/core/scene.c src/core/scene.h \
	src/core/sim.c src/core/sim.h \
	src/core/growth.c src/core/growth.h \
	src/core/hold.c src/core/hold.h
libcore_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS)
CORE_LIBS = libcore.a $(GSL_LIBS) -lm
