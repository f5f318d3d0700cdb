#!/bin/sh
# pg_cluster.sh: three contactd nodes sharing one PostgreSQL calibration store, behind
# nginx configured with deploy/nginx-nodes.conf (issue #18). Real servers, started here:
# PostgreSQL (initdb, pg_ctl) in a temporary directory as the postgres user, the nodes,
# nginx. It checks, in order:
#   1. a token made by `contactd --store URL token create` works on every node;
#   2. the same Idempotency-Key on node 2 replays node 1's answer, stored once;
#   3. an event stream on node 2 hears a fit node 1 computed (LISTEN/NOTIFY);
#   4. robots upload round-robin through nginx, resending with the same key until answered,
#      while nodes are SIGKILLed in the middle of a fit (PG_CLUSTER_KILLS times, 20 by
#      default, the issue's count; each kill lands mid-fit by construction: the node is
#      frozen with SIGSTOP, and killed once the store still shows its fit running; the
#      whole test takes about 2 minutes on a loaded 2-core machine; each node restarted on
#      its port): every acknowledged upload is stored once,
#      every fit ends done or superseded by a newer one, none is finished twice (a trigger
#      records every finish and claim);
#   4b. a fit whose node is killed while computing it is finished by another node once its
#      lease lapses, within 15 s, once;
#   5. PostgreSQL stopped for 3 s and restarted under load: questions all answered 200,
#      calibration uploads answered 503 with Retry-After meanwhile, then accepted again,
#      nothing acknowledged lost.
# Run by `make check` from the top build directory, with srcdir set by automake.
set -u
CONTACTD=${CONTACTD:-./contactd}
NGINX=${NGINX:-$(PATH="$PATH:/usr/sbin:/sbin" command -v nginx || true)}
srcdir=${srcdir:-.}
KILLS=${PG_CLUSTER_KILLS:-20}
. "$srcdir/tests/pg_lib.sh"
. "$srcdir/tests/http_lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-pg.XXXXXX") || exit 99

