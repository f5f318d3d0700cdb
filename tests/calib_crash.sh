#!/bin/sh
# calib_crash.sh: every measurement contactd acknowledged survives SIGKILL.
# A client uploads numbered presses (force n N, deflection n um: recognisable in the
# database), one per request, and records each one answered 200. Meanwhile the daemon
# is killed with SIGKILL at a random moment (10 kills, 0.05 to 0.6 s apart) and
# restarted on the same database. Afterwards every acknowledged press must be stored,
# and PRAGMA integrity_check must answer ok.
CONTACTD=${CONTACTD:-./contactd}
. "$(dirname "$0")/calib_lib.sh"
KILLS=10

token=$(new_token create crashbot) || fail "token create"
start_daemon
[ "$(request POST /v1/robots/crashbot/calibrations "$token" '{}')" = 201 ] || fail "create"
id=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$dir/answer")
: >"$dir/acked"
n=0
kill_no=0
while [ "$kill_no" -lt "$KILLS" ]; do
	delay=$(awk -v s="$kill_no$$" 'BEGIN { srand(s); printf "%.3f", 0.05 + 0.55 * rand() }')
	(sleep "$delay"; kill -9 "$pid" 2>/dev/null) &
	killer=$!
	while kill -0 "$pid" 2>/dev/null; do
		n=$((n + 1))
		status=$(request POST "/v1/calibrations/$id/measurements" "$token" \
			"{\"presses\":[{\"force\":$n,\"deflection\":$n.0e-6}]}")
		[ "$status" = 200 ] && echo "$n" >>"$dir/acked"
	done
	wait "$killer" 2>/dev/null
	wait "$pid" 2>/dev/null
	kill_no=$((kill_no + 1))
	start_daemon
done
# On a loaded machine the kill windows may close before many uploads are answered: upload
# on to the last daemon (killed below like the others) until more uploads than kills were
# acknowledged, so the durability check always has that much to check.
tries=0
while [ "$(wc -l <"$dir/acked")" -le "$KILLS" ] && [ "$tries" -lt 200 ]; do
	n=$((n + 1))
	tries=$((tries + 1))
	status=$(request POST "/v1/calibrations/$id/measurements" "$token" \
		"{\"presses\":[{\"force\":$n,\"deflection\":$n.0e-6}]}")
	[ "$status" = 200 ] && echo "$n" >>"$dir/acked"
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=

acked=$(wc -l <"$dir/acked")
[ "$acked" -gt "$KILLS" ] || fail "only $acked uploads acknowledged"
[ "$(sqlite3 "$db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
sqlite3 "$db" "SELECT CAST(json_extract(body, '\$.force') AS INTEGER) FROM measurements \
	WHERE calibration_id = $id AND kind = 'press'" | sort >"$dir/stored"
sort "$dir/acked" >"$dir/acked.sorted"
missing=$(comm -23 "$dir/acked.sorted" "$dir/stored" | wc -l)
[ "$missing" -eq 0 ] || fail "$missing acknowledged measurements lost"
echo "calib_crash: $acked acknowledged of $n sent, $(wc -l <"$dir/stored") stored, $KILLS kills"
