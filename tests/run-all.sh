#!/bin/sh
# The test command (README): install dependencies, build with AddressSanitizer
# and UBSan, run `make check`, then prove the release tarball with `make distcheck`, and
# print each test program's wall time, longest first.
#
# ./tests/run-all.sh --quick (or RUN_ALL_QUICK=1): the same set-up and build, then only
# `make check-quick` (the quick tier, tests/local.mk) and no distcheck.
set -eu
cd "$(dirname "$0")/.."
quick=${RUN_ALL_QUICK:-}
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: tests/run-all.sh [--quick]" >&2; exit 2 ;;
esac
[ "$quick" = 0 ] && quick=
# each test's time (tests/timed-driver.sh writes them), printed at the end
times="$(pwd)/tests/times.sh"
print_times() {
	echo "time per test program (wall clock, seconds):"
	sh "$times" . || true
}
if [ "$(id -u)" = 0 ]; then
	./deploy/setup-debian.sh
else
	sudo ./deploy/setup-debian.sh
fi
jobs=$(nproc 2>/dev/null || echo 2)
rm -rf build-check && mkdir build-check
# The suite builds out of tree, in build-check/, from a pristine copy of the sources
# (build-check/source: the files git tracks, and new files it does not ignore, as they
# are now). The README's first command may have configured and built this tree in place,
# which an out-of-tree configure refuses ("source directory already configured"); the
# copy leaves that build, and the daemon it may be running, untouched.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mkdir build-check/source
	git ls-files -z --cached --others --exclude-standard |
		tar --null --no-recursion --ignore-failed-read -T - -cf - 2>/dev/null |
		tar -C build-check/source -xf -
	src=build-check/source
	configure=./source/configure
elif [ -f config.status ]; then
	echo "run-all.sh: not a git clone, and this tree is configured in place: run" \
		"\"make distclean\" here first, or run the suite from a git clone" >&2
	exit 1
else
	src=.
	configure=../configure
fi
# playwright-core for the browser tests, exactly as package-lock.json pins it (it drives
# Debian's chromium; no browser is downloaded)
(cd "$src/tests/browser" && npm ci --no-audit --no-fund)
# the official MuJoCo WebAssembly builds 3.12.0, 3.13.0 and 3.14.0 (tests/test_wasm.sh)
(cd "$src/tests/mjref" && npm ci --no-audit --no-fund)
(cd "$src" && autoreconf -fi)
cd build-check
$configure --enable-sanitizers --enable-werror
status=0
summary=
# RUN_ALL_TESTS="tests/a tests/b.sh" runs only those and no distcheck (tests/fresh_clone.sh's
# quick mode); unset, the whole suite and distcheck
if [ -n "${RUN_ALL_TESTS:-}" ]; then
	make -j"$jobs" check TESTS="$RUN_ALL_TESTS" || status=$?
elif [ -n "$quick" ]; then
	make -j"$jobs" check-quick || status=$?
else
	make -j"$jobs" check || status=$?
fi
for log in tests/*.log; do
	case "$log" in */test-suite.log) continue ;; esac
	grep -h -E '^[0-9]+%: Checks: ' "$log" 2>/dev/null || true
done
if [ -f test-suite.log ]; then
	sed -n '1,12p' test-suite.log
	# the plain closing line: every Check case, and every script test, counted once
	set -- $(grep -h -E '^[0-9]+%: Checks: ' tests/*.log |
		sed -E 's/.*Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2 \3/' |
		awk '{p += $1 - $2 - $3; f += $2 + $3} END {print p + 0, f + 0}')
	script_pass=$(cat tests/*.sh.trs 2>/dev/null | grep -c ':test-result: PASS' || true)
	script_fail=$(cat tests/*.sh.trs 2>/dev/null | grep -c -E ':test-result: (FAIL|ERROR)' || true)
	summary="tests: $(($1 + script_pass)) passed, $(($2 + script_fail)) failed"
	echo "$summary"
fi
if [ "$status" -ne 0 ]; then
	cat test-suite.log 2>/dev/null || true
	print_times
	exit "$status"
fi
if [ -n "${RUN_ALL_TESTS:-}" ]; then
	print_times
	echo "${summary:-tests: 0 passed, 0 failed} (only $RUN_ALL_TESTS; no distcheck)"
	exit 0
fi
if [ -n "$quick" ]; then
	print_times
	echo "${summary:-tests: 0 passed, 0 failed} (the quick tier, make check-quick; no distcheck)"
	exit 0
fi
make -j"$jobs" distcheck
echo "distcheck: the release tarball builds and passes"
print_times
echo "${summary:-tests: 0 passed, 0 failed}"
