# calib_lib.sh: helpers of the calibration daemon tests (sourced, not run).
# Needs CONTACTD (the daemon binary) and curl. Every daemon listens on 127.0.0.1 on a
# port the kernel picks, read back from its log line.
dir=$(mktemp -d "${TMPDIR:-/tmp}/calib-test.XXXXXX") || exit 99
db="$dir/contactd.db"
pid=
port=

cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*"
	[ -f "$dir/log" ] && tail -20 "$dir/log"
	exit 1
}

# Start contactd on $db; sets pid and port.
start_daemon() {
	"$CONTACTD" --db "$db" -p 0 -t 2 >"$dir/log" 2>&1 &
	pid=$!
	port=
	for _ in $(seq 200); do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$dir/log")
		[ -n "$port" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	fail "contactd did not start"
}

# request METHOD PATH TOKEN [BODY]: prints the status; the body goes to $dir/answer.
request() {
	if [ -n "$3" ]; then
		set -- "$1" "$2" "-H" "Authorization: Bearer $3" "${4-}"
	else
		set -- "$1" "$2" "-H" "X-No-Auth: 1" "${4-}"
	fi
	curl -s -m 20 -o "$dir/answer" -w '%{http_code}' -X "$1" "$3" "$4" \
		-H 'Content-Type: application/json' ${5:+--data-binary "$5"} \
		"http://127.0.0.1:$port$2" || echo 000
}

# new_token create|rotate ARGS...: the token `contactd token` prints (its "token: " line)
new_token() {
	new_token_out=$("$CONTACTD" --db "$db" token "$@") || return 1
	echo "$new_token_out" | sed -n 's/^token: //p'
}
