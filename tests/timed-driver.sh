#!/bin/sh
# timed-driver.sh DRIVER... -- ARGS: automake's test driver, run as given, and the test's wall
# time written beside its log (tests/NAME.log -> tests/NAME.time: seconds, then the name),
# so the suite can print what each program cost (tests/run-all.sh, tests/times.sh).
# The driver's exit status and files are untouched.
log=
prev=
for a in "$@"; do
	[ "$prev" = --log-file ] && log=$a
	[ "$a" = -- ] && break
	prev=$a
done
start=$(date +%s%N)
status=0
"$@" || status=$?
end=$(date +%s%N)
if [ -n "$log" ]; then
	name=${log%.log}
	awk -v s="$start" -v e="$end" -v n="$name" 'BEGIN { printf "%.1f %s\n", (e - s) / 1e9, n }' \
		>"$name.time" || true
fi
exit "$status"
