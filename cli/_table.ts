/**
 * Plain-text tables and number formatting for the human-readable output of
 * every command. The JSON output never goes through here: it is written by
 * `canonicalJson` from the full-precision values.
 *
 * @module
 */
import { formatGrouped, formatPercent } from "../analysis/format_number.ts";

/** One column: its header and alignment (numbers right, text left). */
export interface Column {
  header: string;
  align?: "left" | "right";
}

/**
 * Renders rows under headers, columns padded to their widest cell and
 * separated by two spaces, with a dashed rule under the header. O(cells).
 *
 * @example
 * ```ts
 * import { renderTable } from "./_table.ts";
 * const text = renderTable([{ header: "agent" }, { header: "n", align: "right" }], [["a", "4"]]);
 * if (text !== "agent  n\n-----  -\na      4\n") throw new Error(text);
 * ```
 */
export function renderTable(columns: Column[], rows: string[][]): string {
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...rows.map((row) => (row[i] ?? "").length))
  );
  const line = (cells: string[]) =>
    cells.map((cell, i) =>
      columns[i].align === "right" ? cell.padStart(widths[i]) : cell.padEnd(widths[i])
    ).join("  ").trimEnd() + "\n";
  return line(columns.map((column) => column.header)) +
    line(widths.map((width) => "-".repeat(width))) +
    rows.map((row) => line(row)).join("");
}

/**
 * Renders `key: value` pairs, keys padded to the longest one.
 *
 * @example
 * ```ts
 * import { renderPairs } from "./_table.ts";
 * if (renderPairs([["seed", "7"], ["rounds", "2000"]]) !== "seed:    7\nrounds:  2000\n") throw new Error();
 * ```
 */
export function renderPairs(pairs: [string, string][]): string {
  const width = Math.max(0, ...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => `${(key + ":").padEnd(width + 1)}  ${value}\n`).join("");
}

/** `x` with `digits` decimals, or `"-"` when null or undefined. */
export function fixed(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? "-" : x.toFixed(digits);
}

/**
 * `x` as a percentage with `digits` decimals (`0.75` → `"75.0%"`), or `"-"`:
 * `formatPercent` (analysis/format_number.ts) for a number.
 */
export function percent(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? "-" : formatPercent(x, digits);
}

/** An interval as `[lo, hi]` of percentages, or `"-"`. */
export function percentInterval(
  interval: readonly [number, number] | { lo: number; hi: number } | null | undefined,
  digits = 1,
): string {
  if (interval === null || interval === undefined) return "-";
  const [lo, hi] = Array.isArray(interval)
    ? interval
    : [(interval as { lo: number }).lo, (interval as { hi: number }).hi];
  return `[${percent(lo, digits)}, ${percent(hi, digits)}]`;
}

/**
 * `x` rounded to an integer with thousands separators (`1234567` →
 * `"1,234,567"`), or `"-"`: `formatGrouped` (analysis/format_number.ts) for a number.
 */
export function integer(x: number | null | undefined): string {
  return x === null || x === undefined ? "-" : formatGrouped(x);
}

/**
 * `x` with `digits` decimals and an explicit sign (`+0.4055`, `-0.4055`);
 * a value that rounds to zero prints as `0.0000`, never `-0.0000`.
 */
export function signedFixed(x: number | null | undefined, digits = 4): string {
  if (x === null || x === undefined) return "-";
  const text = x.toFixed(digits);
  if (/^-?0\.?0*$/.test(text)) return text.replace("-", "");
  return x > 0 ? `+${text}` : text;
}
