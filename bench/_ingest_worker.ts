/**
 * One ingest measurement in a fresh process, so that its peak memory (VmHWM)
 * belongs to it alone. Prints one JSON line: `{mode, rows, ms, peak_rss_kib}`.
 *
 * Modes:
 * - `baseline`: the bare loop, the same chunked reading as the ledger reader
 *   (`openInput`), split at `\n`, `TextDecoder` + `JSON.parse` per line,
 *   nothing else (no hashing, no schema);
 * - `scan`: `scanLedger` with a visitor that keeps nothing: JSON, schema,
 *   duplicate ids, hash chain and the file's SHA-256, streaming;
 * - `validate`: `validateLedger` against the generator's plan: everything
 *   `scan` does plus seed 003's plan checks.
 *
 * Usage: `deno run -A bench/_ingest_worker.ts MODE LEDGER [PLAN_JSON]` (`-A`:
 * Deno 2 lets a process read its own `/proc/self/status` only with every
 * permission).
 *
 * @module
 */
import { openInput } from "../inputs/input_file.ts";
import { scanLedger } from "../inputs/ledger.ts";
import { validateLedgerFile } from "../inputs/validate_ledger_file.ts";
import { Plan } from "../analysis/schema/records.ts";
import { peakRssKib } from "./_measure.ts";
import process from "node:process";

const NEWLINE = 10;

/** CPU time (user + system) of the calling thread in ms, from /proc/thread-self/stat; null off Linux. */
function threadCpuMs(): number | null {
  try {
    const stat = Deno.readTextFileSync("/proc/thread-self/stat");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat; counted from the state field (3): 11, 12
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** The bare loop: chunked reading, line split, decode, JSON.parse. Returns the line count. */
async function baseline(path: string): Promise<number> {
  const decoder = new TextDecoder();
  let lines = 0;
  let carry: Uint8Array | null = null;
  let sink = 0;
  const parse = (bytes: Uint8Array) => {
    const value = JSON.parse(decoder.decode(bytes));
    if (value !== null) sink++;
    lines++;
  };
  for await (const chunk of await openInput(path)) {
    let start = 0;
    let end = chunk.indexOf(NEWLINE, start);
    while (end !== -1) {
      let bytes = chunk.subarray(start, end);
      if (carry !== null) {
        const joined = new Uint8Array(carry.length + bytes.length);
        joined.set(carry, 0);
        joined.set(bytes, carry.length);
        bytes = joined;
        carry = null;
      }
      parse(bytes);
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      const rest = chunk.slice(start);
      if (carry === null) carry = rest;
      else {
        const joined: Uint8Array = new Uint8Array(carry.length + rest.length);
        joined.set(carry, 0);
        joined.set(rest, carry.length);
        carry = joined;
      }
    }
  }
  if (carry !== null) parse(carry);
  if (sink !== lines) throw new Error("Unexpected null row");
  return lines;
}

async function measure(mode: string, path: string, planPath?: string): Promise<number> {
  if (mode === "baseline") return await baseline(path);
  if (mode === "scan") {
    let rows = 0;
    const scan = await scanLedger({ chunks: await openInput(path), file: path }, () => rows++);
    if (scan.valid_rows !== rows) throw new Error("Row count mismatch");
    return rows;
  }
  if (mode === "validate") {
    if (planPath === undefined) throw new Error('Mode "validate" needs a plan file');
    const plan = Plan.parse(JSON.parse(await Deno.readTextFile(planPath)));
    const report = await validateLedgerFile(path, plan, { maxFindingsPerCode: 10 });
    return report.rows;
  }
  throw new Error(`Unknown mode: "${mode}"`);
}

if (import.meta.main) {
  const [mode, path, planPath] = Deno.args;
  const cpuStart = process.cpuUsage();
  const threadStart = threadCpuMs();
  const start = performance.now();
  const rows = await measure(mode, path, planPath);
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  const threadEnd = threadCpuMs();
  console.log(JSON.stringify({
    mode,
    rows,
    ms,
    cpu_ms: (cpu.user + cpu.system) / 1000,
    main_thread_cpu_ms: threadStart === null || threadEnd === null ? null : threadEnd - threadStart,
    peak_rss_kib: peakRssKib(),
  }));
}
