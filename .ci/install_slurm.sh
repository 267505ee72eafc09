#!/usr/bin/env bash
# Make a single-node Slurm cluster answer on this machine, idempotently
# (issue 24: the Slurm executor's tests run against a real cluster).
#
# 1. apt-get install Debian 12's slurm-wlm (Slurm 22.05) and munge when
#    either is missing;
# 2. create a munge key when none exists, start munged unless one answers;
# 3. write /etc/slurm/slurm.conf for one node, this host with its real CPUs
#    and memory (`slurmd -C`), one partition `debug`; no accounting database;
#    when the file changes while the daemons run they are restarted;
# 4. start slurmctld and slurmd as daemons (no systemd here: the binaries,
#    with pid files under /run and logs under /var/log/slurm) unless they
#    still run;
# 5. wait until `sinfo` answers, resume the node if a previous test left it
#    down or drained, and wait until it is idle (or busy with jobs), or fail
#    with a clear error.
#
# Silent on success but for one line on stderr. Environment:
# SLURM_WAIT_SECONDS (default 60).
set -euo pipefail

WAIT_SECONDS="${SLURM_WAIT_SECONDS:-60}"
CONF=/etc/slurm/slurm.conf
LOG_DIR=/var/log/slurm
MUNGE_KEY=/etc/munge/munge.key
MUNGE_SOCKET_DIR=/run/munge
MUNGE_PIDFILE=/run/munge/munged.pid
CTLD_PIDFILE=/run/slurmctld.pid
SLURMD_PIDFILE=/run/slurmd.pid

fail() {
  echo "install_slurm: error: $*" >&2
  exit 1
}

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
command -v slurmctld >/dev/null 2>&1 || missing+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || missing+=(munge)
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt_log="$(mktemp)"
  if ! { sudo_if_needed apt-get update -qq && sudo_if_needed apt-get install -y -qq "${missing[@]}"; } \
    >"$apt_log" 2>&1; then
    tail -n 20 "$apt_log" >&2
    fail "apt-get install ${missing[*]} failed"
  fi
  rm -f "$apt_log"
fi

# A daemon is alive when the pid its pid file names is that program (a pid
# file left from another boot may name an unrelated process).
alive() { # pidfile comm
  [ -f "$1" ] && [ "$(cat "/proc/$(cat "$1")/comm" 2>/dev/null)" = "$2" ]
}

# Ends the daemon a pid file names and waits until it is gone.
stop() { # pidfile comm
  if alive "$1" "$2"; then
    local pid
    pid="$(cat "$1")"
    sudo_if_needed kill "$pid"
    for _ in $(seq 100); do
      [ -e "/proc/$pid" ] || break
      sleep 0.1
    done
    [ -e "/proc/$pid" ] && fail "$2 (pid $pid) did not stop within 10s"
  fi
  sudo_if_needed rm -f "$1"
}

# --- munge ---------------------------------------------------------------
if ! [ -s "$MUNGE_KEY" ]; then
  sudo_if_needed mungekey --create --keyfile="$MUNGE_KEY" >/dev/null ||
    fail "cannot create the munge key \"$MUNGE_KEY\""
  sudo_if_needed chown munge:munge "$MUNGE_KEY"
  sudo_if_needed chmod 0400 "$MUNGE_KEY"
fi
munge_answers() { munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; }
if ! munge_answers; then
  stop "$MUNGE_PIDFILE" munged
  sudo_if_needed install -d -o munge -g munge -m 0755 "$MUNGE_SOCKET_DIR"
  sudo_if_needed runuser -u munge -- munged --pid-file="$MUNGE_PIDFILE" ||
    fail "munged did not start; see /var/log/munge/munged.log"
  for _ in $(seq 50); do
    munge_answers && break
    sleep 0.1
  done
  munge_answers || fail "munged does not answer; see /var/log/munge/munged.log"
fi

