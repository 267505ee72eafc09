/**
 * The check behind seed 000's `--network none`, made on the running
 * container rather than assumed from its configuration.
 *
 * @module
 */

/**
 * Why a process is not alone in a network namespace of its own holding only
 * loopback, or null when it is. Rule: `/proc/<pid>/ns/net` must differ from
 * the runner's own `/proc/self/ns/net`, and `/proc/<pid>/net/dev` (two header
 * lines, then one `<name>: <counters>` line per interface) must list `lo`
 * and nothing else. A process that is already gone gives null: nothing of it
 * is left to reach a network.
 *
 * Cost: one `readlink` and one small `/proc` read each side (synchronous,
 * well under a millisecond).
 *
 * @param pid a host process id (a container's init, as `docker inspect` reports it)
 * @returns the problem in words, or null
 * @example
 * ```ts ignore
 * import { networkIsolationProblem } from "./network_isolation_problem.ts";
 * networkIsolationProblem(Deno.pid); // "it shares the runner's network namespace"
 * ```
 */
export function networkIsolationProblem(pid: number): string | null {
  let namespace: string;
  let devices: string;
  try {
    namespace = Deno.readLinkSync(`/proc/${pid}/ns/net`);
    devices = Deno.readTextFileSync(`/proc/${pid}/net/dev`);
  } catch {
    return null;
  }
  if (namespace === Deno.readLinkSync("/proc/self/ns/net")) {
    return "it shares the runner's network namespace";
  }
  const others = devices.split("\n").slice(2).map((line) => line.split(":")[0].trim())
    .filter((name) => name !== "" && name !== "lo");
  if (others.length > 0) {
    return `its network namespace has interfaces besides "lo": ${
      others.map((name) => `"${name}"`).join(", ")
    }`;
  }
  return null;
}
