# service: parsing, validation and the request handlers shared by the CLI and
# the daemon. Depends on the core, the base and jansson; one module per prefix.
noinst_LIBRARIES += libservice.a
libservice_a_SOURCES = \
	src/service/request.c src/service/request.h \
	src/service/answer.c src/service/answer.h \
	src/service/endpoint.c src/service/endpoint.h \
	src/service/rest.c src/service/drop.c src/service/stability.c \
	src/service/vary.c src/service/vary.h \
	src/service/sceneset.c src/service/sceneset.h \
	src/service/sweep.c src/service/sweep.h src/service/sweep_int.h \
	src/service/sweep_run.c src/service/sweep_csv.c \
	src/service/shard.c src/service/shard.h \
	src/service/find.c src/service/find.h \
	src/service/eval.c src/service/eval.h \
	src/service/grade.c src/service/grade.h \
	src/service/hint.c src/service/hint.h \
	src/service/hold.c src/service/hold.h \
	src/service/calask.c src/service/calask.h \
	src/service/model.c \
	src/service/service.c src/service/service.h \
	src/service/budget.c src/service/budget.h
libservice_a_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) $(XML_CFLAGS)
# What a front end links: the service, the base and the core beneath it, jansson and threads.
SERVICE_LIBS = libservice.a libmodel.a $(BASE_LIBS) $(CORE_LIBS) $(JANSSON_LIBS) $(XML_LIBS) -lpthread
# how to add an endpoint: its row, its kind, the files it touches
EXTRA_DIST += docs/endpoints.md
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/service/knobs.h
