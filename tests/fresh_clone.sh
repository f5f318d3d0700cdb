#!/bin/sh
# fresh_clone.sh: the README's two commands pass in one fresh clone, in the README's
# order and in the other order (issue #17):
#   A: a clone; the first command (setup, autoreconf, configure and make in the tree, then
#      the daemon, left running); the second (./tests/run-all.sh); the daemon still answers
#   B: another clone; the second command, then the first
# and neither leaves a file git would list as untracked. Each command is read from
# README.md, so the README cannot drift from what is tested.
#
# Usage: tests/fresh_clone.sh [REPOSITORY]   (default: the clone this script is in; its
# committed HEAD is what gets cloned). `make check-fresh-clone` runs it. It runs the whole
# suite twice (tens of minutes on two cores), so it is not part of `make check`.
# FRESH_CLONE_TESTS="tests/test_core tests/cli_test.sh" runs only those tests and no
# distcheck in each run-all.sh (a quick check of the build steps alone).
# FRESH_CLONE_DIR=DIR works in DIR (kept) instead of a temporary directory (removed).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:-$(git -C "$here" rev-parse --show-toplevel)} || exit 99
if [ -n "${FRESH_CLONE_DIR:-}" ]; then
	work=$FRESH_CLONE_DIR
	mkdir -p "$work" || exit 99
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/fresh_clone.XXXXXX") || exit 99
	trap 'rm -rf "$work"' EXIT
fi
failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}
log() { echo "fresh_clone: $(date -u +%H:%M:%S) $*"; }

# The README's two commands, as printed there (indented four spaces).
first=$(sed -n 's/^    \(\.\/deploy\/setup-debian\.sh && autoreconf .*\)$/\1/p' "$repo/README.md")
second=$(sed -n 's/^    \(\.\/tests\/run-all\.sh\)$/\1/p' "$repo/README.md")
case "$first" in
*' && ./contactd') build=${first% && ./contactd} ;;
*) echo "README.md's first command does not end by starting ./contactd: '$first'" >&2; exit 99 ;;
esac
[ "$second" = ./tests/run-all.sh ] || { echo "README.md has no ./tests/run-all.sh command" >&2; exit 99; }
log "first command: $first"
log "second command: $second"
[ -n "${FRESH_CLONE_TESTS:-}" ] && log "quick mode: only $FRESH_CLONE_TESTS, no distcheck"

port=$((20000 + $$ % 20000))
daemon=

# first_command DIR LOG: the first command in DIR, the daemon started in the background
# on a free port (the README's runs in the foreground on 8750) with the README's database
first_command() {
	log "$1: first command"
	(cd "$1" && eval "$build") >"$2" 2>&1 || { tail -40 "$2" >&2; fail "$1: the first command failed (log $2)"; return 1; }
	(cd "$1" && exec ./contactd --port "$port" >>"$2" 2>&1) &
	daemon=$!
	answers "$1: the daemon started by the first command"
}

# answers WHAT: the daemon on $port answers /v1/health and a drop
answers() {
	i=0
	until curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { fail "$1 does not answer on port $port"; return 1; }
		sleep 0.2
	done
	curl -sf "http://127.0.0.1:$port/v1/drop" -H 'Content-Type: application/json' -d '{}' |
		grep -q '"peak_penetration":0.00828' || fail "$1 does not answer the README's drop"
}

stop_daemon() {
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
	daemon=
}

# second_command DIR LOG: the test command in DIR
second_command() {
	log "$1: second command"
	(cd "$1" && RUN_ALL_TESTS="${FRESH_CLONE_TESTS:-}" ./tests/run-all.sh) >"$2" 2>&1 || {
		tail -60 "$2" >&2
		fail "$1: ./tests/run-all.sh failed (log $2)"
		return 1
	}
	grep -E '^tests: [0-9]+ passed, 0 failed' "$2" | tail -1
}

# untracked DIR: nothing either command made shows in git status
untracked() {
	extra=$(git -C "$1" status --porcelain --untracked-files=all)
	[ -z "$extra" ] || fail "$1: the commands leave files git lists: $(echo "$extra" | head -20)"
}

trap 'stop_daemon; exit 130' INT TERM

# A: the README's order, the daemon still running while the tests run
git clone -q "$repo" "$work/a" || exit 99
first_command "$work/a" "$work/a-first.log" &&
	second_command "$work/a" "$work/a-second.log" &&
	answers "$work/a: the daemon, after the tests"
stop_daemon
untracked "$work/a"

# B: the other order
git clone -q "$repo" "$work/b" || exit 99
second_command "$work/b" "$work/b-second.log" &&
	first_command "$work/b" "$work/b-first.log"
stop_daemon
untracked "$work/b"

if [ "$failures" -eq 0 ]; then
	log "both orders pass"
else
	log "$failures failures; logs in $work"
	[ -n "${FRESH_CLONE_DIR:-}" ] || trap - EXIT
fi
exit $((failures > 0))
