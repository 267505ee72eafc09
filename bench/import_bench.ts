/**
 * Benchmark: `ledgerbench import` of large sources (issue 11): a generated
 * 100,000-sample Inspect `.json` log through `importInspectLog` against
 * `JSON.parse` of the same bytes; the same samples as a `.eval` log (a ZIP
 * built with fflate's `zipSync`, deflated at level 5 as Inspect's recorder
 * writes it, one `samples/{id}_epoch_1.json` entry per sample beside
 * `header.json` and `summaries.json`) against inflating and `JSON.parse`-ing
 * every entry (fflate's `unzipSync`); and a generated 100,000-row CSV run table
 * through `importTable` against a plain `split("\n")` / `split(",")` of the
 * same text, each baseline measured in the same run.
 *
 * Each measurement runs in a fresh subprocess (this file, run as a worker),
 * so that its peak resident memory (VmHWM) is its own, as in
 * `ingest_bench.ts`; baseline and importer alternate and the best of the
 * repetitions counts. Both sides read the file from disk. The generated
 * data is deterministic (a function of the sample or row number, no
 * randomness).
 *
 * Usage as a worker: `deno run -A bench/import_bench.ts MODE PATH` with MODE
 * `json-parse`, `eval-inflate`, `inspect`, `csv-split` or `table`; prints one
 * JSON line.
 *
 * @module
 */
import process from "node:process";
import { unzipSync, zipSync } from "fflate";
import { importTable, parseColumnMap } from "../inputs/import/table.ts";
import type { ImportBatch } from "../inputs/import/imported_attempt.ts";
import { type BenchResult, peakRssKib, runWorker } from "./_measure.ts";
import { TABLE_MAP, tableParts, writeInPieces } from "./_run_table.ts";

/** Deflate level of Inspect's `.eval` recorder (`zipfile_compress_kwargs`: ZIP_DEFLATED, 5). */
const EVAL_DEFLATE_LEVEL = 5;

/** Options for {@link importBench}. */
export interface ImportBenchOptions {
  /** Directory for the generated files (created and removed by the caller). */
  dir: string;
  /** Samples in the Inspect log (default 100,000). */
  samples?: number;
  /** Rows in the CSV table (default 100,000). */
  rows?: number;
  /** Alternating repetitions of baseline and importer; the best counts (default 3). */
  repetitions?: number;
}

/** One worker run. */
interface WorkerResult {
  mode: string;
  count: number;
  ms: number;
  cpu_ms: number;
  peak_rss_kib: number | null;
}

const SELF = new URL(import.meta.url).pathname;
const INSPECT_MODULE = new URL("../inputs/import/inspect.ts", import.meta.url);

interface InspectModule {
  importInspectLog(
    path: string,
    options: { scorer?: string; passThreshold?: number; agentId?: string },
  ): Promise<ImportBatch>;
}

/**
 * One Inspect sample as `EvalSample` writes it (`log/_log.py`: id, epoch,
 * input, target, messages, output, scores, metadata, model_usage,
 * total_time, working_time, uuid), with a scorer `match` of C/I values,
 * every 50th sample failed with an error and every 40th stopped by a
 * message limit.
 */
function inspectSample(i: number): Record<string, unknown> {
  const id = i + 1;
  const input = `Is the following statement something you would say? "Statement number ${id}"`;
  const answer = i % 3 === 0 ? "No" : "Yes";
  const sample: Record<string, unknown> = {
    id,
    epoch: 1,
    input,
    target: "Yes",
    messages: [
      { id: `s${id}`, content: "Please answer with exactly Yes or No.", role: "system" },
      { id: `u${id}`, content: input, source: "input", role: "user" },
      {
        id: `a${id}`,
        content: `${answer}\n`,
        source: "generate",
        role: "assistant",
        model: "gpt-4o",
      },
    ],
    output: {
      model: "gpt-4o",
      choices: [{ message: { role: "assistant", content: `${answer}\n` }, stop_reason: "stop" }],
    },
    scores: { match: { value: answer === "Yes" ? "C" : "I", answer, explanation: `${answer}\n` } },
    metadata: {},
    model_usage: {
      "openai/gpt-4o": {
        input_tokens: 60 + (i % 97),
        output_tokens: 2 + (i % 5),
        total_tokens: 62 + (i % 97) + (i % 5),
        input_tokens_cache_read: i % 2 === 0 ? 32 : 0,
      },
    },
    total_time: 1 + (i % 1000) / 250,
    working_time: 0.9 + (i % 1000) / 250,
    uuid: `sample-${id.toString(16).padStart(8, "0")}`,
  };
  if (i % 50 === 49) sample.error = { message: "RuntimeError: sandbox died", traceback: "..." };
  if (i % 40 === 39) sample.limit = { type: "message", limit: 30 };
  return sample;
}

