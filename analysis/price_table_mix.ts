/**
 * Rows that name more than one price table (seed 001: money only through
 * one frozen table). Costs cannot be compared across tables, so every
 * command that summarizes such rows says so, with or without `--price-table`.
 *
 * @module
 */
import type { Episode } from "./schema/records.ts";

/**
 * The finding for rows that name several price tables, or null when they
 * name at most one.
 *
 * Rule: seed 001, "cost only through a frozen price table": one batch, one
 * table. Ids are listed in code-unit order, each with its row count.
 *
 * @param rows ledger rows
 * @returns one sentence, or null
 * @example
 * ```ts
 * import { priceTableMix } from "./price_table_mix.ts";
 * const rows = [{ price_table_id: "a" }, { price_table_id: "b" }, { price_table_id: "a" }];
 * const text = priceTableMix(rows as never);
 * if (text !== 'the rows name 2 price tables ("a" 2 rows, "b" 1 row); costs from different tables are not comparable') throw new Error(text ?? "null");
 * ```
 */
export function priceTableMix(rows: Iterable<Pick<Episode, "price_table_id">>): string | null {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.price_table_id, (counts.get(row.price_table_id) ?? 0) + 1);
  if (counts.size < 2) return null;
  const ids = [...counts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const list = ids.map((id) => {
    const n = counts.get(id)!;
    return `${JSON.stringify(id)} ${n} row${n === 1 ? "" : "s"}`;
  }).join(", ");
  return `the rows name ${ids.length} price tables (${list}); costs from different tables are not comparable`;
}
