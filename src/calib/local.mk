# calib: the calibration use cases (issue #16), between the front ends (src/http/, the
# `contactd token` command) and the store and fit engine: create, upload, delete, list,
# show, refit scheduling and the fit workers, the token policy and the token command,
# Idempotency-Key, watch URLs and the fit-done events. Knows nothing of HTTP.
noinst_LIBRARIES += libcalib.a
libcalib_a_SOURCES = \
	src/calib/auth.c src/calib/auth.h \
	src/calib/calreq.c src/calib/calreq.h \
	src/calib/result.c src/calib/result.h \
	src/calib/log.c src/calib/log.h \
	src/calib/events.c src/calib/events.h \
	src/calib/token.c src/calib/token.h \
	src/calib/watch.c src/calib/watch.h \
	src/calib/idem.c src/calib/idem.h \
	src/calib/setup.c src/calib/setup.h \
	src/calib/work.c src/calib/work.h \
	src/calib/cases.c src/calib/cases.h \
	src/calib/audit.c src/calib/audit.h
# The store is reached through base/calstore.h only: the front end binds an engine to it
# (store/calstore.h calstore_sqlite_bind()) and links that engine's library too.
libcalib_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(SODIUM_CFLAGS) $(GSL_CFLAGS)
# What a front end of calibrations links: the layer, the fit beneath it, and the service,
# whose answers to the layer's questions (base/questions.h: a setup is a scene request, a
# fit's hold verdict the hold question) the front end binds (service/calask.h). The layer
# includes nothing of the service.
CALIB_LIBS = libcalib.a $(SERVICE_LIBS) $(FIT_LIBS) $(SODIUM_LIBS) -lpthread
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/calib/knobs.h
