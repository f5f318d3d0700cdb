#!/bin/sh
# readme_test.sh: the README's "First questions" examples cannot drift. Every curl and
# `./contact` command of that section runs against a real contactd (this test's, on a
# free port), and every "key":value its printed answer shows must equal the daemon's
# exactly (tests/readme_check.py says how `...` and the comparison are read).
# Run by `make check` from the top build directory, with srcdir and PYTHON3 set by automake.
set -u
: "${srcdir:=.}"
CONTACTD=${CONTACTD:-./contactd}
PYTHON3=${PYTHON3:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/readme_test.XXXXXX") || exit 99
. "$srcdir/tests/http_lib.sh"
trap 'stop_all; rm -rf "$tmp"' EXIT
for p in "$CONTACTD" ./contact; do
	[ -x "$p" ] || { echo "FAIL: no $p" >&2; exit 1; }
done
command -v curl >/dev/null || { echo "FAIL: curl is missing (Debian package curl)" >&2; exit 1; }
start_contactd "$tmp" || exit 1
"$PYTHON3" "$srcdir/tests/readme_check.py" "$srcdir/README.md" "$port" ./contact
