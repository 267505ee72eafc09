/**
 * `deno task bench`: every benchmark of the project, each beside a plain
 * baseline measured in the same run, printed as a table and written as JSON
 * to `bench/out/bench_results.json` (gitignored). Benchmarks assert nothing:
 * they report.
 *
 * Scale: `validate`, `summarize` and `report` of generated 20-agent ledgers
 * of 10,000, 100,000 and 1,000,000 rows, each command in a fresh process
 * beside a baseline script that parses every line and counts resolved rows
 * per agent: CPU seconds, peak memory, the ratio to the baseline and the
 * growth per ×10 rows (linear is 10; the bound is 12) (`scale_bench.ts`).
 * `view` of a 1,000,000-row ledger: a filtered page from the server's index
 * (`view_bench.ts`, bound 1 s). `import table` at 9,729 (the public run
 * table's size), 100,000 and 1,000,000 rows against Python's `csv.reader`.
 *
 * Then ingest and validation of a generated 1,000,000-row ledger against a
 * bare `JSON.parse` loop, the bootstrap of 4 agents × 100,000 episodes ×
 * 10,000 rounds, the exact SPRT over 101 true rates, the Monte Carlo
 * calibration of 20,000 trials × 5 rates; the runner's benchmarks when
 * their files are present (relay overhead for Chat Completions, Responses
 * and Messages calls; per-episode overhead of the local and the Slurm
 * executors, which need a Docker engine and a cluster and are skipped
 * without them); the report benchmark; and the CLI's start-up against
 * `deno run` of an empty script.
 *
 * The speed targets are printed again at the end, each with the figure of
 * this run it is judged on (a CPU ratio, or the time a call or an episode
 * adds) and whether it is met.
 *
 * Usage:
 *   deno task bench [--rows N] [--quick] [--only NAME,...] [--no-runner]
 *     [--scale-rows N,...] [--view-rows N] [--import-rows N,...]
 *
 * `--quick` shrinks every workload (100,000 rows, 1,000 rounds, scale at
 * 10,000 and 100,000 rows...) for a smoke run; `--only` picks benchmarks by
 * name (scale, view, ingest, import, bootstrap, sprt, relay, runner,
 * executor, report, startup).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { type BenchResult, peakRssKib } from "./_measure.ts";
import { bootstrapBench } from "./bootstrap_bench.ts";
import { cliStartupBench } from "./cli_startup.ts";
import { importBench } from "./import_bench.ts";
import { importCliBench } from "./import_cli_bench.ts";
import { ingestBench } from "./ingest_bench.ts";
import type { BenchApi, RelayOverhead } from "./relay_overhead.ts";
import { sprtExactBench, sprtMonteCarloBench } from "./sprt_bench.ts";
import { measureExecutorOverhead } from "./executor_overhead.ts";
import { scaleBench, type ScaleRow, scaleTable, summarizeMemoryLine } from "./scale_bench.ts";
import { viewBench } from "./view_bench.ts";

const BENCHES = [
  "scale",
  "view",
  "ingest",
  "import",
  "bootstrap",
  "sprt",
  "relay",
  "runner",
  "executor",
  "report",
  "startup",
] as const;
type BenchName = typeof BENCHES[number];

/** A benchmark that did not run, and why. */
interface Skipped {
  name: string;
  reason: string;
}

const HERE = new URL(".", import.meta.url);

async function exists(relative: string): Promise<boolean> {
  try {
    await Deno.stat(new URL(relative, HERE));
    return true;
  } catch {
    return false;
  }
}

/**
 * Imports a sibling benchmark module by a computed specifier, so that this
 * file does not fail to load while that module is absent (a type-only import,
 * such as `RelayOverhead`, is erased and does not load its module).
 */
async function importOptional<T>(relative: string): Promise<T | null> {
  if (!(await exists(relative))) return null;
  const specifier = new URL(relative, HERE).href;
  return await import(specifier) as T;
}

interface RelayModule {
  measureRelayOverhead(options?: { api?: BenchApi; calls?: number }): Promise<RelayOverhead>;
}

