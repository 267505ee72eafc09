/**
 * Who a runner process is, so that what it leaves behind (its ledger lock,
 * containers, temporary directories) can be told to be a live run's or a
 * dead one's (issue 9, items 4 and 7): host name, pid and the process's
 * start time in clock ticks since boot (`/proc/<pid>/stat`, field 22), which
 * tells a live runner from a later process that reuses its pid.
 *
 * @module
 */
import { parseProcStat } from "./proc_stat.ts";

/** One runner process. */
export interface RunnerIdentity {
  host: string;
  pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22). */
  start: number;
}

let current: RunnerIdentity | null = null;

/**
 * The process's start time in clock ticks since boot, read from
 * `/proc/<pid>/stat` (field 22, `parseProcStat`); null when there is no
 * such process.
 *
 * @param pid the process id
 * @returns the start time, or null when the process does not exist
 */
export function processStart(pid: number): number | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  return parseProcStat(text)?.startTicks ?? null;
}

/**
 * This process as a runner (computed once).
 *
 * @returns host, pid and start time of the current process
 */
export function currentRunner(): RunnerIdentity {
  current ??= { host: Deno.hostname(), pid: Deno.pid, start: processStart(Deno.pid) ?? 0 };
  return current;
}

/**
 * Whether `runner` is still running. A runner on another host cannot be
 * checked and counts as alive (nothing of it is ever removed); on this host
 * it is alive when its pid exists with the same start time.
 *
 * @param runner the runner to check
 * @returns false only when the runner is known to be gone
 */
export function runnerAlive(runner: RunnerIdentity): boolean {
  if (runner.host !== Deno.hostname()) return true;
  return processStart(runner.pid) === runner.start;
}

/**
 * The runner as one label value, `<host>/<pid>/<start>` (the container label
 * `ledgerbench.runner`).
 *
 * @param runner the runner
 * @returns the label value
 */
export function runnerLabel(runner: RunnerIdentity): string {
  return `${runner.host}/${runner.pid}/${runner.start}`;
}

/**
 * Reads a {@link runnerLabel} value back.
 *
 * @param label the label value
 * @returns the runner, or null when the value is not of that form
 */
export function parseRunnerLabel(label: string): RunnerIdentity | null {
  const match = /^(.+)\/(\d+)\/(\d+)$/.exec(label);
  return match === null ? null : { host: match[1], pid: Number(match[2]), start: Number(match[3]) };
}
