# http_lib.sh: shell helpers for tests/test_nginx.sh and bench/bench_http.sh (sourced).
#
# start_contactd DIR [ARG]...  contactd on a free port with DIR/cache.db, its log in
#                              DIR/contactd.log; sets daemon_pid and port.
# start_nginx DIR SITE [N]     nginx (N worker processes, default 1) with every file
#                              in DIR, on a free port; SITE is a function that prints
#                              the http {} level configuration for the port it is
#                              given. Sets nport.
# stop_all                     stop both (for a trap), leaving DIR to the caller.
# Needs CONTACTD and NGINX set.

lib_dir=
daemon_pid=
port=
nport=

start_contactd() {
	lib_dir=$1
	shift
	"$CONTACTD" --port 0 --db "$lib_dir/cache.db" "$@" 2>"$lib_dir/contactd.log" &
	daemon_pid=$!
	for _ in $(seq 1 600); do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$lib_dir/contactd.log")
		[ -n "$port" ] && return 0
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "contactd did not start: $(cat "$lib_dir/contactd.log")" >&2
	return 1
}

start_nginx() {
	lib_dir=$1
	site=$2
	workers=${3:-1}
	user_line=
	# As root, nginx would run its workers as nobody, who cannot read DIR.
	[ "$(id -u)" = 0 ] && user_line="user root;"
	mkdir -p "$lib_dir/nginx"
	# nginx cannot take port 0: try random high ports until one is free.
	for _ in $(seq 1 20); do
		nport=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
		{
			echo "$user_line"
			echo "worker_processes $workers;"
			echo "pid $lib_dir/nginx.pid;"
			echo "error_log $lib_dir/nginx.error.log;"
			echo "events { worker_connections 1024; }"
			echo "http {"
			echo "	client_body_temp_path $lib_dir/nginx/body;"
			echo "	proxy_temp_path $lib_dir/nginx/proxy;"
			echo "	fastcgi_temp_path $lib_dir/nginx/fastcgi;"
			echo "	uwsgi_temp_path $lib_dir/nginx/uwsgi;"
			echo "	scgi_temp_path $lib_dir/nginx/scgi;"
			"$site" "$nport"
			echo "}"
		} >"$lib_dir/nginx.conf"
		"$NGINX" -p "$lib_dir/nginx" -c "$lib_dir/nginx.conf" 2>"$lib_dir/nginx.start.log" && return 0
		grep -q "Address already in use" "$lib_dir/nginx.start.log" || break
	done
	nport=
	echo "nginx did not start: $(cat "$lib_dir/nginx.start.log")" >&2
	return 1
}

stop_all() {
	[ -n "$nport" ] && [ -f "$lib_dir/nginx.pid" ] && kill "$(cat "$lib_dir/nginx.pid")" 2>/dev/null
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid"
	return 0
}
