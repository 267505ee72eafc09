/**
 * Benchmark: start-up time of the `ledgerbench` CLI (issue 10: at most 1.5×
 * `deno run` of an empty script, measured in the same run).
 *
 * Two command lines are timed, each run as the `ledgerbench` task runs it
 * (`deno run --allow-all cli/main.ts ...` from the repository root):
 * `--help`, and `summarize` of the seed-001 sample ledger (4 rows per agent,
 * so the time is almost all start-up). The baseline is `deno run
 * --allow-all` of an empty script from the same directory, so Deno's own
 * start and its reading of `deno.json` are in both. Runs alternate
 * (baseline, then each command) and the median of the repetitions counts;
 * the children's CPU time (the `cutime + cstime` this process accrues as it
 * waits for them, Linux only, in 10 ms clock ticks) is recorded beside the
 * wall time as the mean over the repetitions, which a tick's coarseness
 * distorts less than a median of single runs.
 *
 * @module
 */
import type { BenchResult } from "./_measure.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The command lines measured, after `cli/main.ts`. */
export const STARTUP_COMMANDS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["cli start-up (--help)", ["--help"]],
  ["cli start-up (summarize)", ["summarize", "ledgers/examples/sample_ledger.jsonl"]],
];

/** Options of {@link cliStartupBench}. */
export interface CliStartupOptions {
  /** Directory for the empty script (created and removed by the caller). */
  dir: string;
  /** Alternating repetitions; the median counts. Default 9. */
  repetitions?: number;
}

/** Wall and CPU milliseconds of one child process. */
interface Timing {
  ms: number;
  cpu_ms: number | null;
}

/** CPU time of this process's waited-for children in ms (`/proc/self/stat`), or null. */
function childrenCpuMs(): number | null {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // cutime and cstime are fields 16 and 17 of stat; counted from the state field (3): 13, 14
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** Runs `deno run --allow-all ...args` from the root and times it; throws unless it exits 0. */
async function timeRun(args: readonly string[]): Promise<Timing> {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", ...args],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const ms = performance.now() - start;
  const cpuAfter = childrenCpuMs();
  if (output.code !== 0) {
    const stderr = new TextDecoder().decode(output.stderr).slice(0, 2000);
    throw new Error(`"deno run ${args.join(" ")}" exited ${output.code}: ${stderr}`);
  }
  return { ms, cpu_ms: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

/** The median of a non-empty list. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The median wall time and the mean CPU time of a list of timings. */
function summarizeTimings(timings: Timing[]): Timing {
  const cpu = timings.map((t) => t.cpu_ms);
  const known = cpu.filter((c): c is number => c !== null);
  return {
    ms: median(timings.map((t) => t.ms)),
    cpu_ms: known.length < cpu.length ? null : known.reduce((a, b) => a + b, 0) / known.length,
  };
}

/**
 * Times each of {@link STARTUP_COMMANDS} against `deno run` of an empty
 * script, alternating, `repetitions` times (after one unmeasured warm-up
 * round, which fills Deno's module cache).
 *
 * @returns one result per command line, ratio = median wall time / baseline's
 */
export async function cliStartupBench(options: CliStartupOptions): Promise<BenchResult[]> {
  const repetitions = options.repetitions ?? 9;
  const empty = `${options.dir}/empty.ts`;
  await Deno.writeTextFile(empty, "");
  const lines = [[empty], ...STARTUP_COMMANDS.map(([, args]) => ["cli/main.ts", ...args])];
  for (const args of lines) await timeRun(args);
  const timings: Timing[][] = lines.map(() => []);
  for (let i = 0; i < repetitions; i++) {
    for (const [k, args] of lines.entries()) timings[k].push(await timeRun(args));
  }
  const [base, ...measured] = timings.map(summarizeTimings);
  return measured.map((m, k) => {
    const [name, args] = STARTUP_COMMANDS[k];
    const cpuRatio = m.cpu_ms === null || base.cpu_ms === null || base.cpu_ms === 0
      ? undefined
      : m.cpu_ms / base.cpu_ms;
    return {
      name,
      workload: `deno run --allow-all cli/main.ts ${args.join(" ")}`,
      ms: m.ms,
      baseline: { name: "deno run --allow-all of an empty script", ms: base.ms },
      ratio: m.ms / base.ms,
      ...(cpuRatio === undefined ? {} : { cpu_ratio: cpuRatio }),
      target: "≤ 1.5",
      peak_rss_mib: null,
      notes: [
        `median of ${repetitions} alternating runs, each a fresh process, after a warm-up`,
        m.cpu_ms === null || base.cpu_ms === null
          ? "CPU time not available"
          : `mean CPU time: ${m.cpu_ms.toFixed(1)} ms vs ${base.cpu_ms.toFixed(1)} ms`,
      ],
    };
  });
}