# --- slurm.conf ----------------------------------------------------------
node="$(hostname -s)"
[ -n "$node" ] || fail "\"hostname -s\" is empty: Slurm needs a node name"
# This host as slurmd sees it; memory rounded down to a GiB so that a few MB
# of drift neither drains the node ("Low RealMemory") nor rewrites the file.
hardware="$(slurmd -C | head -n 1)"
value_of() { sed -n "s/.*\\b$1=\\([0-9]*\\).*/\\1/p" <<<"$hardware"; }
cpus="$(value_of CPUs)"
sockets="$(value_of SocketsPerBoard)"
cores="$(value_of CoresPerSocket)"
threads="$(value_of ThreadsPerCore)"
memory="$(value_of RealMemory)"
[ -n "$cpus" ] && [ -n "$sockets" ] && [ -n "$cores" ] && [ -n "$threads" ] && [ -n "$memory" ] ||
  fail "cannot read CPUs and memory from \"slurmd -C\": \"$hardware\""
memory=$(((memory / 1024) * 1024))
[ "$memory" -gt 0 ] || memory="$(value_of RealMemory)"

conf="$(
  cat <<EOF
# Written by .ci/install_slurm.sh: a single-node cluster for ledgerbench's tests.
ClusterName=ledgerbench
SlurmctldHost=$node(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=$CTLD_PIDFILE
SlurmdPidFile=$SLURMD_PIDFILE
SlurmctldLogFile=$LOG_DIR/slurmctld.log
SlurmdLogFile=$LOG_DIR/slurmd.log
# No cgroup hierarchy Slurm can use in this container: processes are tracked
# through /proc and tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
# The main scheduling loop every 2 s (default 60 s): an array task waiting for
# a CPU freed by no event (a submission's first pass starts one task only)
# starts within seconds.
SchedulerParameters=sched_interval=2
# CPUs are the consumable (memory is not, so a job does not take the whole
# node's memory by default and two one-CPU tasks run side by side).
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# A node set down (by a test or a lost slurmd) comes back when its slurmd
# registers again with a valid configuration.
ReturnToService=2
SlurmdTimeout=30
SlurmctldTimeout=30
# Finished jobs stay visible to "scontrol show job" for 10 minutes.
MinJobAge=600
# Seconds between SIGTERM and SIGKILL when a job is cancelled or times out.
KillWait=10
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
)"
if [ "$(cat "$CONF" 2>/dev/null)" != "$conf" ]; then
  # A new configuration: daemons that run with the old one are restarted.
  stop "$SLURMD_PIDFILE" slurmd
  stop "$CTLD_PIDFILE" slurmctld
  sudo_if_needed install -d -m 0755 /etc/slurm
  printf '%s\n' "$conf" | sudo_if_needed tee "$CONF" >/dev/null
fi

# --- daemons -------------------------------------------------------------
sudo_if_needed install -d -o slurm -g slurm -m 0755 "$LOG_DIR" \
  /var/lib/slurm/slurmctld /var/lib/slurm/slurmd
if ! alive "$CTLD_PIDFILE" slurmctld; then
  sudo_if_needed rm -f "$CTLD_PIDFILE"
  sudo_if_needed slurmctld || fail "slurmctld did not start; see \"$LOG_DIR/slurmctld.log\""
fi
if ! alive "$SLURMD_PIDFILE" slurmd; then
  sudo_if_needed rm -f "$SLURMD_PIDFILE"
  sudo_if_needed slurmd || fail "slurmd did not start; see \"$LOG_DIR/slurmd.log\""
fi

# --- ready ---------------------------------------------------------------
node_state() { sinfo --noheader --nodes="$node" --format=%T 2>/dev/null | head -n 1; }
deadline=$((SECONDS + WAIT_SECONDS))
resumed=false
until state="$(node_state)" && [[ "$state" =~ ^(idle|mixed|allocated|completing)$ ]]; do
  # A node a previous test set down or drained (state "down", "drained",
  # "draining", with a "*" when it does not respond yet) is resumed once.
  if [[ "$state" =~ ^(down|drain) ]] && ! $resumed; then
    sudo_if_needed scontrol update nodename="$node" state=resume 2>/dev/null && resumed=true
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "install_slurm: error: node \"$node\" is not idle within ${WAIT_SECONDS}s" \
      "(state \"${state:-no answer from sinfo}\"); see \"$LOG_DIR/slurmctld.log\"" \
      "and \"$LOG_DIR/slurmd.log\"" >&2
    tail -n 10 "$LOG_DIR/slurmctld.log" "$LOG_DIR/slurmd.log" >&2 2>/dev/null || true
    exit 1
  fi
  sleep 0.5
done
echo "install_slurm: $(sinfo --version) ready, node \"$node\" $state" >&2
