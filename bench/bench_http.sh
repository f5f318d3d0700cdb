#!/bin/sh
# bench_http.sh: contactd under wrk, with nginx serving the same answer bytes as a
# static file for the ceiling. Run by `make bench-http` (never by `make check`).
#
# Scenarios, each at 1, 16 and 128 connections:
#   nginx-static   GET of a file holding a cached answer's exact bytes (the ceiling)
#   cached         POST /v1/rest of one question, answered from the cache (the same
#                  bytes each time: the thread's memory cache)
#   cached-store   the same question spelled differently each time: parsed,
#                  canonicalised and answered from the SQLite cache
#   uncached-drop  POST /v1/drop, every request a new height: computed every time
#   sweep-1000     POST /v1/sweep of 1000 rest points, every request a new base
# Prints requests/s and p99 latency per run, and cached / nginx-static per
# connection count (target: >= 0.5).
#
# Environment: CONTACTD (default ./contactd), BENCH_DURATION seconds per run
# (default 5), BENCH_THREADS contactd and nginx worker count (default: cores).
set -eu
CONTACTD=${CONTACTD:-./contactd}
NGINX=${NGINX:-$(PATH="$PATH:/usr/sbin:/sbin" command -v nginx || true)}
WRK=${WRK:-$(command -v wrk || true)}
CURL=${CURL:-$(command -v curl || true)}
duration=${BENCH_DURATION:-5}
cores=$(nproc 2>/dev/null || echo 2)
threads=${BENCH_THREADS:-$cores}

for tool in "$NGINX" "$WRK" "$CURL"; do
	[ -n "$tool" ] && [ -x "$tool" ] || {
		echo "bench_http.sh: needs nginx, wrk and curl (deploy/setup-debian.sh)" >&2
		exit 1
	}
done

srcdir=${srcdir:-$(dirname "$0")/..}
. "$srcdir/tests/http_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-bench.XXXXXX")
trap 'stop_all; rm -rf "$tmp"' EXIT INT TERM

start_contactd "$tmp" --threads "$threads" || exit 1

# The cached question, asked once so that the benchmark only sees hits.
question='{"body": {"shape": "box", "size": 0.05, "mass": 1.0}}'
mkdir -p "$tmp/static"
"$CURL" -sS -f -o "$tmp/static/answer.json" -H 'Content-Type: application/json' \
	--data-binary "$question" "http://127.0.0.1:$port/v1/rest"

# nginx serving those bytes, with as many workers as contactd has threads.
static_site() {
	echo "access_log off;"
	echo "keepalive_requests 1000000;"
	echo "server {"
	echo "	listen 127.0.0.1:$1;"
	echo "	location = /answer.json { root $tmp/static; default_type application/json; }"
	echo "}"
}
start_nginx "$tmp" static_site "$threads" || exit 1

# wrk scripts. Each wrk thread numbers its requests from its own id, so every
# uncached body is new across threads and runs.
cat >"$tmp/cached.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$question'
LUA
cat >"$tmp/unique.lua" <<'LUA'
-- Every request a new question: its duration differs in the 12th decimal (the
-- steps, and so the work, stay those of a 2 s run), numbered by run, thread, request.
local counter, id = 0, 0
local run = os.time() % 1000
local masses = {}
for i = 1, 1000 do masses[i] = string.format("%.3f", 0.5 + i * 0.001) end
local sweep_values = table.concat(masses, ",")
function setup(thread)
	thread:set("id", setup_count or 0)
	setup_count = (setup_count or 0) + 1
end
function init(args)
	id = wrk.thread:get("id") or 0
	kind = args[1]
end
function request()
	counter = counter + 1
	local n = (run * 128 + id) * 1000000 + counter
	local duration = string.format("%.12f", 2 + n * 1e-12)
	local body
	if kind == "spelled" then
		-- The cached question, spelled anew each time (1 as 1000e-3, ...): a hit in
		-- the store, after parsing and canonicalisation, never in the memory cache.
		local j, k = counter % 300, math.floor(counter / 300) % 300
		body = '{"body": {"shape": "box", "size": 5' .. string.rep("0", k) .. 'e-' .. (k + 2)
			.. ', "mass": 1' .. string.rep("0", j) .. 'e-' .. j .. '}}'
	elseif kind == "drop" then
		body = '{"body": {"shape": "sphere", "size": 0.05, "mass": 1}, "duration": ' .. duration .. '}'
	else
		body = '{"query": "rest", "base": {"duration": ' .. duration .. '},'
			.. ' "vary": [{"path": "/body/mass", "values": [' .. sweep_values .. ']}]}'
	end
	return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
LUA

# run NAME URL SCRIPT ARG CONNECTIONS: one wrk run; appends "NAME C RPS P99" to results.
run() {
	c=$5
	t=$(( c < cores ? c : cores ))
	if [ -n "$3" ]; then
		"$WRK" -t"$t" -c"$c" -d"${duration}s" --latency -s "$3" "$2" -- "$4" >"$tmp/wrk.out" 2>&1
	else
		"$WRK" -t"$t" -c"$c" -d"${duration}s" --latency "$2" >"$tmp/wrk.out" 2>&1
	fi
	rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$tmp/wrk.out")
	p99=$(sed -n 's/^ *99% *\([0-9.]*[a-z]*\).*/\1/p' "$tmp/wrk.out")
	errors=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$tmp/wrk.out")
	printf '%-14s %5s %12s %10s %s\n' "$1" "$c" "${rps:-?}" "${p99:-?}" \
		"${errors:+($errors non-2xx)}"
	echo "$1 $c ${rps:-0}" >>"$tmp/results"
}

echo "contactd $("$CONTACTD" --version | sed 's/^contactd //'): $threads threads;" \
	"nginx: $threads workers; $cores cores; ${duration}s per run"
printf '%-14s %5s %12s %10s\n' scenario conns "requests/s" "p99"
base="http://127.0.0.1:$port"
for c in 1 16 128; do
	run nginx-static "http://127.0.0.1:$nport/answer.json" "" "" "$c"
	run cached "$base/v1/rest" "$tmp/cached.lua" "" "$c"
	run cached-store "$base/v1/rest" "$tmp/unique.lua" spelled "$c"
	run uncached-drop "$base/v1/drop" "$tmp/unique.lua" drop "$c"
	run sweep-1000 "$base/v1/sweep" "$tmp/unique.lua" sweep "$c"
done
echo
echo "cached / nginx-static (target >= 0.5):"
for c in 1 16 128; do
	awk -v c="$c" '$2 == c && $1 == "nginx-static" { n = $3 }
		$2 == c && $1 == "cached" { k = $3 }
		END { printf "  %3d connections: %.2f\n", c, (n > 0 ? k / n : 0) }' "$tmp/results"
done
