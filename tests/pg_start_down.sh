#!/bin/sh
# pg_start_down.sh: a contactd node started while its PostgreSQL calibration store is down
# (issue #18: "PostgreSQL down: questions keep being answered; calibration requests get 503
# with Retry-After; nothing acknowledged is lost; reconnection is automatic"). A real
# PostgreSQL, started here (initdb, pg_ctl as the postgres user). It checks, in order:
#   1. a store that can never work is a start-up error, at once: a URL libpq cannot parse,
#      a database that does not exist, a role that does not exist;
#   2. with PostgreSQL stopped, `contactd --store URL token ...` fails at once, saying the
#      server is unreachable;
#   3. a node started with PostgreSQL stopped starts and says so; questions are answered
#      200; calibration routes (a calibration, an upload, a watch URL's stream) 503 with
#      Retry-After and a JSON error;
#   4. PostgreSQL started: the node reaches it by itself (no request needed), migrates the
#      schema within a bounded time, and serves calibration: an upload acknowledged then,
#      resent with its Idempotency-Key, is stored once; its fit is computed; a watch URL
#      signed by the node opens its stream;
#   5. /v1/health says so throughout, always 200: "calibration_store" {"engine": "postgresql",
#      "reachable": false} while PostgreSQL is stopped (3), true within a bounded time once it
#      is up (4), false again within a bounded time once it is stopped under a running node,
#      true again once restarted; the URL (with its password) never appears;
#   6. the node stops cleanly on SIGTERM.
# (A node whose PostgreSQL goes away and comes back under load: tests/pg_cluster.sh, 5.)
# Run by `make check` from the top build directory, with srcdir set by automake.
set -u
CONTACTD=${CONTACTD:-./contactd}
srcdir=${srcdir:-.}
. "$srcdir/tests/pg_lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-pgdown.XXXXXX") || exit 99
node_pid=
cleanup() {
	[ -n "$node_pid" ] && kill "$node_pid" 2>/dev/null
	pg_stop
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() {
	echo "FAIL: $*"
	[ -f "$tmp/node.log" ] && { echo "--- node"; tail -8 "$tmp/node.log"; }
	exit 1
}

pg_start "$tmp" || fail "PostgreSQL did not start"
migrations=$(ls "$srcdir"/schema/pg/[0-9][0-9][0-9]_*.sql | wc -l)

# refused URL WHAT: a node given URL exits at once, non-zero, its message matching WHAT.
refused() {
	start=$(date +%s)
	"$CONTACTD" --port 0 --db "$tmp/refused.db" --store "$1" >"$tmp/refused.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 200); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		fail "a node with store $1 kept running: $(cat "$tmp/refused.log")"
	fi
	wait "$pid" && fail "a node with store $1 exited 0"
	grep -q "$2" "$tmp/refused.log" || fail "store $1: '$(cat "$tmp/refused.log")' does not say '$2'"
	grep -q 'listening on' "$tmp/refused.log" && fail "store $1: the node listened"
	echo "   $1: $(cat "$tmp/refused.log") ($(( $(date +%s) - start )) s)"
}

# 1. Stores that can never work: start-up errors, with the server running.
base="postgresql://postgres@127.0.0.1:$pg_port"
echo "1. start-up errors:"
refused "$base/contactd?no_such_option=1" 'bad PostgreSQL URL'
refused "$base/no_such_database" 'database "no_such_database" does not exist'
refused "postgresql://no_such_role@127.0.0.1:$pg_port/contactd" 'role "no_such_role" does not exist'

pg_stop

# 2. The token command does not wait.
start=$(date +%s)
"$CONTACTD" --db "$tmp/cli.db" --store "$pg_url" token create robot1 >"$tmp/cli.out" 2>&1 &&
	fail "token create succeeded with PostgreSQL stopped: $(cat "$tmp/cli.out")"
cli_s=$(( $(date +%s) - start ))
grep -q 'unreachable' "$tmp/cli.out" || fail "token create: '$(cat "$tmp/cli.out")' does not say unreachable"
[ "$cli_s" -le 10 ] || fail "token create took $cli_s s to fail"
echo "2. token create with PostgreSQL stopped failed in $cli_s s: $(cat "$tmp/cli.out")"

# 3. A node started with PostgreSQL stopped.
"$CONTACTD" --port 0 --db "$tmp/node.db" --store "$pg_url" -t 4 >"$tmp/node.log" 2>&1 &
node_pid=$!
port=
for _ in $(seq 1 200); do
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$tmp/node.log")
	[ -n "$port" ] && break
	kill -0 "$node_pid" 2>/dev/null || fail "the node exited with PostgreSQL stopped"
	sleep 0.05
done
[ -n "$port" ] || fail "the node did not start with PostgreSQL stopped"
grep -q 'calibration store: PostgreSQL unreachable: .*answered 503' "$tmp/node.log" ||
	fail "the node did not say its store is unreachable"
url="http://127.0.0.1:$port"

# health: "STATUS ENGINE REACHABLE" of GET /v1/health (its body into health.json).
health() {
	s=$(curl -s -m 5 -o "$tmp/health.json" -w '%{http_code}' "$url/v1/health" || echo 000)
	printf '%s %s %s\n' "$s" \
		"$(sed -n 's/.*"calibration_store": *{[^}]*"engine": *"\([a-z]*\)".*/\1/p' "$tmp/health.json")" \
		"$(sed -n 's/.*"calibration_store": *{[^}]*"reachable": *\([a-z]*\).*/\1/p' "$tmp/health.json")"
}
# health_becomes WANT SECONDS: health is "200 postgresql WANT" within SECONDS: prints how long,
# else prints why and returns 1.
health_becomes() {
	t0=$(date +%s)
	for _ in $(seq 1 $(( $2 * 10 ))); do
		[ "$(health)" = "200 postgresql $1" ] && { echo $(( $(date +%s) - t0 )); return 0; }
		sleep 0.1
	done
	echo "health is not '200 postgresql $1' within $2 s: $(cat "$tmp/health.json")"
	return 1
}

# call METHOD PATH [BODY [KEY [TOKEN]]]: the status; body into answer, headers into headers;
# at most $call_s seconds (20; a call with ?wait= sets its wait and a little more).
# Without TOKEN, a well-formed one nobody made (checking it needs the store).
nobody=0123456789abcdef.$(printf '%064d' 0)
call() {
	curl -s -m "${call_s:-20}" -D "$tmp/headers" -o "$tmp/answer" -w '%{http_code}' -X "$1" \
		-H "Authorization: Bearer ${5:-$nobody}" \
		-H 'Content-Type: application/json' ${4:+-H "Idempotency-Key: \"$4\""} \
		${3:+--data-binary "$3"} "$url$2" || echo 000
}
# unavailable WHAT: the last call was 503 with Retry-After and a JSON error.
unavailable() {
	[ "$status" = 503 ] || fail "$1 with PostgreSQL stopped: $status $(cat "$tmp/answer")"
	grep -qi '^Retry-After: [1-9]' "$tmp/headers" || fail "$1: no Retry-After on the 503"
	grep -q '"error"' "$tmp/answer" || fail "$1: the 503 is not a JSON error: $(cat "$tmp/answer")"
	# libpq's text names the database's host and port: the log's, not the client's
	! grep -q -i 'postgresql\|port\|host\|127\.0\.0\.1' "$tmp/answer" ||
		fail "$1: the 503 tells where the database is: $(cat "$tmp/answer")"
}
q=0
for i in 1 2 3 4 5; do
	s=$(curl -s -m 20 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
		--data-binary "{\"body\":{\"shape\":\"box\",\"size\":0.05,\"mass\":1.$i}}" "$url/v1/rest")
	[ "$s" = 200 ] || fail "a question with PostgreSQL stopped: $s"
	q=$((q + 1))
done
status=$(call POST /v1/robots/robot1/calibrations '{}')
unavailable "a new calibration"
status=$(call POST /v1/calibrations/1/measurements '{"presses":[{"force":15,"deflection":5.0e-6}]}' k-1)
unavailable "an upload"
# a watch URL cannot be checked before the key is read from the store
status=$(curl -s -m 20 -D "$tmp/headers" -o "$tmp/answer" -w '%{http_code}' \
	"$url/v1/calibrations/1/events?watch=1.2.0123456789abcdef.00" || echo 000)
unavailable "a watch URL's stream"
[ "$(health)" = "200 postgresql false" ] ||
	fail "health with PostgreSQL stopped: $(health) $(cat "$tmp/health.json")"
grep -q 'postgres\(ql\)\?://\|127\.0\.0\.1' "$tmp/health.json" && fail "health shows the store's URL: $(cat "$tmp/health.json")"
echo "3. node up with PostgreSQL stopped: $q questions 200; calibration, upload and watch" \
	"stream 503 with Retry-After $(sed -n 's/^[Rr]etry-[Aa]fter: \([0-9]*\).*/\1/p' "$tmp/headers" | tr -d '\r')"

# 4. PostgreSQL comes up: the node reaches it by itself and serves calibration.
pg_restart || fail "PostgreSQL did not start again"
up=$(date +%s)
reached=
for _ in $(seq 1 300); do
	grep -q 'calibration store: PostgreSQL reached' "$tmp/node.log" && reached=1 && break
	sleep 0.1
done
reach_s=$(( $(date +%s) - up ))
[ -n "$reached" ] || fail "the node did not reach PostgreSQL within 30 s of its start"
# the fit adopter tries every 2 s, each attempt bounded by 2 s: 10 s is ample
health_up_s=$(health_becomes true 10) || fail "$health_up_s"
[ "$(pg_sql "SELECT max(version) FROM contactd_schema")" = "$migrations" ] ||
	fail "the node did not migrate the schema to version $migrations"
"$CONTACTD" --db "$tmp/cli.db" --store "$pg_url" token create robot1 >"$tmp/cli.out" 2>&1 ||
	fail "token create: $(cat "$tmp/cli.out")"
token=$(sed -n 's/^token: //p' "$tmp/cli.out")
[ -n "$token" ] || fail "token create printed no token: $(cat "$tmp/cli.out")"
status=$(call POST /v1/robots/robot1/calibrations '{}' '' "$token")
[ "$status" = 201 ] || fail "a new calibration once PostgreSQL is up: $status $(cat "$tmp/answer")"
cal=$(sed -n 's/.*"id":\([0-9]*\),"robot".*/\1/p' "$tmp/answer")
[ -n "$cal" ] || fail "no calibration id in $(cat "$tmp/answer")"
body='{"presses":[{"force":15,"deflection":5.0e-6},{"force":19,"deflection":9.5e-6}]}'
status=$(call_s=310 call POST "/v1/calibrations/$cal/measurements?wait=300" "$body" up-1 "$token")
[ "$status" = 200 ] || fail "an upload once PostgreSQL is up: $status $(cat "$tmp/answer")"
cp "$tmp/answer" "$tmp/acked"
upload=$(sed -n 's/.*"upload":\([0-9]*\).*/\1/p' "$tmp/acked")
[ -n "$upload" ] || fail "no upload id in $(cat "$tmp/acked")"
grep -q '"state":"done"' "$tmp/acked" || fail "the fit was not done after ?wait: $(cat "$tmp/acked")"
# resent (as a robot unsure of the answer would): replayed, not stored again
status=$(call POST "/v1/calibrations/$cal/measurements" "$body" up-1 "$token")
[ "$status" = 200 ] || fail "the resent upload: $status"
grep -q "\"upload\":$upload[,}]" "$tmp/answer" || fail "the resent upload was not replayed: $(cat "$tmp/answer")"
[ "$(pg_sql "SELECT count(*) FROM uploads WHERE calibration_id = $cal")" = 1 ] ||
	fail "the acknowledged upload is stored $(pg_sql "SELECT count(*) FROM uploads WHERE calibration_id = $cal") times"
[ "$(pg_sql "SELECT count(*) FROM measurements WHERE upload_id = $upload")" = 2 ] ||
	fail "upload $upload does not hold its 2 presses"
# a watch URL: the key, made in the store now, signs and verifies
status=$(call POST "/v1/calibrations/$cal/watch" '' '' "$token")
[ "$status" = 200 ] || fail "a watch URL once PostgreSQL is up: $status $(cat "$tmp/answer")"
watch=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$tmp/answer")
s=$(curl -s -m 2 -o /dev/null -w '%{http_code}' "$url$watch")
[ "$s" = 200 ] || fail "the watch URL's stream: $s"
echo "4. PostgreSQL started: the node reached it and migrated to version $migrations within" \
	"$reach_s s; upload $upload acknowledged, its fit done, replayed on resend and stored" \
	"once; a watch URL signed and honoured"

# 5. Health follows PostgreSQL under a running node: its listener sees the server go within a
# second (5 s allowed, for a loaded machine), the adopter sees it back within 2 + 2 s (10 s).
pg_stop
down_s=$(health_becomes false 5) || fail "$down_s"
pg_restart || fail "PostgreSQL did not start again"
back_s=$(health_becomes true 10) || fail "$back_s"
echo "5. health: calibration_store reachable true $health_up_s s after the first start," \
	"false $down_s s after a stop, true $back_s s after a restart; status 200 throughout"

# 6. The node stops cleanly (status 0; under --enable-sanitizers, no report).
kill "$node_pid"
wait "$node_pid"
stopped=$?
node_pid=
[ "$stopped" = 0 ] || fail "the node exited with status $stopped on SIGTERM"
grep -q 'Sanitizer\|runtime error' "$tmp/node.log" && fail "the node's log has a sanitizer report"
echo "6. the node stopped cleanly on SIGTERM"
echo "PASS: pg_start_down"
