#!/usr/bin/env bash
# Captures the `scontrol show job -o` fixtures of this folder from the
# single-node, two-CPU cluster of .ci/install_slurm.sh (Slurm 22.05), one file
# per situation; parse_job_records_test.ts pins what the parser reads from
# each. Takes about two minutes: the TIMEOUT fixture waits for Slurm's
# time-limit check, which runs every 30 s, after the one-minute minimum limit.
# Usage: bash runner/slurm/testdata/capture_fixtures.sh [out_dir]
set -euo pipefail
out="$(realpath "${1:-$(dirname "$0")}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
node="$(hostname -s)"

submit() { # script, sbatch options...
  local script="$1"
  shift
  printf '#!/bin/sh\n%s\n' "$script" | sbatch --parsable --output=/dev/null "$@"
}
show() { scontrol show job -o "$1" >"$out/$2"; }
# Waits until job $1 has $3 records in state $2 (a regular expression).
wait_for() {
  for _ in $(seq 400); do
    [ "$(scontrol show job -o "$1" 2>/dev/null | grep -cE " JobState=($2) ")" -ge "$3" ] && return 0
    sleep 0.5
  done
  echo "capture_fixtures: job $1 never had $3 records in state $2" >&2
  exit 1
}

# Two tasks run, three wait behind the throttle (one record "2-4%2").
job="$(submit 'sleep 30' --array=0-4%2 --no-requeue --job-name=fixture)"
wait_for "$job" RUNNING 2
show "$job" pending_range_running.txt
# A running and a pending task cancelled: the running one stays as a
# CANCELLED record, the pending one leaves the range record.
scancel "${job}_1" "${job}_3"
wait_for "$job" RUNNING 2
show "$job" cancelled_task.txt
scancel "$job"
wait_for "$job" CANCELLED 4

# Pending tasks cancelled from the middle of the range: "1-2,4,6%1".
job="$(submit 'sleep 30' --array=0-6%1 --no-requeue --job-name=fixture)"
wait_for "$job" RUNNING 1
scancel "${job}_3" "${job}_5"
until scontrol show job -o "$job" | grep -q ' ArrayTaskId=1-2,4,6%1 '; do sleep 0.2; done
show "$job" pending_gaps.txt
scancel "$job"
wait_for "$job" CANCELLED 2

# The whole array cancelled while its tasks wait: one CANCELLED range record.
job="$(submit 'sleep 30' --array=0-3 --no-requeue --job-name=fixture --hold)"
scancel "$job"
wait_for "$job" CANCELLED 1
show "$job" cancelled_pending_range.txt

# Exit statuses 0, 1 and 2: COMPLETED and FAILED.
job="$(submit 'exit "$SLURM_ARRAY_TASK_ID"' --array=0-2 --no-requeue --job-name=fixture)"
wait_for "$job" 'COMPLETED|FAILED' 3
show "$job" completed_failed.txt

# The node set down under running tasks, without and with requeue.
no_requeue="$(submit 'sleep 60' --array=0 --no-requeue --job-name=fixture)"
requeue="$(submit 'sleep 60' --array=0 --requeue --job-name=fixture)"
wait_for "$no_requeue" RUNNING 1
wait_for "$requeue" RUNNING 1
scontrol update nodename="$node" state=down reason=fixture
wait_for "$no_requeue" NODE_FAIL 1
wait_for "$requeue" PENDING 1
show "$no_requeue" node_down_no_requeue.txt
show "$requeue" node_down_requeue.txt
scancel "$requeue"
# ReturnToService=2 has usually brought the node back already.
scontrol update nodename="$node" state=resume 2>/dev/null || true

# A one-minute limit on a two-minute task; name and comment with spaces and
# a fake field, to pin that the parser reads the first field of a name.
job="$(submit 'sleep 120' --array=0 --time=1 --no-requeue \
  --job-name='timeout test' --comment='a comment JobState=FAKE')"
wait_for "$job" TIMEOUT 1
show "$job" timeout.txt