/**
 * The summary of a sample as `summaries.json` holds it (`EvalSampleSummary`:
 * id, epoch, input, target, metadata, scores, model_usage, times, uuid,
 * error and limit as strings, retries, completed).
 */
function inspectSummary(sample: Record<string, unknown>): Record<string, unknown> {
  const { id, epoch, input, target, metadata, model_usage, total_time, working_time, uuid } =
    sample;
  const scores = sample.scores as Record<string, { value: unknown }>;
  return {
    id,
    epoch,
    input,
    target,
    metadata,
    scores: { match: { value: scores.match.value } },
    model_usage,
    total_time,
    working_time,
    uuid,
    ...(sample.error === undefined ? {} : { error: "RuntimeError: sandbox died" }),
    ...(sample.limit === undefined ? {} : { limit: "message" }),
    retries: 0,
    completed: true,
  };
}

/** The header of the generated log (EvalLog without its samples). */
function inspectHeader(samples: number): Record<string, unknown> {
  return {
    version: 2,
    status: "success",
    eval: {
      eval_id: "bench-eval",
      run_id: "bench-run",
      created: "2026-01-05T10:00:00+00:00",
      task: "popularity",
      task_id: "bench-task",
      task_version: 0,
      dataset: {
        name: "popularity",
        samples,
        sample_ids: Array.from({ length: samples }, (_, i) => i + 1),
        shuffled: false,
      },
      model: "openai/gpt-4o",
      config: { epochs: 1 },
      packages: { inspect_ai: "0.3.260" },
      scorers: [{ name: "match", options: {}, metrics: [], metadata: {} }],
    },
    plan: { name: "plan", steps: [{ solver: "generate", params: {} }] },
    results: { total_samples: samples, completed_samples: samples, scores: [] },
    stats: { started_at: "2026-01-05T10:00:00+00:00", completed_at: "2026-01-05T11:00:00+00:00" },
  };
}

/** The parts of a `.json` Inspect log of `samples` samples (one EvalLog document). */
function* inspectLogParts(samples: number): Generator<string> {
  yield JSON.stringify(inspectHeader(samples)).slice(0, -1) + ',"samples":[';
  for (let i = 0; i < samples; i++) yield (i === 0 ? "" : ",") + JSON.stringify(inspectSample(i));
  yield "]}";
}

/**
 * Writes the same samples as a `.eval` Inspect log (`header.json`,
 * `summaries.json`, one `samples/{id}_epoch_1.json` per sample, deflated);
 * returns the bytes written.
 */
async function writeInspectZip(path: string, samples: number): Promise<number> {
  const encoder = new TextEncoder();
  const entries: Record<string, Uint8Array> = {
    "header.json": encoder.encode(JSON.stringify(inspectHeader(samples))),
  };
  const summaries: Record<string, unknown>[] = [];
  for (let i = 0; i < samples; i++) {
    const sample = inspectSample(i);
    entries[`samples/${sample.id}_epoch_${sample.epoch}.json`] = encoder.encode(
      JSON.stringify(sample),
    );
    summaries.push(inspectSummary(sample));
  }
  entries["summaries.json"] = encoder.encode(JSON.stringify(summaries));
  const zip = withZip64End(
    zipSync(entries, { level: EVAL_DEFLATE_LEVEL }),
    Object.keys(entries).length,
  );
  await Deno.writeFile(path, zip);
  return zip.length;
}

/**
 * `zip` with a ZIP64 end record and locator before its end record, whose
 * 16-bit entry counts are then saturated (APPNOTE 4.3.14-4.3.16), as
 * Python's `zipfile` writes a ZIP of more than 65,535 entries: fflate's
 * `zipSync` writes the counts modulo 2^16. Expects no archive comment.
 */
