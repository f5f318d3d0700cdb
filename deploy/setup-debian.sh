#!/bin/sh
# Install every Debian package contactd needs to build, run and test.
# Idempotent; run as root on a fresh Debian 12 machine.
set -eu
export DEBIAN_FRONTEND=noninteractive
PACKAGES="build-essential autoconf automake libtool pkg-config \
  libmicrohttpd-dev libjansson-dev libsqlite3-dev libgsl-dev libsodium-dev \
  check libmujoco-dev libcurl4-openssl-dev nginx wrk sqlite3 curl \
  libjs-chart.js chromium libxml2-utils libxml2-dev logrotate libpq-dev postgresql \
  slurm-wlm munge python3 python3-pytest python3-setuptools python3-venv"
# node and npm run the browser tests (playwright-core from npm). Debian's nodejs and
# npm, unless a node is already installed (another build of it may ship its own npm,
# which Debian's npm package would conflict with).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	PACKAGES="$PACKAGES nodejs npm"
fi
missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing
fi
