# fit: the pad calibration's fit engine (issue #4), a pipeline of five stages, one module each:
# the problem (problem.c), the chi-square map (map.c), the descents (descent.c), the
# identification and intervals (interval.c), the status and notes (status.c), and the entry
# that names them (fit.c, interface fit.h); beside them the model of a measurement (model.c),
# the fit's threads (parallel.c) and the audit (audit.c).
# Depends on the core and base only, and GSL; no JSON (jansson's headers only because
# base/error.h includes them).
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
# the layer's knobs: each beside its reason
noinst_HEADERS += src/fit/knobs.h
