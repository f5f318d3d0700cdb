# cli: the `contact` tool, a front end over the service layer beside the daemon.
bin_PROGRAMS += contact
contact_SOURCES = src/cli/contact.c src/cli/figure.c src/cli/figure.h src/cli/plot.c src/cli/plot.h
# the HTTP statuses of eval's failed calls (the contract's), the same table as the daemon's
contact_SOURCES += src/http/status.c src/http/status.h
contact_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(XML_CFLAGS)
contact_LDADD = $(SERVICE_LIBS) $(CLI_XML_LIBS)
# static where configure found it links (--disable-static-cli: shared)
contact_LDFLAGS = $(AM_LDFLAGS) $(CLI_LDFLAGS)
dist_man_MANS += man/contact.1
