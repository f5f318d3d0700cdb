#!/bin/sh
# calib_close.sh: open event streams end when their right to exist does (issue #16): within
# 1 s of `contactd token revoke` (another process writing the same database), of the end of
# a rotation's grace, of a token's expiry, or of a watch URL's expiry, a stream gets a last event, "event: closed"
# with {"reason": ...}, and ends; a stream whose token stays valid goes on delivering fits.
# Watch URLs live at most an hour: a longer ?expires_in is clamped, a malformed one refused.
# The 1 s is the contract: the streams are checked every CALIB_STREAM_CHECK_MS (0.5 s).
CONTACTD=${CONTACTD:-./contactd}
. "$(dirname "$0")/calib_lib.sh"
LIMIT=1.0

now() { date +%s.%N; }

# sleep_until T: sleep until epoch second T (at once if it has passed).
sleep_until() {
	delay=$(awk -v t="$1" -v n="$(now)" 'BEGIN { d = t - n; printf "%.3f", (d > 0 ? d : 0) }')
	sleep "$delay"
}

# open NAME TOKEN URL: an event stream into $dir/NAME (headers in $dir/NAME.h) in the
# background, its curl's pid in $dir/NAME.pid; returns once its headers arrived.
open_stream() {
	if [ -n "$2" ]; then
		curl -s -N -m 60 -D "$dir/$1.h" -H "Authorization: Bearer $2" \
			"http://127.0.0.1:$port$3" >"$dir/$1" &
	else
		curl -s -N -m 60 -D "$dir/$1.h" "http://127.0.0.1:$port$3" >"$dir/$1" &
	fi
	echo $! >"$dir/$1.pid"
	for _ in $(seq 200); do
		grep -q '^HTTP/1.1 200' "$dir/$1.h" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "stream $1 did not open: $(cat "$dir/$1.h" "$dir/$1")"
}

# closed_by NAME REASON SINCE: the stream NAME ends with the closing event of REASON within
# LIMIT seconds of SINCE (epoch seconds), and its connection with it.
closed_by() {
	for _ in $(seq 200); do
		grep -q '^event: closed$' "$dir/$1" && break
		sleep 0.02
	done
	at=$(now)
	grep -q '^event: closed$' "$dir/$1" || fail "stream $1 was not closed: $(cat "$dir/$1")"
	grep -q "^data: {\"reason\":\"$2\"}\$" "$dir/$1" || fail "stream $1: $(cat "$dir/$1")"
	late=$(awk -v a="$at" -v s="$3" 'BEGIN { printf "%.2f", a - s }')
	awk -v l="$late" -v m="$LIMIT" 'BEGIN { exit !(l <= m) }' ||
		fail "stream $1 closed $late s after its $2, more than $LIMIT s"
	client=$(cat "$dir/$1.pid")
	for _ in $(seq 50); do
		kill -0 "$client" 2>/dev/null || break
		sleep 0.02
	done
	kill -0 "$client" 2>/dev/null && fail "stream $1 sent its closing event but stayed open"
	echo "stream $1: closed ($2) $late s after it"
}

still_open() {
	grep -q '^event: closed$' "$dir/$1" && fail "stream $1 closed early: $(cat "$dir/$1")"
	kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null || fail "stream $1 ended early"
}

alice=$(new_token create alice) || fail "token create alice"
victim=$(new_token create alice) || fail "token create victim"
rotating=$(new_token create alice) || fail "token create rotating"
viewer=$(new_token create --viewer alice) || fail "token create --viewer"
start_daemon
[ "$(request POST /v1/robots/alice/calibrations "$alice" '{}')" = 201 ] || fail "create"
id=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$dir/answer")
events=/v1/calibrations/$id/events

# the cap: a longer lifetime is clamped to the hour, a malformed one refused
[ "$(request POST "/v1/calibrations/$id/watch?expires_in=86400" "$alice")" = 200 ] ||
	fail "watch for a day: $(cat "$dir/answer")"
