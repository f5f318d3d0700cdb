#!/bin/sh
# test_nginx.sh: a real nginx, configured with deploy/nginx.conf, in front of a real
# contactd: a question through nginx gets the daemon's very bytes, and nginx's own
# rejections keep the contract's JSON error form.
#
# Run by `make check` from the top build directory, with srcdir set by automake.
set -eu
CONTACTD=${CONTACTD:-./contactd}
NGINX=${NGINX:-$(PATH="$PATH:/usr/sbin:/sbin" command -v nginx || true)}
CURL=${CURL:-$(command -v curl || true)}
srcdir=${srcdir:-.}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ -n "$NGINX" ] && [ -x "$NGINX" ] || fail "nginx not found (deploy/setup-debian.sh installs it)"
[ -n "$CURL" ] && [ -x "$CURL" ] || fail "curl not found (deploy/setup-debian.sh installs it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-nginx.XXXXXX")
daemon_pid=
cleanup() {
	[ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null || true
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# contactd on a free port; its log tells which.
"$CONTACTD" --port 0 --db "$tmp/cache.db" 2>"$tmp/contactd.log" &
daemon_pid=$!
port=
for _ in $(seq 1 600); do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$tmp/contactd.log")
	[ -n "$port" ] && break
	kill -0 "$daemon_pid" 2>/dev/null || fail "contactd exited: $(cat "$tmp/contactd.log")"
	sleep 0.1
done
[ -n "$port" ] || fail "contactd did not start"

# nginx: the deployed snippet, pointed at that port, inside a minimal main config
# that keeps every file in the temporary directory. nginx cannot take port 0, so try
# random high ports until one is free.
mkdir -p "$tmp/nginx"
user_line=
[ "$(id -u)" = 0 ] && user_line="user root;"
started=
for _ in $(seq 1 20); do
	nport=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
	sed -e "s/server 127\.0\.0\.1:8750 /server 127.0.0.1:$port /" \
	    -e "s/listen 80;/listen 127.0.0.1:$nport;/" \
	    "$srcdir/deploy/nginx.conf" >"$tmp/contactd.conf"
	grep -q "127.0.0.1:$port " "$tmp/contactd.conf" || fail "upstream line not found"
	grep -q "listen 127.0.0.1:$nport;" "$tmp/contactd.conf" || fail "listen line not found"
	cat >"$tmp/nginx.main.conf" <<CONF
$user_line
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/nginx.error.log;
events { worker_connections 64; }
http {
	access_log $tmp/nginx.access.log;
	client_body_temp_path $tmp/nginx/body;
	proxy_temp_path $tmp/nginx/proxy;
	fastcgi_temp_path $tmp/nginx/fastcgi;
	uwsgi_temp_path $tmp/nginx/uwsgi;
	scgi_temp_path $tmp/nginx/scgi;
	include $tmp/contactd.conf;
}
CONF
	if "$NGINX" -p "$tmp/nginx" -c "$tmp/nginx.main.conf" 2>"$tmp/nginx.start.log"; then
		started=yes
		break
	fi
	grep -q "Address already in use" "$tmp/nginx.start.log" ||
		fail "nginx did not start: $(cat "$tmp/nginx.start.log")"
done
[ -n "$started" ] || fail "no free port for nginx"

ask() { # ask PORT PATH BODY OUT: POST, write the body to OUT, print the status
	"$CURL" -sS -o "$4" -w '%{http_code}' -H 'Content-Type: application/json' \
		--data-binary "$3" "http://127.0.0.1:$1$2"
}

request='{"body": {"shape": "box", "size": 0.05, "mass": 1.0}}'
status=$(ask "$nport" /v1/rest "$request" "$tmp/via-nginx")
[ "$status" = 200 ] || fail "through nginx: status $status: $(cat "$tmp/via-nginx")"
status=$(ask "$port" /v1/rest "$request" "$tmp/direct")
[ "$status" = 200 ] || fail "direct: status $status"
cmp "$tmp/via-nginx" "$tmp/direct" || fail "nginx changed the answer's bytes"
grep -q '"POST /v1/rest HTTP/1.1" 200' "$tmp/nginx.access.log" ||
	fail "the request did not go through nginx"

# The daemon's own rejection passes through unchanged.
status=$(ask "$nport" /v1/rest '{"bogus": 1}' "$tmp/bad")
[ "$status" = 400 ] || fail "unknown field through nginx: $status"
grep -q '"error":"unknown_field"' "$tmp/bad" || fail "not contactd's error: $(cat "$tmp/bad")"

# nginx's own 413 is the contract's JSON error.
head -c 1100000 /dev/zero | tr '\0' ' ' >"$tmp/big.json"
status=$(ask "$nport" /v1/rest "@$tmp/big.json" "$tmp/too-large")
[ "$status" = 413 ] || fail "oversized body through nginx: $status"
grep -q '"error":"too_large"' "$tmp/too-large" || fail "413 body: $(cat "$tmp/too-large")"

# Health through nginx.
"$CURL" -sS -f "http://127.0.0.1:$nport/v1/health" | grep -q '"status":"ok"' ||
	fail "health through nginx"
echo "PASS: nginx on port $nport fronts contactd on port $port"
