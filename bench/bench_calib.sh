#!/bin/sh
# bench_calib.sh: uncached question latency while robots upload calibration measurements
# (issue #8). Run by `make bench-calib` (never by `make check`).
#
# Four robots, each with its own calibration, upload 10 drops at a time in a loop (one
# request after another, each answered before the next, as a robot would, at most
# BENCH_UPLOAD_RATE each) while wrk asks uncached drops (every request a new question) on
# BENCH_CONNECTIONS connections. Every upload asks for a refit, so the fit workers stay busy.
# Prints the questions' requests/s, p50, p99 and worst latency and errors, the uploads
# answered 200 and not, and the CPU seconds the fit threads used meanwhile. Run it against
# two builds (CONTACTD=...) to compare them.
#
# Environment: CONTACTD (default ./contactd), BENCH_DURATION seconds (default 10),
# BENCH_CONNECTIONS (default 4), BENCH_THREADS contactd threads (default: cores),
# BENCH_ROBOTS robots uploading (default 4; 0: the questions alone, the baseline p99 that the
# fits must not raise by more than half, issue #29), BENCH_FITS (default 1; 0: the daemon runs
# with --fit-workers 0, so the robots' uploads cost what they cost without their fits: the
# baseline that isolates the fits' own effect), BENCH_UPLOAD_RATE (curl's --rate, default
# 10/s per robot).
set -eu
CONTACTD=${CONTACTD:-./contactd}
WRK=${WRK:-$(command -v wrk || true)}
CURL=${CURL:-$(command -v curl || true)}
duration=${BENCH_DURATION:-10}
conns=${BENCH_CONNECTIONS:-4}
cores=$(nproc 2>/dev/null || echo 2)
threads=${BENCH_THREADS:-$cores}
rate=${BENCH_UPLOAD_RATE:-10/s}

for tool in "$WRK" "$CURL"; do
	[ -n "$tool" ] && [ -x "$tool" ] || {
		echo "bench_calib.sh: needs wrk and curl (deploy/setup-debian.sh)" >&2
		exit 1
	}
