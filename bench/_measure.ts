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