cleanup() {
	for n in 1 2 3; do
		[ -f "$tmp/pid$n" ] && kill -9 "$(cat "$tmp/pid$n")" 2>/dev/null
	done
	[ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null
	pg_stop
	wait 2>/dev/null
	[ -n "${PG_CLUSTER_KEEP-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() {
	echo "FAIL: $*"
	for n in 1 2 3; do
		[ -f "$tmp/node$n.log" ] && { echo "--- node $n"; tail -8 "$tmp/node$n.log"; }
	done
	exit 1
}

[ -n "$NGINX" ] && [ -x "$NGINX" ] || fail "nginx not found (deploy/setup-debian.sh installs it)"
pg_start "$tmp" || fail "PostgreSQL did not start"

# start_node N [PORT]: node N on PORT (0: a free one), its log in node$N.log (the logs of
# its earlier lives appended to node$N.old); port$N, pid$N and id$N (its store node name).
start_node() {
	[ -f "$tmp/node$1.log" ] && cat "$tmp/node$1.log" >>"$tmp/node$1.old"
	: >"$tmp/node$1.log" # read below before the node has opened it
	"$CONTACTD" --port "${2:-0}" --db "$tmp/node$1.db" --store "$pg_url" -t 4 \
		--max-connections-per-ip 0 >"$tmp/node$1.log" 2>&1 &
	echo $! >"$tmp/pid$1"
	for _ in $(seq 1 200); do
		p=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$tmp/node$1.log")
		if [ -n "$p" ]; then
			echo "$p" >"$tmp/port$1"
			sed -n 's/.*calibration store: PostgreSQL, node \([0-9a-f]*\).*/\1/p' \
				"$tmp/node$1.log" >"$tmp/id$1"
			return 0
		fi
		kill -0 "$(cat "$tmp/pid$1")" 2>/dev/null || break
		sleep 0.05
	done
	fail "node $1 did not start: $(cat "$tmp/node$1.log")"
}
port() { cat "$tmp/port$1"; }

for n in 1 2 3; do start_node "$n"; done
[ -s "$tmp/id1" ] || fail "node 1 did not name itself"

# Every finish and every claim of a fit, recorded by the server itself.
pg_sql "CREATE TABLE fit_finishes (fit_id bigint, owner text, state text, at double precision DEFAULT extract(epoch FROM clock_timestamp()));
CREATE TABLE fit_claims (fit_id bigint, owner text, at double precision DEFAULT extract(epoch FROM clock_timestamp()));
CREATE FUNCTION note_fit() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
  IF NEW.state IN ('done', 'failed') THEN
    INSERT INTO fit_finishes (fit_id, owner, state) VALUES (NEW.id, NEW.owner, NEW.state);
  ELSIF NEW.state = 'running' AND (OLD.state <> 'running' OR OLD.owner IS DISTINCT FROM NEW.owner) THEN
    INSERT INTO fit_claims (fit_id, owner) VALUES (NEW.id, NEW.owner);
  END IF;
  RETURN NEW; END \$\$;
CREATE TRIGGER note_fit AFTER UPDATE ON fits FOR EACH ROW EXECUTE FUNCTION note_fit();" ||
	fail "cannot install the fit triggers"

# call METHOD URL TOKEN [BODY [KEY]]: the status; the body into $tmp/answer; at most
# $call_s seconds (20; a call with ?wait= sets its wait and a little more).
call() {
	curl -s -m "${call_s:-20}" -o "$tmp/answer" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $3" \
		-H 'Content-Type: application/json' ${5:+-H "Idempotency-Key: \"$5\""} \
		${4:+--data-binary "$4"} "$2" || echo 000
}

# 1. Tokens made by the token command, another process, work on every node.
for r in 1 2 3; do
	"$CONTACTD" --db "$tmp/cli.db" --store "$pg_url" token create "robot$r" >"$tmp/created$r" ||
		fail "token create robot$r"
	sed -n 's/^token: //p' "$tmp/created$r" >"$tmp/token$r"
	[ -s "$tmp/token$r" ] || fail "token create robot$r printed no token: $(cat "$tmp/created$r")"
done
for r in 1 2 3; do
	status=$(call POST "http://127.0.0.1:$(port "$r")/v1/robots/robot$r/calibrations" \
		"$(cat "$tmp/token$r")" '{}')
	[ "$status" = 201 ] || fail "robot$r: create on node $r: $status $(cat "$tmp/answer")"
	sed -n 's/.*"id":\([0-9]*\),"robot".*/\1/p' "$tmp/answer" >"$tmp/cal$r"
	[ -s "$tmp/cal$r" ] || fail "no calibration id in $(cat "$tmp/answer")"
done
for r in 1 2 3; do
	for n in 1 2 3; do
		status=$(call GET "http://127.0.0.1:$(port "$n")/v1/calibrations/$(cat "$tmp/cal$r")" \
			"$(cat "$tmp/token$r")")
		[ "$status" = 200 ] || fail "robot$r's token on node $n: $status"
	done
done
echo "1. tokens made by the token command work on all 3 nodes"

# 2. One Idempotency-Key, two nodes: one upload, the same answer.
t1=$(cat "$tmp/token1")
status=$(call POST "http://127.0.0.1:$(port 3)/v1/robots/robot1/calibrations" "$t1" '{}')
[ "$status" = 201 ] || fail "another calibration of robot1 on node 3: $status"
c1=$(sed -n 's/.*"id":\([0-9]*\),"robot".*/\1/p' "$tmp/answer")
body='{"presses":[{"force":15,"deflection":5.0e-6}]}'
status=$(call POST "http://127.0.0.1:$(port 1)/v1/calibrations/$c1/measurements" "$t1" "$body" k-1)
[ "$status" = 200 ] || fail "upload on node 1: $status"
cp "$tmp/answer" "$tmp/answer.node1"
status=$(call POST "http://127.0.0.1:$(port 2)/v1/calibrations/$c1/measurements" "$t1" "$body" k-1)
[ "$status" = 200 ] || fail "replay on node 2: $status"
cmp -s "$tmp/answer" "$tmp/answer.node1" || fail "node 2 answered $(cat "$tmp/answer"), node 1 $(cat "$tmp/answer.node1")"
[ "$(pg_sql "SELECT count(*) FROM uploads WHERE calibration_id = $c1")" = 1 ] ||
	fail "the replayed upload was stored twice"
status=$(call POST "http://127.0.0.1:$(port 3)/v1/calibrations/$c1/measurements" "$t1" \
	'{"presses":[{"force":16,"deflection":6.0e-6}]}' k-1)
[ "$status" = 422 ] || fail "the key with another body on node 3: $status, not 422"
echo "2. Idempotency-Key k-1 on node 2 replayed node 1's answer byte for byte"

# 3. A stream on node 2 hears the fits node 1 computes (open as long as an upload may wait for its
# fit: a fit of presses alone steps every press at every point of the fit's map, tens of seconds on
# sanitised nodes sharing a busy machine).
curl -s -N -m 320 -H "Authorization: Bearer $t1" \
	"http://127.0.0.1:$(port 2)/v1/calibrations/$c1/events" >"$tmp/stream" 2>/dev/null &
stream=$!
sleep 0.5
seen=
for try in 1 2 3 4 5; do
	status=$(call_s=310 call POST "http://127.0.0.1:$(port 1)/v1/calibrations/$c1/measurements?wait=300" \
		"$t1" "{\"presses\":[{\"force\":$((16 + try)),\"deflection\":$((6 + try)).1e-6}]}")
	[ "$status" = 200 ] || fail "upload with wait on node 1: $status"
	fit=$(sed -n 's/.*"fit_id":\([0-9]*\).*/\1/p' "$tmp/answer")
	owner=$(pg_sql "SELECT owner FROM fits WHERE id = $fit AND state = 'done'")
	[ -n "$owner" ] || fail "fit $fit not done after ?wait"
	[ "$owner" = "$(cat "$tmp/id2")" ] && continue # node 2 happened to compute it
	for _ in $(seq 1 50); do
		grep -q "\"id\":$fit,.*\"mjcf\"\|\"mjcf\".*\"id\":$fit[,}]" "$tmp/stream" && seen=$fit && break
		sleep 0.1
	done
	[ -n "$seen" ] || fail "node 2's stream did not hear fit $fit (owner $owner): $(cat "$tmp/stream")"
	break
done
kill "$stream" 2>/dev/null
[ -n "$seen" ] || fail "node 2 computed every fit: no fit of another node to hear"
echo "3. node 2's event stream heard fit $seen, computed by node $(grep -l "$owner" "$tmp"/id? | sed 's/.*id//')"

# 4. Robots through nginx, nodes killed in the middle of fits.
site() {
	echo "access_log off;"
	sed -e "s/server 127\.0\.0\.1:8751 /server 127.0.0.1:$(port 1) /" \
	    -e "s/server 127\.0\.0\.1:8752 /server 127.0.0.1:$(port 2) /" \
	    -e "s/server 127\.0\.0\.1:8753 /server 127.0.0.1:$(port 3) /" \
	    -e "s/listen 80;/listen 127.0.0.1:$1;/" "$srcdir/deploy/nginx-nodes.conf"
}
grep -q "server 127.0.0.1:8753 " "$srcdir/deploy/nginx-nodes.conf" || fail "upstream lines not found"
start_nginx "$tmp" site || fail "nginx did not start"
front="http://127.0.0.1:$nport"

# robot R MAX: one-drop uploads to robot R's calibrations through nginx until $tmp/stop
# exists, each resent with its key until answered 200; after MAX uploads to one calibration
# the robot opens another, so it uploads for as long as the kills go on, however slow the
# machine. The first upload to a calibration in phase a holds a press and 8 drops. The fits
# stay light on purpose (drops cost a fit little, each press is a 4 s simulation at every
# candidate pad): a fit must end well within CALIB_FIT_SECONDS on three sanitised nodes
# sharing a busy machine, and a kill needs only a fit running, however short (below).
# The calibrations go to cals$R, acknowledged upload ids to acked$R, the measurements they
# held to meas$R (a count a line), every status to statuses$R.
robot() {
	tok=$(cat "$tmp/token$1")
	cal=$(cat "$tmp/cal$1")
	echo "$cal" >>"$tmp/cals$1"
	u=0
	n=0
	while [ ! -f "$tmp/stop" ]; do
		if [ "$u" -ge "$2" ]; then
			[ "$phase" = a ] || break
			s=$(curl -s -m 20 -o "$tmp/robot$1.answer" -w '%{http_code}' -X POST \
				-H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
				--data-binary '{}' "$front/v1/robots/robot$1/calibrations" || echo 000)
			if [ "$s" != 201 ]; then
				sleep 0.2
				continue
			fi
			cal=$(sed -n 's/.*"id":\([0-9]*\),"robot".*/\1/p' "$tmp/robot$1.answer")
			echo "$cal" >>"$tmp/cals$1"
			u=0
			n=$((n + 1))
		fi
		u=$((u + 1))
		b="{\"drops\":[{\"height\":0.$((200 + u)),\"rebound\":0.00$((1 + (u + $1) % 5))$1}]}"
		m=1
		if [ "$u" = 1 ] && [ "$phase" = a ]; then
			b=$(awk -v r="$1" 'BEGIN { printf "{\"presses\":[{\"force\":11.25,\"deflection\":1.%de-6}],\"drops\":[", r;
				for (i = 1; i <= 8; i++) printf "%s{\"height\":0.%03d,\"rebound\":0.00%d}", (i > 1 ? "," : ""), 100 + i, 1 + (i + r) % 5;
				printf "]}" }')
			m=9
		fi
		for _ in $(seq 1 200); do
			s=$(curl -s -m 20 -o "$tmp/robot$1.answer" -w '%{http_code}' -X POST \
				-H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
				-H "Idempotency-Key: \"r$1-$phase-c$n-u$u\"" --data-binary "$b" \
				"$front/v1/calibrations/$cal/measurements" || echo 000)
			echo "$s" >>"$tmp/statuses$1"
			if [ "$s" = 200 ]; then
				sed -n 's/.*"upload":\([0-9]*\).*/\1/p' "$tmp/robot$1.answer" >>"$tmp/acked$1"
				echo "$m" >>"$tmp/meas$1"
				break
			fi
			case $s in 4*) # refused for good: the test is wrong
				cp "$tmp/robot$1.answer" "$tmp/refused$1"
				return 1 ;;
			esac
			sleep 0.2
		done
		sleep 0.1
	done
}
# wait_fits_closed SECONDS: until no fit is pending or running, at most SECONDS; $open is
# the count left.
wait_fits_closed() {
	deadline=$(( $(date +%s) + $1 ))
	while :; do
		open=$(pg_sql "SELECT count(*) FROM fits WHERE state IN ('pending', 'running')")
		[ "$open" = 0 ] || [ "$(date +%s)" -ge "$deadline" ] && break
		sleep 0.2
	done
}
# check_stored R: robot R's calibrations hold exactly the uploads it was told were stored,
# and the measurements those held (none twice).
check_stored() {
	cals=$(paste -sd, "$tmp/cals$1")
	sort -n "$tmp/acked$1" >"$tmp/acked$1.sorted"
	pg_sql "SELECT id FROM uploads WHERE calibration_id IN ($cals) ORDER BY id" >"$tmp/stored$1"
	cmp -s "$tmp/acked$1.sorted" "$tmp/stored$1" ||
		fail "robot$1: acknowledged uploads $(tr '\n' ' ' <"$tmp/acked$1.sorted") but stored $(tr '\n' ' ' <"$tmp/stored$1")"
	got=$(pg_sql "SELECT count(*) FROM measurements WHERE calibration_id IN ($cals)")
	want=$(awk '{ s += $1 } END { print s + 0 }' "$tmp/meas$1")
	[ "$got" = "$want" ] || fail "robot$1: $got measurements stored, $want acknowledged"
}
rm -f "$tmp/stop"
phase=a
robots=
for r in 1 2 3; do
	robot "$r" 20 & # a press and 8 + 19 drops a calibration
	robots="$robots $!"
