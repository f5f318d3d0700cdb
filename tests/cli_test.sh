#!/bin/sh
# cli_test.sh: the `contact` tool end to end: files, stdin, defaults, CSV, the
# JSON error on stderr and the exit status of every class of failure.
# Run by `make check` from the build directory (CONTACT overrides the binary).
set -u

contact=${CONTACT:-./contact}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cli_test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# run EXPECTED_STATUS ARGS...: run contact with nothing on stdin, keep stdout/stderr in
# $tmp/out, $tmp/err
run() {
	expected=$1
	shift
	"$contact" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	status=$?
	[ "$status" -eq "$expected" ] || fail "contact $*: exit $status, expected $expected"
}

# contains FILE TEXT: FILE has TEXT (a fixed string)
contains() {
	grep -qF -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 300 "$1")"
}

[ -x "$contact" ] || { echo "no $contact" >&2; exit 99; }

# the lesson's default experiment: the 10 cm cube dropped 10 cm is 8.283 mm deep at most
run 0 drop
contains "$tmp/out" '"peak_penetration":0.00828'
contains "$tmp/out" '"rebound":0.0,'
contains "$tmp/out" '"diverged":false'
[ -s "$tmp/err" ] && fail "drop wrote to stderr"
# one line, newline-terminated
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "drop answer is not one line"

# a file, and the same body on stdin, print byte-identical answers
printf '{"geom": {"solref": [0.02, 1]}, "body": {"shape": "box"}}\n' >"$tmp/rest.json"
run 0 rest "$tmp/rest.json"
cp "$tmp/out" "$tmp/rest_file"
contains "$tmp/rest_file" '"penetration":0.000107755'
"$contact" rest - <"$tmp/rest.json" >"$tmp/rest_stdin" 2>"$tmp/err" || fail "rest - failed"
cmp -s "$tmp/rest_file" "$tmp/rest_stdin" || fail "file and stdin answers differ"
# no file is the empty request
printf '{}' | "$contact" rest - >"$tmp/rest_empty" || fail "rest - {} failed"
run 0 rest
cmp -s "$tmp/out" "$tmp/rest_empty" || fail "no FILE is not the request {}"

# without FILE, a request piped in is read, not ignored (and blank input is {})
printf '{"geom": {"solref": [0.02, 1]}, "body": {"shape": "box"}}' | "$contact" rest \
	>"$tmp/rest_piped" 2>"$tmp/err" || fail "piped rest failed"
cmp -s "$tmp/rest_file" "$tmp/rest_piped" || fail "a piped request is not the request"
"$contact" rest <"$tmp/rest.json" >"$tmp/rest_redirected" || fail "rest <file failed"
cmp -s "$tmp/rest_file" "$tmp/rest_redirected" || fail "a redirected request is not the request"
printf ' \n' | "$contact" rest >"$tmp/rest_blank" || fail "blank stdin failed"
cmp -s "$tmp/rest_empty" "$tmp/rest_blank" || fail "blank stdin is not the request {}"
printf '{"height": -1}' | "$contact" drop >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "a bad piped request: not status 2"
contains "$tmp/err" '"path":"/height"'

# an unknown field's error lists every field the endpoint takes: the drop's "trajectory" too
printf '{"bad": 1}' | "$contact" drop >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "drop with an unknown field: not status 2"
contains "$tmp/err" '\"duration\" or \"trajectory\"'
printf '{"bad": 1}' | "$contact" rest >/dev/null 2>"$tmp/err"
grep -qF trajectory "$tmp/err" && fail "rest's unknown-field error offers trajectory"

# stability: the gap in the guard (growth 1.740 at h*omega 2.00)
printf '{"solref": [0.02, 0.05]}' >"$tmp/stab.json"
run 0 stability "$tmp/stab.json"
contains "$tmp/out" '"growth":1.740'
contains "$tmp/out" '"h_omega":2.0'
contains "$tmp/out" '"guard_gap":true'

# eval: spec §11's impedance
printf '{"function": "impedance", "args": {"r": -0.0004, "solimp": [0.9, 0.95, 0.001, 0.5, 2]}}' \
	>"$tmp/eval.json"
run 0 eval "$tmp/eval.json"
contains "$tmp/out" '"derivative":-79.99'
contains "$tmp/out" '"function":"impedance"'

# sweep as JSON and as CSV: header then one line per value
printf '{"query": "drop", "vary": [{"path": "/geom/solref/1", "values": [0.1, 1]}]}' \
	>"$tmp/sweep.json"
