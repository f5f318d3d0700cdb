#!/bin/sh
# pg_calib_layer.sh: tests/test_calib_layer's use cases (create, upload, Idempotency-Key
# replay and conflict of an upload and of a create, a deletion's refit, scope, rotation and
# revocation, watch URLs)
# against the PostgreSQL store, on a throw-away server started here.
set -u
srcdir=${srcdir:-.}
. "$srcdir/tests/pg_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/contactd-pglayer.XXXXXX") || exit 99
trap 'pg_stop; rm -rf "$tmp"' EXIT INT TERM
pg_start "$tmp" || { echo "FAIL: PostgreSQL did not start"; exit 1; }
CALIB_LAYER_PG_URL=$pg_url ./tests/test_calib_layer