grep -q '"expires_in":3600' "$dir/answer" || fail "not clamped: $(cat "$dir/answer")"
signed=$(sed -n 's/.*watch=\([0-9]*\)\.\([0-9]*\)\..*/\2 - \1/p' "$dir/answer")
[ "$(($signed))" = 3600 ] || fail "the URL is signed for $signed s: $(cat "$dir/answer")"
for bad in 0 -5 abc 1.5; do
	[ "$(request POST "/v1/calibrations/$id/watch?expires_in=$bad" "$alice")" = 422 ] ||
		fail "?expires_in=$bad: $(cat "$dir/answer")"
done
[ "$(request POST "/v1/calibrations/$id/watch" "$alice")" = 200 ] || fail "watch"
grep -q '"expires_in":300' "$dir/answer" || fail "the default changed: $(cat "$dir/answer")"

open_stream kept "$alice" "$events"

# a revocation by another process, of a header token's stream and of a watch URL's
open_stream revoked "$victim" "$events"
[ "$(request POST "/v1/calibrations/$id/watch?expires_in=60" "$viewer")" = 200 ] ||
	fail "viewer watch"
url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$dir/answer")
open_stream watched "" "$url"
"$CONTACTD" --db "$db" token revoke "${victim%%.*}" >/dev/null || fail "revoke victim"
closed_by revoked token_revoked "$(now)"
still_open watched
"$CONTACTD" --db "$db" token revoke "${viewer%%.*}" >/dev/null || fail "revoke viewer"
closed_by watched token_revoked "$(now)"

# the end of a rotation's grace (stored to the second: it ends at that second's start), and
# a token's own expiry, some seconds later
brief=$(new_token create alice --expires 9) || fail "token create --expires"
open_stream brief "$brief" "$events"
open_stream rotated "$rotating" "$events"
"$CONTACTD" --db "$db" token rotate "${rotating%%.*}" --grace 5 >/dev/null || fail "rotate"
grace_end=$("$CONTACTD" --db "$db" token list --json |
	sed -n "s/.*\"expires_at\":\([0-9]*\),\"id\":\"${rotating%%.*}\".*/\1/p")
[ -n "$grace_end" ] || grace_end=$("$CONTACTD" --db "$db" token list --json | tr '{' '\n' |
	grep "\"id\":\"${rotating%%.*}\"" | sed -n 's/.*"expires_at":\([0-9]*\).*/\1/p')
[ -n "$grace_end" ] || fail "no grace end in $("$CONTACTD" --db "$db" token list --json)"
sleep_until "$((grace_end - 2))"
still_open rotated
closed_by rotated token_rotated "$grace_end"
brief_end=$("$CONTACTD" --db "$db" token list --json | tr '{' '\n' |
	grep "\"id\":\"${brief%%.*}\"" | sed -n 's/.*"expires_at":\([0-9]*\).*/\1/p')
[ -n "$brief_end" ] || fail "no expiry in $("$CONTACTD" --db "$db" token list --json)"
still_open brief
closed_by brief token_expired "$brief_end"

# a watch URL's expiry
[ "$(request POST "/v1/calibrations/$id/watch?expires_in=5" "$alice")" = 200 ] ||
	fail "watch for 5 s"
grep -q '"expires_in":5' "$dir/answer" || fail "expires_in: $(cat "$dir/answer")"
url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$dir/answer")
expires=$(echo "$url" | sed -n 's/.*watch=[0-9]*\.\([0-9]*\)\..*/\1/p')
open_stream expiring "" "$url"
sleep_until "$((expires - 2))"
still_open expiring
closed_by expiring watch_expired "$expires"

# the valid token's stream stayed open all along, and still delivers fits
still_open kept
[ "$(request POST "/v1/calibrations/$id/measurements" "$alice" \
	'{"presses":[{"force":11,"deflection":1e-4}]}')" = 200 ] || fail "upload"
fit_id=$(sed -n 's/.*"fit_id":\([0-9]*\).*/\1/p' "$dir/answer")
for _ in $(seq 100); do
	grep -q "^id: $fit_id\$" "$dir/kept" && break
	sleep 0.1
done
grep -q "^id: $fit_id\$" "$dir/kept" || fail "the kept stream did not deliver fit $fit_id"
still_open kept
kill "$(cat "$dir/kept.pid")" 2>/dev/null
echo "calib_close: ok"
