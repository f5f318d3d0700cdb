# base: what every layer above the core shares: the error type (error.h), the text
# form of JSON (jtext.h) and the answer-cache interface (cache.h) the service asks
# and the store implements.
noinst_LIBRARIES += libbase.a
libbase_a_SOURCES = src/base/error.c src/base/error.h src/base/cache.h \
	src/base/jtext.c src/base/jtext.h
libbase_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
BASE_LIBS = libbase.a $(JANSSON_LIBS)
