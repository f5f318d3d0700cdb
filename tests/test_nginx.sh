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
. "$srcdir/tests/http_lib.sh"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ -n "$NGINX" ] && [ -x "$NGINX" ] || fail "nginx not found (deploy/setup-debian.sh installs it)"
[ -n "$CURL" ] && [ -x "$CURL" ] || fail "curl not found (deploy/setup-debian.sh installs it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-nginx.XXXXXX")
trap 'stop_all; rm -rf "$tmp"' EXIT INT TERM

start_contactd "$tmp" --cors-origin http://lab.example || fail "contactd did not start"

# The deployed snippet, pointed at the daemon's port and listening on nginx's.
deployed_site() {
	echo "access_log $tmp/nginx.access.log;"
	sed -e "s/server 127\.0\.0\.1:8750 /server 127.0.0.1:$port /" \
	    -e "s/listen 80;/listen 127.0.0.1:$1;/" "$srcdir/deploy/nginx.conf"
}
grep -q "server 127.0.0.1:8750 " "$srcdir/deploy/nginx.conf" || fail "upstream line not found"
grep -q "listen 80;" "$srcdir/deploy/nginx.conf" || fail "listen line not found"
start_nginx "$tmp" deployed_site || fail "nginx did not start"

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

# A batch over 1 MiB (10,000 eval calls of ordinary arguments) reaches contactd and is
# answered: nginx's limit at /v1/eval is the batch's, not --max-body's.
awk 'BEGIN { printf "{\"calls\": ["; for (i = 0; i < 10000; i++) printf "%s{\"function\": \"contact_accel\", \"args\": {\"dist\": -0.0005, \"vel\": -0.01234567, \"a0\": -9.81, \"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}}", i ? ", " : ""; printf "]}" }' >"$tmp/batch.json"
[ "$(wc -c <"$tmp/batch.json")" -gt 1048576 ] || fail "the batch is not over 1 MiB"
status=$(ask "$nport" /v1/eval "@$tmp/batch.json" "$tmp/batch.out")
[ "$status" = 200 ] || fail "a 10,000-call batch through nginx: $status $(head -c 300 "$tmp/batch.out")"
grep -q '"failed":0,' "$tmp/batch.out" || fail "the batch's calls failed: $(head -c 300 "$tmp/batch.out")"

# Health through nginx.
"$CURL" -sS -f "http://127.0.0.1:$nport/v1/health" | grep -q '"status":"ok"' ||
	fail "health through nginx"
# CORS through nginx: the preflight and the answer's headers are contactd's, once each.
"$CURL" -sS -D "$tmp/preflight" -o /dev/null -X OPTIONS -H 'Origin: http://lab.example' \
	-H 'Access-Control-Request-Method: POST' "http://127.0.0.1:$nport/v1/sweep"
grep -q '^HTTP/1.1 204' "$tmp/preflight" || fail "preflight through nginx: $(cat "$tmp/preflight")"
[ "$(grep -c -i '^Access-Control-Allow-Origin: http://lab.example' "$tmp/preflight")" = 1 ] ||
	fail "preflight's Allow-Origin: $(cat "$tmp/preflight")"
"$CURL" -sS -D "$tmp/cors" -o /dev/null -H 'Origin: http://lab.example' \
	-H 'Content-Type: application/json' --data-binary "$request" "http://127.0.0.1:$nport/v1/rest"
grep -q -i '^Vary: Origin' "$tmp/cors" || fail "no Vary: Origin through nginx: $(cat "$tmp/cors")"
grep -q -i '^Access-Control-Allow-Origin: http://lab.example' "$tmp/cors" ||
	fail "no Allow-Origin through nginx"

# The dashboard through nginx; a POST to a page is nginx's JSON 403.
"$CURL" -sS -f "http://127.0.0.1:$nport/" | grep -q 'sweep.html' || fail "dashboard through nginx"
status=$("$CURL" -sS -o "$tmp/page-post" -w '%{http_code}' -d x "http://127.0.0.1:$nport/")
[ "$status" = 403 ] && grep -q '"error":"forbidden"' "$tmp/page-post" ||
	fail "POST / through nginx: $status $(cat "$tmp/page-post")"