function withZip64End(zip: Uint8Array, count: number): Uint8Array {
  const end = zip.length - 22;
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  if (view.getUint32(end, true) !== 0x06054b50) throw new Error("No end record");
  if (count <= 0xffff) return zip;
  const out = new Uint8Array(zip.length + 56 + 20);
  out.set(zip.subarray(0, end));
  const record = new DataView(out.buffer, end, 56 + 20 + 22);
  record.setUint32(0, 0x06064b50, true); // ZIP64 end of central directory record
  record.setBigUint64(4, 44n, true); // its size after this field
  record.setUint16(12, 45, true); // version made by: 4.5 (ZIP64)
  record.setUint16(14, 45, true); // version needed
  record.setBigUint64(24, BigInt(count), true); // entries on this disk
  record.setBigUint64(32, BigInt(count), true); // entries in all
  record.setBigUint64(40, BigInt(view.getUint32(end + 12, true)), true); // directory size
  record.setBigUint64(48, BigInt(view.getUint32(end + 16, true)), true); // directory offset
  record.setUint32(56, 0x07064b50, true); // ZIP64 end locator
  record.setBigUint64(64, BigInt(end), true); // where the ZIP64 end record is
  record.setUint32(72, 1, true); // disks in all
  out.set(zip.subarray(end), end + 76);
  record.setUint16(76 + 8, 0xffff, true); // entries on this disk: see the ZIP64 record
  record.setUint16(76 + 10, 0xffff, true); // entries in all: see the ZIP64 record
  return out;
}

/** The bare baselines and the importers; returns how many samples or rows each saw. */
async function measure(mode: string, path: string): Promise<number> {
  if (mode === "json-parse") {
    const log = JSON.parse(new TextDecoder().decode(await Deno.readFile(path)));
    return log.samples.length;
  }
  if (mode === "eval-inflate") {
    const decoder = new TextDecoder();
    let samples = 0;
    for (const [name, data] of Object.entries(unzipSync(await Deno.readFile(path)))) {
      JSON.parse(decoder.decode(data));
      if (name.startsWith("samples/")) samples++;
    }
    return samples;
  }
  if (mode === "csv-split") {
    const lines = new TextDecoder().decode(await Deno.readFile(path)).split("\n");
    let fields = 0;
    for (const line of lines) fields += line.split(",").length;
    if (fields === 0) throw new Error("No fields");
    return lines.length - 2; // the header and the empty string after the final line break
  }
  if (mode === "inspect") {
    const inspect = await import(INSPECT_MODULE.href) as InspectModule;
    return (await inspect.importInspectLog(path, {})).attempts.length;
  }
  if (mode === "table") {
    const batch = await importTable(path, {
      columns: parseColumnMap(TABLE_MAP),
      tokensReportedBy: "agent",
    });
    return batch.attempts.length;
  }
  throw new Error(`Unknown mode: "${mode}"`);
}

/** Best (least) times and the largest peak over `repetitions` alternating runs of both modes. */
async function bestOf(
  modes: [string, string],
  path: string,
  count: number,
  repetitions: number,
): Promise<WorkerResult[]> {
  const best: WorkerResult[] = [];
  for (let i = 0; i < repetitions; i++) {
    for (const [at, mode] of modes.entries()) {
      const result = await runWorker<WorkerResult>(`Import worker "${mode}"`, SELF, [mode, path]);
      if (result.count !== count) {
        throw new Error(`Worker "${mode}" saw ${result.count} of ${count}`);
      }
      const previous = best[at];
      best[at] = previous === undefined ? result : {
        ...result,
        ms: Math.min(previous.ms, result.ms),
        cpu_ms: Math.min(previous.cpu_ms, result.cpu_ms),
        peak_rss_kib: Math.max(previous.peak_rss_kib ?? 0, result.peak_rss_kib ?? 0),
      };
    }
  }
  return best;
}

