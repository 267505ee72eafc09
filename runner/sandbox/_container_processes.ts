/**
 * Private: a container's processes, read on the host from its cgroup's
 * `cgroup.procs` and each process's `/proc/<pid>/stat` and `cmdline`
 * (proc(5)), rather than from the engine's `top`: Docker's `top` gives
 * host PIDs under the titles it was asked for, Podman's (its Docker
 * compatible API, 4.3) gives the container's own PIDs in one merged
 * column, so only the host's view is the same on both, and it is the one
 * a protocol acts on (stopping a process, reading its sockets).
 *
 * @module
 */
import type { SessionProcess } from "./sandbox_session.ts";
import { cgroupPids } from "./_cgroup_dir.ts";
import { procStat } from "../proc_stat.ts";

/** Characters of a command line kept (untrusted text). */
const COMMAND_CHARS = 4096;

/**
 * The processes listed in a container's `cgroup.procs`, in PID order.
 *
 * @param cgroupProcs the container cgroup's `cgroup.procs` file on the host
 * @returns each process's host PID, its parent's, its real uid and its command line
 */
export async function containerProcesses(cgroupProcs: string): Promise<SessionProcess[]> {
  const found: SessionProcess[] = [];
  for (const pid of await cgroupPids(cgroupProcs)) {
    const stat = await procStat(pid);
    if (stat === null) continue; // it ended meanwhile
    try {
      const uid = /^Uid:\s+(\d+)/m.exec(await Deno.readTextFile(`/proc/${pid}/status`))?.[1];
      const argv = (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0")
        .filter((arg, i, all) => !(arg === "" && i === all.length - 1));
      const command = argv.length > 0 ? argv.join(" ") : `[${stat.comm}]`;
      found.push({
        pid,
        ppid: stat.ppid,
        user: uid ?? "",
        command: command.slice(0, COMMAND_CHARS),
      });
    } catch {
      // it ended meanwhile
    }
  }
  return found;
}
