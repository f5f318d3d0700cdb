#!/bin/sh
# times.sh [BUILDDIR]: the wall time of every test program of the last `make check` in
# BUILDDIR (default: here), longest first, and their sum (tests/timed-driver.sh wrote them).
cd "${1:-.}" || exit 1
set -- tests/*.time
[ -f "$1" ] || { echo "no test times here (run make check first)"; exit 0; }
cat "$@" | sort -k1,1 -g -r | awk '
	BEGIN { printf "%9s  %s\n", "seconds", "test" }
	{ printf "%9.1f  %s\n", $1, $2; sum += $1; n++ }
	END { printf "%9.1f  in all, %d programs (run one after another; make -j overlaps them)\n", sum, n }'
