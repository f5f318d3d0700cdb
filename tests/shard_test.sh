#!/bin/sh
# shard_test.sh: a sweep split with `contact sweep --shard K/N` and joined with
# `contact merge` is byte for byte the sweep one process answers.
#   - random sweeps (rest, drop, stability, hold; lines and grids; N from 1 to more
#     than the points), JSON, indented JSON and CSV, parts merged in shuffled order;
#   - merge refuses a missing part, a part given twice, parts of another count or of
#     another request, a whole answer, a cut-off part, and says which;
#   - the API's "shard" member answers the CLI's part (JSON and CSV), and its NDJSON
#     stream merges too; a bad shard is a 422 naming /shard/...
# SHARD_SEED repeats a run (the seed is printed). Run by `make check` from the build
# directory (CONTACT and CONTACTD override the binaries).
set -u

contact=${CONTACT:-./contact}
CONTACTD=${CONTACTD:-./contactd}
CURL=${CURL:-$(command -v curl || true)}
srcdir=${srcdir:-.}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shard_test.XXXXXX") || exit 99
failures=0
. "$srcdir/tests/http_lib.sh"
trap 'stop_all; rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

[ -x "$contact" ] || { echo "no $contact" >&2; exit 99; }
[ -x "$CONTACTD" ] || { echo "no $CONTACTD" >&2; exit 99; }
[ -n "$CURL" ] || { echo "curl not found (deploy/setup-debian.sh installs it)" >&2; exit 99; }

