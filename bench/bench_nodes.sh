#!/bin/sh
# bench_nodes.sh: questions/s and uploads/s through nginx with 1, 2 and 3 contactd nodes
# sharing one PostgreSQL calibration store (issue #18). Run by `make bench-nodes` (never by
# `make check`). Starts its own PostgreSQL (tests/pg_lib.sh), nodes and nginx.
#
#   questions  POST /v1/drop, every request a new question (computed, never cached)
#   uploads    POST /v1/calibrations/{id}/measurements of one press, spread over 60
#              calibrations (each committed durably in PostgreSQL; each leaves a refit)
#
# Prints requests/s per node count and the ratio to one node. On a machine with fewer
# cores than nodes the nodes share the cores, so questions cannot scale there; uploads
# are bound by PostgreSQL's commits.
# Environment: CONTACTD (default ./contactd), BENCH_DURATION seconds per run (default 5),
# BENCH_CONNECTIONS (default 16).
set -eu
CONTACTD=${CONTACTD:-./contactd}
NGINX=${NGINX:-$(PATH="$PATH:/usr/sbin:/sbin" command -v nginx || true)}
WRK=${WRK:-$(command -v wrk || true)}
duration=${BENCH_DURATION:-5}
conns=${BENCH_CONNECTIONS:-16}
srcdir=${srcdir:-$(dirname "$0")/..}
for tool in "$NGINX" "$WRK"; do
	[ -n "$tool" ] && [ -x "$tool" ] || {
		echo "bench_nodes.sh: needs nginx and wrk (deploy/setup-debian.sh)" >&2
		exit 1
	}
done
. "$srcdir/tests/pg_lib.sh"
. "$srcdir/tests/http_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-bench-nodes.XXXXXX")
pids=
stop_nodes() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	pids=
	[ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null
	sleep 0.3
	return 0
}
trap 'stop_nodes; pg_stop; rm -rf "$tmp"' EXIT INT TERM
pg_start "$tmp" >/dev/null || exit 1

# One robot, 60 calibrations (made once, through the first node).
token=$("$CONTACTD" --db "$tmp/cli.db" --store "$pg_url" token create benchbot | sed -n 's/^token: //p')

start_nodes() { # start_nodes N: N nodes; their ports in $tmp/ports
	: >"$tmp/ports"
	for n in $(seq 1 "$1"); do
		"$CONTACTD" --port 0 --db "$tmp/node$n.db" --store "$pg_url" \
			--max-connections-per-ip 0 >"$tmp/node$n.log" 2>&1 &
		pids="$pids $!"
		for _ in $(seq 1 200); do
			p=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$tmp/node$n.log")
			[ -n "$p" ] && break
			sleep 0.05
		done
		echo "$p" >>"$tmp/ports"
	done
}
site() {
	echo "access_log off;"
	echo "upstream contactd_nodes {"
	while read -r p; do echo "	server 127.0.0.1:$p;"; done <"$tmp/ports"
	echo "	keepalive 64;"
	echo "}"
	echo "server { listen 127.0.0.1:$1; location / { proxy_pass http://contactd_nodes;"
	echo "	proxy_http_version 1.1; proxy_set_header Connection \"\"; } }"
}

cat >"$tmp/drop.lua" <<'LUA'
local counter, id = 0, 0
function setup(thread) thread:set("id", setup_count or 0); setup_count = (setup_count or 0) + 1 end
function init(args) id = wrk.thread:get("id") or 0; run = tonumber(args[1]) end
function request()
	counter = counter + 1
	local n = (run * 64 + id) * 1000000 + counter
	local body = '{"body": {"shape": "sphere", "size": 0.05, "mass": 1}, "duration": '
		.. string.format("%.12f", 2 + n * 1e-12) .. '}'
	return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
LUA
cat >"$tmp/upload.lua" <<LUA
local counter, id = 0, 0
function setup(thread) thread:set("id", setup_count or 0); setup_count = (setup_count or 0) + 1 end
function init(args) id = wrk.thread:get("id") or 0; first = tonumber(args[1]) end
function request()
	counter = counter + 1
	local cal = first + (counter * 7 + id) % 60
	local f = 11 + (counter % 50) -- the total force: over the 1 kg default object's weight
	local body = '{"presses": [{"force": ' .. f .. ', "deflection": ' .. f .. '.3e-6}]}'
	return wrk.format("POST", "/v1/calibrations/" .. cal .. "/measurements",
		{["Content-Type"] = "application/json", ["Authorization"] = "Bearer $token"}, body)
end
LUA

# run SCENARIO NODES URL SCRIPT ARG: appends "SCENARIO NODES RPS" to results.
run() {
	"$WRK" -t2 -c"$conns" -d"${duration}s" -s "$4" "$3" -- "$5" >"$tmp/wrk.out" 2>&1
	rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$tmp/wrk.out")
	bad=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$tmp/wrk.out")
	printf '%-10s %5s %12s %s\n' "$1" "$2" "${rps:-?}" "${bad:+($bad non-2xx)}"
	echo "$1 $2 ${rps:-0}" >>"$tmp/results"
}

echo "contactd nodes behind nginx, one PostgreSQL; $(nproc) cores; $conns connections;" \
	"${duration}s per run"
printf '%-10s %5s %12s\n' scenario nodes "requests/s"
round=0
for nodes in 1 2 3; do
	start_nodes "$nodes"
	start_nginx "$tmp" site 2 || exit 1
	front="http://127.0.0.1:$nport"
	# fresh calibrations for each round: none reaches its 200-press limit
	first=
	for _ in $(seq 1 60); do
		id=$(curl -s -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
			-d '{}' "$front/v1/robots/benchbot/calibrations" | sed -n 's/.*"id":\([0-9]*\),"robot".*/\1/p')
		[ -n "$first" ] || first=$id
	done
	round=$((round + 1))
	run questions "$nodes" "$front/v1/drop" "$tmp/drop.lua" "$round"
	run uploads "$nodes" "$front" "$tmp/upload.lua" "$first"
	stop_nodes
done
echo
echo "ratio to one node:"
awk '$2 == 1 { one[$1] = $3 } { r[$1, $2] = $3 }
	END { for (s in one) printf "  %-10s 2 nodes %.2f, 3 nodes %.2f\n", s,
		r[s, 2] / one[s], r[s, 3] / one[s] }' "$tmp/results"
