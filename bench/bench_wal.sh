#!/bin/sh
# bench_wal.sh: the WAL's peak under uncached write load. Run by `make bench-wal`
# (never by `make check`).
#
# wrk sends a new rest question per request (each answer a commit) for WAL_DURATION (20)
# seconds at each of WAL_CONNECTIONS ("64 512") connections, then once more at the first
# count with --cache-max-mb 1 (eviction deleting while answers are added), each against
# a fresh daemon and database. The -wal file is sampled every 10 ms; the largest size
# seen is printed beside the bound contactd states (README: STORE_WAL_CHECKPOINT_BYTES
# plus what the commits under way add), and the script exits 1 if a peak is over
# WAL_BOUND_BYTES (default 5 MiB,
# STORE_WAL_PEAK_BYTES).
#
# Environment: CONTACTD (default ./contactd), WAL_DURATION, WAL_CONNECTIONS, WAL_THREADS
# (wrk threads and contactd HTTP threads; default: cores), WAL_BOUND_BYTES.
set -eu
CONTACTD=${CONTACTD:-./contactd}
WRK=${WRK:-$(command -v wrk || true)}
duration=${WAL_DURATION:-20}
counts=${WAL_CONNECTIONS:-64 512}
threads=${WAL_THREADS:-$(nproc 2>/dev/null || echo 2)}
bound=${WAL_BOUND_BYTES:-5242880}

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

status=0
first=${counts%% *}
for run in $counts "$first:cache1"; do
	c=${run%%:*}
	extra=
	[ "$run" != "$c" ] && extra="--cache-max-mb 1"
	tmp="$base/run-$c${extra:+-cache1}"
	mkdir -p "$tmp"
	# All wrk connections come from one address: no per-address limit here.
	# shellcheck disable=SC2086
	start_contactd "$tmp" --threads "$threads" --max-connections-per-ip 0 $extra || exit 1
	wal_peak "$tmp/cache.db-wal" "$tmp/done" "$tmp/peak" &
	sampler=$!
	"$WRK" -t"$threads" -c"$c" -d"${duration}s" -s "$base/uncached.lua" \
		"http://127.0.0.1:$port/v1/rest" >"$tmp/wrk.out" || true
	touch "$tmp/done"
	wait "$sampler"
	peak=$(cat "$tmp/peak")
	printf 'wrk -c%s%s: %s requests/s, WAL peak %s bytes (%.1f MiB; bound %.1f MiB)\n' "$c" \
		"${extra:+ $extra}" "$(sed -n 's/^Requests\/sec:[[:space:]]*//p' "$tmp/wrk.out")" \
		"$peak" "$(echo "$peak / 1048576" | bc -l)" "$(echo "$bound / 1048576" | bc -l)"
	[ "$peak" -le "$bound" ] || status=1
	kill "$daemon_pid" && wait "$daemon_pid" || true
	daemon_pid=
done
exit $status
