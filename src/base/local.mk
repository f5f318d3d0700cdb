# base: what every layer above the core shares: the error type (error.h), the text
# form of JSON (jtext.h), the JSON helpers both use-case layers read requests with (body.h:
# bytes to JSON, field.h: typed member reads, jsonptr.h: RFC 6901 pointers), the answer-cache interface (cache.h) the service asks
# and the store implements, the calibration store interface (calstore.h) the calibration
# layer asks and the store implements, the questions the calibration layer asks and the
# service implements (questions.h: a setup is a scene request, a fit's hold verdict the hold
# question), and GSL's error handler turned off (quiet.h; its callers link GSL, through
# CORE_LIBS).
noinst_LIBRARIES += libbase.a
libbase_a_SOURCES = src/base/error.c src/base/error.h src/base/cache.h \
	src/base/calstore.c src/base/calstore.h \
	src/base/jtext.c src/base/jtext.h \
	src/base/jsonptr.c src/base/jsonptr.h \
	src/base/body.c src/base/body.h \
	src/base/field.c src/base/field.h \
	src/base/quiet.c src/base/quiet.h \
	src/base/questions.c src/base/questions.h
libbase_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS)
BASE_LIBS = libbase.a $(JANSSON_LIBS)
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/base/knobs.h
