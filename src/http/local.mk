# http: the contactd daemon (libmicrohttpd), a front end over the service layer
# beside the `contact` CLI. The calibration routes (http_calib.h) and their event streams
# (calib_stream.h) call the calibration layer (src/calib/), never the fit engine; the
# calibration store's engine is the daemon's main's choice (engine.h).
bin_PROGRAMS += contactd
contactd_SOURCES = \
	src/http/contactd.c \
	src/http/engine.c src/http/engine.h \
	src/http/token_cmd.c src/http/token_cmd.h \
	src/http/http.c src/http/http.h src/http/server.h \
	src/http/http_config.c src/http/http_config.h \
	src/http/request.h \
	src/http/log.c src/http/log.h \
	src/http/status.c src/http/status.h \
	src/http/respond.c src/http/respond.h \
	src/http/framing.c src/http/framing.h \
	src/http/jobs.c src/http/jobs.h \
	src/http/offload.c src/http/offload.h \
	src/http/routes.c src/http/routes.h \
	src/http/admit.c src/http/admit.h \
	src/http/upkeep.c src/http/upkeep.h \
	src/http/guard.c src/http/guard.h \
	src/http/hotcache.c src/http/hotcache.h \
	src/http/metrics.c src/http/metrics.h \
	src/http/openapi.h \
	src/http/calib_stream.c src/http/calib_stream.h \
	src/http/http_calib.c src/http/http_calib.h \
	src/http/cors.c src/http/cors.h \
	src/http/static.c src/http/static.h \
	src/http/stream.c src/http/stream.h
nodist_contactd_SOURCES = src/http/openapi_json.c src/http/static_files.c
contactd_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(JANSSON_CFLAGS) $(SQLITE_CFLAGS) $(SODIUM_CFLAGS)
contactd_LDADD = $(CALIB_LIBS) $(STORE_LIBS) $(MHD_LIBS) $(JANSSON_LIBS) $(SODIUM_LIBS)
dist_man_MANS += man/contactd.8

# The OpenAPI description is served from memory: src/http/openapi.json, assembled from its
# parts (src/http/openapi/: paths in the order listed here, then schemas in that order; see
# openapi.awk) with the lists the endpoint table decides (openapi-lists prints them from
# svc_endpoints[]), embedded as a C string. A part not listed here (a new endpoint's
# NAME.json) follows the listed ones, the unlisted in name order: it needs no line.
OPENAPI_PARTS = \
	$(srcdir)/src/http/openapi/info.json \
	$(srcdir)/src/http/openapi/rest.json \
	$(srcdir)/src/http/openapi/drop.json \
	$(srcdir)/src/http/openapi/stability.json \
	$(srcdir)/src/http/openapi/sweep.json \
	$(srcdir)/src/http/openapi/eval.json \
	$(srcdir)/src/http/openapi/find.json \
	$(srcdir)/src/http/openapi/answers-scene.json \
	$(srcdir)/src/http/openapi/answers-sweep-eval.json \
	$(srcdir)/src/http/openapi/hold.json \
	$(srcdir)/src/http/openapi/grade.json \
	$(srcdir)/src/http/openapi/find-answer.json \
	$(srcdir)/src/http/openapi/daemon.json \
	$(srcdir)/src/http/openapi/calib-calibrations.json \
	$(srcdir)/src/http/openapi/calib-measurements.json \
	$(srcdir)/src/http/openapi/calib-uploads.json \
	$(srcdir)/src/http/openapi/calib-setup.json \
	$(srcdir)/src/http/openapi/calib-data.json \
	$(srcdir)/src/http/openapi/calib-fit.json \
	$(srcdir)/src/http/openapi/calib-records.json \
	$(srcdir)/src/http/openapi/hold-scene.json \
	$(srcdir)/src/http/openapi/model.json
