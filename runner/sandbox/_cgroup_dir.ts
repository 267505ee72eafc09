/**
 * Private: a container's cgroups read on the host (the kernel's cgroup
 * documentation, `Documentation/admin-guide/cgroup-v1/pids.rst`,
 * `cgroup-v1/memory.rst` and `cgroup-v2.rst`): the directory of a
 * process's cgroup in one controller's hierarchy (v1) or the unified one
 * (v2); the PIDs its `cgroup.procs` lists (every process of a container);
 * `pids.events`, which counts the forks its limit refused; and the memory
 * controller's count of the processes its OOM killer ended.
 *
 * @module
 */

/** The file that marks a controller's directory in its own hierarchy (v1) and in the unified one (v2). */
const MARKERS = {
  pids: { v1: "pids.events", v2: "pids.events" },
  memory: { v1: "memory.oom_control", v2: "memory.events" },
} as const;

/**
 * The cgroup directory of `pid` in `controller`'s hierarchy, read from
 * `/proc/<pid>/cgroup` on the host: the one that holds the controller's
 * files (`pids.events`; `memory.oom_control` in v1, `memory.events` in v2).
 *
 * @param pid a host PID (a container's init)
 * @param controller `pids` or `memory`
 * @returns the directory, or null when the process is gone or no hierarchy has it
 */
export async function cgroupDir(
  pid: number,
  controller: keyof typeof MARKERS,
): Promise<string | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(`/proc/${pid}/cgroup`);
  } catch {
    return null;
  }
  const candidates: [string, string][] = [];
  for (const line of text.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (path === undefined) continue;
    if (controllers.split(",").includes(controller)) {
      candidates.push([`/sys/fs/cgroup/${controller}${path}`, MARKERS[controller].v1]);
    } else if (controllers === "") {
      candidates.push([`/sys/fs/cgroup${path}`, MARKERS[controller].v2]);
    }
  }
  for (const [dir, marker] of candidates) {
    try {
      await Deno.stat(`${dir}/${marker}`);
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

/**
 * How many processes of `pid`'s memory cgroup the kernel's OOM killer has
 * ended: the `oom_kill` line of `memory.oom_control` (v1, Linux 4.13 and
 * later) or of `memory.events` (v2). Unlike the engine's `OOMKilled`,
 * which speaks of the container's main process, this counts a process
 * `exec`'d into a running container too.
 *
 * @param pid a host PID (a container's init)
 * @returns the count, or null when the cgroup or its count cannot be read
 */
export async function cgroupOomKills(pid: number): Promise<number | null> {
  const dir = await cgroupDir(pid, "memory");
  if (dir === null) return null;
  for (const file of Object.values(MARKERS.memory)) {
    const text = await Deno.readTextFile(`${dir}/${file}`).catch(() => null);
    const count = text === null ? null : /^oom_kill (\d+)$/m.exec(text);
    if (count) return Number(count[1]);
  }
  return null;
}

/**
 * How many forks the pids limit of `pid`'s cgroup has refused: the `max`
 * line of `pids.events` (v1 and v2). The count lives as long as the
 * cgroup, so one read after the processes of interest have ended sees it all.
 *
 * @param pid a host PID (a container's init)
 * @returns the count, or null when the cgroup or its count cannot be read
 */
export async function cgroupPidsLimitHits(pid: number): Promise<number | null> {
  const dir = await cgroupDir(pid, "pids");
  const text = dir === null
    ? null
    : await Deno.readTextFile(`${dir}/${MARKERS.pids.v2}`).catch(() => null);
  return text === null ? null : Number(/^max (\d+)$/m.exec(text)?.[1] ?? 0);
}
