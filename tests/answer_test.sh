#!/bin/sh
# answer_test.sh: the library's one JSON entry point, ctd_answer() (contactd.h), answers
# every question endpoint with the daemon's exact bytes and status: each request below
# goes to the shared libcontactd (tests/answer_cat), to a running contactd (POST
# /v1/ENDPOINT) and, when it is answered, to `contact ENDPOINT`; the three must be equal
# byte for byte. The requests cover every endpoint, batches, and refusals of each class
# (unknown endpoint, malformed JSON, unknown field, out of range, too large).
# Run by `make check` from the build directory.
set -u
: "${srcdir:=.}"
CONTACTD=${CONTACTD:-./contactd}
contact=${CONTACT:-./contact}
answer_cat=${ANSWER_CAT:-./tests/answer_cat}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/answer_test.XXXXXX") || exit 99
. "$srcdir/tests/http_lib.sh"
trap 'stop_all; rm -rf "$tmp"' EXIT
failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}
for p in "$CONTACTD" "$contact" "$answer_cat"; do
	[ -x "$p" ] || { echo "FAIL: no $p" >&2; exit 1; }
done
command -v curl >/dev/null || { echo "FAIL: curl is missing (Debian package curl)" >&2; exit 1; }
start_contactd "$tmp" || exit 1

# the model endpoint's request: a small MJCF document, a sphere resting on a plane
model='{"main": "a.xml", "files": {"a.xml": "<mujoco><worldbody><geom type=\"plane\" size=\"1 1 0.1\"/><body pos=\"0 0 0.1\"><freejoint/><geom type=\"sphere\" size=\"0.02\" mass=\"0.1\"/></body></worldbody></mujoco>"}}'
# big bodies, in files (a request line "@FILE"): one over the 1 MiB default limit; the
# documented 10,000 eval calls of ordinary arguments (about 1.7 MB, which a batch may be:
# LIMIT_EVAL_CALL_BYTES per call), answered; and 10,000 calls over a batch's 5,120,000
# bytes, refused with a 413 that says how to split
{ printf '{"body": {}, "pad": "'; head -c 1100000 /dev/zero | tr '\0' ' '; printf '"}'; } >"$tmp/big.json"
calls() { # N EXTRA: N contact_accel calls, each padded with EXTRA spaces
	awk -v n="$1" -v pad="$2" 'BEGIN { printf "{\"calls\": ["; s = sprintf("%*s", pad, "")
		for (i = 0; i < n; i++) printf "%s{\"function\": \"contact_accel\", \"args\": {\"dist\": %.12g, \"vel\": -0.01234567, \"a0\": -9.81, \"solref\": [0.02, 1], \"solimp\": [0.9, 0.95, 0.001, 0.5, 2], \"h\": 0.002}%s}", i ? ", " : "", -0.0005 + i * 1e-12, s
		printf "]}" }'
}
calls 10000 0 >"$tmp/eval10000.json"
calls 10000 400 >"$tmp/eval-over.json"