# Ambiguous framing, each with a request smuggled after it: nginx answers one 400 (the
# contract's JSON) and closes; contactd never sees it. raw_http sends the bytes as is.
RAW_HTTP=${RAW_HTTP:-./tests/raw_http}
head='POST /v1/rest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
smuggled='GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n'
for framing in 'Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}' \
	'Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n2\r\n{}\r\n0\r\n\r\n' \
	'Transfer-Encoding : chunked\r\nContent-Length: 2\r\n\r\n{}' \
	'Transfer-Encoding:\r\n chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n' \
	'Content-Length: +2\r\n\r\n{}' \
	'Content-Length: 2, 2\r\n\r\n{}'; do
	printf "$head$framing$smuggled" | "$RAW_HTTP" "$nport" >"$tmp/framing" ||
		fail "nginx kept the connection open after: $framing"
	[ "$(grep -c '^HTTP/1.1 ' "$tmp/framing")" = 1 ] ||
		fail "not one answer to $framing: $(cat "$tmp/framing")"
	head -n 1 "$tmp/framing" | grep -q '^HTTP/1.1 400 ' && grep -q '"error":"bad_request"' "$tmp/framing" ||
		fail "not a JSON 400 for $framing: $(cat "$tmp/framing")"
done
# Request lines nginx cannot parse have no URI: a named error location cannot take them
# (nginx's 500 HTML page, "empty URI in redirect to named location"); the snippet's
# internal URI locations answer them with the contract's JSON 400.
for line in 'GARBAGE\r\n\r\n' 'post /v1/drop HTTP/1.1\r\nHost: x\r\n\r\n' \
	'GET /v1/health%%00 HTTP/1.1\r\nHost: x\r\n\r\n'; do
	printf "$line" | "$RAW_HTTP" "$nport" 5 >"$tmp/line" || true
	head -n 1 "$tmp/line" | grep -q '^HTTP/1.1 400 ' && grep -q '"error":"bad_request"' "$tmp/line" ||
		fail "not a JSON 400 for the request line $line: $(cat "$tmp/line")"
done
# What libmicrohttpd 0.9.75 answers itself, before contactd could (its HTML, a length's
# header block written twice; docs/operations.md, known limits): nginx answers one JSON
# error. Content-Length values that are not a plain number, or overflow...
for length in '-1' '0x2' '2.0' '2e0' '' '99999999999999999999999'; do
	printf "${head}Content-Length: $length\r\n\r\n{}$smuggled" | "$RAW_HTTP" "$nport" 5 >"$tmp/length" || true
	[ "$(grep -c '^HTTP/1.1 ' "$tmp/length")" = 1 ] ||
		fail "not one answer to Content-Length '$length': $(cat "$tmp/length")"
	head -n 1 "$tmp/length" | grep -q '^HTTP/1.1 400 ' && grep -q '"error":"bad_request"' "$tmp/length" ||
		fail "not a JSON 400 for Content-Length '$length': $(cat "$tmp/length")"
done
# ... a NUL in a header value, a folded ordinary header line, a request target or a
# header block too large, and HTTP/0.9.
big=$(head -c 70000 /dev/zero | tr '\0' a)
for req in "GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: b\000c\r\n\r\n" \
	"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n" \
	"GET /v1/health?$big HTTP/1.1\r\nHost: x\r\n\r\n" \
	"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: $big\r\n\r\n"; do
	printf "$req" | "$RAW_HTTP" "$nport" 5 >"$tmp/odd" || true
	shown=$(printf '%.60s' "$req")
	[ "$(grep -c '^HTTP/1.1 ' "$tmp/odd")" = 1 ] || fail "not one answer to $shown: $(head -c 300 "$tmp/odd")"
	head -n 1 "$tmp/odd" | grep -q '^HTTP/1.1 4[01][0-9] ' && grep -q '"error":"' "$tmp/odd" ||
		fail "not a JSON 4xx for $shown: $(head -c 300 "$tmp/odd")"
done
# HTTP/0.9 has no status line or headers: nginx answers it as 0.9, the body alone (here
# contactd's JSON), where libmicrohttpd alone answers an HTML 400.
printf 'GET /v1/health\r\n' | "$RAW_HTTP" "$nport" 5 >"$tmp/v09" || true
head -c 1 "$tmp/v09" | grep -q '{' && grep -q '"status":"ok"' "$tmp/v09" ||
	fail "HTTP/0.9 through nginx: $(head -c 300 "$tmp/v09")"
# The error locations are internal: asked for from outside, they are not found.
status=$("$CURL" -sS -o "$tmp/internal" -w '%{http_code}' "http://127.0.0.1:$nport/.contactd-error/400")
[ "$status" = 404 ] && grep -q '"error":"not_found"' "$tmp/internal" ||
	fail "the internal error location answered from outside: $status $(cat "$tmp/internal")"

echo "PASS: nginx on port $nport fronts contactd on port $port"
