# http: the contactd daemon (libmicrohttpd), a front end over the service layer
# beside the `contact` CLI. The calibration layer plugs in through http_calib.h:
# it replaces src/http/http_calib.c and appends its own sources and libraries to
# contactd_SOURCES / contactd_LDADD.
bin_PROGRAMS += contactd
contactd_SOURCES = \
	src/http/contactd.c \
	src/http/http.c src/http/http.h \
	src/http/hotcache.c src/http/hotcache.h \
	src/http/metrics.c src/http/metrics.h \
	src/http/openapi.h \
	src/http/http_calib.c src/http/http_calib.h \
	src/http/http_calib_work.c src/http/http_calib_work.h
nodist_contactd_SOURCES = src/http/openapi_json.c
contactd_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(JANSSON_CFLAGS) $(SQLITE_CFLAGS) $(SODIUM_CFLAGS)
contactd_LDADD = $(SERVICE_LIBS) $(STORE_LIBS) $(MHD_LIBS) $(JANSSON_LIBS) $(SODIUM_LIBS)
dist_man_MANS += man/contactd.8

# The OpenAPI description is served from memory: embed the file as a C string.
src/http/openapi_json.c: $(srcdir)/src/http/openapi.json
	$(AM_V_GEN)$(MKDIR_P) src/http && { \
	echo '/* Generated from src/http/openapi.json by src/http/local.mk: do not edit. */'; \
	echo '#include "http/openapi.h"'; \
	echo 'const char openapi_json[] ='; \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
		$(srcdir)/src/http/openapi.json; \
	echo ';'; \
	echo 'const size_t openapi_json_len = sizeof openapi_json - 1;'; \
	} >$@.tmp && mv $@.tmp $@
BUILT_SOURCES += src/http/openapi_json.c
CLEANFILES += src/http/openapi_json.c
EXTRA_DIST += src/http/openapi.json