# ENDPOINT<tab>REQUEST, one a line
cat >"$tmp/requests" <<REQUESTS
rest	{}
rest	{"body": {"shape": "sphere", "size": 0.05, "mass": 1}, "height": 0, "duration": 0.5}
rest	{"geom": {"solref": [0.02, 1]}, "body": {"shape": "box"}, "option": {"mujoco": "2.2.2"}}
drop	{}
drop	{"body": {"shape": "sphere", "size": 0.02, "mass": 0.1}, "floor": {"condim": 6, "friction": [1, 0.005, 0.0005], "priority": 1, "solref": [0.02, 1]}, "option": {"timestep": 0.005}, "height": 0.05}
drop	{"height": 0.1, "duration": 0.2, "trajectory": true}
drop	{"height": -1}
drop	{"bad": 1}
drop	{"height": 0.1,
stability	{"solref": [0.02, 0.05]}
stability	{"solref": [0.02, 0.05], "option": {"integrator": "implicitfast"}}
sweep	{"query": "drop", "base": {"body": {"shape": "sphere", "size": 0.05, "mass": 1}, "height": 0.1, "duration": 0.3}, "vary": [{"path": "dampratio", "values": [0.1, 0.5, 1]}]}
sweep	{"query": "stability", "vary": [{"path": "/solref/1", "values": [0.05, 0.5]}, {"path": "/solref/0", "values": [0.01, 0.02]}]}
sweep	{"query": "drop", "vary": [{"path": "dampratio", "values": []}]}
eval	{"function": "impedance", "args": {"r": 0.0005, "solimp": [0.9, 0.95, 0.001, 0.5, 2]}}
eval	{"function": "solref_kb", "args": {"solref": [0.02, 1], "dmax": 0.95}}
eval	{"calls": [{"id": 1, "function": "step_growth", "args": {"h": 0.002, "k": 2770, "b": 105}}, {"id": "x", "function": "impedance", "args": {"r": -1}}, {"function": "nope"}]}
eval	{"function": "impedance", "r": 0.001}
find	{"query": "drop", "path": "dampratio", "field": "rebound", "target": 0.001, "bracket": [0.05, 1], "base": {"height": 0.1, "duration": 0.5}}
find	{"query": "stability", "path": "/solref/1", "field": "growth", "target": 1, "bracket": [0.01, 1]}
hold	{"duration": 0.05}
hold	{"duration": 0.05, "pads": {"force": 0.5}}
model	$model
model	{"main": "a.xml", "files": {"a.xml": "<mujoco"}}
grade	{"function": "impedance", "args": {"r": 0.0005, "solimp": [0.9, 0.95, 0.001, 0.5, 2]}, "value": 0.925}
grade	{"tolerances": true}
grade	{"calls": [{"function": "error_reduction", "args": {"h": 0.002, "timeconst": 0.02, "dampratio": 1}, "value": 0.1}, {"function": "impedance", "args": {"r": 0.001}, "value": [1]}]}
nope	{}
rest	@$tmp/big.json
eval	@$tmp/eval10000.json
eval	@$tmp/eval-over.json
grade	@$tmp/eval-over.json
REQUESTS
# the endpoints the library lists (ctd_endpoints()), which are contact --help's; one
# that has no request above is asked {} (its defaults)
"$answer_cat" --endpoints | grep -o '"name":"[a-z_]*","summary"' | sed 's/"name":"\([a-z_]*\)".*/\1/' \
	>"$tmp/endpoints" || fail "ctd_endpoints() gave no text"
"$contact" --help | sed -n '/^ENDPOINT is one of:$/,/^$/s/^  \([a-z_]*\) .*/\1/p' >"$tmp/help-endpoints"
[ -s "$tmp/endpoints" ] && cmp -s "$tmp/endpoints" "$tmp/help-endpoints" ||
	fail "ctd_endpoints() lists $(tr '\n' ' ' <"$tmp/endpoints"), contact --help $(tr '\n' ' ' <"$tmp/help-endpoints")"
while read -r endpoint; do
	grep -q "^$endpoint	" "$tmp/requests" || printf '%s\t{}\n' "$endpoint" >>"$tmp/requests"
done <"$tmp/endpoints"

n=0
answered=0
while IFS='	' read -r endpoint request; do
	n=$((n + 1))
	case $request in
	@*) cp "${request#@}" "$tmp/req" ;;
	*) printf '%s' "$request" >"$tmp/req" ;;
	esac
	"$answer_cat" "$endpoint" "$tmp/req" >"$tmp/lib" 2>"$tmp/lib.status" ||
		{ fail "request $n ($endpoint): ctd_answer gave no answer"; continue; }
	status=$(curl -s -o "$tmp/api" -w '%{http_code}' -H 'Content-Type: application/json' \
		--data-binary @"$tmp/req" "http://127.0.0.1:$port/v1/$endpoint")
	[ "$(cat "$tmp/lib.status")" = "$status" ] ||
		fail "request $n ($endpoint): ctd_answer's status $(cat "$tmp/lib.status"), the daemon's $status"
	cmp -s "$tmp/lib" "$tmp/api" ||
		fail "request $n ($endpoint): ctd_answer's bytes differ from the daemon's: $(head -c 300 "$tmp/lib") | $(head -c 300 "$tmp/api")"
	if [ "$status" = 200 ]; then
		answered=$((answered + 1))
		"$contact" "$endpoint" "$tmp/req" >"$tmp/cli" 2>/dev/null ||
			fail "request $n ($endpoint): contact refused it"
		cmp -s "$tmp/lib" "$tmp/cli" || fail "request $n ($endpoint): ctd_answer's bytes differ from contact's"
	fi
done <"$tmp/requests"
# the big bodies: 10,000 calls within the default limits are answered, more bytes than a
# batch may be are refused in words that say how to split
[ "$(wc -c <"$tmp/eval10000.json")" -gt 1048576 ] || fail "the 10,000-call batch is not over --max-body"
"$answer_cat" eval "$tmp/eval10000.json" 2>"$tmp/lib.status" | grep -q '"failed":0,' ||
	fail "10,000 eval calls of ordinary arguments are not answered with the default limits"
[ "$(cat "$tmp/lib.status")" = 200 ] || fail "10,000 eval calls: status $(cat "$tmp/lib.status")"
[ "$(wc -c <"$tmp/eval-over.json")" -gt 5120000 ] || fail "the oversized batch is not over 5,120,000 bytes"
"$answer_cat" eval "$tmp/eval-over.json" >"$tmp/over.lib" 2>/dev/null
grep -qF '"message":"the body is over 5120000 bytes: split the calls into batches of at most 10000 calls and 5120000 bytes each"' "$tmp/over.lib" ||
	fail "the 413 of an oversized batch does not say how to split"
curl -s -H 'Content-Type: application/json' --data-binary @"$tmp/eval-over.json" -H 'Transfer-Encoding: chunked' \
	"http://127.0.0.1:$port/v1/eval" | cmp -s - "$tmp/over.lib" ||
	fail "a chunked oversized batch is not refused in the same words"
# every endpoint of the table was asked at least once
for endpoint in rest drop stability sweep eval find hold model grade; do
	grep -qx "$endpoint" "$tmp/endpoints" || fail "ctd_endpoints() does not list $endpoint"
done
[ "$n" -ge 32 ] || fail "only $n requests were read"
echo "answer_test: $n requests ($answered answered), ctd_answer = contactd = contact"
exit $((failures > 0))