done

# live_ids: the store names of the nodes running now, quoted for SQL.
live_ids() { cat "$tmp"/id1 "$tmp"/id2 "$tmp"/id3 | sed "s/.*/'&'/" | paste -sd, -; }
# the kills the killed nodes' unfinished claims show landed in the middle of a fit
interrupted_count() {
	owners=$(sed "s/.*/'&'/" "$tmp/killed_owners" | paste -sd, -)
	pg_sql "SELECT count(*) FROM fit_claims c WHERE c.owner IN ($owners) AND NOT EXISTS (SELECT 1 FROM fit_finishes f WHERE f.fit_id = c.fit_id AND f.owner = c.owner)"
}
# Each kill lands in the middle of a fit by construction, whatever the machine's speed: a
# node the store shows running a fit is frozen (SIGSTOP), and once the store still shows
# that fit running under it (a commit already on its way has landed by then), it cannot
# finish it any more: it is killed. A fit that ended between the look and the freeze lets
# its node go on (SIGCONT) and another is sought. The robots upload until the kills are
# done, so a fit to be found is always coming.
started=$(date +%s)
k=0
while [ "$k" -lt "$KILLS" ]; do
	victim=
	for _ in $(seq 1 2400); do # 2 minutes at the most for one
		owner=$(pg_sql "SELECT owner FROM fits WHERE state = 'running' AND owner IN ($(live_ids)) ORDER BY random() LIMIT 1")
		for n in 1 2 3; do
			[ -n "$owner" ] && [ "$owner" = "$(cat "$tmp/id$n")" ] && victim=$n
		done
		if [ -n "$victim" ]; then
			kill -STOP "$(cat "$tmp/pid$victim")"
			sleep 0.2
			[ "$(pg_sql "SELECT count(*) FROM fits WHERE state = 'running' AND owner = '$owner'")" != 0 ] && break
			kill -CONT "$(cat "$tmp/pid$victim")"
			victim=
		fi
		sleep 0.05
	done
	[ -n "$victim" ] || fail "no fit seen running in 2 minutes (kill $((k + 1)) of $KILLS)"
	k=$((k + 1))
	echo "$owner" >>"$tmp/killed_owners"
	kill -9 "$(cat "$tmp/pid$victim")"
	kill -CONT "$(cat "$tmp/pid$victim")" 2>/dev/null # a stopped process dies once continued
	wait "$(cat "$tmp/pid$victim")" 2>/dev/null
	start_node "$victim" "$(port "$victim")"
	sleep 0.3
