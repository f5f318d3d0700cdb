#!/bin/sh
# logrotate_test.sh: the documented log rotation (deploy/logrotate.conf) works with a real
# logrotate and a real contactd: logrotate moves --log aside and sends SIGHUP, the daemon
# reopens a fresh 0600 file, lines after the signal go to the new file only, and a second
# rotation compresses the first (delaycompress).
#
# Run by `make check` from the top build directory, with srcdir set by automake.
set -eu
CONTACTD=${CONTACTD:-./contactd}
LOGROTATE=${LOGROTATE:-$(PATH="$PATH:/usr/sbin:/sbin" command -v logrotate || true)}
CURL=${CURL:-$(command -v curl || true)}
srcdir=${srcdir:-.}

fail() {
	echo "FAIL: $*" >&2
	[ -n "${tmp:-}" ] && [ -f "$tmp/log/contactd.log" ] && sed 's/^/  log: /' "$tmp/log/contactd.log" >&2
	exit 1
}

[ -n "$LOGROTATE" ] && [ -x "$LOGROTATE" ] || fail "logrotate not found (deploy/setup-debian.sh installs it)"
[ -n "$CURL" ] && [ -x "$CURL" ] || fail "curl not found (deploy/setup-debian.sh installs it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-logrotate.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
mkdir -m 0700 "$tmp/log"
log=$tmp/log/contactd.log

"$CONTACTD" --port 0 --db "$tmp/cache.db" --log "$log" 2>"$tmp/stderr" &
pid=$!
port=
for _ in $(seq 1 600); do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$log" "$tmp/stderr" 2>/dev/null | head -n 1)
	[ -n "$port" ] && break
	kill -0 "$pid" 2>/dev/null || fail "contactd did not start: $(cat "$tmp/stderr")"
	sleep 0.1
done
[ -n "$port" ] || fail "contactd did not say its port"

# A request the log shows by its path (an unknown path: a 404 line with the marker in it).
ask() {
	"$CURL" -s -o /dev/null "http://127.0.0.1:$port/v1/marker=$1" || fail "request $1"
}

# Wait until file $1 contains text $2 (the daemon writes its lines asynchronously).
wait_for() {
	for _ in $(seq 1 100); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "$1 never got '$2'"
}

ask before
wait_for "$log" "marker=before"

# The deployed file, pointed at this log and this daemon instead of systemd's unit.
sed -e "s|/var/log/contactd/contactd.log|$log|" \
    -e "s|systemctl kill --signal=HUP --kill-whom=main contactd.service|kill -HUP $pid|" \
    "$srcdir/deploy/logrotate.conf" >"$tmp/logrotate.conf"
grep -q "kill -HUP $pid" "$tmp/logrotate.conf" || fail "deploy/logrotate.conf has no postrotate signal to adapt"

"$LOGROTATE" -s "$tmp/state" -f "$tmp/logrotate.conf" || fail "logrotate (first rotation)"
[ -f "$log.1" ] || fail "no $log.1 after the first rotation"
grep -q "marker=before" "$log.1" || fail "the old lines did not move to $log.1"
wait_for "$log" "log reopened"
[ "$(stat -c %a "$log")" = 600 ] || fail "the reopened log has mode $(stat -c %a "$log"), not 600"

ask after
wait_for "$log" "marker=after"
! grep -q "marker=after" "$log.1" || fail "a line after the rotation went to the old file"

"$LOGROTATE" -s "$tmp/state" -f "$tmp/logrotate.conf" || fail "logrotate (second rotation)"
[ -f "$log.2.gz" ] || fail "the first rotation's file was not compressed at the second (delaycompress)"
gzip -dc "$log.2.gz" | grep -q "marker=before" || fail "$log.2.gz lost the oldest lines"
grep -q "marker=after" "$log.1" || fail "the second rotation did not move the newer lines"
wait_for "$log" "log reopened"
ask last
wait_for "$log" "marker=last"
kill -0 "$pid" 2>/dev/null || fail "contactd died during the rotations"
echo "logrotate_test: two rotations, the daemon reopened its 0600 log after each"