# awk's srand() takes small seeds apart (mawk's wraps past 2^31)
seed=${SHARD_SEED:-$(($(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 1000000))}
echo "shard_test: seed $seed (SHARD_SEED=$seed repeats this run)"

# random_case SEED: a random sweep request on stdout
random_case() {
	awk -v seed="$1" '
	function pick(n) { return int(rand() * n) }
	function values(lo, hi, n,    s, i) {
		s = ""
		for (i = 0; i < n; i++)
			s = s (i ? "," : "") sprintf("%.4g", lo + (hi - lo) * rand())
		return "[" s "]"
	}
	function entry(path, lo, hi, n) {
		return "{\"path\":\"" path "\",\"values\":" values(lo, hi, n) "}"
	}
	BEGIN {
		srand(seed)
		q = pick(4)
		grid = pick(2)
		n1 = grid ? 1 + pick(5) : 1 + pick(9)
		n2 = 1 + pick(5)
		if (q == 0) {
			query = "rest"
			a = entry("mass", 0.1, 5, n1); b = entry("timeconst", 0.005, 0.05, n2)
		} else if (q == 1) {
			query = "drop"
			a = entry("timeconst", 0.005, 0.05, n1); b = entry("height", 0.01, 0.3, n2)
		} else if (q == 2) {
			query = "stability"
			a = entry("timestep", 0.0005, 0.02, n1); b = entry("dampratio", 0.05, 2, n2)
		} else {
			query = "hold"
			a = entry("grip_force", 2, 60, n1)
			b = "{\"path\":\"cone\",\"values\":" (n2 > 1 ? "[\"pyramidal\",\"elliptic\"]" : "[\"elliptic\"]") "}"
		}
		printf "{\"query\":\"%s\",\"vary\":[%s%s]}\n", query, a, grid ? "," b : ""
	}'
}

# points FILE: the number of rows of a whole JSON answer in FILE
points() {
	tr -cd '[' <"$1" | wc -c | awk '{ print $1 - 2 }'
}

# parts REQUEST N DIR [FLAG]: contact sweep --shard K/N for every K into DIR/part-K
parts() {
	mkdir -p "$3"
	k=1
	while [ "$k" -le "$2" ]; do
		"$contact" sweep "$1" --shard "$k/$2" ${4:-} >"$3/part-$k" 2>"$tmp/err" ||
			fail "sweep --shard $k/$2 ${4:-} of $1: $(cat "$tmp/err")"
		k=$((k + 1))
	done
}

# merged_equal WHOLE OUT DIR [FLAG]: contact merge of DIR's parts, shuffled, equals WHOLE
merged_equal() {
	# shellcheck disable=SC2046 # the part names have no blanks
	"$contact" merge ${4:-} $(ls "$3"/part-* | shuf) >"$2" 2>"$tmp/err" ||
		fail "merge ${4:-} of $3: $(cat "$tmp/err")"
	cmp -s "$1" "$2" || fail "merged ${4:-} parts of $3 differ from the whole answer: $(diff "$1" "$2" | head -c 600)"
}

# refused EXPECTED_TEXT FILE...: contact merge FILE... exits 2 saying EXPECTED_TEXT
refused() {
	expected=$1
	shift
	"$contact" merge "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq 2 ] || fail "merge $*: exit $status, not 2"
	grep -qF -- "$expected" "$tmp/err" || fail "merge $*: '$(cat "$tmp/err")' lacks '$expected'"
	[ -s "$tmp/out" ] && fail "merge $*: refused but wrote an answer"
}

# ---- random sweeps, every format ----
cases=${SHARD_CASES:-12}
i=0
while [ "$i" -lt "$cases" ]; do
	dir="$tmp/case$i"
	mkdir -p "$dir"
	random_case "$((seed * 16 + i))" >"$dir/req.json"
	"$contact" sweep "$dir/req.json" >"$dir/whole.json" 2>"$tmp/err" ||
		{ fail "case $i: $(cat "$dir/req.json"): $(cat "$tmp/err")"; i=$((i + 1)); continue; }
	"$contact" sweep "$dir/req.json" --csv >"$dir/whole.csv" || fail "case $i: CSV sweep"
	npoints=$(points "$dir/whole.json")
	# N: 1, more than the points, or anything from 1 to 8 (beyond the points, too)
	n=$(awk -v s="$((seed * 16 + i))" 'BEGIN { srand(s + 7); print 1 + int(rand() * 8) }')
	[ "$i" -eq 0 ] && n=1
	[ "$i" -eq 1 ] && n=$((npoints + 2))
	echo "case $i: $(head -c 80 "$dir/req.json")... $npoints points in $n parts"
	parts "$dir/req.json" "$n" "$dir/json"
	parts "$dir/req.json" "$n" "$dir/csv" --csv
	merged_equal "$dir/whole.json" "$dir/merged.json" "$dir/json"
	merged_equal "$dir/whole.csv" "$dir/merged.csv" "$dir/csv"
	# JSON parts to CSV, and indented as `contact sweep --pretty` prints
	merged_equal "$dir/whole.csv" "$dir/merged2.csv" "$dir/json" --csv
	"$contact" sweep "$dir/req.json" --pretty >"$dir/whole.pretty" || fail "case $i: --pretty"
	merged_equal "$dir/whole.pretty" "$dir/merged.pretty" "$dir/json" --pretty
	# every part holds the rows i % N == K - 1 of the whole answer (its own check)
	k=1
	while [ "$k" -le "$n" ]; do
		tail -n +3 "$dir/csv/part-$k" >"$dir/rows"
		tail -n +2 "$dir/whole.csv" | awk -v n="$n" -v k="$k" '(NR - 1) % n == k - 1' |
			cmp -s - "$dir/rows" || fail "case $i: part $k/$n is not rows i % $n == $((k - 1))"
		k=$((k + 1))
	done
	i=$((i + 1))
done

# ---- refusals, on a 3-part line ----
req="$tmp/req.json"
printf '{"query":"rest","vary":[{"path":"mass","values":[0.5,1,2,4,8]}]}' >"$req"
parts "$req" 3 "$tmp/p3"
parts "$req" 3 "$tmp/p3csv" --csv
parts "$req" 4 "$tmp/p4"
printf '{"query":"rest","vary":[{"path":"mass","values":[0.5,1,2,4,9]}]}' >"$tmp/other.json"
parts "$tmp/other.json" 3 "$tmp/other"
"$contact" sweep "$req" >"$tmp/whole.json" || fail "the refusals' whole sweep"
# indented parts merge too
parts "$req" 3 "$tmp/p3pretty" --pretty
merged_equal "$tmp/whole.json" "$tmp/pretty-merged.json" "$tmp/p3pretty"
refused "1 of the 3 parts is missing: shard 2 (of 3)" "$tmp/p3/part-1" "$tmp/p3/part-3"
refused "shard 2/3 is given twice" "$tmp/p3/part-2" "$tmp/p3/part-1" "$tmp/p3/part-2" "$tmp/p3/part-3"
refused "is shard 2/4" "$tmp/p3/part-1" "$tmp/p4/part-2" "$tmp/p3/part-3"
refused "parts of different sweeps" "$tmp/p3/part-1" "$tmp/other/part-2" "$tmp/p3/part-3"
refused "a whole sweep's answer" "$tmp/whole.json"
refused "merge parts of one format" "$tmp/p3/part-1" "$tmp/p3csv/part-2" "$tmp/p3/part-3"
head -c 300 "$tmp/p3csv/part-2" >"$tmp/cut.csv"
refused "cut-off" "$tmp/p3csv/part-1" "$tmp/cut.csv" "$tmp/p3csv/part-3"
printf 'not a part\n' >"$tmp/junk"
refused "is not a part of a sharded sweep" "$tmp/junk"
: >"$tmp/empty"
refused "it is empty" "$tmp/p3/part-1" "$tmp/empty"
# standard input is one part
"$contact" merge "$tmp/p3/part-3" - "$tmp/p3/part-1" <"$tmp/p3/part-2" >"$tmp/stdin.json" ||
	fail "merge with - failed"
cmp -s "$tmp/stdin.json" "$tmp/whole.json" || fail "merge with - differs from the whole"
# CSV parts do not make JSON; usage errors
"$contact" merge --pretty "$tmp/p3csv/part-1" "$tmp/p3csv/part-2" "$tmp/p3csv/part-3" \
	>/dev/null 2>&1
[ $? -eq 1 ] || fail "merge --pretty of CSV parts: not a usage error"
"$contact" sweep "$req" --shard 2 >/dev/null 2>&1
[ $? -eq 1 ] || fail "--shard 2: not a usage error"
"$contact" rest --shard 1/2 >/dev/null 2>&1
[ $? -eq 1 ] || fail "rest --shard: not a usage error"
for bad in 0/3 4/3 1/0; do
	"$contact" sweep "$req" --shard "$bad" >/dev/null 2>"$tmp/err"
	[ $? -eq 2 ] || fail "--shard $bad: not rejected"
	grep -qF '"path":"/shard/' "$tmp/err" || fail "--shard $bad: $(cat "$tmp/err") names no /shard"
done

# ---- the API: the same parts, a 422 at /shard ----
start_contactd "$tmp" || exit 99
url="http://127.0.0.1:$port/v1/sweep"
# post BODY_FILE ACCEPT OUT: the answer's body in OUT, its status on stdout
post() {
	"$CURL" -s -o "$3" -w '%{http_code}' -H 'Content-Type: application/json' \
		-H "Accept: $2" --data-binary "@$1" "$url"
}
sharded_body() { # REQUEST K N
	sed "s/^{/{\"shard\":{\"index\":$2,\"count\":$3},/" "$1"
}
for case in 2 3; do
	dir="$tmp/case$case"
	[ -f "$dir/whole.json" ] || continue
	npoints=$(points "$dir/whole.json")
	n=$((npoints > 2 ? 3 : 2))
	mkdir -p "$dir/api" "$dir/cli" "$dir/nd"
	parts "$dir/req.json" "$n" "$dir/cli"
	k=1
	while [ "$k" -le "$n" ]; do
		sharded_body "$dir/req.json" "$k" "$n" >"$dir/body-$k"
		status=$(post "$dir/body-$k" application/json "$dir/api/part-$k")
		[ "$status" = 200 ] || fail "API shard $k/$n: status $status: $(cat "$dir/api/part-$k")"
		cmp -s "$dir/api/part-$k" "$dir/cli/part-$k" ||
			fail "API shard $k/$n differs from contact sweep --shard"
		status=$(post "$dir/body-$k" text/csv "$dir/api-$k.csv")
		"$contact" sweep "$dir/body-$k" --csv >"$dir/cli-$k.csv"
		cmp -s "$dir/api-$k.csv" "$dir/cli-$k.csv" ||
			fail "API CSV shard $k/$n ($status) differs from contact sweep --csv"
		status=$(post "$dir/body-$k" application/x-ndjson "$dir/nd/part-$k")
		[ "$status" = 200 ] || fail "API NDJSON shard $k/$n: status $status"
		k=$((k + 1))
	done
	merged_equal "$dir/whole.json" "$dir/api-merged.json" "$dir/api"
	merged_equal "$dir/whole.json" "$dir/nd-merged.json" "$dir/nd"
done
# a cached part is the same part (the second request is a hit)
sharded_body "$req" 2 3 >"$tmp/b23"
post "$tmp/b23" application/json "$tmp/first" >/dev/null
post "$tmp/b23" application/json "$tmp/second" >/dev/null
cmp -s "$tmp/first" "$tmp/p3/part-2" || fail "API shard 2/3 differs from the CLI's"
cmp -s "$tmp/second" "$tmp/p3/part-2" || fail "API shard 2/3, cached, differs from the CLI's"
# VALUE|STATUS|PATH
for bad in '{"index":0,"count":3}|422|/shard/index' '{"index":4,"count":3}|422|/shard/index' \
	'{"index":1,"count":0}|422|/shard/count' '{"index":1.5,"count":3}|422|/shard/index' \
	'{"index":1,"count":2.5}|422|/shard/count' '{"index":1}|400|/shard/count' \
	'"1/3"|400|/shard' '{"index":1,"count":3,"x":1}|400|/shard/x'; do
	value=${bad%%|*}
	expected=${bad#*|}
	expected=${expected%%|*}
	path=${bad##*|}
	sed "s|^{|{\"shard\":$value,|" "$req" >"$tmp/bad"
	status=$(post "$tmp/bad" application/json "$tmp/out")
	[ "$status" = "$expected" ] || fail "shard $value: status $status, not $expected"
	grep -qF "\"path\":\"$path\"" "$tmp/out" || fail "shard $value: $(cat "$tmp/out") names no $path"
done

if [ "$failures" -gt 0 ]; then
	echo "shard_test: $failures failure(s) (seed $seed)" >&2
	exit 1
fi
echo "shard_test: $cases random sweeps merged equal to one process; refusals and the API checked"
exit 0