done
touch "$tmp/stop"
wait_robots_start=$(date +%s)
# shellcheck disable=SC2086
wait $robots
kill_s=$(( $(date +%s) - started ))

# Every fit settles: those of killed nodes once their lease lapsed (at most 15 s), then
# the newest of each calibration, computed afresh (a dozen or more fits of a press and up
# to 27 drops, on three nodes sharing the machine; the deadline is a safety net, not a
# measure: each fit takes seconds sanitised on an idle machine).
wait_fits_closed 600
settle_s=$(( $(date +%s) - wait_robots_start ))
[ "$open" = 0 ] || fail "$open fits still pending or running $settle_s s after the last kill"

for r in 1 2 3; do
	[ -f "$tmp/refused$r" ] && fail "robot$r: upload refused: $(cat "$tmp/refused$r")"
done
acked=0
for r in 1 2 3; do
	[ -s "$tmp/acked$r" ] || fail "robot$r: nothing acknowledged"
	acked=$((acked + $(wc -l <"$tmp/acked$r")))
	# every acknowledged upload is there with its measurements, and nothing else was stored
	check_stored "$r"
	# each calibration's newest fit is done and covers every measurement
	for cal in $(cat "$tmp/cals$r"); do
		got=$(pg_sql "SELECT f.state || ' ' || f.measurements FROM fits f WHERE f.calibration_id = $cal ORDER BY f.id DESC LIMIT 1")
		want="done $(pg_sql "SELECT count(*) FROM measurements WHERE calibration_id = $cal")"
		[ "$got" = "$want" ] || fail "robot$r, calibration $cal: newest fit '$got', want '$want'"
	done
