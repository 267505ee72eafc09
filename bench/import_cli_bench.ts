/**
 * Benchmark: `ledgerbench import table` end to end through the CLI (issue
 * 23, item 8: the 9,729-row SWE-Bench Pro run table took 12–34 s, one
 * fdatasync per row and 51× the CPU of Python's `csv` reader; target:
 * within 3× of Python's `csv` reading the same file end to end, at that
 * size and at 100,000 and 1,000,000 rows).
 *
 * The table has the SWE-Bench Pro run table's shape: by default 9,729
 * rows of 14 models, the model, instance id, resolved and turns columns
 * plus tokens, duration, cost and a note (`tableParts` of
 * `_run_table.ts`, deterministic); the larger sizes use 20 agents. Each
 * measured run is a fresh process, as a user runs them: `deno run
 * --allow-all cli/main.ts import table TABLE --out NEW_LEDGER --map ...`
 * from the repository root (read, map, validate, hash-chain, write, fsync,
 * task list), against `python3 -c` of `csv.reader` over the same file
 * (start the interpreter, open, parse every row). Runs alternate after
 * one unmeasured round; the median wall time counts, and the children's
 * mean CPU time is recorded beside it. The unmeasured import runs under
 * GNU time (`/usr/bin/time -f %M`, when present) for its peak resident
 * memory.
 *
 * Standalone: `deno run -A bench/import_cli_bench.ts [--rows 100000,1000000]
 * [--agents 20] [--repetitions 3]` prints each size's ratio beside the
 * target (`deno task bench` runs the 9,729-row size).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type BenchResult, type ChildTiming, summarizeTimings, timeChild } from "./_measure.ts";
import { importTableArgs, TABLE_MODELS, tableParts, writeInPieces } from "./_run_table.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** Python's `csv` module reading every row of the file named by its first argument. */
const PYTHON_CSV = "import csv, sys\n" +
  "with open(sys.argv[1], newline='', encoding='utf-8') as f:\n" +
  "    print(sum(1 for _ in csv.reader(f)))";

/** Options of {@link importCliBench}. */
export interface ImportCliBenchOptions {
  /** Directory for the table and the ledgers (created and removed by the caller). */
  dir: string;
  /** Rows of the table (default 9,729, the SWE-Bench Pro run table's). */
  rows?: number;
  /** Agents of the table (default `TABLE_MODELS`, the run table's 14). */
  agents?: number;
  /** Alternating repetitions; the median counts (default 5). */
  repetitions?: number;
}

/**
 * Times `ledgerbench import table` of a generated run table against
 * `python3 -c` reading it with `csv.reader`, each in a fresh process.
 *
 * @returns one result: ratio = median wall time of the import / Python's
 * @throws {Error} when `python3` or the import fails
 */
export async function importCliBench(options: ImportCliBenchOptions): Promise<BenchResult> {
  const rows = options.rows ?? 9729;
  const agents = options.agents ?? TABLE_MODELS;
  const repetitions = options.repetitions ?? 5;
  const table = `${options.dir}/run_table_${rows}.csv`;
  const bytes = await writeInPieces(table, tableParts(rows, agents));
  let run = 0;
  const importArgs = (ledger: string) => [
    "run",
    "--allow-all",
    "cli/main.ts",
    ...importTableArgs(table, ledger),
    "--tokens-reported-by",
    "agent",
  ];
  const cleanUp = async (ledger: string) => {
    for (const file of [ledger, `${ledger}.lock`, ledger.replace(/\.jsonl$/, ".tasks.json")]) {
      await Deno.remove(file).catch(() => {});
    }
  };
  const importOnce = async (): Promise<ChildTiming> => {
    const ledger = `${options.dir}/imported_${run++}.jsonl`;
    const timing = await timeChild(Deno.execPath(), importArgs(ledger), ROOT);
    await cleanUp(ledger);
    return timing;
  };
  const peakRss = async (): Promise<number | null> => {
    const ledger = `${options.dir}/imported_${run++}.jsonl`;
    try {
      const output = await new Deno.Command("/usr/bin/time", {
        args: ["-f", "peak_rss_kib=%M", Deno.execPath(), ...importArgs(ledger)],
        cwd: ROOT,
        stdout: "null",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).output();
      const found = /peak_rss_kib=(\d+)/.exec(new TextDecoder().decode(output.stderr));
      return output.success && found !== null ? Number(found[1]) / 1024 : null;
    } catch {
      return null; // no GNU time here
    } finally {
      await cleanUp(ledger);
    }
  };
  const pythonOnce = () => timeChild("python3", ["-c", PYTHON_CSV, table], ROOT);
  await pythonOnce();
  const peakRssMib = await peakRss();
  const python: ChildTiming[] = [];
  const imports: ChildTiming[] = [];
  for (let i = 0; i < repetitions; i++) {
    python.push(await pythonOnce());
    imports.push(await importOnce());
  }
  await Deno.remove(table);
  const base = summarizeTimings(python);
  const measured = summarizeTimings(imports);
  const cpuRatio = measured.cpu_ms === null || base.cpu_ms === null || base.cpu_ms === 0
    ? undefined
    : measured.cpu_ms / base.cpu_ms;
  return {
    name: rows === 9729
      ? "import table (CLI)"
      : `import table (CLI, ${rows.toLocaleString("en")} rows)`,
    workload: `ledgerbench import table: ${rows.toLocaleString("en")} rows, ${agents} ` +
      `agents, ${(bytes / 1e6).toFixed(1)} MB, through the CLI into a new ledger`,
    ms: measured.ms,
    baseline: { name: "python3 -c csv.reader over the same file", ms: base.ms },
    ratio: measured.ms / base.ms,
    ...(cpuRatio === undefined ? {} : { cpu_ratio: cpuRatio }),
    target: "≤ 3",
    peak_rss_mib: peakRssMib,
    notes: [
      `median of ${repetitions} alternating runs, each a fresh process, after a warm-up ` +
      "(the import's under GNU time, for its peak RSS)",
      measured.cpu_ms === null || base.cpu_ms === null
        ? "CPU time not available"
        : `mean CPU time: ${measured.cpu_ms.toFixed(0)} ms vs ${base.cpu_ms.toFixed(0)} ms`,
      "the ledger is written as one batch through a temporary file renamed over it: two fsyncs",
    ],
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rows: { type: "string", default: "100000,1000000" },
      agents: { type: "string", default: "20" },
      repetitions: { type: "string", default: "3" },
    },
  });
  const dir = await Deno.makeTempDir({ prefix: "import_cli_bench_" });
  try {
    for (const rows of values.rows.split(",").map(Number)) {
      const result = await importCliBench({
        dir,
        rows,
        agents: Number(values.agents),
        repetitions: Number(values.repetitions),
      });
      console.log(
        `${result.workload}\n  ${result.ms.toFixed(0)} ms vs ${result.baseline.name} ` +
          `${result.baseline.ms.toFixed(0)} ms: ratio ${result.ratio.toFixed(2)}x (target ` +
          `${result.target}x), CPU ratio ${result.cpu_ratio?.toFixed(2) ?? "?"}x, peak RSS ` +
          `${result.peak_rss_mib === null ? "?" : `${result.peak_rss_mib.toFixed(0)} MiB`}\n  ` +
          result.notes.join("\n  "),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
