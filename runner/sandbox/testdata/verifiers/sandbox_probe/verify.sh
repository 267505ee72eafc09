#!/bin/sh
# Reports what the verifier sandbox looks like from inside, as a verdict whose
# check details the test reads: read-only workspace and root, no capabilities,
# loopback only, and the cgroup limits (v1 or v2 files, whichever exist).
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
printf '{"resolved":true,"checks":[{"name":"workspace_read_only","passed":%s},{"name":"root_read_only","passed":%s},{"name":"cap_eff","passed":true,"detail":"%s"},{"name":"interfaces","passed":true,"detail":"%s"},{"name":"memory_limit","passed":true,"detail":"%s"},{"name":"cpu_quota","passed":true,"detail":"%s"}]}\n' \
  "$ws_ro" "$root_ro" "$capeff" "$ifaces" "$mem" "$cpu"
