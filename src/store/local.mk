# store: the SQLite database (answer cache, shared connections, migrations).
# Beside the service layer; depends on nothing of ours but src/base/.
noinst_LIBRARIES += libstore.a
libstore_a_SOURCES = src/store/store.c src/store/store.h
nodist_libstore_a_SOURCES = src/store/schema_sql.c
libstore_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(SODIUM_CFLAGS)
STORE_LIBS = libstore.a $(BASE_LIBS) $(SQLITE_LIBS) $(SODIUM_LIBS)

# Every schema/NNN_*.sql is embedded in the program and applied in order at start
# (store_migrate()). Add a migration by adding the file: the glob picks it up.
STORE_SCHEMA = $(srcdir)/schema/[0-9][0-9][0-9]_*.sql
src/store/schema_sql.c: $(srcdir)/src/store/embed-schema.sh $(STORE_SCHEMA)
	$(AM_V_GEN)$(MKDIR_P) src/store && \
	$(SHELL) $(srcdir)/src/store/embed-schema.sh $(STORE_SCHEMA) >$@.tmp && mv $@.tmp $@
BUILT_SOURCES += src/store/schema_sql.c
CLEANFILES += src/store/schema_sql.c
EXTRA_DIST += src/store/embed-schema.sh
# calibration (issue #4): robots, tokens, calibrations, measurements, fits
libstore_a_SOURCES += src/store/calstore.c src/store/calstore.h src/store/sq_stmt.c src/store/sq_stmt.h \
	src/store/calsql.h
libstore_a_CFLAGS += $(JANSSON_CFLAGS)
# The calibration store on PostgreSQL (issue #18), shared by several contactd nodes: its
# migrations are schema/pg/NNN_*.sql, embedded as pgschema_migrations[].
libstore_a_SOURCES += src/store/pgstore.c src/store/pgstore.h \
	src/store/pg_conn.c src/store/pg_conn.h src/store/pg_schema.c src/store/pg_schema.h \
	src/store/pg_listen.c src/store/pg_listen.h src/store/pg_token.c src/store/pg_token.h
nodist_libstore_a_SOURCES += src/store/pg_schema_sql.c
libstore_a_CFLAGS += $(PQ_CFLAGS)
STORE_LIBS += $(PQ_LIBS) -lpthread
PGSTORE_SCHEMA = $(srcdir)/schema/pg/[0-9][0-9][0-9]_*.sql
src/store/pg_schema_sql.c: $(srcdir)/src/store/embed-schema.sh $(PGSTORE_SCHEMA)
	$(AM_V_GEN)$(MKDIR_P) src/store && \
	$(SHELL) $(srcdir)/src/store/embed-schema.sh -p pgschema $(PGSTORE_SCHEMA) >$@.tmp && \
	mv $@.tmp $@
BUILT_SOURCES += src/store/pg_schema_sql.c
CLEANFILES += src/store/pg_schema_sql.c
# the layer's knobs: its limits, defaults and tolerances
noinst_HEADERS += src/store/knobs.h
