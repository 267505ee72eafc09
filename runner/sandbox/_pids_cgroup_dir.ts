/**
 * Private: the host directory of a process's cgroup in the `pids`
 * hierarchy (cgroup v1) or the unified one (v2), and the PIDs its
 * `cgroup.procs` lists: every process of a container and `pids.events` counts the forks
 * its limit refused (the kernel's cgroup documentation,
 * `Documentation/admin-guide/cgroup-v1/pids.rst` and `cgroup-v2.rst`).
 *
 * @module
 */

/**
 * The cgroup directory of `pid` that holds `pids.events`, read from
 * `/proc/<pid>/cgroup` on the host.
 *
 * @param pid a host PID (a container's init)
 * @returns the directory, or null when the process is gone or no hierarchy has it
 */
export async function pidsCgroupDir(pid: number): Promise<string | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(`/proc/${pid}/cgroup`);
  } catch {
    return null;
  }
  const candidates: string[] = [];
  for (const line of text.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (path === undefined) continue;
    if (controllers.split(",").includes("pids")) candidates.push(`/sys/fs/cgroup/pids${path}`);
    else if (controllers === "") candidates.push(`/sys/fs/cgroup${path}`);
  }
  for (const dir of candidates) {
    try {
      await Deno.stat(`${dir}/pids.events`);
      return dir;
    } catch {
      // try the next hierarchy
    }
  }
  return null;
}

/**
 * The host PIDs a cgroup's `cgroup.procs` lists (every process of a container).
 *
 * @param cgroupProcs the `cgroup.procs` file on the host
 * @returns the PIDs, ascending
 */
export async function cgroupPids(cgroupProcs: string): Promise<number[]> {
  return (await Deno.readTextFile(cgroupProcs)).split("\n").filter((line) => line !== "")
    .map(Number).sort((a, b) => a - b);
}
