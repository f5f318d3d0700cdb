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
autoreconf -fi
jobs=$(nproc 2>/dev/null || echo 2)
rm -rf build-check && mkdir build-check && cd build-check
../configure --enable-sanitizers --enable-werror
status=0
make -j"$jobs" check || status=$?
for log in tests/*.log; do
	case "$log" in */test-suite.log) continue ;; esac
	grep -h -E '^[0-9]+%: Checks: ' "$log" 2>/dev/null || true
done
if [ -f test-suite.log ]; then
	sed -n '1,12p' test-suite.log
fi
if [ "$status" -ne 0 ]; then
	cat test-suite.log 2>/dev/null || true
	exit "$status"
fi
make -j"$jobs" distcheck
