# fit: the pad calibration's fit engine, five stages in the order fit.c runs them (see its
# header); the core, base and GSL only (jansson's headers because base/error.h includes them).
noinst_LIBRARIES += libfit.a
libfit_a_SOURCES = \
	src/fit/parallel.c src/fit/parallel.h \
	src/fit/model.c src/fit/model.h \
	src/fit/problem.c src/fit/problem.h \
	src/fit/map.c src/fit/map.h \
	src/fit/descent.c src/fit/descent.h \
	src/fit/interval.c src/fit/interval.h \
	src/fit/status.c src/fit/status.h \
	src/fit/types.h src/fit/fit.c src/fit/fit.h \
	src/fit/audit.c src/fit/audit.h
libfit_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(JANSSON_CFLAGS)
# What a program that fits links: the fit, the base and the core beneath it, and threads.
FIT_LIBS = libfit.a $(BASE_LIBS) $(CORE_LIBS) -lpthread
noinst_HEADERS += src/fit/knobs.h
