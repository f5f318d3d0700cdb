#!/bin/sh
# slurm_test.sh: deploy/slurm/ on a real one-node Slurm cluster that the test starts
# in a temporary directory (munged on its own key and socket, slurmctld and slurmd
# on free ports): submit-sweep.sh's array and its dependent merge give the bytes
# `contact sweep` gives on one machine, JSON and CSV; a sweep whose tasks fail never
# runs its merge and leaves no answer.
#
# Without root or without Slurm and munge installed (deploy/setup-debian.sh installs
# them), the test runs the scripts' tasks directly (the same commands, with
# SLURM_ARRAY_TASK_ID set) and says so. As root with them installed, a cluster that
# does not start (a container that refuses slurmd, say) is the direct run too, as the
# issue allows, with the daemons' logs shown; SLURM_TEST_REQUIRE_CLUSTER=1 makes it a
# failure instead.
# Run by `make check` from the build directory (CONTACT overrides the binary).
set -u

srcdir=${srcdir:-.}
contact=${CONTACT:-./contact}
case $contact in /*) ;; *) contact="$PWD/$contact" ;; esac
[ -x "$contact" ] || { echo "no $contact" >&2; exit 99; }
export CONTACT="$contact"
scripts=$(cd "$srcdir/deploy/slurm" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/slurm_test.XXXXXX") || exit 99
failures=0
munge_pid=
ctld_pid=
slurmd_pid=
cluster=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# stop PID...: TERM each, then KILL whatever is left after 10 s
stop() {
	for pid in "$@"; do
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done
	for pid in "$@"; do
		[ -n "$pid" ] || continue
		for _ in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
}

cleanup() {
	if [ "$cluster" = 1 ]; then
		scancel --user="$(id -un)" 2>/dev/null
		sleep 1
	fi
	stop "$slurmd_pid" "$ctld_pid"
	stop "$munge_pid"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# tool NAME: its path (PATH, then the sbin directories), or nothing
tool() {
	command -v "$1" 2>/dev/null || for d in /usr/sbin /sbin /usr/local/sbin; do
		[ -x "$d/$1" ] && echo "$d/$1" && break
	done
}

# free_port: a TCP port nothing listens on
free_port() {
	for _ in $(seq 1 50); do
		p=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
		ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

# wait_for SECONDS COMMAND...: poll COMMAND every 0.2 s until it succeeds
wait_for() {
	limit=$(($1 * 5))
	shift
	for _ in $(seq 1 "$limit"); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

node_idle() {
	sinfo -h -n "$node" -o %t | grep -qx idle
}

# start_cluster: munged, slurmctld and slurmd in $tmp; why= says what failed
start_cluster() {
	why=
	[ "$(id -u)" = 0 ] || { why="not root (slurmd runs jobs as their user)"; return 1; }
	for t in munged slurmctld slurmd sbatch sinfo scontrol scancel ss; do
		[ -n "$(tool "$t")" ] || { why="$t is not installed (deploy/setup-debian.sh)"; return 1; }
	done
	node=$(hostname -s 2>/dev/null || hostname)
	mkdir -p "$tmp/state" "$tmp/spool"
	chmod 700 "$tmp"
	dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 2>/dev/null
	chmod 600 "$tmp/munge.key"
	"$(tool munged)" -F -f --socket="$tmp/munge.socket" --key-file="$tmp/munge.key" \
		--pid-file="$tmp/munged.pid" --seed-file="$tmp/munged.seed" \
		--log-file="$tmp/munged.log" >"$tmp/munged.out" 2>&1 &
	munge_pid=$!
	wait_for 20 test -S "$tmp/munge.socket" || { why="munged did not start: $(cat "$tmp/munged.out")"; return 1; }
	ctld_port=$(free_port) && slurmd_port=$(free_port) || { why="no free port"; return 1; }
	cat >"$tmp/slurm.conf" <<-EOF
		ClusterName=contactdtest
		SlurmctldHost=$node(127.0.0.1)
		SlurmctldPort=$ctld_port
		SlurmdPort=$slurmd_port
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		AuthInfo=socket=$tmp/munge.socket
		CredType=cred/munge
		StateSaveLocation=$tmp/state
		SlurmdSpoolDir=$tmp/spool
		SlurmctldPidFile=$tmp/slurmctld.pid
		SlurmdPidFile=$tmp/slurmd.pid
		SlurmctldLogFile=$tmp/slurmctld.log
		SlurmdLogFile=$tmp/slurmd.log
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		SelectType=select/cons_tres
		SelectTypeParameters=CR_CPU
		SchedulerType=sched/builtin
		JobCompType=jobcomp/none
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		MpiDefault=none
		MailProg=/bin/true
		ReturnToService=2
		SlurmdParameters=config_overrides
		NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
		PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
	EOF
	export SLURM_CONF="$tmp/slurm.conf"
	"$(tool slurmctld)" -D -c -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
	ctld_pid=$!
	"$(tool slurmd)" -D -f "$SLURM_CONF" -N "$node" >"$tmp/slurmd.out" 2>&1 &
	slurmd_pid=$!
	cluster=1
	if ! wait_for 60 node_idle; then
		why="the node did not come up: $(tail -n 5 "$tmp/slurmctld.out" "$tmp/slurmd.out")"
		return 1
	fi
	return 0
}

# job_state ID: the job's state (COMPLETED, FAILED, CANCELLED, PENDING, ...)
job_state() {
	scontrol show job -o "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1
}

job_ended() {
	case $(job_state "$1") in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 0 ;; esac
	return 1
}

# the requests: a grid of drops, a grid of holds (CSV), and one whose tasks fail
printf '%s\n' '{"query":"drop","vary":[{"path":"timeconst","values":[0.002,0.005,0.01,0.02,0.05]},{"path":"mass","values":[0.1,0.5,1,2,5,10,20]}]}' >"$tmp/drop.json"
printf '%s\n' '{"query":"hold","vary":[{"path":"grip_force","values":[1,3,10,30,100]},{"path":"cone","values":["pyramidal","elliptic"]}]}' >"$tmp/hold.json"
printf '%s\n' '{"query":"drop","vary":[{"path":"mass","values":[1,-1]}]}' >"$tmp/bad.json"
"$contact" sweep "$tmp/drop.json" >"$tmp/drop.whole" || fail "the single-process drop sweep"
"$contact" sweep "$tmp/hold.json" --csv >"$tmp/hold.whole" || fail "the single-process hold sweep"

if start_cluster; then
	echo "slurm_test: a one-node Slurm cluster ($(sinfo -V)) on node $node"
	set -- $(sh "$scripts/submit-sweep.sh" -n 4 "$tmp/drop.json" "$tmp/drop.parts" "$tmp/drop.out")
	drop_array=${1:-} drop_merge=${2:-}
	set -- $(sh "$scripts/submit-sweep.sh" -n 3 --csv "$tmp/hold.json" "$tmp/hold.parts" "$tmp/hold.out")
	hold_array=${1:-} hold_merge=${2:-}
	set -- $(sh "$scripts/submit-sweep.sh" -n 2 "$tmp/bad.json" "$tmp/bad.parts" "$tmp/bad.out")
	bad_merge=${2:-}
	[ -n "$drop_merge" ] && [ -n "$hold_merge" ] && [ -n "$bad_merge" ] ||
		fail "submit-sweep.sh did not print the job ids"
	for job in $drop_merge $hold_merge $bad_merge; do
		wait_for 90 job_ended "$job" || fail "job $job still $(job_state "$job") after 90 s"
	done
	[ "$(job_state "$drop_merge")" = COMPLETED ] ||
		fail "drop merge $(job_state "$drop_merge"): $(cat "$tmp/drop.parts/"*.log 2>/dev/null | head -c 600)"
	[ "$(job_state "$hold_merge")" = COMPLETED ] ||
		fail "hold merge $(job_state "$hold_merge"): $(cat "$tmp/hold.parts/"*.log 2>/dev/null | head -c 600)"
	# every task of the arrays ran under Slurm, each its own part
	for k in 1 2 3 4; do
		[ "$(job_state "${drop_array}_$k")" = COMPLETED ] || fail "drop task $k: $(job_state "${drop_array}_$k")"
	done
	for k in 1 2 3; do
		[ "$(job_state "${hold_array}_$k")" = COMPLETED ] || fail "hold task $k: $(job_state "${hold_array}_$k")"
	done
	# tasks that fail never start their merge (afterok) and leave no answer
	[ "$(job_state "$bad_merge")" = CANCELLED ] || fail "the failed sweep's merge: $(job_state "$bad_merge"), not CANCELLED"
	[ -e "$tmp/bad.out" ] && fail "a failed sweep left an answer"
	mode="on the cluster"
else
	echo "slurm_test: RAN THE TASKS DIRECTLY, NOT ON A SLURM CLUSTER: $why"
	if [ "$(id -u)" = 0 ] && [ "$cluster" = 1 ]; then
		for f in slurmctld.log slurmd.log; do [ -f "$tmp/$f" ] && tail -n 20 "$tmp/$f" >&2; done
		[ "${SLURM_TEST_REQUIRE_CLUSTER:-0}" = 1 ] &&
			fail "root, with Slurm installed, but the cluster did not start: $why"
	fi
	# run_direct REQUEST N PARTS OUT [--csv]: the array's tasks, then the merge
	run_direct() {
		k=1
		while [ "$k" -le "$2" ]; do
			SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_COUNT=$2 SLURM_ARRAY_TASK_MIN=1 \
				SLURM_ARRAY_TASK_MAX=$2 sh "$scripts/sweep-array.sbatch" "$1" "$3" ${5:-} ||
				return 1
			k=$((k + 1))
		done
		sh "$scripts/sweep-merge.sbatch" "$3" "$4" ${5:-}
	}
	run_direct "$tmp/drop.json" 4 "$tmp/drop.parts" "$tmp/drop.out" || fail "the drop tasks"
	run_direct "$tmp/hold.json" 3 "$tmp/hold.parts" "$tmp/hold.out" --csv || fail "the hold tasks"
	run_direct "$tmp/bad.json" 2 "$tmp/bad.parts" "$tmp/bad.out" 2>/dev/null &&
		fail "a failing task succeeded"
	[ -e "$tmp/bad.out" ] && fail "a failed sweep left an answer"
	mode="directly"
fi

cmp -s "$tmp/drop.whole" "$tmp/drop.out" || fail "the merged drop sweep ($mode) differs from one process's"
cmp -s "$tmp/hold.whole" "$tmp/hold.out" || fail "the merged hold CSV ($mode) differs from one process's"
[ "$(ls "$tmp/drop.parts"/part-*.json 2>/dev/null | wc -l)" -eq 4 ] || fail "not 4 drop parts"
if [ "$failures" -gt 0 ]; then
	echo "slurm_test: $failures failure(s)" >&2
	exit 1
fi
echo "slurm_test: 35 drops in 4 tasks and 10 holds in 3 (CSV), merged $mode: equal to one process"
exit 0
