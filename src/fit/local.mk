# fit: the pad calibration's fit engine (issue #4): the model of a measurement, the
# least-squares problem, its starts, descents and search, the standard errors and intervals,
# and the entry (fit.h) the service calls. Depends on the core and base only, and GSL; no JSON
# (jansson's headers only because base/error.h includes them). One module per prefix; input.h
# is the measurements' types, and problem.h, traj.h, grid.h, descent.h, search.h,
# uncertainty.h, profile.h, bootstrap.h and interval.h are the layer's own.
noinst_LIBRARIES += libfit.a
libfit_a_SOURCES = \
	src/fit/input.h \
	src/fit/parallel.c src/fit/parallel.h \
	src/fit/model.c src/fit/model.h \
	src/fit/problem.c src/fit/problem.h \
	src/fit/traj.c src/fit/traj.h \
	src/fit/grid.c src/fit/grid.h \
	src/fit/descent.c src/fit/descent.h \
	src/fit/search.c src/fit/search.h \
	src/fit/uncertainty.c src/fit/uncertainty.h \
	src/fit/profile.c src/fit/profile.h \
	src/fit/bootstrap.c src/fit/bootstrap.h \
	src/fit/interval.c src/fit/interval.h \
	src/fit/fit.c src/fit/fit.h \
	src/fit/audit.c src/fit/audit.h
libfit_a_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(JANSSON_CFLAGS)
# What a program that fits links: the fit, the base and the core beneath it, and threads.
FIT_LIBS = libfit.a $(BASE_LIBS) $(CORE_LIBS) -lpthread
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/fit/knobs.h
