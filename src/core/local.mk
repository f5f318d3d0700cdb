# core: pure computation, no I/O. Depends on nothing but libm and GSL.
# Built once, as a libtool convenience library: linked statically into the programs and
# tests (CORE_LIBS), and installed whole as libcontactd (static and shared), whose
# shared library exports only the ctd_ names.
noinst_LTLIBRARIES += libcore.la
libcore_la_SOURCES = \
	src/core/law.c src/core/law.h \
	src/core/mjver.c src/core/mjver.h \
	src/core/pair.c src/core/pair.h \
	src/core/scene.c src/core/scene.h \
	src/core/sim.c src/core/sim.h \
	src/core/lanes.c src/core/lanes.h src/core/lanes_kernel.h src/core/lanes512.c \
	src/core/growth.c src/core/growth.h \
	src/core/pinch.c src/core/pinch.h \
	src/core/noslip.c src/core/noslip.h \
	src/core/hold.c src/core/hold.h
# no contraction (a*b+c fused): every answer keeps MuJoCo's rounding, and ctd_lanes the
# scalar code's, bit for bit (lanes.c also forbids it in its source, whatever CFLAGS say)
libcore_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
CORE_LIBS = libcore.la $(GSL_LIBS) -lm

# The installed library: the same objects. -version-info is current:revision:age
# (libtool's rules: add an interface, current+1 and age+1; change one, current+1, age 0).
lib_LTLIBRARIES += libcontactd.la
libcontactd_la_SOURCES =
libcontactd_la_LIBADD = libcore.la $(GSL_LIBS) -lm
libcontactd_la_LDFLAGS = -version-info 0:0:0 -export-symbols-regex '^ctd_'

# The one public header, contactd.h: the core's headers in dependency order, joined
# (their "core/..." includes dropped, include guards renamed to the ctd_ prefix).
CORE_PUBLIC_H_FILES = \
	$(srcdir)/src/core/law.h $(srcdir)/src/core/mjver.h $(srcdir)/src/core/pair.h \
	$(srcdir)/src/core/scene.h $(srcdir)/src/core/growth.h $(srcdir)/src/core/sim.h \
	$(srcdir)/src/core/lanes.h $(srcdir)/src/core/hold.h
nodist_include_HEADERS = contactd.h
contactd.h: $(srcdir)/src/core/local.mk $(CORE_PUBLIC_H_FILES)
	$(AM_V_GEN){ \
	echo '/* contactd.h: the contact core of contactd $(VERSION) (libcontactd), MuJoCo soft'; \
	echo ' * contacts for a sphere or a box on a plane. Every name is prefixed ctd_ or CTD_.'; \
	echo ' * Link with `pkg-config --cflags --libs contactd`. Generated from the sources'"'"; \
	echo ' * src/core/{law,mjver,pair,scene,growth,sim,lanes,hold}.h at build time: do not edit. */'; \
	echo '#ifndef CTD_CONTACTD_H'; \
	echo '#define CTD_CONTACTD_H'; \
	echo '#define CTD_VERSION "$(VERSION)"'; \
	echo '#ifdef __cplusplus'; echo 'extern "C" {'; echo '#endif'; \
	for h in $(CORE_PUBLIC_H_FILES); do \
		echo; sed -e '/^#include "core\//d' \
			-e 's/CONTACTD_CORE_\([A-Z0-9_]*\)_H/CTD_\1_H/g' "$$h" || exit 1; \
	done; \
	echo; echo '#ifdef __cplusplus'; echo '}'; echo '#endif'; echo '#endif'; \
	} >$@.tmp && mv $@.tmp $@
BUILT_SOURCES += contactd.h
CLEANFILES += contactd.h

pkgconfigdir = $(libdir)/pkgconfig
nodist_pkgconfig_DATA = contactd.pc
EXTRA_DIST += contactd.pc.in