done
twice=$(pg_sql "SELECT count(*) FROM (SELECT fit_id FROM fit_finishes GROUP BY fit_id HAVING count(*) > 1) d")
[ "$twice" = 0 ] || fail "$twice fits finished more than once"
failed=$(pg_sql "SELECT count(*) FROM fits WHERE state = 'failed'")
[ "$failed" = 0 ] || fail "$failed fits failed"
# The fits the killed nodes were computing (claimed, never finished by them): every one was
# taken over by another node, or superseded by a newer fit of its calibration that was.
interrupted=$(interrupted_count)
taken=$(pg_sql "SELECT count(*) FROM (SELECT fit_id FROM fit_claims GROUP BY fit_id HAVING count(DISTINCT owner) > 1) d")
finished=$(pg_sql "SELECT count(*) FROM fit_finishes")
superseded=$(pg_sql "SELECT count(*) FROM fits WHERE state = 'superseded'")
retries=$(cat "$tmp"/statuses? | grep -vc '^200$')
# the longest fit, claim to finish by one node (the margin under CALIB_FIT_SECONDS)
longest=$(pg_sql "SELECT coalesce(round(max(f.at - c.at)::numeric, 1), 0) FROM fit_finishes f JOIN fit_claims c ON c.fit_id = f.fit_id AND c.owner = f.owner")
echo "4. $k SIGKILLs in $kill_s s, $interrupted of them in the middle of a fit; all settled" \
	"$settle_s s later: $acked uploads acknowledged (after $retries refused or cut tries," \
	"resent), each stored once; $finished fits finished once each, $taken taken over from a" \
	"killed node, $superseded superseded; the longest fit took $longest s"
