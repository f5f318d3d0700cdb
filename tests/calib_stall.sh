#!/bin/sh
# calib_stall.sh: a calibration request waiting for the store holds no HTTP thread (issue
# 51, item 6). With one HTTP thread, another process holds the store's write lock for a few
# seconds; an upload waits for it (the store's busy timeout is longer), and a question sent
# on another connection meanwhile must be answered before the upload is. Before the
# calibration routes ran in the store pool (src/http/offload.h) the upload held the one
# HTTP thread, and the question was answered only after it: the 0.2-2 s question stalls of
# `make bench-calib`, behind other commits' fsyncs.
# The assertion is an order, not a time: the upload cannot be answered before the lock is
# let go, however slow the machine.
CONTACTD=${CONTACTD:-./contactd}
. "${srcdir:-.}/tests/calib_lib.sh"
command -v sqlite3 >/dev/null || fail "needs the sqlite3 command (deploy/setup-debian.sh)"

token=$(new_token create so101-a) || fail "token create"
"$CONTACTD" --db "$db" -p 0 -t 1 >"$dir/log" 2>&1 &
pid=$!
for _ in $(seq 200); do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$dir/log")
	[ -n "$port" ] && break
	sleep 0.05
done
[ -n "$port" ] || fail "contactd did not start"
status=$(request POST /v1/robots/so101-a/calibrations "$token" \
	'{"object":{"shape":"sphere","size":0.02,"mass":0.1}}')
[ "$status" = 201 ] || fail "create: $status $(cat "$dir/answer")"
id=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$dir/answer")

# Another process takes the write lock and keeps it 3 s (the store waits up to 5 s).
(
	echo "BEGIN IMMEDIATE;"
	sleep 3
	echo "COMMIT;"
) | sqlite3 "$db" &
holder=$!
# held once another writer is refused at once
for _ in $(seq 100); do
	sqlite3 -cmd ".timeout 0" "$db" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null || break
	sleep 0.02
done
sqlite3 -cmd ".timeout 0" "$db" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null &&
	fail "the lock was not taken"

: >"$dir/order"
(
	s=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
		-H 'Content-Type: application/json' \
		--data-binary '{"drops":[{"height":0.1,"rebound":0.004}]}' \
		"http://127.0.0.1:$port/v1/calibrations/$id/measurements")
	echo "upload $s" >>"$dir/order"
) &
upload=$!
sleep 0.3 # the upload reaches the daemon and waits for the lock
s=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
	--data-binary '{"body":{"shape":"sphere","size":0.05,"mass":1},"duration":0.123456789}' \
	"http://127.0.0.1:$port/v1/drop")
echo "question $s" >>"$dir/order"
wait "$upload"
wait "$holder"
printf 'order: %s\n' "$(tr '\n' ' ' <"$dir/order")"
[ "$(sed -n 1p "$dir/order")" = "question 200" ] ||
	fail "the question waited for the upload's store wait: $(tr '\n' ' ' <"$dir/order")"
[ "$(sed -n 2p "$dir/order")" = "upload 200" ] ||
	fail "the upload was not answered 200 once the lock was let go"
echo "PASS: a question is answered while an upload waits for the store"
