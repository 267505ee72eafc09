/**
 * Benchmark: how `ledgerbench validate`, `summarize` and `report` grow with
 * the ledger. For each row count a hash-chained ledger of 20 agents is
 * generated (`tools/synthetic_ledger.ts`, seed 7) with its plan, and each
 * command runs in a fresh process of its own, beside a baseline in a fresh
 * process too: a plain script that parses every line and counts the
 * resolved rows per agent. Each process reports its own CPU time (user +
 * system, /proc/self/stat) and peak resident memory (VmHWM,
 * /proc/self/status) as it ends; start-up is included for all alike.
 *
 * The table gives each command's CPU seconds and peak MiB, its CPU time over
 * the baseline's at the same size, and its growth per ×10 rows between
 * consecutive sizes, (CPU(n₂) / CPU(n₁))^(1 / log₁₀(n₂ / n₁)): 10 for a
 * command linear in rows; the target is ≤ 12. No assertion on time: the
 * numbers are returned and printed.
 *
 * Standalone: `deno run -A bench/scale_bench.ts --rows 10000,100000 [--report-max 1000000]`.
 * Child usage (internal): `deno run -A bench/scale_bench.ts --child COMMAND ARGS...`
 * (`-A`: Deno 2 lets a process read its own `/proc/self/status` only with
 * every permission).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { main } from "../cli/main.ts";
import { syntheticLedgerPlan, writeSyntheticLedger } from "../tools/synthetic_ledger.ts";
import { peakRssKib, runWorker } from "./_measure.ts";

/** One command measured at one size. */
export interface ScaleRow {
  /** Ledger rows. */
  rows: number;
  /** `"baseline"` or the ledgerbench command. */
  command: string;
  /** CPU seconds (user + system) of its process. */
  cpu_s: number;
  /** Peak resident memory of its process in MiB. */
  peak_mib: number;
  /** The command's exit status (`validate` exits 2 on a ledger that does not finish its plan). */
  status: number;
  /** cpu_s over the baseline's at the same size. */
  ratio: number;
  /** CPU growth per ×10 rows from the previous size; null at the first size. */
  growth_per_10x: number | null;
  /** Peak-memory growth per ×10 rows from the previous size; null at the first size. */
  memory_growth_per_10x: number | null;
}

/** Options for {@link scaleBench}. */
export interface ScaleBenchOptions {
  /** Agents of each ledger; default 20. */
  agents?: number;
  /** `report` runs only up to this many rows (about 50 CPU s and 1.7 GiB at 1M); default 1,000,000. */
  reportMaxRows?: number;
  /** Directory for the ledgers and reports; default a fresh temporary directory, removed after. */
  dir?: string;
}

const SELF = new URL(import.meta.url).pathname;
/** The commands measured, in table order. */
const COMMANDS = ["baseline", "validate", "summarize", "report"] as const;

/** What one child process reports as it ends. */
interface ChildFigures {
  cpu_ms: number;
  peak_kib: number;
  status: number;
}

/**
 * Measures every command at every row count, each in a fresh process, and
 * returns the table (see the module's doc for the columns).
 *
 * @param rows the ledger sizes, e.g. `[10_000, 100_000, 1_000_000]`
 * @param options agents, the largest `report`, the working directory
 * @returns one row per size and command, sizes ascending
 * @throws {Error} when a child process fails (a command's own exit status is recorded)
 */
export async function scaleBench(
  rows: readonly number[],
  options: ScaleBenchOptions = {},
): Promise<ScaleRow[]> {
  const agents = options.agents ?? 20;
  const reportMax = options.reportMaxRows ?? 1_000_000;
  const dir = options.dir ?? await Deno.makeTempDir({ prefix: "ledgerbench-scale-" });
  const table: ScaleRow[] = [];
  try {
    for (const n of [...rows].sort((a, b) => a - b)) {
      const generator = { rows: n, agents, seed: 7, chained: true };
      const ledger = `${dir}/ledger_${n}.jsonl`;
      const plan = `${dir}/plan_${n}.json`;
      await writeSyntheticLedger(ledger, generator);
      await Deno.writeTextFile(plan, JSON.stringify(syntheticLedgerPlan(generator)));
      const args: Record<(typeof COMMANDS)[number], string[]> = {
        baseline: [ledger],
        validate: [ledger, "--plan", plan],
        summarize: [ledger, "--plan", plan, "--json"],
        report: [ledger, "--plan", plan, "--out", `${dir}/report_${n}`],
      };
      let baseline = NaN;
      for (const command of COMMANDS) {
        if (command === "report" && n > reportMax) continue;
        const figures = await runWorker<ChildFigures>(
          `"${command} ${args[command].join(" ")}"`,
          SELF,
          ["--child", command, ...args[command]],
        );
        const cpu = figures.cpu_ms / 1000;
        if (command === "baseline") baseline = cpu;
        const previous = table.findLast((r) => r.command === command && r.rows < n);
        const growth = (now: number, before: number, from: number) =>
          (now / before) ** (1 / Math.log10(n / from));
        const peak = figures.peak_kib / 1024;
        table.push({
          rows: n,
          command,
          cpu_s: cpu,
          peak_mib: peak,
          status: figures.status,
          ratio: cpu / baseline,
          growth_per_10x: previous === undefined
            ? null
            : growth(cpu, previous.cpu_s, previous.rows),
          memory_growth_per_10x: previous === undefined
            ? null
            : growth(peak, previous.peak_mib, previous.rows),
        });
      }
      await Deno.remove(ledger);
    }
  } finally {
    if (options.dir === undefined) await Deno.remove(dir, { recursive: true });
  }
  return table;
}