/** The relay benchmark's APIs: name, what is called, and the upstream of the direct path. */
const RELAY_APIS: ReadonlyArray<readonly [BenchApi, string, string]> = [
  ["chat", "chat completions", "the scripted provider"],
  ["responses", "whole Responses API calls", "a fixed Responses upstream"],
  ["messages", "whole Messages API calls", "a fixed Messages upstream"],
];
interface RunnerModule {
  measureRunnerOverhead(options?: { repetitions?: number }): Promise<{ results: BenchResult[] }>;
}
interface ReportModule {
  reportBench(options: { dir: string; rows?: number }): Promise<BenchResult>;
  flaggedReportBench(options: { dir: string; flagged?: number }): Promise<BenchResult>;
}
interface DockerModule {
  dockerAvailable(): Promise<{ available: boolean; reason?: string }>;
}

function table(results: BenchResult[]): string {
  const rows = results.map((r) => [
    r.name,
    formatMs(r.ms),
    formatMs(r.baseline.ms),
    r.ratio >= 0.01 ? `${r.ratio.toFixed(2)}x` : `${r.ratio.toExponential(1)}x`,
    r.cpu_ratio === undefined ? "" : `${r.cpu_ratio.toFixed(2)}x`,
    r.target ?? "",
    r.peak_rss_mib === null ? "" : `${r.peak_rss_mib.toFixed(0)} MiB`,
  ]);
  const header = ["benchmark", "time", "baseline", "ratio", "CPU ratio", "target", "peak RSS"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => i === 0 || i === 5 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))
      .join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

function describe(result: BenchResult): string {
  let text = `${result.name}: ${result.workload}\n`;
  text += `  ${formatMs(result.ms)} vs ${result.baseline.name}: ${formatMs(result.baseline.ms)}` +
    ` (ratio ${result.ratio.toPrecision(3)})\n`;
  for (const note of result.notes) text += `  ${note}\n`;
  return text;
}

async function machine(): Promise<Record<string, unknown>> {
  let cpu = "unknown";
  try {
    const info = await Deno.readTextFile("/proc/cpuinfo");
    cpu = /^model name\s*:\s*(.*)$/m.exec(info)?.[1] ?? cpu;
  } catch { /* not Linux */ }
  return {
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    os: Deno.build.os,
    arch: Deno.build.arch,
    cpu,
    cores: navigator.hardwareConcurrency,
    load_average: Deno.loadavg(),
  };
}

/** A speed target: the results it judges and the figure of each it is judged on. */
interface SpeedTarget {
  /** The results' name, or its start for a figure measured at several sizes. */
  name: string;
  /** Whether `name` is a start ("ingest (" judges both ledgers). */
  prefix?: boolean;
  /** What the bound means, e.g. "CPU ratio ≤ 2". */
  bound: string;
  limit: number;
  /** The figure judged, or null when the result lacks it. */
  figure: (result: BenchResult) => number | null;
  unit: string;
}

const cpuRatio = (result: BenchResult) => result.cpu_ratio ?? null;
const addedMs = (result: BenchResult) => result.ms - result.baseline.ms;

/**
 * The project's speed targets, each as a ratio to a baseline measured in the
 * same run or as what a call or an episode adds to its baseline (CPU ratios
 * where both sides ran as processes of their own: steadier on a shared machine).
 */
const SPEED_TARGETS: readonly SpeedTarget[] = [
  { name: "ingest (", prefix: true, bound: "CPU ratio ≤ 2", limit: 2, figure: cpuRatio, unit: "x" },
  {
    name: "cli start-up (summarize)",
    bound: "CPU ratio ≤ 3",
    limit: 3,
    figure: cpuRatio,
    unit: "x",
  },
  {
    name: "import table (CLI",
    prefix: true,
    bound: "CPU ratio ≤ 3",
    limit: 3,
    figure: cpuRatio,
    unit: "x",
  },
  {
    name: "slurm executor (per episode)",
    bound: "≤ 1000 ms added per episode",
    limit: 1000,
    figure: addedMs,
    unit: " ms",
  },
  {
    name: "relay overhead",
    bound: "≤ 1 ms added per call",
    limit: 1,
    figure: addedMs,
    unit: " ms",
  },
  {
    name: "report, flagged rows",
    bound: "< 5000 ms (20,000 flagged rows; 2,000 under --quick)",
    limit: 5000,
    figure: (r) => r.ms,
    unit: " ms",
  },
  { name: "view", bound: "filtered page ≤ 1000 ms", limit: 1000, figure: (r) => r.ms, unit: " ms" },
];

