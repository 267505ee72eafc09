/**
 * The ledger's rows as every command holds them: a column table
 * (`row_columns.ts`) whose rows are {@link Episode}s, a tenth of the memory
 * of the row objects, each rebuilt as a pass reaches it.
 *
 * @module
 */
import { RowColumns } from "./row_columns.ts";
import { defaultEpisodeId, type Episode } from "./schema/records.ts";

/** Ledger rows in ledger order, held as columns. */
export type EpisodeTable = RowColumns<Episode>;

/**
 * Rows a figure reads in one or more passes: an array of rows, a ledger's
 * {@link EpisodeTable}, or a view of either (errata applied, rows left out).
 */
export interface EpisodeRows extends Iterable<Episode> {
  /** Rows in the passes. */
  readonly length: number;
}

/**
 * A table of ledger rows: the derived `episode_id` (`defaultEpisodeId`) is
 * kept as a mark, and the chain's `prev_sha256` is not kept (the reader
 * checks each link as it reads the file, `inputs/ledger.ts`; no figure
 * reads it), so a rebuilt row lacks it.
 *
 * @param rows rows to add in order; default none
 * @returns the table
 * @example
 * ```ts
 * import { episodeTable } from "./episode_table.ts";
 * import { Episode } from "./schema/records.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t", seed: 1, resolved: true, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p",
 * });
 * const table = episodeTable([row]);
 * if (table.row(0).episode_id !== "r/a/t/1") throw new Error();
 * ```
 */
export function episodeTable(rows: Iterable<Episode> = []): EpisodeTable {
  const table = new RowColumns<Episode>({
    derived: { episode_id: defaultEpisodeId },
    omit: ["prev_sha256"],
  });
  for (const row of rows) table.push(row);
  return table;
}

/**
 * `rows` with some rows replaced (errata's corrected rows, by position),
 * read in the same order. O(1) to make; a pass costs what a pass over
 * `rows` does.
 *
 * @param rows the rows as recorded
 * @param replaced position → the row that stands there instead
 * @returns the rows as corrected
 * @example
 * ```ts
 * import { replacedRows } from "./episode_table.ts";
 * import { Episode } from "./schema/records.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t", seed: 1, resolved: true, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p",
 * });
 * const corrected = replacedRows([row], new Map([[0, { ...row, resolved: false }]]));
 * if ([...corrected][0].resolved !== false || corrected.length !== 1) throw new Error();
 * ```
 */
export function replacedRows(
  rows: EpisodeRows,
  replaced: ReadonlyMap<number, Episode>,
): EpisodeRows {
  if (replaced.size === 0) return rows;
  return {
    length: rows.length,
    *[Symbol.iterator]() {
      let at = 0;
      for (const row of rows) yield replaced.get(at++) ?? row;
    },
  };
}

/**
 * The rows of `rows` that `keep` accepts, in order (the counted rows
 * without an uncalibrated judge's). O(1) to make; each pass tests every row.
 *
 * @param rows the rows
 * @param keep the test
 * @param length how many rows it accepts (the caller has counted them)
 * @returns the kept rows
 * @example
 * ```ts
 * import { keptRows } from "./episode_table.ts";
 * const kept = keptRows([], () => true, 0);
 * if (kept.length !== 0 || [...kept].length !== 0) throw new Error();
 * ```
 */
export function keptRows(
  rows: EpisodeRows,
  keep: (row: Episode) => boolean,
  length: number,
): EpisodeRows {
  if (length === rows.length) return rows;
  return {
    length,
    *[Symbol.iterator]() {
      for (const row of rows) if (keep(row)) yield row;
    },
  };
}