run 0 sweep "$tmp/sweep.json"
contains "$tmp/out" '"columns":["/geom/solref/1","peak_penetration"'
run 0 sweep "$tmp/sweep.json" --csv
[ "$(wc -l <"$tmp/out")" -eq 3 ] || fail "CSV sweep has $(wc -l <"$tmp/out") lines, not 3"
head -n 1 "$tmp/out" | grep -q '^/geom/solref/1,peak_penetration,rebound,' ||
	fail "CSV header: $(head -n 1 "$tmp/out")"
sed -n 3p "$tmp/out" | grep -q '^1.0,0.00828' || fail "CSV row: $(sed -n 3p "$tmp/out")"
# options may come first
run 0 --csv sweep "$tmp/sweep.json"

# rejected requests: the contract's JSON error on stderr, nothing on stdout, status 2
printf '{"body": {"mass": -1}}' >"$tmp/bad.json"
run 2 drop "$tmp/bad.json"
contains "$tmp/err" '{"error":"bad_value",'
contains "$tmp/err" '"path":"/body/mass"'
[ -s "$tmp/out" ] && fail "a rejected request printed an answer"
: >"$tmp/empty.json"
run 2 rest "$tmp/empty.json"
contains "$tmp/err" '"error":"bad_json"'
printf '\377\376\000garbage\001' >"$tmp/garbage.bin"
run 2 rest "$tmp/garbage.bin"
contains "$tmp/err" '"error":"bad_json"'
printf '{"height": 1e999}' | "$contact" drop - >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "huge number: not status 2"
contains "$tmp/err" '"path":"/height"'
head -c 1100000 /dev/zero | tr '\0' ' ' | "$contact" rest - >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "oversized body: not status 2"
contains "$tmp/err" '"error":"too_large"'

# --pretty: the same answer, indented for people
run 0 drop
tr -d '\n' <"$tmp/out" >"$tmp/compact"
run 0 drop --pretty
[ "$(wc -l <"$tmp/out")" -gt 5 ] || fail "--pretty is not indented: $(head -c 200 "$tmp/out")"
contains "$tmp/out" '  "peak_penetration": 0.008283093733212114,'
tr -d ' \n' <"$tmp/out" | cmp -s - "$tmp/compact" || fail "--pretty is not the same answer"
run 1 sweep "$tmp/sweep.json" --csv --pretty

# reals print as their shortest exact text
printf '{"query": "drop", "vary": [{"path": "/height", "values": [0.05]}]}' >"$tmp/short.json"
run 0 sweep "$tmp/short.json"
contains "$tmp/out" '"rows":[[0.05,'
run 0 sweep "$tmp/short.json" --csv
sed -n 2p "$tmp/out" | grep -q '^0.05,' || fail "CSV real: $(sed -n 2p "$tmp/out")"

# one spelling of every number in JSON and CSV (issue #17: JSON wrote 1.0 and 1e-5 where
# CSV wrote 1 and 1e-05): each CSV cell is the JSON answer's text of the same value
printf '{"query": "rest", "vary": [{"path": "/geom/margin", "values": [1e-5, 1, 0.5]}]}' \
	>"$tmp/spell.json"
run 0 sweep "$tmp/spell.json"
sed -e 's/.*"rows":\[\[//' -e 's/\]\]}$//' -e 's/\],\[/\n/g' "$tmp/out" >"$tmp/json_rows"
run 0 sweep "$tmp/spell.json" --csv
sed 1d "$tmp/out" >"$tmp/csv_rows"
# the nine number columns (the margin, seven reals, contacts and rows)
cut -d, -f1-9 "$tmp/json_rows" >"$tmp/json_cells"
cut -d, -f1-9 "$tmp/csv_rows" >"$tmp/csv_cells"
cmp -s "$tmp/json_cells" "$tmp/csv_cells" ||
	fail "CSV and JSON spell numbers differently: $(paste -d'|' "$tmp/json_cells" "$tmp/csv_cells")"
grep -q '^1e-5,' "$tmp/csv_rows" || fail "CSV does not write 1e-5: $(cat "$tmp/csv_rows")"
grep -q '^1.0,' "$tmp/csv_rows" || fail "CSV does not write 1.0: $(cat "$tmp/csv_rows")"
# and the integers (contacts, rows) as integers in both
contains "$tmp/csv_rows" ',4,16,false'
contains "$tmp/json_rows" ',4,16,false'