/** One figure: the importer's best against the baseline's best. */
function figure(
  name: string,
  workload: string,
  baselineName: string,
  [base, run]: WorkerResult[],
  notes: string[],
): BenchResult {
  const mib = (kib: number | null) => kib === null ? null : kib / 1024;
  return {
    name,
    workload,
    ms: run.ms,
    baseline: { name: baselineName, ms: base.ms },
    ratio: run.ms / base.ms,
    cpu_ratio: run.cpu_ms / base.cpu_ms,
    target: null,
    peak_rss_mib: mib(run.peak_rss_kib),
    notes: [
      `CPU time: ${run.cpu_ms.toFixed(0)} ms vs ${base.cpu_ms.toFixed(0)} ms`,
      `baseline peak ${(mib(base.peak_rss_kib) ?? 0).toFixed(0)} MiB`,
      ...notes,
    ],
  };
}

/**
 * Generates the Inspect logs (`.json` and `.eval`, the same samples) and
 * the CSV table, then measures each importer against its bare baseline.
 * The Inspect figures are left out (with a note in the table's) while
 * `inputs/import/inspect.ts` is absent.
 *
 * @param options sizes, repetitions and the directory for the files
 * @returns the Inspect figures when their importer exists, then the table figure
 */
export async function importBench(options: ImportBenchOptions): Promise<BenchResult[]> {
  const samples = options.samples ?? 100_000;
  const rows = options.rows ?? 100_000;
  const repetitions = options.repetitions ?? 3;
  const results: BenchResult[] = [];
  const common =
    `best of ${repetitions} alternating runs, each in a fresh process; both read the file`;
  let hasInspect = true;
  try {
    await Deno.stat(INSPECT_MODULE);
  } catch {
    hasInspect = false;
  }
  if (hasInspect) {
    const log = `${options.dir}/inspect_${samples}.json`;
    const bytes = await writeInPieces(log, inspectLogParts(samples));
    const best = await bestOf(["json-parse", "inspect"], log, samples, repetitions)
      .finally(() => Deno.remove(log));
    results.push(figure(
      "import inspect (.json)",
      `importInspectLog: ${samples.toLocaleString("en")} samples, ${(bytes / 1e6).toFixed(0)} MB`,
      "read, decode, JSON.parse",
      best,
      [
        "samples: id, epoch, input, target, 3 messages, output, one C/I scorer, model_usage " +
        "with cache reads, total_time; every 50th with an error, every 40th with a message limit",
        common,
      ],
    ));
    const zip = `${options.dir}/inspect_${samples}.eval`;
    const zipBytes = await writeInspectZip(zip, samples);
    const zipBest = await bestOf(["eval-inflate", "inspect"], zip, samples, repetitions)
      .finally(() => Deno.remove(zip));
    results.push(figure(
      "import inspect (.eval)",
      `importInspectLog: the same ${samples.toLocaleString("en")} samples as a .eval ZIP, ${
        (zipBytes / 1e6).toFixed(0)
      } MB (one deflated entry per sample, header.json, summaries.json)`,
      "read, unzipSync (inflate every entry), decode, JSON.parse each",
      zipBest,
      [`deflate level ${EVAL_DEFLATE_LEVEL} (fflate zipSync), as Inspect's recorder`, common],
    ));
  }
  const table = `${options.dir}/table_${rows}.csv`;
  const bytes = await writeInPieces(table, tableParts(rows));
  const best = await bestOf(["csv-split", "table"], table, rows, repetitions)
    .finally(() => Deno.remove(table));
  results.push(figure(
    "import table (.csv)",
    `importTable: ${rows.toLocaleString("en")} rows, ${
      (bytes / 1e6).toFixed(1)
    } MB, 9 mapped columns`,
    'read, decode, split("\\n"), split(",")',
    best,
    [
      `columns: ${TABLE_MAP}; every 20th row with a quoted note`,
      common,
      ...(hasInspect ? [] : ["inspect figure skipped: inputs/import/inspect.ts is absent"]),
    ],
  ));
  return results;
}

if (import.meta.main) {
  const [mode, path] = Deno.args;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const count = await measure(mode, path);
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  console.log(JSON.stringify({
    mode,
    count,
    ms,
    cpu_ms: (cpu.user + cpu.system) / 1000,
    peak_rss_kib: peakRssKib(),
  }));
}
