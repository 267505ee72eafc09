#!/bin/sh
# Reports what the verifier sandbox looks like from inside, as a verdict whose
# check details the test reads: read-only workspace and root, no capabilities,
# loopback only, and the cgroup limits (v1 or v2 files, whichever exist); and
# what candidate code run through $LEDGERBENCH_AS_CANDIDATE is: its user, its
# capabilities, whether it can read this very file.
ws_ro=true
touch /workspace/probe 2>/dev/null && ws_ro=false
root_ro=true
touch /probe 2>/dev/null && root_ro=false
capeff="$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)"
ifaces="$(ls /sys/class/net | tr '\n' ' ' | sed 's/ $//')"
mem="$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max 2>/dev/null || echo unknown)"
if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
  cpu="$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"
else
  cpu="$(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo unknown)"
fi
as_candidate="$LEDGERBENCH_AS_CANDIDATE"
cand_uid="$("$as_candidate" id -u)"
cand_capeff="$("$as_candidate" sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)"
cand_reads_hidden=false
"$as_candidate" cat /verifier/verify.sh >/dev/null && cand_reads_hidden=true
printf '{"resolved":true,"checks":[{"name":"candidate_uid","passed":true,"detail":"%s"},{"name":"candidate_cap_eff","passed":true,"detail":"%s"},{"name":"candidate_reads_hidden","passed":%s},{"name":"workspace_read_only","passed":%s},{"name":"root_read_only","passed":%s},{"name":"cap_eff","passed":true,"detail":"%s"},{"name":"interfaces","passed":true,"detail":"%s"},{"name":"memory_limit","passed":true,"detail":"%s"},{"name":"cpu_quota","passed":true,"detail":"%s"}]}\n' \
  "$cand_uid" "$cand_capeff" "$cand_reads_hidden" "$ws_ro" "$root_ro" "$capeff" "$ifaces" "$mem" "$cpu"
