# lib: the installed library, libcontactd (static and shared): the public header
# include/contactd.h's functions over the contact core (src/lib/capi.c: the public structs
# copied to the core's and back) and the one JSON entry point ctd_answer() with the list
# of what it answers, ctd_endpoints() (src/lib/answer.c), a front end over the service
# layer beside the CLI and the daemon.
# The service, model and base sources are compiled a second time here,
# position-independent and with hidden visibility, so that the shared library exports
# exactly what the public header declares (CTD_API; tests/install_test.sh checks both
# lists).
noinst_LTLIBRARIES += libanswer.la
libanswer_la_SOURCES = src/lib/answer.c src/lib/capi.c include/contactd.h \
	$(libservice_a_SOURCES) $(libmodel_a_SOURCES) $(libbase_a_SOURCES)
libanswer_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) $(XML_CFLAGS) \
	-fvisibility=hidden

# -version-info is current:revision:age (libtool's rules: add an interface, current+1
# and age+1; change or remove one, current+1, age 0). 4:0:0: struct ctd_hold's layout
# changed (issue 48: the object's shape and size[3] replace radius, each pad's joint and
# actuator added), so interface 3's programs cannot use this library and the soname is
# libcontactd.so.4 (current - age). (3:0:1: ctd_endpoints() added, the soname staying
# libcontactd.so.2. 2:0:0: ctd_answer() and ctd_answer_free() added, and struct
# ctd_hold_answer gained refsafe_replaced (its size changed, so interface 1's programs
# cannot use this library). 1:0:0: the hand-written header dropped the solver's state,
# the scene model and the test hooks from the interface.)
lib_LTLIBRARIES += libcontactd.la
libcontactd_la_SOURCES =
libcontactd_la_LIBADD = libanswer.la libcore.la $(JANSSON_LIBS) $(XML_LIBS) $(GSL_LIBS) \
	-lpthread -lm
libcontactd_la_LDFLAGS = -version-info 4:0:0

# The one public header, written by hand (include/contactd.h): installed as is.
include_HEADERS = include/contactd.h

pkgconfigdir = $(libdir)/pkgconfig
nodist_pkgconfig_DATA = contactd.pc
EXTRA_DIST += contactd.pc.in

# The static archive as installed: its objects linked into one (ld -r) whose hidden
# names objcopy makes local, so that, as the shared library exports, it defines no
# global name but the header's (a program linking it statically meets no svc_, err_
# or json_ helper of ours beside its own names).
install-exec-hook: install-static-localize
install-static-localize:
	@a='$(DESTDIR)$(libdir)/libcontactd.a'; \
	if test -f "$$a"; then \
	  d="$$a.d"; rm -rf "$$d" && $(MKDIR_P) "$$d" && \
	  $(LD) -r -o "$$d/contactd.o" --whole-archive "$$a" && \
	  $(OBJCOPY) --localize-hidden "$$d/contactd.o" && \
	  rm -f "$$a" && $(AR) cr "$$a" "$$d/contactd.o" && $(RANLIB) "$$a" && rm -rf "$$d"; \
	fi
.PHONY: install-static-localize
