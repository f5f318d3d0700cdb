#!/bin/sh
# Install every Debian package contactd needs to build, run and test.
# Idempotent; run as root on a fresh Debian 12 machine.
set -eu
export DEBIAN_FRONTEND=noninteractive
PACKAGES="build-essential autoconf automake libtool pkg-config \
  libmicrohttpd-dev libjansson-dev libsqlite3-dev libgsl-dev libsodium-dev \
  check libmujoco-dev libcurl4-openssl-dev nginx wrk sqlite3 curl libxml2-utils"
missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing
fi
