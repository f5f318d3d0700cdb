# cli: the `contact` tool, a front end over the service layer beside the daemon.
bin_PROGRAMS += contact
contact_SOURCES = src/cli/contact.c src/cli/figure.c src/cli/figure.h src/cli/holdflag.c \
	src/cli/holdflag.h src/cli/plot.c src/cli/plot.h
contact_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(XML_CFLAGS)
contact_LDADD = $(SERVICE_LIBS) $(CLI_XML_LIBS)
# static where configure found it links (--disable-static-cli: shared)
contact_LDFLAGS = $(AM_LDFLAGS) $(CLI_LDFLAGS)
dist_man_MANS += man/contact.1
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/cli/knobs.h
