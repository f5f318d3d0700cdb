#!/bin/sh
# test_browser.sh: the dashboard in Debian's chromium (tests/browser/run.js), run by
# `make check`. Fails, never skips, when the browser, node or playwright-core is
# missing: the suite is part of the proof that the pages work.
#
# Environment from tests/http.mk: CONTACTD, CHROMIUM, NODE, BROWSER_NODE_MODULES (the
# node_modules that `npm ci` made in tests/browser of the source tree), SCREENSHOTS.
set -eu
: "${srcdir:=.}"
modules=${BROWSER_NODE_MODULES:-$srcdir/tests/browser/node_modules}
node=${NODE:-node}
if ! command -v "$node" >/dev/null 2>&1; then
	echo "FAIL: no node ($node): install Debian's nodejs (deploy/setup-debian.sh)" >&2
	exit 1
fi
if [ ! -d "$modules/playwright-core" ]; then
	echo "FAIL: no playwright-core in $modules: run 'npm ci' in tests/browser" >&2
	echo "      (or configure with BROWSER_NODE_MODULES=DIR)" >&2
	exit 1
fi
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
	echo "FAIL: no chromium at ${CHROMIUM:-/usr/bin/chromium}: install Debian's chromium" >&2
	exit 1
fi
mkdir -p "$SCREENSHOTS"
NODE_PATH=$modules CHROMIUM=${CHROMIUM:-/usr/bin/chromium} CONTACTD=$CONTACTD \
	SCREENSHOTS=$SCREENSHOTS exec "$node" "$srcdir/tests/browser/run.js"
