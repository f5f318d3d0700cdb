#!/bin/sh
# calib_auth.sh: the calibration routes of a running contactd: bearer-token auth (no
# token, malformed, wrong secret, revoked, expired; WWW-Authenticate on every 401),
# another robot's token seeing nothing (404, as an unknown id, naming nobody), read-only
# viewer tokens of a robot and of a lab, rotation with a grace period, the last use in
# `token list`, `token revoke` never printing a secret, refusals in the log,
# all-or-nothing rejection of bad measurements, the event stream delivering a fit to a
# connected client after an upload, and the signed watch URL a browser opens instead.
CONTACTD=${CONTACTD:-./contactd}
. "$(dirname "$0")/calib_lib.sh"

expect() { # expect STATUS DESCRIPTION METHOD PATH TOKEN [BODY]
	want=$1 what=$2
	shift 2
	got=$(request "$@")
	[ "$got" = "$want" ] || fail "$what: status $got, expected $want: $(cat "$dir/answer")"
}

alice=$(new_token create alice --lab lab1) || fail "token create alice"
bob=$(new_token create bob) || fail "token create bob"
old=$(new_token create alice) || fail "token create alice 2"
# revoke given the whole token: the secret is printed nowhere
"$CONTACTD" --db "$db" token revoke "$old" >"$dir/revoke.out" 2>&1 || fail "token revoke"
grep -q "${old#*.}" "$dir/revoke.out" && fail "token revoke printed the secret"
grep -q "revoked ${old%%.*}" "$dir/revoke.out" || fail "token revoke: $(cat "$dir/revoke.out")"
"$CONTACTD" --db "$db" token revoke "nonsense.${old#*.}" >"$dir/revoke.out" 2>&1 &&
	fail "revoking nonsense succeeded"
grep -q "${old#*.}" "$dir/revoke.out" && fail "a failed token revoke printed the secret"
"$CONTACTD" --db "$db" token list --json | grep -q "\"id\":\"${old%%.*}\",.*\"revoked_at\":[0-9]" ||
	fail "token list does not show the revocation"
viewer=$(new_token create --viewer alice) || fail "token create --viewer"
labview=$(new_token create --viewer --lab lab1) || fail "lab viewer"
brief=$(new_token create alice --expires 1) || fail "token create --expires"
rotating=$(new_token create alice) || fail "token create alice 3"
rotated=$(new_token rotate "${rotating%%.*}" --grace 0) || fail "token rotate"
graced=$(new_token create alice) || fail "token create alice 4"
regraced=$(new_token rotate "${graced%%.*}" --grace 3600) || fail "rotate 2"
"$CONTACTD" --db "$db" token list --json | grep -q "\"replaces\":\"${rotating%%.*}\"" ||
	fail "token list does not show the rotation"
# for people: the new token labelled, the list a table with ISO 8601 times (UTC);
# --json for scripts: {"id", "token"}
"$CONTACTD" --db "$db" token create carol >"$dir/create.out" || fail "token create carol"
grep -q '^token: [0-9a-f]\{16\}\.[0-9a-f]' "$dir/create.out" || fail "token create: $(cat "$dir/create.out")"
grep -q '^id: *[0-9a-f]\{16\}$' "$dir/create.out" || fail "token create names no id: $(cat "$dir/create.out")"
"$CONTACTD" --db "$db" token create carol --json >"$dir/create.json" || fail "token create --json"
grep -q '^{"id":"[0-9a-f]\{16\}","token":"[0-9a-f]\{16\}\.[0-9a-f]*"}$' "$dir/create.json" ||
	fail "token create --json: $(cat "$dir/create.json")"
"$CONTACTD" --db "$db" token list >"$dir/list.out" || fail "token list"
head -n 1 "$dir/list.out" | grep -q '^ID  *ROLE  *ROBOT  *LAB  *CREATED  *EXPIRES  *LAST USED  *REVOKED  *REPLACES$' ||
	fail "token list header: $(head -n 1 "$dir/list.out")"
grep "^${old%%.*} " "$dir/list.out" |
	grep -q '^[0-9a-f]\{16\}  *robot  *alice  *[^ ]*  *[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z  *never  *-  *[0-9]\{4\}-[0-9-]*T[0-9:]*Z  *-$' ||
	fail "token list row of the revoked token: $(grep "^${old%%.*} " "$dir/list.out")"
grep -q '"created_at"\|{' "$dir/list.out" && fail "token list prints JSON: $(head -n 3 "$dir/list.out")"
grep -q "${alice#*.}" "$dir/list.out" && fail "token list shows a secret"
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
	expect 401 "rotated token without grace" POST "$path" "$rotating" "$drop"
	expect 404 "bob's token" POST "$path" "$bob" "$drop"