[ "$interrupted" -ge "$k" ] || fail "only $interrupted of $k kills interrupted a fit"

# 4b. The very fit a killed node was computing, with nothing newer to supersede it, is
# finished by another node once its lease lapses (CALIB_FIT_LEASE_S + CALIB_FIT_ADOPT_S,
# at most 15 s), exactly once.
t2=$(cat "$tmp/token2")
# 2 presses and 30 drops: a fit that takes a while (a kill needs it running only between a
# look at the store and the freeze); if it ends in between anyway, another try.
big=$(awk 'BEGIN { printf "{\"presses\":["; for (i = 1; i <= 2; i++)
	printf "%s{\"force\":%d.5,\"deflection\":%d.%de-6}", (i > 1 ? "," : ""), 10 + i, i, i % 7;
	printf "],\"drops\":["; for (i = 1; i <= 30; i++)
	printf "%s{\"height\":0.%03d,\"rebound\":0.00%d}", (i > 1 ? "," : ""), 100 + i, 1 + i % 5;
	printf "]}" }')
for attempt in 1 2 3 4; do
	status=$(call POST "http://127.0.0.1:$(port 1)/v1/robots/robot2/calibrations" "$t2" '{}')
	[ "$status" = 201 ] || fail "another calibration of robot2: $status"
	cal=$(sed -n 's/.*"id":\([0-9]*\),"robot".*/\1/p' "$tmp/answer")
	status=$(call POST "http://127.0.0.1:$(port 1)/v1/calibrations/$cal/measurements" "$t2" "$big")
	[ "$status" = 200 ] || fail "upload to node 1: $status $(cat "$tmp/answer")"
	fit=$(sed -n 's/.*"fit_id":\([0-9]*\).*/\1/p' "$tmp/answer")
	for _ in $(seq 1 300); do
		owner=$(pg_sql "SELECT owner FROM fits WHERE id = $fit AND state = 'running'")
		[ -n "$owner" ] && break
	done
	victim=
	for n in 1 2 3; do
		[ -n "$owner" ] && [ "$owner" = "$(cat "$tmp/id$n")" ] && victim=$n
	done
	[ -n "$victim" ] || fail "fit $fit: not seen running on a node ($(pg_sql "SELECT state FROM fits WHERE id = $fit"))"
	# frozen, the node cannot finish the fit: killed only if the store still shows it running
	kill -STOP "$(cat "$tmp/pid$victim")"
	sleep 0.2
	if [ "$(pg_sql "SELECT state FROM fits WHERE id = $fit")" = running ]; then
		kill -9 "$(cat "$tmp/pid$victim")"
		killed_at=$(pg_sql "SELECT extract(epoch FROM clock_timestamp())")
		kill -CONT "$(cat "$tmp/pid$victim")" 2>/dev/null
		wait "$(cat "$tmp/pid$victim")" 2>/dev/null
		break
	fi
	kill -CONT "$(cat "$tmp/pid$victim")" # the fit ended just before the freeze
	victim=
