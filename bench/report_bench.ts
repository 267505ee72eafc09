/**
 * Benchmark: `ledgerbench report` on a generated 100,000-episode ledger
 * (issue 4): wall time and peak memory, with the share spent reading the
 * ledger, in analysis (`buildReport`: summaries, intervals, comparisons,
 * censoring, validation, SPRT replay and calibration, figure specs) and in
 * rendering (`renderReport`: vega SVG, resvg PNG, HTML, canonical JSON).
 *
 * The ledger is streamed to a temporary directory by the seeded generator of
 * `tools/synthetic_ledger.ts` (4 agents, seed 7, hash-chained), with its plan
 * (switched to SPRT stopping, so the tail tasks the row limit cuts off are
 * "not reached" rather than missing, and the report has every figure) and a
 * price table. Each measurement runs this file as a worker in a fresh
 * subprocess, so its peak resident memory (VmHWM at exit) is its own.
 *
 * Worker usage: `deno run -A bench/report_bench.ts LEDGER PLAN PRICE_TABLE OUT_DIR`
 * prints one JSON line of phase timings (`-A`: Deno 2 lets a process read its
 * own `/proc/self/status` only with every permission).
 *
 * @module
 */
import { Plan, PriceTable } from "../analysis/schema/records.ts";
import { buildReport } from "../report/build_report.ts";
import { loadReportInputs } from "../report/load_report_inputs.ts";
import { renderReport } from "../report/render_report.ts";
import { writeReport } from "../report/write_report.ts";
import {
  generateSyntheticLedger,
  syntheticLedgerPlan,
  writeSyntheticLedger,
} from "../tools/synthetic_ledger.ts";
import { type BenchResult, peakRssKib, runWorker } from "./_measure.ts";

/** Options for {@link reportBench}. */
export interface ReportBenchOptions {
  /** Directory for the generated inputs and the report (created and removed by the caller). */
  dir: string;
  /** Ledger rows; default 100,000. */
  rows?: number;
  /** Agents; default 4. */
  agents?: number;
  /** Worker runs; the fastest counts, the highest peak memory is reported. Default 2. */
  repetitions?: number;
}

/** What one worker run measured, in milliseconds and KiB. */
export interface ReportPhases {
  rows: number;
  /** `loadReportInputs`: streaming read, schema, hash chain, SHA-256 of every input. */
  load_ms: number;
  /** `buildReport`: every number, claim and figure spec. */
  analysis_ms: number;
  /** `renderReport`: SVG and PNG of each figure, HTML, Markdown and JSON bytes. */
  render_ms: number;
  /** `writeReport`. */
  write_ms: number;
  total_ms: number;
  /** Process CPU time (user + system) at exit. */
  cpu_ms: number;
  figures: number;
  /** Bytes of every file written. */
  bytes: number;
  citable: boolean;
  peak_rss_kib: number | null;
}

const SELF = new URL(import.meta.url).pathname;

/** The price table the generated rows name. */
function priceTable(id: string): PriceTable {
  return PriceTable.parse({
    price_table_id: id,
    currency: "USD",
    default_rate: { prompt_per_million: 3, completion_per_million: 15 },
  });
}

/**
 * Generates the inputs, then runs the whole report (load, analysis, render,
 * write) in fresh subprocesses and reports the fastest run with its phase
 * shares. No assertion on time: the numbers are returned.
 *
 * @param options directory, ledger size, repetitions
 * @returns the total time against the load phase as baseline, with the shares in `notes`
 * @throws {Error} when a worker fails or reads another number of rows
 */
