/**
 * A ledger held in memory as the browser reads one (`LedgerView` plus its
 * rows read back), for tests that build their rows by hand.
 *
 * @module
 */
import type { Episode } from "../analysis/schema/records.ts";
import type { AppliedErratum } from "../analysis/errata.ts";
import { EpisodeIndexBuilder } from "./episode_index.ts";
import type { LedgerView, ViewRow } from "./episode_table_page.ts";

/** A row given by hand: its line defaults to its place in the list plus one. */
export interface HandRow {
  row: Episode;
  line?: number;
  corrections?: readonly AppliedErratum[];
}

/**
 * The rows as the browser's ledger: indexed, each read back as given.
 *
 * @param rows the rows, in ledger order
 * @param path the ledger's path the pages name
 * @returns the ledger view and its rows
 */
export function handLedger(
  rows: readonly HandRow[],
  path = "l.jsonl",
): LedgerView & { rows(from: number, to: number): Promise<ViewRow[]> } {
  const builder = new EpisodeIndexBuilder(rows.length);
  const full: ViewRow[] = rows.map((r, i) => {
    const line = r.line ?? i + 1;
    const at = builder.add(r.row, line);
    if (r.corrections !== undefined) builder.correct(at, r.row, r.corrections);
    return {
      row: r.row,
      index: at,
      line,
      ...(r.corrections ? { corrections: r.corrections } : {}),
    };
  });
  return {
    path,
    sha256: "0".repeat(64),
    index: builder.finish(),
    rows: (from, to) => Promise.resolve(full.slice(from, to)),
  };
}