/** The speed targets with this run's figures, one line per result judged; a target not run is named so. */
function speedTargets(results: BenchResult[]): string {
  const lines = SPEED_TARGETS.flatMap((target) => {
    const found = results.filter((r) =>
      target.prefix === true ? r.name.startsWith(target.name) : r.name === target.name
    );
    if (found.length === 0) return [`  ${target.name.replace(/ \(\w*$/, "")}: not run`];
    return found.map((result) => {
      const figure = target.figure(result);
      if (figure === null) return `  ${result.name}: ${target.bound}: not measured`;
      const met = figure <= target.limit ? "met" : "not met";
      return `  ${result.name}: ${figure.toFixed(2)}${target.unit} (${target.bound}: ${met})`;
    });
  });
  return `speed targets (this run):\n${lines.join("\n")}`;
}

/** The row counts of a comma-separated option; undefined when it is not given. */
function rowCounts(option: string, value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  const counts = value.split(",").map(Number);
  if (counts.some((n) => !Number.isSafeInteger(n) || n < 1)) {
    throw new Error(`${option}: "${value}" is not a list of row counts`);
  }
  return counts;
}

/** Runs the benchmarks named in `args` (all by default); returns the exit status. */
export async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      rows: { type: "string" },
      quick: { type: "boolean" },
      only: { type: "string" },
      "no-runner": { type: "boolean" },
      "import-rows": { type: "string" },
      "scale-rows": { type: "string" },
      "view-rows": { type: "string" },
    },
  });
  const quick = values.quick === true;
  const rows = values.rows !== undefined ? Number(values.rows) : quick ? 100_000 : 1_000_000;
  const only = values.only === undefined
    ? [...BENCHES]
    : values.only.split(",").map((name) => name.trim()) as BenchName[];
  for (const name of only) {
    if (!BENCHES.includes(name)) throw new Error(`Unknown benchmark: "${name}"`);
  }
  const wanted = (name: BenchName) =>
    only.includes(name) &&
    !(values["no-runner"] && (name === "relay" || name === "runner" || name === "executor"));

  const started = new Date().toISOString();
  const results: BenchResult[] = [];
  let scale: ScaleRow[] = [];
  const skipped: Skipped[] = [];
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench_bench_" });
  const run = async (name: string, body: () => Promise<BenchResult | BenchResult[]>) => {
    console.error(`running ${name}...`);
    try {
      const out = await body();
      for (const result of Array.isArray(out) ? out : [out]) {
        results.push(result);
        console.error(describe(result));
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      skipped.push({ name, reason });
      console.error(`  skipped: ${reason}`);
    }
  };
  try {
    if (wanted("scale")) {
      const sizes = rowCounts("--scale-rows", values["scale-rows"]) ??
        (quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]);
      console.error(`running scale (${sizes.join(", ")} rows)...`);
      try {
        scale = await scaleBench(sizes); // in a temporary directory of its own, removed after
        console.error(scaleTable(scale));
      } catch (error) {
        skipped.push({
          name: "scale",
          reason: error instanceof Error ? error.message : `${error}`,
        });
      }
    }
    if (wanted("view")) {
      const [viewRows] = rowCounts("--view-rows", values["view-rows"]) ??
        [quick ? 100_000 : 1_000_000];
      await run("view", () => viewBench({ dir, rows: viewRows }));
    }
    if (wanted("ingest")) {
      for (const chained of [false, true]) {
        await run(
          `ingest (${chained ? "hash-chained" : "unchained"})`,
          () => ingestBench({ dir, rows, chained, repetitions: quick ? 2 : 3 }),
        );
        for (const entry of Deno.readDirSync(dir)) await Deno.remove(`${dir}/${entry.name}`);
      }
    }
    if (wanted("import")) {
      const size = quick ? 20_000 : 100_000;
      const sizes = { samples: size, rows: size, repetitions: quick ? 2 : 3 };
      await run("import", () => importBench({ dir, ...sizes }));
      const importSizes = rowCounts("--import-rows", values["import-rows"]) ??
        (quick ? [9729, 100_000] : [9729, 100_000, 1_000_000]);
      for (const importRows of importSizes) {
        // the run table's own 14 agents at its size; 20 agents for the larger tables
        const agents = importRows === 9729 ? undefined : 20;
        await run(
          `import table (CLI, ${importRows.toLocaleString("en")} rows)`,
          () =>
            importCliBench({
              dir,
              rows: importRows,
              agents,
              repetitions: quick || importRows >= 1_000_000 ? 2 : 5,
            }),
        );
      }
    }
    if (wanted("bootstrap")) {
      await run(
        "bootstrap",
        () => bootstrapBench(quick ? { episodes: 10_000, rounds: 1000, baselineRounds: 10 } : {}),
      );
    }
    if (wanted("sprt")) {
      await run("sprt exact", () => sprtExactBench(101));
      await run("sprt monte carlo", () => sprtMonteCarloBench(quick ? 2000 : 20_000));
    }
    if (wanted("relay")) {
      const relay = await importOptional<RelayModule>("./relay_overhead.ts");
      if (relay === null) {
        skipped.push({ name: "relay", reason: "bench/relay_overhead.ts is absent" });
      } else {
        await run("relay", async () => {
          const results: BenchResult[] = [];
          for (const [api, what, upstream] of RELAY_APIS) {
            const f = await relay.measureRelayOverhead({ api, calls: quick ? 50 : 200 });
            results.push({
              name: api === "chat" ? "relay overhead" : `relay overhead (${api})`,
              workload: `median of ${f.calls} small ${what} through the relay's unix socket`,
              ms: f.relay_ms_median,
              baseline: { name: `${upstream} called directly`, ms: f.direct_ms_median },
              ratio: f.relay_ms_median / f.direct_ms_median,
              target: "≤ 1 ms added",
              peak_rss_mib: null,
              notes: [
                `relay adds ${f.relay_added_ms} ms at the median`,
                f.forwarder_added_ms === null
                  ? "forwarder path skipped"
                  : `forwarder + relay add ${f.forwarder_added_ms} ms (median ${f.forwarder_ms_median} ms)`,
              ],
            });
          }
          return results;
        });
      }
    }
    if (wanted("runner")) {
      const runner = await importOptional<RunnerModule>("./runner_overhead.ts");
      const docker = await importOptional<DockerModule>("../runner/docker/docker_available.ts");
      if (runner === null || docker === null) {
        skipped.push({ name: "runner", reason: "bench/runner_overhead.ts is absent" });
      } else {
        const engine = await docker.dockerAvailable();
        if (!engine.available) {
          skipped.push({
            name: "runner",
            reason: `no Docker engine: ${engine.reason ?? "unavailable"}`,
          });
        } else {
          await run(
            "runner",
            async () =>
              (await runner.measureRunnerOverhead({ repetitions: quick ? 2 : 5 })).results,
          );
        }
      }
    }
    if (wanted("executor")) {
      await run("executor", () => measureExecutorOverhead({ rounds: quick ? 1 : 2 }));
    }
    if (wanted("report")) {
      const report = await importOptional<ReportModule>("./report_bench.ts");
      if (report === null) {
        skipped.push({ name: "report", reason: "bench/report_bench.ts is absent" });
      } else {
        await run("report", () => report.reportBench({ dir, rows: quick ? 20_000 : 100_000 }));
        await run(
          "report, flagged rows",
          () => report.flaggedReportBench({ dir, flagged: quick ? 2_000 : 20_000 }),
        );
      }
    }
    if (wanted("startup")) {
      await run("cli start-up", () => cliStartupBench({ dir, repetitions: quick ? 3 : 9 }));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }

  const peakRss = peakRssKib();
  if (scale.length > 0) {
    const memory = summarizeMemoryLine(scale);
    console.log(`${scaleTable(scale)}${memory === null ? "" : `${memory}\n`}\n`);
  }
  console.log(table(results));
  for (const s of skipped) console.log(`skipped ${s.name}: ${s.reason}`);
  console.log(`\n${speedTargets(results)}`);
  const out = new URL("./out/", HERE);
  await Deno.mkdir(out, { recursive: true });
  const file = new URL("bench_results.json", out);
  await Deno.writeTextFile(
    file,
    canonicalJson({
      started,
      finished: new Date().toISOString(),
      parameters: { rows, quick, only },
      machine: await machine(),
      results,
      scale,
      skipped,
      bench_process_peak_rss_mib: peakRss === null ? null : peakRss / 1024,
    }),
  );
  console.log(`\nwritten: ${file.pathname}`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