export async function reportBench(options: ReportBenchOptions): Promise<BenchResult> {
  const rows = options.rows ?? 100_000;
  const agents = options.agents ?? 4;
  const repetitions = options.repetitions ?? 2;
  const generator = { rows, agents, seed: 7, chained: true };
  const ledger = `${options.dir}/report_ledger_${rows}.jsonl`;
  const planPath = `${options.dir}/report_plan_${rows}.json`;
  const tablePath = `${options.dir}/report_price_table.json`;
  const started = performance.now();
  const written = await writeSyntheticLedger(ledger, generator);
  const generateMs = performance.now() - started;
  const plan = syntheticLedgerPlan(generator);
  const sprtPlan = Plan.parse({ ...plan, stopping: { kind: "sprt", params: {} } });
  await Deno.writeTextFile(planPath, JSON.stringify(sprtPlan));
  await Deno.writeTextFile(
    tablePath,
    JSON.stringify(priceTable(plan.price_table_id ?? "synth-usd")),
  );
  let best: ReportPhases | null = null;
  let peak = 0;
  for (let i = 0; i < repetitions; i++) {
    const result = await runWorker<ReportPhases>("Report worker", SELF, [
      ledger,
      planPath,
      tablePath,
      `${options.dir}/report_out`,
    ]);
    if (result.rows !== rows) throw new Error(`Report worker read ${result.rows} rows`);
    peak = Math.max(peak, result.peak_rss_kib ?? 0);
    if (best === null || result.total_ms < best.total_ms) best = result;
  }
  const r = best!;
  const share = (ms: number) => `${((100 * ms) / r.total_ms).toFixed(0)}%`;
  return {
    name: "report",
    workload: `ledgerbench report on ${rows.toLocaleString("en")} rows ` +
      `(${(written.bytes / 1e6).toFixed(0)} MB, ${agents} agents, hash-chained), plan with ` +
      `SPRT, price table: ${r.figures} figures`,
    ms: r.total_ms,
    baseline: { name: "reading the ledger alone (loadReportInputs)", ms: r.load_ms },
    ratio: r.total_ms / r.load_ms,
    target: null,
    peak_rss_mib: peak === 0 ? null : peak / 1024,
    notes: [
      `load ${r.load_ms.toFixed(0)} ms (${share(r.load_ms)}), analysis ${
        r.analysis_ms.toFixed(0)
      } ms (${share(r.analysis_ms)}), rendering ${r.render_ms.toFixed(0)} ms (${
        share(r.render_ms)
      }), writing ${r.write_ms.toFixed(0)} ms (${share(r.write_ms)})`,
      `analysis vs rendering: ${
        ((100 * r.analysis_ms) / (r.analysis_ms + r.render_ms)).toFixed(0)
      }% vs ${((100 * r.render_ms) / (r.analysis_ms + r.render_ms)).toFixed(0)}%`,
      `CPU time ${r.cpu_ms.toFixed(0)} ms; ${(r.bytes / 1e6).toFixed(1)} MB written; ` +
      `citable: ${r.citable}`,
      `ledger generated in ${(generateMs / 1000).toFixed(1)} s by tools/synthetic_ledger.ts ` +
      "(seed 7)",
      `best of ${repetitions} runs, each in a fresh process; peak memory is the highest VmHWM`,
    ],
  };
}

/** Options for {@link flaggedReportBench}. */
export interface FlaggedReportBenchOptions {
  /** Directory for the generated inputs and the report (created and removed by the caller). */
  dir: string;
  /** Rows carrying a spend-evidence flag; default 20,000. */
  flagged?: number;
  /** Agents; default 4. */
  agents?: number;
}

/**
 * `ledgerbench report` on a ledger in which `flagged` rows carry a
 * spend-evidence flag (`resolved_without_spend`: resolved with zero model
 * calls), the report's spend-evidence claim and the validation findings
 * each naming them. The generated rows (unchained, so that rows can be
 * edited) get `model_calls: 0` on their resolved rows until `flagged` rows
 * are flagged. One worker run in a fresh process; no assertion on time.
 *
 * @param options directory, flagged rows, agents
 * @returns the total time against the load phase as baseline
 * @throws {Error} when the worker fails or the ledger has too few resolved rows
 */