done
sleep 2 # past the brief token's expiry (1 s; stored to the second)
expect 401 "expired token" GET "/v1/calibrations/$id" "$brief"
grep -q 'expired' "$dir/answer" || fail "expired: $(cat "$dir/answer")"
# every 401 says which scheme to use
curl -s -i -m 20 "http://127.0.0.1:$port/v1/calibrations/$id" | tr -d '\r' >"$dir/headers"
grep -qi '^WWW-Authenticate: Bearer' "$dir/headers" || fail "no WWW-Authenticate: $(cat "$dir/headers")"
curl -s -i -m 20 -H "Authorization: Bearer $wrong" "http://127.0.0.1:$port/v1/calibrations/$id" |
	tr -d '\r' >"$dir/headers"
grep -qi '^WWW-Authenticate: Bearer .*error="invalid_token"' "$dir/headers" ||
	fail "no invalid_token: $(cat "$dir/headers")"
# bob sees nothing of alice's: the answers of an unknown id, naming nobody
expect 404 "bob creates for alice" POST /v1/robots/alice/calibrations "$bob" '{}'
expect 404 "bob reads alice's history" GET /v1/robots/alice/calibrations "$bob"
expect 404 "bob reads alice's calibration" GET "/v1/calibrations/$id" "$bob"
grep -q alice "$dir/answer" && fail "the 404 names the owner: $(cat "$dir/answer")"
cp "$dir/answer" "$dir/bob404"
expect 404 "an unknown calibration" GET "/v1/calibrations/$((id + 1000))" "$bob"
[ "$(sed "s/$((id + 1000))/$id/" "$dir/answer")" = "$(cat "$dir/bob404")" ] ||
	fail "another's calibration answers unlike a missing one"
expect 404 "bob's events of alice's" GET "/v1/calibrations/$id/events" "$bob"
expect 404 "bob watches alice's" POST "/v1/calibrations/$id/watch" "$bob"
expect 401 "no token reads" GET "/v1/calibrations/$id" ""
[ "$(grep -c 'calibration: .* refused' "$dir/log")" -ge 9 ] || fail "refusals are not logged"
# viewers read, never write; a lab's viewer sees its robots only
expect 200 "viewer reads" GET "/v1/calibrations/$id" "$viewer"
expect 200 "viewer reads the history" GET /v1/robots/alice/calibrations "$viewer"
expect 403 "viewer uploads" POST "/v1/calibrations/$id/measurements" "$viewer" "$drop"
expect 403 "viewer creates" POST /v1/robots/alice/calibrations "$viewer" '{}'
expect 200 "lab viewer reads" GET "/v1/calibrations/$id" "$labview"
expect 200 "lab viewer reads the history" GET /v1/robots/alice/calibrations "$labview"
expect 403 "lab viewer uploads" POST "/v1/calibrations/$id/measurements" "$labview" "$drop"
expect 404 "lab viewer reads bob's" GET /v1/robots/bob/calibrations "$labview"
expect 200 "rotated token" GET "/v1/calibrations/$id" "$rotated"
expect 200 "rotated token in its grace" GET "/v1/calibrations/$id" "$graced"
expect 200 "its successor" GET "/v1/calibrations/$id" "$regraced"
"$CONTACTD" --db "$db" token list --json | grep -q "\"id\":\"${viewer%%.*}\",.*\"last_used_at\":[0-9]" ||
	fail "token list does not show the viewer's last use"
"$CONTACTD" --db "$db" token list --json | grep -q "${alice#*.}" && fail "token list shows a secret"

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
grep -q '^data: {' "$dir/events" || fail "no event data"

# a browser's EventSource: a signed, short-lived URL instead of the header, never the token
expect 200 "viewer watches" POST "/v1/calibrations/$id/watch" "$viewer"
url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$dir/answer")
case $url in "/v1/calibrations/$id/events?watch="*) ;; *) fail "watch url: $(cat "$dir/answer")" ;; esac
grep -q '"expires_in":[1-9]' "$dir/answer" || fail "no expires_in: $(cat "$dir/answer")"
case $url in *"${viewer#*.}"*) fail "the watch URL holds the token's secret" ;; esac
curl -s -N -m 5 "http://127.0.0.1:$port$url" >"$dir/watched"
grep -q '^event: fit$' "$dir/watched" || fail "the watch URL streams no fit: $(cat "$dir/watched")"
last=${url#"${url%?}"}
if [ "$last" = 0 ]; then tampered="${url%?}1"; else tampered="${url%?}0"; fi
expect 401 "a tampered watch URL" GET "$tampered" ""
expect 401 "a watch URL of another calibration" GET \
	"$(echo "$url" | sed "s|/calibrations/$id/|/calibrations/$((id + 1))/|")" ""
"$CONTACTD" --db "$db" token revoke "${viewer%%.*}" >/dev/null || fail "revoke the viewer"
expect 401 "a watch URL of a revoked token" GET "$url" ""
echo "calib_auth: ok"
