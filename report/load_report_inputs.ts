/**
 * Reading what a report is computed from: the ledger (strict, streaming, with
 * each row's line), the errata, the frozen plan and the frozen price table,
 * each with its path as given and its SHA-256.
 *
 * @module
 */
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { readErrata } from "../analysis/errata.ts";
import { openBytes } from "../analysis/jsonl.ts";
import { ioError } from "../analysis/ledger_error.ts";
import { readPlan, readPriceTable } from "../analysis/read_config.ts";
import { scanLedger } from "../analysis/read_ledger.ts";
import type { Episode } from "../analysis/schema.ts";
import type { ReportConfig, ReportInputs, ReportLedger } from "./build_report.ts";

/** The files a report reads; paths are kept exactly as given. */
export interface ReportPaths {
  ledger: string;
  plan?: string | null;
  errata?: string | null;
  priceTable?: string | null;
}

/**
 * SHA-256 (hex) of a file's bytes.
 *
 * @param path the file
 * @returns the lower-case hex digest
 * @throws {LedgerError} code `io_error` when the file cannot be read
 */
export async function fileSha256(path: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    throw ioError(path, error);
  }
  return sha256Hex(bytes);
}

async function readLedgerWithLines(path: string): Promise<ReportLedger> {
  let chunks: AsyncIterable<Uint8Array>;
  try {
    chunks = await openBytes(path);
  } catch (error) {
    throw ioError(path, error);
  }
  const rows: Episode[] = [];
  const rowLines: number[] = [];
  const scan = await scanLedger({ chunks, file: path }, (row, line) => {
    rows.push(row);
    rowLines.push(line);
  });
  return { ...scan, rows, row_lines: rowLines };
}

async function readConfig<T>(
  path: string,
  read: (p: string) => Promise<T>,
): Promise<ReportConfig<T>> {
  const sha256 = await fileSha256(path);
  return { path, sha256, value: await read(path) };
}

/**
 * Reads the inputs of a report: the ledger strictly (every line must parse and
 * fit the schema, ids unique, hash chain intact; see `scanLedger`), keeping
 * each row's line for validation findings; the errata (`readErrata`), the plan
 * (`readPlan`) and the price table (`readPriceTable`) when given, each hashed.
 * Paths are recorded as given, never made absolute, so two runs from the same
 * directory record the same bytes. Cost: one streaming pass per file; the rows
 * are held in memory.
 *
 * @param paths the ledger and the optional plan, errata and price table
 * @returns the inputs for `buildReport`
 * @throws {LedgerError} on the first problem in any file (codes as the readers give them)
 * @example
 * ```ts
 * import { loadReportInputs } from "./load_report_inputs.ts";
 * const ledger = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;
 * const inputs = await loadReportInputs({ ledger });
 * // Seed 001's sample: 8 rows on lines 1..8, no plan, errata or price table.
 * if (inputs.ledger.rows.length !== 8 || inputs.ledger.row_lines[7] !== 8) throw new Error();
 * ```
 */
export async function loadReportInputs(paths: ReportPaths): Promise<ReportInputs> {
  const ledger = await readLedgerWithLines(paths.ledger);
  const errata = paths.errata == null ? null : await readErrata(paths.errata);
  const plan = paths.plan == null ? null : await readConfig(paths.plan, readPlan);
  const priceTable = paths.priceTable == null
    ? null
    : await readConfig(paths.priceTable, readPriceTable);
  return { ledger, errata, plan, priceTable };
}
