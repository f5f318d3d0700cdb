#!/bin/sh
# The test command (README): install dependencies, build with AddressSanitizer
# and UBSan, run `make check`, then prove the release tarball with `make distcheck`.
set -eu
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then
	./deploy/setup-debian.sh
else
	sudo ./deploy/setup-debian.sh
fi
# playwright-core for the browser tests, exactly as package-lock.json pins it (it drives
# Debian's chromium; no browser is downloaded)
(cd tests/browser && npm ci --no-audit --no-fund)
autoreconf -fi
jobs=$(nproc 2>/dev/null || echo 2)
rm -rf build-check && mkdir build-check && cd build-check
../configure --enable-sanitizers --enable-werror
status=0
summary=
make -j"$jobs" check || status=$?
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
	exit "$status"
fi
make -j"$jobs" distcheck
echo "distcheck: the release tarball builds and passes"
echo "${summary:-tests: 0 passed, 0 failed}"
