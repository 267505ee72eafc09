/**
 * `deno task bench`: every benchmark of the project, each beside a plain
 * baseline measured in the same run, printed as a table and written as JSON
 * to `bench/out/bench_results.json` (gitignored). Benchmarks assert nothing:
 * they report.
 *
 * Analysis (issue 2): ingest and validation of a generated 1,000,000-row
 * ledger against a bare `JSON.parse` loop (target ≤ 2×, peak < 600 MiB), the
 * bootstrap of 4 agents × 100,000 episodes × 10,000 rounds, the exact SPRT
 * over 101 true rates, the Monte Carlo calibration of 20,000 trials × 5
 * rates. Then, when their files are present, the runner's benchmarks (relay
 * overhead for Chat Completions, Responses and Messages calls; per-episode
 * overhead and throughput, which need a Docker engine and are skipped
 * without one) and the report benchmark. Last, the CLI's start-up:
 * `ledgerbench --help` (issue 10, target ≤ 1.5×) and `summarize` of the
 * seed-001 sample (issue 23, target ≤ 3×) against `deno run` of an empty
 * script.
 *
 * `import` (issue 11): a 100,000-sample Inspect log and a 100,000-row CSV
 * against `JSON.parse` / a plain split; and (issue 23) `ledgerbench import
 * table` of a 9,729-row, 14-agent run table through the CLI against
 * Python's `csv.reader` over the same file, each end to end in a fresh
 * process (target ≤ 3×).
 *
 * The three targets of issue 23 (import through the CLI ≤ 3× Python's
 * `csv`, ingest ≤ 2× a bare `JSON.parse` loop, `summarize` start-up ≤ 3×
 * an empty `deno run`) are printed again at the end, each with its ratio
 * measured in this run.
 *
 * Usage:
 *   deno task bench [--rows N] [--quick] [--only NAME,...] [--no-runner]
 *     [--import-rows N,...]
 *
 * `--quick` shrinks every workload (100,000 rows, 1,000 rounds...) for a
 * smoke run (the CLI import keeps its 9,729 rows); `--import-rows` sets the
 * sizes of the CLI import's tables (default 9,729; larger sizes have 20
 * agents: `--import-rows 9729,100000,1000000`); `--only` picks
 * benchmarks by name (ingest, import, bootstrap, sprt, relay, runner,
 * report, startup).
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

const BENCHES = [
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

/** The figures issue 23 sets targets for, by result name. */
const ISSUE_23_TARGETS = [
  "import table (CLI)",
  "ingest (unchained)",
  "ingest (hash-chained)",
  "cli start-up (summarize)",
];

/**
 * Issue 23's three targets with the ratios of this run (wall and CPU),
 * one line each; a figure that did not run is named so.
 */
function issue23Targets(results: BenchResult[]): string {
  const lines = ISSUE_23_TARGETS.flatMap((name) => {
    // a figure at several sizes is named `NAME, SIZE)`: "import table (CLI, 100,000 rows)"
    const sized = name.endsWith(")") ? `${name.slice(0, -1)}, ` : null;
    const found = results.filter((r) =>
      r.name === name || (sized !== null && r.name.startsWith(sized))
    );
    if (found.length === 0) return [`  ${name}: not run`];
    return found.map((result) => {
      const cpu = result.cpu_ratio === undefined ? "" : `, CPU ${result.cpu_ratio.toFixed(2)}x`;
      const bound = Number(/[\d.]+/.exec(result.target ?? "")?.[0]);
      const met = Number.isFinite(bound) ? (result.ratio <= bound ? "met" : "not met") : "";
      return `  ${result.name}: ${
        result.ratio.toFixed(2)
      }x${cpu} (target ${result.target}: ${met})`;
    });
  });
  return `issue 23 targets (ratios of this run):\n${lines.join("\n")}`;
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
      for (const importRows of (values["import-rows"] ?? "9729").split(",").map(Number)) {
        if (!Number.isSafeInteger(importRows) || importRows < 1) {
          throw new Error(`--import-rows: "${values["import-rows"]}" is not a list of row counts`);
        }
        // the run table's own 14 agents at its size; 20 agents for the larger tables
        const agents = importRows === 9729 ? undefined : 20;
        await run(
          `import table (CLI, ${importRows.toLocaleString("en")} rows)`,
          () => importCliBench({ dir, rows: importRows, agents, repetitions: quick ? 3 : 7 }),
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
              target: "≤ 2 ms added",
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
      }
    }
    if (wanted("startup")) {
      await run("cli start-up", () => cliStartupBench({ dir, repetitions: quick ? 3 : 9 }));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }

  const peakRss = peakRssKib();
  console.log(table(results));
  for (const s of skipped) console.log(`skipped ${s.name}: ${s.reason}`);
  console.log(`\n${issue23Targets(results)}`);
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
