#!/bin/sh
# calib_auth.sh: the calibration routes of a running contactd: bearer-token auth (no
# token, malformed, wrong secret, revoked, another robot's), refusals in the log,
# all-or-nothing rejection of bad measurements, and the event stream delivering a fit
# to a connected client after an upload.
CONTACTD=${CONTACTD:-./contactd}
. "$(dirname "$0")/calib_lib.sh"

expect() { # expect STATUS DESCRIPTION METHOD PATH TOKEN [BODY]
	want=$1 what=$2
	shift 2
	got=$(request "$@")
	[ "$got" = "$want" ] || fail "$what: status $got, expected $want: $(cat "$dir/answer")"
}

alice=$("$CONTACTD" --db "$db" token create alice) || fail "token create alice"
bob=$("$CONTACTD" --db "$db" token create bob) || fail "token create bob"
old=$("$CONTACTD" --db "$db" token create alice) || fail "token create alice 2"
"$CONTACTD" --db "$db" token revoke "${old%%.*}" || fail "token revoke"
"$CONTACTD" --db "$db" token list | grep -q "\"id\":\"${old%%.*}\",\"revoked_at\":[0-9]" ||
	fail "token list does not show the revocation"
wrong="${alice%%.*}.$(echo "${alice#*.}" | tr '0-9a-f' '1-9a-f0')"
start_daemon

expect 201 "alice creates" POST /v1/robots/alice/calibrations "$alice" '{"object":{"shape":"sphere","size":0.02,"mass":0.1}}'
id=$(sed -n 's/.*"id":\([0-9]*\).*/\1/p' "$dir/answer")
drop='{"drops":[{"height":0.1,"rebound":0.004}]}'
for path in /v1/calibrations/$id/measurements; do
	expect 401 "no token" POST "$path" "" "$drop"
	expect 401 "malformed token" POST "$path" "abc.def" "$drop"
	expect 401 "wrong secret" POST "$path" "$wrong" "$drop"
	expect 401 "revoked token" POST "$path" "$old" "$drop"
	expect 403 "bob's token" POST "$path" "$bob" "$drop"
done
expect 403 "bob creates for alice" POST /v1/robots/alice/calibrations "$bob" '{}'
expect 403 "bob reads alice's history" GET /v1/robots/alice/calibrations "$bob"
expect 403 "bob reads alice's calibration" GET "/v1/calibrations/$id" "$bob"
expect 401 "no token reads" GET "/v1/calibrations/$id" ""
[ "$(grep -c 'calibration: .* refused' "$dir/log")" -ge 9 ] || fail "refusals are not logged"

# bad measurements: rejected with the contract's error, and nothing of the upload stored
expect 422 "rebound above height" POST "/v1/calibrations/$id/measurements" "$alice" \
	'{"presses":[{"force":1,"deflection":1e-4}],"drops":[{"height":0.1,"rebound":0.2}]}'
grep -q '"path":"/drops/0/rebound"' "$dir/answer" || fail "error path: $(cat "$dir/answer")"
expect 422 "negative force" POST "/v1/calibrations/$id/measurements" "$alice" \
	'{"presses":[{"force":-1,"deflection":1e-4}]}'
expect 422 "mismatched lengths" POST "/v1/calibrations/$id/measurements" "$alice" \
	'{"trajectories":[{"t":[0,1,2,3],"z":[3,2,1]}]}'
expect 422 "non-finite" POST "/v1/calibrations/$id/measurements" "$alice" \
	'{"drops":[{"height":1e999,"rebound":0}]}'
grep -q '"path":"/drops/0/height"' "$dir/answer" || fail "error path: $(cat "$dir/answer")"
expect 404 "unknown calibration" POST /v1/calibrations/999999/measurements "$alice" "$drop"
expect 200 "alice reads" GET "/v1/calibrations/$id" "$alice"
grep -q '"measurements":{"drops":\[\],"presses":\[\],"trajectories":\[\]}' "$dir/answer" ||
	fail "a rejected upload left measurements: $(cat "$dir/answer")"

# the event stream: a connected client receives the fit of the next upload
curl -s -N -m 30 -H "Authorization: Bearer $alice" \
	"http://127.0.0.1:$port/v1/calibrations/$id/events" >"$dir/events" &
client=$!
sleep 0.5
expect 200 "alice uploads" POST "/v1/calibrations/$id/measurements" "$alice" "$drop"
fit_id=$(sed -n 's/.*"fit_id":\([0-9]*\).*/\1/p' "$dir/answer")
[ -n "$fit_id" ] || fail "no fit_id in $(cat "$dir/answer")"
for _ in $(seq 100); do
	grep -q "^id: $fit_id\$" "$dir/events" && break
	sleep 0.1
done
kill "$client" 2>/dev/null
grep -q "^id: $fit_id\$" "$dir/events" || fail "the stream did not deliver fit $fit_id"
grep -q '^data: {"fit_id\|^data: {' "$dir/events" || fail "no event data"
echo "calib_auth: ok"
