/**
 * Benchmark: ingest and validate a generated 1,000,000-row ledger (issue 2:
 * within 2× of a bare line-by-line `JSON.parse` loop over the same file,
 * peak memory under 600 MB).
 *
 * The ledger is streamed to a temporary directory by the seeded generator of
 * `tools/synthetic_ledger.ts` (never held in memory). Each measurement runs
 * in a fresh subprocess (`_ingest_worker.ts`), so that its peak resident
 * memory (VmHWM) is its own; baseline and reader alternate, and the best of
 * the repetitions counts (the machine may be shared). Both wall time and
 * process CPU time are recorded; the ratio is given for both.
 *
 * @module
 */
import { syntheticLedgerPlan, writeSyntheticLedger } from "../tools/synthetic_ledger.ts";
import { type BenchResult, runWorker } from "./_measure.ts";

/** Options for {@link ingestBench}. */
export interface IngestBenchOptions {
  rows?: number;
  agents?: number;
  /** Hash-chained ledger (every line carries the SHA-256 of the previous one). */
  chained?: boolean;
  /** Alternating repetitions of baseline and reader; the best counts. */
  repetitions?: number;
  /** Directory for the generated ledger (created and removed by the caller). */
  dir: string;
}

/** One worker run. */
interface WorkerResult {
  mode: string;
  rows: number;
  ms: number;
  cpu_ms: number;
  main_thread_cpu_ms: number | null;
  peak_rss_kib: number | null;
}

function minOrNull(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.min(a, b);
}

const WORKER = new URL("./_ingest_worker.ts", import.meta.url).pathname;

/**
 * Generates the ledger, then measures the bare loop, the streaming reader
 * (`scanLedger`: JSON, schema, duplicates, hash chain, file SHA-256) and the
 * full validation against the plan (`validateLedger`).
 *
 * @returns two results: reader vs baseline, validation vs baseline
 */
export async function ingestBench(options: IngestBenchOptions): Promise<BenchResult[]> {
  const rows = options.rows ?? 1_000_000;
  const agents = options.agents ?? 4;
  const chained = options.chained ?? true;
  const repetitions = options.repetitions ?? 2;
  const generator = { rows, agents, seed: 7, chained };
  const ledger = `${options.dir}/ledger_${rows}_${chained ? "chained" : "plain"}.jsonl`;
  const plan = `${options.dir}/plan_${rows}.json`;
  const started = performance.now();
  const written = await writeSyntheticLedger(ledger, generator);
  const generateMs = performance.now() - started;
  await Deno.writeTextFile(plan, JSON.stringify(syntheticLedgerPlan(generator)));
  const best: Record<string, WorkerResult> = {};
  for (let i = 0; i < repetitions; i++) {
    for (const mode of ["baseline", "scan", "validate"]) {
      const result = await runWorker<WorkerResult>(`Ingest worker "${mode}"`, WORKER, [
        mode,
        ledger,
        plan,
      ]);
      if (result.rows !== rows) throw new Error(`Worker "${mode}" read ${result.rows} rows`);
      const previous = best[mode];
      best[mode] = previous === undefined ? result : {
        ...result,
        ms: Math.min(previous.ms, result.ms),
        cpu_ms: Math.min(previous.cpu_ms, result.cpu_ms),
        main_thread_cpu_ms: minOrNull(previous.main_thread_cpu_ms, result.main_thread_cpu_ms),
        peak_rss_kib: Math.max(previous.peak_rss_kib ?? 0, result.peak_rss_kib ?? 0),
      };
    }
  }
  const megabytes = (written.bytes / 1e6).toFixed(0);
  const kind = chained ? "hash-chained" : "unchained";
  const base = best.baseline;
  const workload = `${rows.toLocaleString("en")} rows, ${megabytes} MB, ${kind}`;
  const mib = (kib: number | null) => kib === null ? null : kib / 1024;
  const common = [
    `generated in ${(generateMs / 1000).toFixed(1)} s by tools/synthetic_ledger.ts (seed 7)`,
    `baseline: ${base.ms.toFixed(0)} ms wall, ${base.cpu_ms.toFixed(0)} ms CPU, ` +
    `peak ${(mib(base.peak_rss_kib) ?? 0).toFixed(0)} MiB`,
    `best of ${repetitions} alternating runs, each in a fresh process`,
  ];
  const figure = (mode: "scan" | "validate", name: string, what: string): BenchResult => {
    const r = best[mode];
    return {
      name,
      workload: `${what}: ${workload}`,
      ms: r.ms,
      baseline: { name: "bare line loop: chunked read, decode, JSON.parse", ms: base.ms },
      ratio: r.ms / base.ms,
      cpu_ratio: r.cpu_ms / base.cpu_ms,
      target: "≤ 2, peak < 600 MiB",
      peak_rss_mib: mib(r.peak_rss_kib),
      notes: [
        `CPU time: ${r.cpu_ms.toFixed(0)} ms, ratio ${(r.cpu_ms / base.cpu_ms).toFixed(2)}`,
        r.main_thread_cpu_ms === null || base.main_thread_cpu_ms === null
          ? "main-thread CPU time not available"
          : `main-thread CPU time: ${r.main_thread_cpu_ms.toFixed(0)} ms vs ` +
            `${base.main_thread_cpu_ms.toFixed(0)} ms, ratio ${
              (r.main_thread_cpu_ms / base.main_thread_cpu_ms).toFixed(2)
            }`,
        ...common,
      ],
    };
  };
  return [
    figure("scan", `ingest (${kind})`, "scanLedger: JSON, schema, duplicates, chain, file SHA-256"),
    figure("validate", `ingest+validate (${kind})`, "validateLedger against the plan"),
  ];
}
