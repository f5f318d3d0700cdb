#!/bin/sh
# soak.sh: contactd under sustained load, for leaks and unbounded growth. Run by
# `make soak` (never by `make check`).
#
# Two runs of wrk at SOAK_CONNECTIONS (256) connections for SOAK_DURATION (60) seconds
# each against one daemon: "cached" (one question: every answer from the thread's
# memory cache) and "uncached" (every request a new rest question: parsed, computed
# and written to SQLite). Prints requests/s, non-2xx answers and socket errors per run,
# the daemon's resident memory (VmRSS) before, between and after, and the largest WAL
# and database sizes seen (sampled every second).
#
# Environment: CONTACTD (default ./contactd), SOAK_DURATION, SOAK_CONNECTIONS,
# SOAK_THREADS (wrk threads and contactd HTTP threads; default: cores).
set -eu
CONTACTD=${CONTACTD:-./contactd}
WRK=${WRK:-$(command -v wrk || true)}
CURL=${CURL:-$(command -v curl || true)}
duration=${SOAK_DURATION:-60}
connections=${SOAK_CONNECTIONS:-256}
threads=${SOAK_THREADS:-$(nproc 2>/dev/null || echo 2)}

for tool in "$WRK" "$CURL"; do
	[ -n "$tool" ] && [ -x "$tool" ] || {
		echo "soak.sh: needs wrk and curl (deploy/setup-debian.sh)" >&2
		exit 1
	}
done

srcdir=${srcdir:-$(dirname "$0")/..}
. "$srcdir/tests/http_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-soak.XXXXXX")
trap 'stop_all; rm -rf "$tmp"' EXIT INT TERM

# All wrk connections come from one address: no per-address limit here.
start_contactd "$tmp" --threads "$threads" --max-connections-per-ip 0 || exit 1

rss() { sed -n 's/^VmRSS:[[:space:]]*//p' "/proc/$daemon_pid/status"; }
size() { [ -f "$1" ] && wc -c <"$1" || echo 0; }

cat >"$tmp/cached.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"body": {"shape": "box", "size": 0.05, "mass": 1.0}}'
LUA
cat >"$tmp/uncached.lua" <<LUA
-- Every request a new question: each wrk thread numbers its own.
local n = 0
local ids = 0
function setup(thread) thread:set("id", ids); ids = ids + 1 end
function request()
	n = n + 1
	return wrk.format("POST", "/v1/rest", {["Content-Type"] = "application/json"},
		string.format('{"body":{"shape":"box","size":0.05,"mass":%d.%d}}', n, id))
end
LUA

"$CURL" -sS -f -o /dev/null -H 'Content-Type: application/json' \
	--data-binary '{"body": {"shape": "box", "size": 0.05, "mass": 1.0}}' \
	"http://127.0.0.1:$port/v1/rest"
echo "rss before: $(rss)"
for run in cached uncached; do
	"$WRK" -t"$threads" -c"$connections" -d"${duration}s" -s "$tmp/$run.lua" \
		"http://127.0.0.1:$port/v1/rest" >"$tmp/$run.out" &
	wrk_pid=$!
	wal_max=0
	while kill -0 "$wrk_pid" 2>/dev/null; do
		wal=$(size "$tmp/cache.db-wal")
		[ "$wal" -gt "$wal_max" ] && wal_max=$wal
		sleep 1
	done
	wait "$wrk_pid"
	printf '%s: %s requests/s, %s non-2xx, socket errors: %s; largest WAL %s bytes, ' "$run" \
		"$(sed -n 's/^Requests\/sec:[[:space:]]*//p' "$tmp/$run.out")" \
		"$(sed -n 's/.*Non-2xx or 3xx responses:[[:space:]]*//p' "$tmp/$run.out" | grep . || echo 0)" \
		"$(sed -n 's/.*Socket errors:[[:space:]]*//p' "$tmp/$run.out" | grep . || echo none)" "$wal_max"
	echo "database $(size "$tmp/cache.db") bytes; rss after: $(rss)"
done