/**
 * The table as text: rows, command, CPU s, peak MiB, ratio to the
 * baseline, growth per ×10 of CPU and of memory, exit status.
 *
 * @param table the rows of {@link scaleBench}
 * @returns aligned lines, one per row, after a header
 */
export function scaleTable(table: readonly ScaleRow[]): string {
  const head = [
    "rows",
    "command",
    "CPU s",
    "peak MiB",
    "× baseline",
    "CPU ×/10×",
    "mem ×/10×",
    "exit",
  ];
  const lines = table.map((r) => [
    r.rows.toLocaleString("en"),
    r.command,
    r.cpu_s.toFixed(2),
    r.peak_mib.toFixed(0),
    r.ratio.toFixed(1),
    r.growth_per_10x === null ? "" : r.growth_per_10x.toFixed(1),
    r.memory_growth_per_10x === null ? "" : r.memory_growth_per_10x.toFixed(1),
    String(r.status),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  return [head, ...lines].map((cells) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")
  ).join("\n") + "\n";
}

/**
 * The stated bound of `summarize`'s peak memory at a million rows: the rows
 * held as columns (`analysis/row_columns.ts`), never as objects.
 */
export const SUMMARIZE_PEAK_BOUND_MIB = 300;

/**
 * The line that judges `summarize`'s peak memory against
 * {@link SUMMARIZE_PEAK_BOUND_MIB} at 1,000,000 rows; null when that size
 * was not measured.
 *
 * @param table the rows of {@link scaleBench}
 * @returns e.g. `summarize at 1,000,000 rows: peak 450 MiB (bound 300 MiB: not met)`
 */
export function summarizeMemoryLine(table: readonly ScaleRow[]): string | null {
  const row = table.find((r) => r.command === "summarize" && r.rows === 1_000_000);
  if (row === undefined) return null;
  const met = row.peak_mib <= SUMMARIZE_PEAK_BOUND_MIB ? "met" : "not met";
  return `summarize at 1,000,000 rows: peak ${row.peak_mib.toFixed(0)} MiB ` +
    `(bound ${SUMMARIZE_PEAK_BOUND_MIB} MiB: ${met})`;
}

/** CPU time of this process (user + system) in ms, from /proc/self/stat. */
function cpuMs(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, fields 14 and 15 of stat, counted from the state field (3): indices 11, 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The baseline: parse every line, count the resolved rows per agent. */
async function baseline(path: string): Promise<number> {
  const resolved = new Map<string, number>();
  const lines = (await Deno.open(path)).readable.pipeThrough(new TextDecoderStream());
  let rest = "";
  for await (const chunk of lines) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop()!;
    for (const line of parts) {
      const row = JSON.parse(line);
      resolved.set(row.agent_id, (resolved.get(row.agent_id) ?? 0) + (row.resolved ? 1 : 0));
    }
  }
  return resolved.size;
}

async function child(command: string, args: string[]): Promise<void> {
  const discard = { stdout: () => {}, stderr: () => {} };
  const status = command === "baseline"
    ? (await baseline(args[0]), 0)
    : await main([command, ...args], discard);
  const figures: ChildFigures = { cpu_ms: cpuMs(), peak_kib: peakRssKib() ?? 0, status };
  console.log(JSON.stringify(figures));
}

if (import.meta.main) {
  if (Deno.args[0] === "--child") {
    await child(Deno.args[1], Deno.args.slice(2));
  } else {
    const { values } = parseArgs({
      args: Deno.args,
      options: { rows: { type: "string" }, "report-max": { type: "string" } },
    });
    const rows = (values.rows ?? "10000,100000,1000000").split(",").map(Number);
    const reportMaxRows = values["report-max"] === undefined
      ? undefined
      : Number(values["report-max"]);
    console.log(scaleTable(await scaleBench(rows, { reportMaxRows })));
  }
}
