/**
 * Benchmark: start-up time of the `ledgerbench` CLI against `deno run` of
 * an empty script, measured in the same run: `--help` at most 1.5× (issue
 * 10), `summarize` of the seed-001 sample at most 3× (issue 23, item 8).
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
import { type BenchResult, type ChildTiming, summarizeTimings, timeChild } from "./_measure.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The command lines measured, after `cli/main.ts`. */
export const STARTUP_COMMANDS: ReadonlyArray<readonly [string, readonly string[], string]> = [
  ["cli start-up (--help)", ["--help"], "≤ 1.5"],
  ["cli start-up (summarize)", ["summarize", "ledgers/examples/sample_ledger.jsonl"], "≤ 3"],
];

/** Options of {@link cliStartupBench}. */
export interface CliStartupOptions {
  /** Directory for the empty script (created and removed by the caller). */
  dir: string;
  /** Alternating repetitions; the median counts. Default 9. */
  repetitions?: number;
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
  const timeRun = (args: string[]) =>
    timeChild(Deno.execPath(), ["run", "--allow-all", ...args], ROOT);
  for (const args of lines) await timeRun(args);
  const timings: ChildTiming[][] = lines.map(() => []);
  for (let i = 0; i < repetitions; i++) {
    for (const [k, args] of lines.entries()) timings[k].push(await timeRun(args));
  }
  const [base, ...measured] = timings.map(summarizeTimings);
  return measured.map((m, k) => {
    const [name, args, target] = STARTUP_COMMANDS[k];
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
      target,
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
