# model: a user's MJCF as a MuJoCo release (2.2.0-3.14.0) compiles and collides it (issue 30): loading the
# document and its includes with libxml2 (mjcf), the compiler's defaults, classes, bodies
# and geoms (model), their option (option), frames (frame), joints, actuators and keyframes (drive), the geom pairs with their mixed parameters and warnings (pairs), and
# the rest answers the core gives exactly (rest), and the grasps that are the hold question's
# scene (grasp). Depends on the core and base only, and
# libxml2; no JSON (jansson's headers only because base/error.h includes them).
noinst_LIBRARIES += libmodel.a
libmodel_a_SOURCES = \
	src/model/mjcf.c src/model/mjcf.h \
	src/model/model.c src/model/model.h \
	src/model/pairs.c src/model/pairs.h \
	src/model/rest.c src/model/rest.h \
	src/model/grasp.c src/model/grasp.h \
	src/model/frame.c src/model/frame.h \
	src/model/drive.c src/model/drive.h \
	src/model/option.c src/model/option.h \
	src/model/notes.c src/model/notes.h src/model/types.h
libmodel_a_CFLAGS = $(AM_CFLAGS) $(XML_CFLAGS) $(GSL_CFLAGS) $(JANSSON_CFLAGS)
# What a program that reads models links: the model layer, the base and the core beneath it.
MODEL_LIBS = libmodel.a $(BASE_LIBS) $(CORE_LIBS) $(XML_LIBS) -lpthread
EXTRA_DIST += docs/model.md
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/model/knobs.h
