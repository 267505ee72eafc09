/**
 * The check behind seed 000's `--network none`, made on the running
 * container rather than assumed from its configuration.
 *
 * @module
 */

let checkable: boolean | undefined;

/**
 * Whether this process may read other processes' `/proc` entries, which
 * {@linkcode networkIsolationProblem} needs: Deno 2 grants `/proc/<pid>/…`
 * only under `--allow-all`. Probed once (`/proc/self/ns/net`) and cached.
 * The sandbox asks the engine for `NetworkDisabled` only when this is true,
 * so that the configuration it relies on is always checked.
 *
 * @returns true when the isolation of each container can be checked
 */
export function networkIsolationCheckable(): boolean {
  if (checkable === undefined) {
    try {
      Deno.readLinkSync("/proc/self/ns/net");
      checkable = true;
    } catch {
      checkable = false;
    }
  }
  return checkable;
}

/**
 * Why a process is not alone in a network namespace of its own holding only
 * loopback, or null when it is. Rule: `/proc/<pid>/ns/net` must differ from
 * the runner's own `/proc/self/ns/net`, and `/proc/<pid>/net/dev` (two header
 * lines, then one `<name>: <counters>` line per interface) must list `lo`
 * and nothing else. A process that is already gone gives null: nothing of it
 * is left to reach a network. Any other failure to read is a problem: an
 * isolation that cannot be seen is not assumed.
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
  let own: string;
  try {
    namespace = Deno.readLinkSync(`/proc/${pid}/ns/net`);
    devices = Deno.readTextFileSync(`/proc/${pid}/net/dev`);
    own = Deno.readLinkSync("/proc/self/ns/net");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    return `its network namespace cannot be read: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
  if (namespace === own) return "it shares the runner's network namespace";
  const others = devices.split("\n").slice(2).map((line) => line.split(":")[0].trim())
    .filter((name) => name !== "" && name !== "lo");
  if (others.length > 0) {
    return `its network namespace has interfaces besides "lo": ${
      others.map((name) => `"${name}"`).join(", ")
    }`;
  }
  return null;
}