# the README's sweep example exists and draws
run 0 sweep "${srcdir:-.}/docs/examples/sweep-req.json" --plot "$tmp/example.svg" --field rebound
contains "$tmp/out" '"columns":["/geom/solref/1","peak_penetration","rebound",'
contains "$tmp/example.svg" '<svg'

# contact model FILE.xml: the release from --mujoco (default the newest verified), the
# margins summed from 3.5.0 (a plane of margin 3 mm and a sphere of 2 mm: max 0.003, sum 0.005)
cat >"$tmp/m.xml" <<'EOF_XML'
<mujoco><worldbody><geom type="plane" size="0 0 1" margin="0.003"/>
<body pos="0 0 0.1"><freejoint/><geom size="0.05" margin="0.002"/></body></worldbody></mujoco>
EOF_XML
run 0 model "$tmp/m.xml"
contains "$tmp/out" '"mujoco":"3.14.0"'
contains "$tmp/out" '"margin":0.005,'
run 0 model "$tmp/m.xml" --mujoco 2.2.2
contains "$tmp/out" '"mujoco":"2.2.2"'
contains "$tmp/out" '"margin":0.003,'
run 2 model "$tmp/m.xml" --mujoco 3.15.0
contains "$tmp/err" '/mujoco'
run 1 rest --mujoco 3.12.0

# usage errors: status 1
run 1
run 1 fly
run 1 rest "$tmp/does-not-exist.json"
run 1 rest --csv
run 1 rest a b
run 1 --bogus

# hold's grasp flags (issue 48): each sets one field, so the answer is the JSON request's,
# byte for byte, on top of a file's request too; a bad flag value is a usage error, a bad
# field the service's refusal at its path
grasp='{"object": {"shape": "capsule", "size": [0.004, 0.02]}, "pad": {"joint": {"damping": 100, "frictionloss": 0.05}, "actuator": {"type": "position", "kp": 20000, "kv": 2, "squeeze": 0.002, "forcerange": [-30, 30]}}, "duration": 0.2}'
echo "$grasp" >"$tmp/grasp.json"
run 0 hold "$tmp/grasp.json"
cp "$tmp/out" "$tmp/grasp.out"
echo '{"duration": 0.2}' >"$tmp/short.json"
run 0 hold "$tmp/short.json" --shape capsule --size 0.004,0.02 --damping 100 --frictionloss 0.05 \
	--actuator position --kp 20000 --kv 2 --squeeze 0.002 --forcerange -30,30
cmp -s "$tmp/out" "$tmp/grasp.out" || fail "hold's flags are not the JSON request's answer"
echo '{"object": {"shape": "box", "size": [0.01, 0.01, 0.01]}, "duration": 0.2}' >"$tmp/box.json"
run 0 hold "$tmp/box.json"
cp "$tmp/out" "$tmp/box.out"
run 0 hold "$tmp/short.json" --shape box --size 0.01,0.01,0.01 --armature 0
cmp -s "$tmp/out" "$tmp/box.out" || fail "hold --shape box --size: not the JSON request's answer"
run 1 hold --kp x
contains "$tmp/err" '--kp takes a number, not "x"'
run 1 hold --size 0.01,0.02,0.03,0.04
run 1 hold --forcerange 3
run 1 rest --shape box
run 2 hold --shape capsule
contains "$tmp/err" '"path":"/object/size"'
run 2 hold --size 0.01,0.02
contains "$tmp/err" '"path":"/object/size"'
run 2 hold --actuator position --kp 100
contains "$tmp/err" '"path":"/pad/actuator/squeeze"'

# help and version
run 0 --help
contains "$tmp/out" 'Usage: contact'
contains "$tmp/out" 'Units are SI'
contains "$tmp/out" 'peak_penetration, rebound, max_height, jitter, final_penetration m'
contains "$tmp/out" '--pretty'
contains "$tmp/out" '--mujoco RELEASE'
contains "$tmp/out" '--squeeze'
run 0 --version
grep -qE '^contact [0-9]+\.[0-9]+\.[0-9]+ \(contact core core-[0-9]+\)$' "$tmp/out" ||
	fail "version line: $(cat "$tmp/out")"

if [ "$failures" -ne 0 ]; then
	echo "$failures failure(s)" >&2
	exit 1
fi
echo "cli_test: all passed"
