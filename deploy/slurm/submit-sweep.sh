#!/bin/sh
# submit-sweep.sh: split a contact sweep over a Slurm cluster and merge its parts.
#
#   submit-sweep.sh [-n N] [--csv] REQUEST PARTS_DIR OUT
#
# Submits an array of N tasks (default 8), task K running
# `contact sweep REQUEST --shard K/N` (sweep-array.sbatch), then a merge job that runs
# once every task succeeded (--dependency=afterok) and writes the whole answer to OUT
# (sweep-merge.sbatch): the same bytes as `contact sweep REQUEST` on one machine.
# Prints the two job ids ("ARRAY MERGE"). sbatch's own settings come from the
# environment (SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT, ...); CONTACT
# names the contact binary for the jobs (default: contact on PATH). Paths should be on
# a file system every node sees.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
n=8
format=
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=${2:?-n takes the number of parts}; shift 2 ;;
	--csv) format=--csv; shift ;;
	-h | --help) sed -n '2,13p' "$0"; exit 0 ;;
	-*) echo "submit-sweep.sh: unknown option $1" >&2; exit 1 ;;
	*) break ;;
	esac
done
if [ $# -ne 3 ]; then
	echo "usage: submit-sweep.sh [-n N] [--csv] REQUEST PARTS_DIR OUT" >&2
	exit 1
fi
case $n in '' | *[!0-9]* | 0) echo "submit-sweep.sh: -n takes a count >= 1, not $n" >&2; exit 1 ;; esac
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
request=$(abs "$1")
parts=$(abs "$2")
out=$(abs "$3")
mkdir -p "$parts"
# parts of an earlier run would be merged with this one's (merge would refuse them)
rm -f "$parts"/part-*.json "$parts"/part-*.csv "$parts"/part-*.tmp

array=$(sbatch --parsable --array="1-$n" --output="$parts/task-%a.log" \
	"$here/sweep-array.sbatch" "$request" "$parts" $format)
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
	--output="$parts/merge.log" "$here/sweep-merge.sbatch" "$parts" "$out" $format)
merge=${merge%%;*}
echo "$array $merge"