done
[ -n "$victim" ] || fail "4 fits in a row ended before their node was frozen"
# the takeover is timed by the store's clock below; finishing the fit takes what it takes
# (the deadline is a safety net, far past a sanitised fit on a busy machine)
deadline=$(( $(date +%s) + 300 ))
while :; do
	done_by=$(pg_sql "SELECT owner FROM fits WHERE id = $fit AND state = 'done'")
	[ -n "$done_by" ] || [ "$(date +%s)" -ge "$deadline" ] && break
	sleep 0.1
done
[ -n "$done_by" ] || fail "fit $fit of the killed node $victim not done"
[ "$done_by" != "$owner" ] || fail "fit $fit finished by its killed node"
# claimed again (by the server's clock) at most 15 s after the kill
takeover_s=$(pg_sql "SELECT round((min(at) - $killed_at)::numeric, 1) FROM fit_claims WHERE fit_id = $fit AND owner = '$done_by'")
awk -v t="$takeover_s" 'BEGIN { exit !(t != "" && t <= 15) }' || fail "fit $fit taken over after $takeover_s s, over 15 s"
[ "$(pg_sql "SELECT count(*) FROM fit_finishes WHERE fit_id = $fit")" = 1 ] ||
	fail "fit $fit finished more than once"
start_node "$victim" "$(port "$victim")"
echo "4b. fit $fit, killed with node $victim in its middle, finished by node" \
	"$(grep -l "$done_by" "$tmp"/id? | sed 's/.*id//'), claimed by it $takeover_s s after the kill, once"

# 5. PostgreSQL stopped and restarted under load (robot1, a new calibration).
status=$(call POST "http://127.0.0.1:$(port 1)/v1/robots/robot1/calibrations" "$t1" '{}')
[ "$status" = 201 ] || fail "a third calibration of robot1: $status"
sed -n 's/.*"id":\([0-9]*\),"robot".*/\1/p' "$tmp/answer" >"$tmp/cal1"
: >"$tmp/statuses1"
: >"$tmp/acked1"
: >"$tmp/meas1"
: >"$tmp/cals1"
rm -f "$tmp/stop"
phase=b
robot 1 200 &
robot_pid=$!
questions() {
	i=0
	while [ ! -f "$tmp/stop" ]; do
		i=$((i + 1))
		curl -s -m 10 -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' \
			--data-binary "{\"body\":{\"shape\":\"box\",\"size\":0.05,\"mass\":1.$i}}" \
			"$front/v1/rest" >>"$tmp/questions" || echo 000 >>"$tmp/questions"
	done
}
: >"$tmp/questions"
questions &
questions_pid=$!
sleep 1
before=$(wc -l <"$tmp/acked1")
[ "$before" -gt 0 ] || fail "no upload acknowledged before the outage"
pg_stop
sleep 3
curl -s -D "$tmp/headers" -o /dev/null -X POST -H "Authorization: Bearer $t1" \
	-H 'Content-Type: application/json' --data-binary "$body" \
	"$front/v1/calibrations/$c1/measurements"
q_during=$(wc -l <"$tmp/questions")
pg_restart || fail "PostgreSQL did not restart"
sleep 3
touch "$tmp/stop"
wait "$robot_pid" "$questions_pid"
after=$(wc -l <"$tmp/acked1")
grep -q '^HTTP/1.1 503' "$tmp/headers" || fail "an upload while PostgreSQL is down: $(head -1 "$tmp/headers")"
grep -qi '^Retry-After: [0-9]' "$tmp/headers" || fail "no Retry-After on the 503"
unavailable=$(grep -c '^503$' "$tmp/statuses1")
[ "$unavailable" -gt 0 ] || fail "the robot never saw a 503 while PostgreSQL was down"
[ "$after" -gt "$before" ] || fail "no upload accepted after PostgreSQL restarted"
bad_q=$(grep -vc '^200$' "$tmp/questions")
[ "$bad_q" = 0 ] || fail "$bad_q questions not answered 200 while PostgreSQL was down"
# the last fit holds every drop of the phase (a safety net as above)
wait_fits_closed 300
[ "$open" = 0 ] || fail "$open fits open after the restart"
check_stored 1
echo "5. PostgreSQL down 3 s: $(wc -l <"$tmp/questions") questions all 200 ($q_during by the restart)," \
	"$unavailable uploads answered 503 with Retry-After, $((after - before)) acknowledged around" \
	"the outage, every acknowledged upload stored once"
echo "PASS: pg_cluster"