noinst_PROGRAMS += src/http/openapi-lists
src_http_openapi_lists_SOURCES = src/http/openapi_lists.c
src_http_openapi_lists_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
src_http_openapi_lists_LDADD = $(SERVICE_LIBS)
# Make cannot know an unlisted part before it exists, so the document is assembled on every
# make (a few milliseconds) and replaced only when its bytes change: nothing else rebuilds.
src/http/openapi.json: $(srcdir)/src/http/openapi.awk src/http/openapi-lists$(EXEEXT) \
		$(OPENAPI_PARTS) openapi-parts-unlisted
	$(AM_V_GEN)$(MKDIR_P) src/http && \
	parts='$(OPENAPI_PARTS)'; \
	for f in `cd $(srcdir)/src/http/openapi && LC_ALL=C ls *.json`; do \
		case " $$parts " in \
		*" $(srcdir)/src/http/openapi/$$f "*) ;; \
		*) parts="$$parts $(srcdir)/src/http/openapi/$$f" ;; \
		esac; \
	done; \
	./src/http/openapi-lists$(EXEEXT) >$@.lists && \
	$(AWK) -v lists=$@.lists -f $(srcdir)/src/http/openapi.awk $$parts >$@.tmp && \
	rm -f $@.lists && \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
.PHONY: openapi-parts-unlisted
src/http/openapi_json.c: src/http/openapi.json
	$(AM_V_GEN)$(MKDIR_P) src/http && { \
	echo '/* Generated from src/http/openapi.json by src/http/local.mk: do not edit. */'; \
	echo '#include "http/openapi.h"'; \
	echo 'const char openapi_json[] ='; \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
		src/http/openapi.json; \
	echo ';'; \
	echo 'const size_t openapi_json_len = sizeof openapi_json - 1;'; \
	} >$@.tmp && mv $@.tmp $@
CLEANFILES += src/http/openapi.json src/http/openapi.json.lists src/http/openapi.json.tmp \
	src/http/openapi_json.c
# the whole folder: an unlisted part is shipped too
EXTRA_DIST += src/http/openapi.awk src/http/openapi

# The dashboard (src/http/www/) and Chart.js (configure's CHARTJS, Debian's
# libjs-chart.js, served as /chart.min.js) are embedded in the program too: no
# CDN, works offline. Each page (*.html) holds only its own part; the head and
# navigation they share are WWW_FRAME's, put around each page as it is embedded.
WWW_FRAME = $(srcdir)/src/http/www/frame.html
WWW_FILES = \
	$(srcdir)/src/http/www/index.html \
	$(srcdir)/src/http/www/sweep.html \
	$(srcdir)/src/http/www/drop.html \
	$(srcdir)/src/http/www/hold.html \
	$(srcdir)/src/http/www/live.html \
	$(srcdir)/src/http/www/model.html \
	$(srcdir)/src/http/www/api.html \
	$(srcdir)/src/http/www/style.css \
	$(srcdir)/src/http/www/common.js \
	$(srcdir)/src/http/www/index.js \
	$(srcdir)/src/http/www/heatmap.js \
	$(srcdir)/src/http/www/sweep.js \
	$(srcdir)/src/http/www/drop.js \
	$(srcdir)/src/http/www/hold.js \
	$(srcdir)/src/http/www/live.js \
	$(srcdir)/src/http/www/model.js \
	$(srcdir)/src/http/www/api.js
src/http/static_files.c: $(srcdir)/src/http/embed-www.sh $(srcdir)/src/http/www-page.sh \
		$(WWW_FRAME) $(WWW_FILES) $(CHARTJS)
	$(AM_V_GEN)$(MKDIR_P) src/http && \
	$(SHELL) $(srcdir)/src/http/embed-www.sh -f $(WWW_FRAME) $(WWW_FILES) \
		chart.min.js=$(CHARTJS) >$@.tmp && mv $@.tmp $@
BUILT_SOURCES += src/http/static_files.c
CLEANFILES += src/http/static_files.c
EXTRA_DIST += src/http/embed-www.sh src/http/www-page.sh $(WWW_FRAME) $(WWW_FILES)
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/http/knobs.h