done
srcdir=${srcdir:-$(dirname "$0")/..}
NGINX=${NGINX:-nginx}
. "$srcdir/tests/http_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-bench-calib.XXXXXX")
nrobots=${BENCH_ROBOTS:-4}
robots=
[ "$nrobots" -gt 0 ] && robots=$(echo so101-a so101-b so101-c so101-d | cut -d' ' -f1-"$nrobots")
uploaders=
cleanup() {
	for p in $uploaders; do kill "$p" 2>/dev/null || true; done
	stop_all
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

for r in $robots; do
	"$CONTACTD" --db "$tmp/cache.db" token create "$r" | sed -n 's/^token: //p' >"$tmp/$r.token"
done
fit_workers=
[ "${BENCH_FITS:-1}" = 0 ] && fit_workers="--fit-workers 0"
# shellcheck disable=SC2086 # fit_workers: none or two words
start_contactd "$tmp" --threads "$threads" $fit_workers || exit 1
base="http://127.0.0.1:$port"

# Ten drops of a 2 cm, 100 g ball from 2 to 20 cm, rebounds as a filmed pad gives them.
drops='{"drops":['
i=1
while [ "$i" -le 10 ]; do
	h=$(awk -v i="$i" 'BEGIN { printf "%.3f", 0.02 * i }')
	b=$(awk -v i="$i" 'BEGIN { printf "%.5f", 0.02 * i * 0.04 + 0.0002 * (i % 3) }')
	drops="$drops{\"height\":$h,\"rebound\":$b}"
	[ "$i" -lt 10 ] && drops="$drops,"
	i=$((i + 1))
done
drops="$drops]}"

# upload ROBOT: upload in a loop until killed; one line per answer's status. A calibration
# holds 200 drops (CALIB_MAX_DROPS), 20 uploads: one curl makes them one after another, each
# answered before the next, at most BENCH_UPLOAD_RATE a second, then the robot starts a new
# calibration. (A curl started for every upload cost more CPU than the daemon itself on the
# 2-core machine: a robot's own cost, which a real robot does not put on the server.)
printf '%s' "$drops" >"$tmp/drops.json"
per=20
upload() {
	# the loop's subshell must not clean up the benchmark's files when it is stopped
	trap - EXIT
	trap 'exit 0' INT TERM
	token=$(cat "$tmp/$1.token")
	while :; do
		"$CURL" -s -o "$tmp/$1.created" -H "Authorization: Bearer $token" \
			-H 'Content-Type: application/json' \
			-d '{"object":{"shape":"sphere","size":0.02,"mass":0.1}}' \
			"$base/v1/robots/$1/calibrations"
		id=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$tmp/$1.created")
		if [ -z "$id" ]; then
			echo 000 >>"$tmp/$1.status"
			sleep 0.1
			continue
		fi
		: >"$tmp/$1.curlrc"
		k=0
		while [ "$k" -lt "$per" ]; do
			[ "$k" -gt 0 ] && echo next >>"$tmp/$1.curlrc"
			cat >>"$tmp/$1.curlrc" <<CURLRC
url = "$base/v1/calibrations/$id/measurements"
header = "Authorization: Bearer $token"
header = "Content-Type: application/json"
data = "@$tmp/drops.json"
output = "/dev/null"
write-out = "%{http_code}\\n"
max-time = 60
CURLRC
			k=$((k + 1))
		done
		"$CURL" -s --rate "$rate" -K "$tmp/$1.curlrc" >>"$tmp/$1.status" || true
	done
}
for r in $robots; do
	: >"$tmp/$r.status"
	upload "$r" &
	uploaders="$uploaders $!"
done
sleep 1

cat >"$tmp/unique.lua" <<'LUA'
-- Every request a new drop: its duration differs in the 12th decimal.
local counter, id = 0, 0
local run = os.time() % 1000
function setup(thread)
	thread:set("id", setup_count or 0)
	setup_count = (setup_count or 0) + 1
end
function init(args)
	id = wrk.thread:get("id") or 0
end
function request()
	counter = counter + 1
	local n = (run * 128 + id) * 1000000 + counter
	local body = '{"body": {"shape": "sphere", "size": 0.05, "mass": 1}, "duration": '
		.. string.format("%.12f", 2 + n * 1e-12) .. '}'
	return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
LUA
# fit_cpu: CPU seconds the daemon's SCHED_BATCH threads (the fit workers and their helpers)
# have used, so the run shows how busy the fits kept them
fit_cpu() {
	cat /proc/"$daemon_pid"/task/*/stat 2>/dev/null |
		awk -v hz="$(getconf CLK_TCK)" '$41 == 3 { t += $14 + $15 } END { printf "%.1f", t / hz }'
}
fit_cpu0=$(fit_cpu)
t=$(( conns < cores ? conns : cores ))
"$WRK" -t"$t" -c"$conns" -d"${duration}s" --timeout 60s --latency -s "$tmp/unique.lua" "$base/v1/drop" \
	>"$tmp/wrk.out" 2>&1 || echo "wrk failed: $(cat "$tmp/wrk.out")" >&2
fit_cpu1=$(fit_cpu)
rps=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$tmp/wrk.out")
p50=$(sed -n 's/^ *50% *\([0-9.]*[a-z]*\).*/\1/p' "$tmp/wrk.out")
p99=$(sed -n 's/^ *99% *\([0-9.]*[a-z]*\).*/\1/p' "$tmp/wrk.out")
max=$(sed -n 's/^ *Latency *[0-9.]*[a-z]* *[0-9.]*[a-z]* *\([0-9.]*[a-z]*\).*/\1/p' "$tmp/wrk.out")
bad=$(sed -n 's/^ *Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' "$tmp/wrk.out")
ok=$(cat "$tmp"/*.status 2>/dev/null | grep -c '^200$' || true)
notok=$(cat "$tmp"/*.status 2>/dev/null | grep -vc '^200$' || true)
for p in $uploaders; do kill "$p" 2>/dev/null || true; done
uploaders=
echo "contactd $("$CONTACTD" --version | sed 's/^contactd //'): $threads threads, $cores cores," \
	"${duration}s, $conns question connections, $nrobots robots uploading 10 drops at a time," \
	"fits ${fit_workers:-on}"
echo "uncached drops: ${rps:-?} requests/s, p50 ${p50:-?}, p99 ${p99:-?}, max ${max:-?}, non-2xx ${bad:-0}"
echo "uploads: $ok answered 200, $notok not; fit threads $(awk -v a="$fit_cpu0" -v b="$fit_cpu1" \
	'BEGIN { printf "%.1f", b - a }') CPU s"
