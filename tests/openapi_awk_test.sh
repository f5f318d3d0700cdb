#!/bin/sh
# openapi_awk_test.sh: src/http/openapi.awk's "@aliases untold@": in a string, the
# sweepable kinds' aliases (lists aliases.KIND) that the string does not name with their
# pointers, as prose, and nothing when it names them all, so that the served document
# is unchanged until a kind brings aliases its prose lacks. A made-up part and lists:
# kind k's aliases are all in the prose (c and d as the range /z/0..1), kind m's b is
# absent and its c points elsewhere.
set -u

srcdir=${srcdir:-.}
awk=${AWK:-awk}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/openapi_awk_test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
failures=0

printf 'sweepable\tk\tm\naliases.k\ta /x\tc /z/0\td /z/1\naliases.m\ta /x\tb /y/0\tc /w\n' \
	>"$tmp/lists"
cat >"$tmp/part.json" <<'PART'
{
  "paths": {
    "/v1/x": {
      "description": "Aliases: a (/x), c, d (/z/0..1).@aliases untold@"
    }
  }
}
PART
if ! "$awk" -v lists="$tmp/lists" -f "$srcdir/src/http/openapi.awk" "$tmp/part.json" \
	>"$tmp/out.json"; then
	echo "FAIL: openapi.awk refused the part"
	exit 1
fi
want='      "description": "Aliases: a (/x), c, d (/z/0..1). M aliases: b (/y/0), c (/w)."'
if ! grep -qxF "$want" "$tmp/out.json"; then
	echo "FAIL: want the line"
	echo "$want"
	echo "got:"
	cat "$tmp/out.json"
	failures=$((failures + 1))
fi

# every alias told: the string as written, without the placeholder
printf 'sweepable\tk\naliases.k\ta /x\tc /z/0\td /z/1\n' >"$tmp/lists"
"$awk" -v lists="$tmp/lists" -f "$srcdir/src/http/openapi.awk" "$tmp/part.json" >"$tmp/out.json"
want='      "description": "Aliases: a (/x), c, d (/z/0..1)."'
if ! grep -qxF "$want" "$tmp/out.json"; then
	echo "FAIL: a string naming every alias changed:"
	cat "$tmp/out.json"
	failures=$((failures + 1))
fi

# a kind without its list stops the build
printf 'sweepable\tk\n' >"$tmp/lists"
if "$awk" -v lists="$tmp/lists" -f "$srcdir/src/http/openapi.awk" "$tmp/part.json" \
	>"$tmp/out.json" 2>"$tmp/err"; then
	echo "FAIL: a kind without aliases.k was accepted"
	failures=$((failures + 1))
elif ! grep -q 'no list aliases.k' "$tmp/err"; then
	echo "FAIL: the refusal does not name the list:"
	cat "$tmp/err"
	failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] && echo "PASS: openapi.awk's @aliases untold@"
[ "$failures" -eq 0 ]
