/**
 * A ledger held in memory, as the inputs layer reads one, for tests that
 * build their rows by hand: one row per line, from line 1, unchained, no
 * problems, the file's SHA-256 all zeros.
 *
 * @module
 */
import type { LedgerWithLines } from "./schema/ledger_file.ts";
import type { Episode } from "./schema/records.ts";

/**
 * The rows as a read ledger.
 *
 * @param rows the rows, in ledger order
 * @param file the file name the ledger is said to come from
 * @returns the ledger with each row on its own line
 */
export function inMemoryLedger(rows: Episode[], file = "mem.jsonl"): LedgerWithLines {
  return {
    file,
    sha256: "0".repeat(64),
    lines: rows.length,
    valid_rows: rows.length,
    chained: false,
    problems: [],
    rows,
    row_lines: rows.map((_, i) => i + 1),
  };
}
