/**
 * A danfojs DataFrame from records with fixed columns, the shape every frame
 * of the library shares.
 *
 * @module
 */
import * as dfd from "danfojs";

/**
 * A DataFrame of `records` with `columns` in this order, also when there is
 * no record (danfojs infers no columns from an empty array, so a frame of
 * nothing would have none; here it keeps its columns and has 0 rows).
 *
 * @param records one record per row, each with every column
 * @param columns the column names, in order
 * @returns the frame
 * @example
 * ```ts
 * import { frameOf } from "./frame_of.ts";
 * const empty = frameOf([], ["agent_id", "rate"]);
 * if (empty.shape[0] !== 0 || empty.columns.join() !== "agent_id,rate") throw new Error();
 * ```
 */
export function frameOf<T extends object>(
  records: readonly T[],
  columns: readonly (keyof T & string)[],
): dfd.DataFrame {
  const rows = records.map((record) => columns.map((c) => (record as Record<string, unknown>)[c]));
  return new dfd.DataFrame(rows, { columns: [...columns] });
}
