/**
 * The shapes of a ledger file as the inputs layer reads it (issue 23: they
 * lived in `inputs/ledger.ts`, so analysis modules that take a read ledger
 * imported from the inputs layer): what a scan found, the rows in memory,
 * and each row's line.
 *
 * @module
 */
import type { LedgerProblem } from "../ledger_error.ts";
import type { Episode } from "./records.ts";
import type { EpisodeRows } from "../episode_table.ts";
import type { RowLineNumbers } from "../row_lines.ts";

/** What a scan of a ledger found, apart from the rows themselves. */
export interface LedgerScan {
  file: string;
  /** SHA-256 (hex) of the ledger file's bytes. */
  sha256: string;
  /** Lines in the file. */
  lines: number;
  /** Rows that passed every check. */
  valid_rows: number;
  /** True when the first row carries `prev_sha256` (so every row must). */
  chained: boolean;
  /** Every problem found (empty unless `lenient`). */
  problems: LedgerProblem[];
}

/**
 * A whole ledger in memory: by default its rows as objects (`loadLedger`),
 * or as columns (`EpisodeTable`, `loadLedgerTable`), or any rows a figure
 * reads (`EpisodeRows`).
 */
export interface Ledger<R extends EpisodeRows = Episode[]> extends LedgerScan {
  rows: R;
}

/** A whole ledger in memory with each row's 1-based line (the inputs layer's `loadLedger`). */
export interface LedgerWithLines<R extends EpisodeRows = Episode[]> extends Ledger<R> {
  /** `row_lines.at(i)` is the line `rows[i]` was read from. */
  row_lines: RowLineNumbers;
}