export async function flaggedReportBench(options: FlaggedReportBenchOptions): Promise<BenchResult> {
  const flagged = options.flagged ?? 20_000;
  const agents = options.agents ?? 4;
  // The synthetic agents resolve about half their rows: three rows per flagged one suffice.
  const generator = { rows: 3 * flagged, agents, seed: 7, chained: false };
  const ledger = `${options.dir}/flagged_ledger_${flagged}.jsonl`;
  const planPath = `${options.dir}/flagged_plan_${flagged}.json`;
  const tablePath = `${options.dir}/flagged_price_table.json`;
  const lines: string[] = [];
  let marked = 0;
  for (const line of generateSyntheticLedger(generator)) {
    const row = JSON.parse(line);
    if (marked < flagged && row.resolved === true) {
      row.model_calls = 0;
      marked++;
    }
    lines.push(JSON.stringify(row), "\n");
  }
  if (marked < flagged) throw new Error(`Only ${marked} resolved rows to flag, not ${flagged}`);
  await Deno.writeTextFile(ledger, lines.join(""));
  const plan = syntheticLedgerPlan(generator);
  await Deno.writeTextFile(planPath, JSON.stringify(plan));
  await Deno.writeTextFile(
    tablePath,
    JSON.stringify(priceTable(plan.price_table_id ?? "synth-usd")),
  );
  const r = await runWorker<ReportPhases>("Report worker", SELF, [
    ledger,
    planPath,
    tablePath,
    `${options.dir}/flagged_report_out`,
  ]);
  return {
    name: "report, flagged rows",
    workload: `ledgerbench report on ${generator.rows.toLocaleString("en")} rows of which ` +
      `${flagged.toLocaleString("en")} carry a spend-evidence flag (${agents} agents)`,
    ms: r.total_ms,
    baseline: { name: "reading the ledger alone (loadReportInputs)", ms: r.load_ms },
    ratio: r.total_ms / r.load_ms,
    target: null,
    peak_rss_mib: r.peak_rss_kib === null ? null : r.peak_rss_kib / 1024,
    notes: [
      `load ${r.load_ms.toFixed(0)} ms, analysis ${r.analysis_ms.toFixed(0)} ms, rendering ${
        r.render_ms.toFixed(0)
      } ms, writing ${r.write_ms.toFixed(0)} ms; CPU time ${r.cpu_ms.toFixed(0)} ms`,
      "one run in a fresh process",
    ],
  };
}

/** CPU time of this process (user + system) in ms, from /proc/self/stat; 0 when unavailable. */
function cpuMs(): number {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of stat (utime, stime), counted from the state field (3): indices 11, 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

async function worker(ledger: string, plan: string, table: string, out: string): Promise<void> {
  const t0 = performance.now();
  const inputs = await loadReportInputs({ ledger, plan, priceTable: table });
  const t1 = performance.now();
  const report = buildReport(inputs);
  const t2 = performance.now();
  const rendered = await renderReport(report);
  const t3 = performance.now();
  await writeReport(out, rendered.files);
  const t4 = performance.now();
  const phases: ReportPhases = {
    rows: inputs.ledger.valid_rows,
    load_ms: t1 - t0,
    analysis_ms: t2 - t1,
    render_ms: t3 - t2,
    write_ms: t4 - t3,
    total_ms: t4 - t0,
    cpu_ms: cpuMs(),
    figures: report.figures.length,
    bytes: rendered.files.reduce((sum, file) => sum + file.bytes.length, 0),
    citable: report.summary.citable,
    peak_rss_kib: peakRssKib(),
  };
  console.log(JSON.stringify(phases));
}

if (import.meta.main) {
  if (Deno.args[0] === "--flagged") {
    // Standalone: `deno run -A bench/report_bench.ts --flagged [N]` prints the flagged case.
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-flagged-" });
    try {
      const flagged = Deno.args[1] === undefined ? undefined : Number(Deno.args[1]);
      console.log(JSON.stringify(await flaggedReportBench({ dir, flagged }), null, 2));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  } else {
    const [ledger, plan, table, out] = Deno.args;
    await worker(ledger, plan, table, out);
  }
}
