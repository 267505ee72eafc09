/**
 * Private: one process of a session and what it started: killing them
 * (a wall cap), and telling whether a process is one of them (the
 * verifier's egress admits its own tree alone). Killing:
 * a wall cap ends the agent's `docker exec` and every process still its
 * descendant, read from the host's `/proc` (the runner runs in the host's
 * PID namespace), while what it detached (a service re-parented to the
 * container's init) stays, as Harbor's timeout leaves it.
 *
 * @module
 */
import { procStat } from "../proc_stat.ts";

/**
 * The descendants of `root` in a parent table, `root` first, breadth first.
 *
 * @param root the PID whose tree is wanted
 * @param parents PID → parent PID
 * @returns the PIDs of the tree (just `[root]` when it has no children)
 * @example
 * ```ts
 * import { descendantsOf } from "./_kill_descendants.ts";
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(descendantsOf(10, new Map([[11, 10], [12, 11], [13, 1]])), [10, 11, 12]);
 * ```
 */
export function descendantsOf(root: number, parents: ReadonlyMap<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(pid);
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    for (const child of children.get(out[i]) ?? []) if (!out.includes(child)) out.push(child);
  }
  return out;
}

/** PID → parent PID of every process on the host (`/proc/<pid>/stat`, field 4). */
async function hostParents(): Promise<Map<number, number>> {
  const parents = new Map<number, number>();
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = await procStat(Number(entry.name));
    if (stat !== null) parents.set(Number(entry.name), stat.ppid); // else gone meanwhile
  }
  return parents;
}

/**
 * Sends SIGKILL to `root` and its descendants, three rounds (a process may
 * fork between the read of `/proc` and the kill).
 *
 * @param root the host PID of the process to end
 */
export async function killDescendants(root: number): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const tree = descendantsOf(root, await hostParents());
    let alive = 0;
    for (const pid of tree) {
      try {
        Deno.kill(pid, "SIGKILL");
        alive++;
      } catch {
        // already gone
      }
    }
    if (alive === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Whether `pid` is `root` or descends from it, walking its parents up
 * (`/proc/<pid>/stat`, field 4) on the host: a process that was re-parented
 * (it detached, or its parent exited) no longer descends from it.
 *
 * @param pid the host PID asked about
 * @param root the host PID of the tree's root
 * @returns true when `pid` is in `root`'s tree now
 */
export async function descendsFrom(pid: number, root: number): Promise<boolean> {
  for (let at = pid, step = 0; at > 1 && step < 4096; step++) {
    if (at === root) return true;
    const stat = await procStat(at);
    if (stat === null) return false;
    at = stat.ppid;
  }
  return false;
}
