/**
 * The check behind seed 000's `--network none`, made on the running
 * container rather than assumed from its configuration.
 *
 * @module
 */
import { parseProcStat } from "../proc_stat.ts";

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

/** How {@linkcode networkIsolationProblem} reads `/proc`; tests inject their own. */
export interface ProcReader {
  /** `readlink` of a path (`Deno.readLinkSync` by default) */
  readLink(path: string): string;
  /** the text of a file (`Deno.readTextFileSync` by default) */
  readText(path: string): string;
}

const PROC: ProcReader = {
  readLink: (path) => Deno.readLinkSync(path),
  readText: (path) => Deno.readTextFileSync(path),
};

/**
 * Who `/proc/<pid>/stat` says the process is: its start time (field 22, in
 * clock ticks since boot) and whether it is still alive (field 3 is neither
 * `Z` zombie nor `X` dead), or null when the entry is gone or unreadable
 * (`parseProcStat`).
 */
function processIdentity(
  read: ProcReader,
  pid: number,
): { start: number; alive: boolean } | null {
  let stat;
  try {
    stat = parseProcStat(read.readText(`/proc/${pid}/stat`));
  } catch {
    return null;
  }
  return stat === null ? null : { start: stat.startTicks, alive: !/^[ZX]$/.test(stat.state) };
}

/**
 * Why a process is not alone in a network namespace of its own holding only
 * loopback, or null when it is. Rule: `/proc/<pid>/ns/net` must differ from
 * the runner's own `/proc/self/ns/net`, and `/proc/<pid>/net/dev` (two header
 * lines, then one `<name>: <counters>` line per interface) must list `lo`
 * and nothing else. A process that is already gone gives null: nothing of it
 * is left to reach a network. Any problem found (a read that fails
 * otherwise, such as `EACCES` from `readlink` on an exiting process under
 * load or `ESRCH`, or a namespace that is not alone) is checked again against
 * `/proc/<pid>/stat`, read before the check: when the entry is now gone,
 * names another start time (the pid was reused) or a zombie or dead process,
 * the process exited during the check and the answer is null; when it is still the same live process, the problem stands: an
 * isolation that cannot be seen is not assumed.
 *
 * Cost: one `readlink` and one small `/proc` read each side, plus one `stat`
 * read (two when a problem is found); synchronous, well under a millisecond.
 *
 * @param pid a host process id (a container's init, as `docker inspect` reports it)
 * @param options `read`: how `/proc` is read (the real one by default)
 * @returns the problem in words, or null
 * @example
 * ```ts ignore
 * import { networkIsolationProblem } from "./network_isolation_problem.ts";
 * networkIsolationProblem(Deno.pid); // "it shares the runner's network namespace"
 * ```
 */
export function networkIsolationProblem(
  pid: number,
  options: { read?: ProcReader } = {},
): string | null {
  const read = options.read ?? PROC;
  const before = processIdentity(read, pid);
  const problem = observedProblem(read, pid);
  if (problem === null) return null;
  const after = processIdentity(read, pid);
  const exited = after === null || !after.alive ||
    (before !== null && after.start !== before.start);
  return exited ? null : problem;
}

/** What `/proc` shows of the process's network namespace, before the re-check. */
function observedProblem(read: ProcReader, pid: number): string | null {
  let namespace: string;
  let devices: string;
  let own: string;
  try {
    namespace = read.readLink(`/proc/${pid}/ns/net`);
    devices = read.readText(`/proc/${pid}/net/dev`);
    own = read.readLink("/proc/self/ns/net");
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
