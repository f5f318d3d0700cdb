#!/bin/sh
# bench_wal.sh: the WAL's peak under uncached write load. Run by `make bench-wal`
# (never by `make check`).
#
# wrk sends a new rest question per request (each answer a commit) for WAL_DURATION (20)
# seconds at each of WAL_CONNECTIONS ("64 512") connections, then once more at the first
# count with --cache-max-mb 1 (eviction deleting while answers are added), each against
# a fresh daemon and database. Then two runs of large answers at WAL_LARGE_CONNECTIONS (8)
# connections, every request a new stability sweep: of 5,000 points (about 640 kB, over the
# cache's per-answer cap STORE_CACHE_MAX_ANSWER, 256 KiB: served, never written), and of
# 1,800 (about 230 kB, just under it: each answer a commit of that size). The -wal file is
# sampled every 10 ms; the largest size seen is printed beside the bound contactd states
# (README: STORE_WAL_CHECKPOINT_BYTES plus what the commits under way add), for the large
# runs with one answer's size, how many were served uncached and the database's size; the
# script exits 1 if a peak is over WAL_BOUND_BYTES (default 5 MiB, STORE_WAL_PEAK_BYTES).
#
# Environment: CONTACTD (default ./contactd), WAL_DURATION, WAL_CONNECTIONS,
# WAL_LARGE_CONNECTIONS, WAL_THREADS (wrk threads and contactd HTTP threads; default:
# cores), WAL_BOUND_BYTES.
set -eu
CONTACTD=${CONTACTD:-./contactd}
WRK=${WRK:-$(command -v wrk || true)}
duration=${WAL_DURATION:-20}
counts=${WAL_CONNECTIONS:-64 512}
threads=${WAL_THREADS:-$(nproc 2>/dev/null || echo 2)}
bound=${WAL_BOUND_BYTES:-5242880}
large_connections=${WAL_LARGE_CONNECTIONS:-8}

[ -n "$WRK" ] && [ -x "$WRK" ] || {
	echo "bench_wal.sh: needs wrk (deploy/setup-debian.sh)" >&2
	exit 1
}
srcdir=${srcdir:-$(dirname "$0")/..}
. "$srcdir/tests/http_lib.sh"
base=$(mktemp -d "${TMPDIR:-/tmp}/contactd-wal.XXXXXX")
trap 'stop_all; rm -rf "$base"' EXIT INT TERM

cat >"$base/uncached.lua" <<LUA
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

# A stability sweep of $1 points, each request a new one (its first value numbered by the
# thread and the request), as a wrk script.
sweep_lua() {
	cat <<LUA
local n = 0
local ids = 0
local rest = {}
for k = 2, $1 do rest[#rest + 1] = string.format("%de-6", k) end
rest = table.concat(rest, ",")
function setup(thread) thread:set("id", ids); ids = ids + 1 end
function request()
	n = n + 1
	return wrk.format("POST", "/v1/sweep", {["Content-Type"] = "application/json"},
		string.format('{"query":"stability","base":{},"vary":[{"path":"/solref/0",'
			.. '"values":[1.%d%de-7,%s]}]}', id, n, rest))
end
LUA
}
sweep_lua 5000 >"$base/large.lua"
sweep_lua 1800 >"$base/near.lua"

# Largest size of the WAL $1 until the file $2 exists, sampled every 10 ms, into $3.
wal_peak() {
	peak=0
	while [ ! -f "$2" ]; do
		if [ -f "$1" ]; then
			n=$(stat -c %s "$1" 2>/dev/null || echo 0)
			[ "$n" -gt "$peak" ] && peak=$n
		fi
		sleep 0.01
	done
	echo "$peak" >"$3"
}

# One run: name, connections, wrk script, path, contactd's extra arguments.
run() {
	name=$1 c=$2 script=$3 path=$4
	shift 4
	tmp="$base/run-$name"
	mkdir -p "$tmp"
	# All wrk connections come from one address: no per-address limit here.
	start_contactd "$tmp" --threads "$threads" --max-connections-per-ip 0 "$@" || exit 1
	size=
	case $name in
	large*|near*)
		# one answer's size, from a request of the same shape (not the run's)
		size=$(lua_first "$script" | curl -s -o /dev/null -w '%{size_download}' \
			-H 'Content-Type: application/json' --data-binary @- \
			"http://127.0.0.1:$port$path")
		;;
	esac
	wal_peak "$tmp/cache.db-wal" "$tmp/done" "$tmp/peak" &
	sampler=$!
	"$WRK" -t"$threads" -c"$c" -d"${duration}s" -s "$script" \
		"http://127.0.0.1:$port$path" >"$tmp/wrk.out" || true
	touch "$tmp/done"
	wait "$sampler"
	peak=$(cat "$tmp/peak")
	extra=
	if [ -n "$size" ]; then
		metrics=$(curl -s "http://127.0.0.1:$port/metrics")
		extra=$(printf '; answers of %s bytes, %s served uncached, database %s bytes' \
			"$size" "$(echo "$metrics" | sed -n 's/^contactd_cache_uncached_total //p')" \
			"$(stat -c %s "$tmp/cache.db")")
	fi
	printf 'wrk -c%s %s%s: %s requests/s, WAL peak %s bytes (%.1f MiB; bound %.1f MiB)%s\n' \
		"$c" "$name" "${*:+ $*}" \
		"$(sed -n 's/^Requests\/sec:[[:space:]]*//p' "$tmp/wrk.out")" \
		"$peak" "$(echo "$peak / 1048576" | bc -l)" "$(echo "$bound / 1048576" | bc -l)" \
		"$extra"
	[ "$peak" -le "$bound" ] || status=1
	kill "$daemon_pid" && wait "$daemon_pid" || true
	daemon_pid=
}

# The body of the first request a sweep script makes (thread 0, request 1), for its size.
lua_first() {
	points=$(sed -n 's/^for k = 2, \([0-9]*\) do.*/\1/p' "$1")
	rest=$(seq 2 "$points" | sed 's/$/e-6/' | paste -sd, -)
	printf '{"query":"stability","base":{},"vary":[{"path":"/solref/0","values":[1.01e-7,%s]}]}' \
		"$rest"
}

status=0
first=${counts%% *}
for c in $counts; do
	run "uncached" "$c" "$base/uncached.lua" /v1/rest
done
run "uncached-cache1" "$first" "$base/uncached.lua" /v1/rest --cache-max-mb 1
run "large" "$large_connections" "$base/large.lua" /v1/sweep
run "near-cap" "$large_connections" "$base/near.lua" /v1/sweep
exit $status
