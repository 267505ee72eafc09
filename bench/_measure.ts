/**
 * Timing helpers shared by the benchmarks: wall-clock time of a function
 * after a forced garbage collection (the bench task runs with
 * `--v8-flags=--expose-gc`), and the result record every benchmark returns.
 *
 * @module
 */

/** One measured figure beside its plain baseline, measured in the same run. */
export interface BenchResult {
  /** Short name, e.g. `"ingest+validate"`. */
  name: string;
  /** What was measured, with its size. */
  workload: string;
  /** Milliseconds of the measured code (best of the repetitions). */
  ms: number;
  /** The plain baseline it is compared with. */
  baseline: { name: string; ms: number };
  /** ms / baseline.ms. */
  ratio: number;
  /**
   * CPU time of the measured process over the baseline's, when both ran as
   * processes of their own: steadier than the wall-time ratio on a shared
   * machine. Absent when not measured.
   */
  cpu_ratio?: number;
  /** The target the issue sets for the ratio, when there is one (e.g. `"≤ 2"`). */
  target: string | null;
  /** Peak resident memory in MiB, when measured (VmHWM of a fresh process). */
  peak_rss_mib: number | null;
  /** Anything a reader needs to interpret the figure (scaling, cross-checks). */
  notes: string[];
}

/** Runs V8's garbage collector when it is exposed, else does nothing. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === "function") gc();
}

/**
 * Times `fn` `repetitions` times (after a GC each) and returns the fastest
 * run in milliseconds and the value of the last run.
 */
export async function timeBest<T>(
  fn: () => T | Promise<T>,
  repetitions = 1,
): Promise<{ ms: number; value: T }> {
  let best = Infinity;
  let value!: T;
  for (let i = 0; i < repetitions; i++) {
    collectGarbage();
    const start = performance.now();
    value = await fn();
    best = Math.min(best, performance.now() - start);
  }
  return { ms: best, value };
}

/** Peak resident set size of this process in KiB (`VmHWM` of /proc/self/status), or null. */
export function peakRssKib(): number | null {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/** CPU time (user + system) of this process's waited-for children in ms (`/proc/self/stat`), or null. */
export function childrenCpuMs(): number | null {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // cutime and cstime are fields 16 and 17 of stat; counted from the state field (3): 13, 14
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** Wall and CPU milliseconds of one child process. */
export interface ChildTiming {
  ms: number;
  /** The child's CPU time (user + system, 10 ms clock ticks), or null off Linux. */
  cpu_ms: number | null;
}

/**
 * Runs `command args...` from `cwd` to its end and times it: wall time from
 * spawn to exit, and the CPU time it accrued (see {@link childrenCpuMs}).
 *
 * @throws {Error} unless it exits 0 (with the start of its stderr)
 */
export async function timeChild(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<ChildTiming> {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const ms = performance.now() - start;
  const cpuAfter = childrenCpuMs();
  if (output.code !== 0) {
    const stderr = new TextDecoder().decode(output.stderr).slice(0, 2000);
    throw new Error(`"${command} ${args.join(" ")}" exited ${output.code}: ${stderr}`);
  }
  return { ms, cpu_ms: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

/** The median of a non-empty list. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The median wall time and the mean CPU time of a list of timings (the
 * mean: a 10 ms clock tick distorts it less than a median of single runs).
 */
export function summarizeTimings(timings: ChildTiming[]): ChildTiming {
  const cpu = timings.map((t) => t.cpu_ms);
  const known = cpu.filter((c): c is number => c !== null);
  return {
    ms: median(timings.map((t) => t.ms)),
    cpu_ms: known.length < cpu.length ? null : known.reduce((a, b) => a + b, 0) / known.length,
  };
}

/** The repository's root: every benchmark's worker runs from it, with its `deno.json`. */
const REPOSITORY_ROOT = new URL("..", import.meta.url).pathname;

/**
 * Runs a benchmark's worker, `deno run --allow-all <script> <args...>` from
 * the repository's root, in a fresh process (so that its peak memory and CPU
 * time are its own), and reads the figures it prints as JSON on its last
 * line. `--allow-all`: Deno 2 lets a process read its own
 * `/proc/self/status` (VmHWM) only with every permission.
 *
 * @param what the worker's name, for the error
 * @param script the worker's path
 * @param args its arguments
 * @returns the last line of its standard output, parsed
 * @throws {Error} unless it exits 0 (with the start of its stderr and its exit code)
 */
export async function runWorker<T>(
  what: string,
  script: string,
  args: readonly string[],
): Promise<T> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--config", `${REPOSITORY_ROOT}deno.json`, script, ...args],
    cwd: REPOSITORY_ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (output.code !== 0) {
    const stderr = new TextDecoder().decode(output.stderr).slice(0, 2000);
    throw new Error(`${what} failed (exit code ${output.code}): ${stderr}`);
  }
  return JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!) as T;
}
