# pg_lib.sh: a throw-away PostgreSQL server for the tests (sourced, not run).
#
# pg_start DIR   initdb and start a server in DIR/pg as the postgres user (the tests may
#                run as root, which PostgreSQL refuses to be), listening on 127.0.0.1 on a
#                free port and on a unix socket in DIR; sets pg_url (a libpq URI for the
#                database "contactd") and pg_port. DIR must be readable by postgres.
# pg_stop        stop it now (fast shutdown); pg_restart starts it again on the same port.
# pg_sql SQL     run SQL in the database, printing bare rows.
# Needs PG_BIN (default: Debian's /usr/lib/postgresql/NN/bin).

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
pg_dir=
pg_port=
pg_url=

pg_as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

pg_start() {
	pg_dir=$1/pg
	[ -x "$PG_BIN/initdb" ] || { echo "PostgreSQL not found (deploy/setup-debian.sh installs it)" >&2; return 1; }
	mkdir -p "$pg_dir"
	[ "$(id -u)" = 0 ] && chown postgres "$1" "$pg_dir"
	chmod 755 "$1"
	pg_as "$PG_BIN/initdb" -D "$pg_dir/data" -U postgres -A trust --no-sync -E UTF8 \
		--locale=C >"$pg_dir/initdb.log" 2>&1 || { cat "$pg_dir/initdb.log" >&2; return 1; }
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		pg_port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
		pg_restart && break
		pg_port=
	done
	[ -n "$pg_port" ] || return 1
	pg_as "$PG_BIN/createdb" -h "$pg_dir" -p "$pg_port" -U postgres contactd || return 1
	pg_url="postgresql://postgres@127.0.0.1:$pg_port/contactd"
}

pg_restart() {
	pg_as "$PG_BIN/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 30 \
		-o "-p $pg_port -k $pg_dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" \
		start >/dev/null 2>&1
}

pg_stop() {
	[ -n "$pg_dir" ] && [ -f "$pg_dir/data/postmaster.pid" ] &&
		pg_as "$PG_BIN/pg_ctl" -D "$pg_dir/data" -m fast -w stop >/dev/null 2>&1
	return 0
}

pg_sql() {
	pg_as "$PG_BIN/psql" -h "$pg_dir" -p "$pg_port" -U postgres -d contactd -qAtX -v ON_ERROR_STOP=1 -c "$1"
}
