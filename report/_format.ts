/**
 * Fixed, locale-free number formatting for the report's prose and tables, so
 * that the same results give the same bytes on every machine (no
 * `toLocaleString`, no `Intl`).
 *
 * Private to `report/`. The arithmetic is analysis/format_number.ts's, shared
 * with the figures; this module adds `"-"` for missing values.
 *
 * @module
 */
import { formatGrouped, formatPercent } from "../analysis/format_number.ts";

/**
 * A rate as a percentage with fixed decimals (`0.75` → `"75.0%"`).
 *
 * @param x the rate; null or undefined gives `"-"`
 * @param digits decimals (default 1)
 * @returns `toFixed` of 100 x, with a percent sign ({@link formatPercent})
 */
export function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? "-" : formatPercent(x, digits);
}

/**
 * An interval of rates as `[25.0%, 100.0%]`.
 *
 * @param interval lower and upper bounds; null or undefined gives `"-"`
 * @param digits decimals (default 1)
 * @returns both bounds through {@link pct}, bracketed
 */
export function pctInterval(
  interval: { lower: number; upper: number } | null | undefined,
  digits = 1,
): string {
  if (interval === null || interval === undefined) return "-";
  return `[${pct(interval.lower, digits)}, ${pct(interval.upper, digits)}]`;
}

/**
 * A count with comma grouping (`1234567.4` → `"1,234,567"`), rounded to an integer.
 *
 * @param x the number; null or undefined gives `"-"`
 * @returns the grouped digits, with a leading `-` when negative ({@link formatGrouped})
 */
export function int(x: number | null | undefined): string {
  return x === null || x === undefined ? "-" : formatGrouped(x);
}

/**
 * A decimal number with a grouped integer part (`1234.5` → `"1,234.50"`).
 *
 * @param x the number; null or undefined gives `"-"`
 * @param digits decimals (default 2)
 * @returns `toFixed(digits)` with comma grouping ({@link formatGrouped})
 */
export function dec(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? "-" : formatGrouped(x, { digits });
}

/**
 * A money amount: 4 decimals under 1, else 2 (`0.01894` → `"0.0189"`).
 *
 * @param x the amount; null or undefined gives `"-"`
 * @returns the amount through {@link dec}
 */
export function money(x: number | null | undefined): string {
  if (x === null || x === undefined) return "-";
  return dec(x, Math.abs(x) < 1 ? 4 : 2);
}

/**
 * A count with its noun in the right number (`"1 row"`, `"2 rows"`).
 *
 * @param n the count
 * @param one the singular
 * @param many the plural (default: singular + "s")
 * @returns the grouped count and the noun
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${int(n)} ${n === 1 ? one : many}`;
}

/**
 * Ids quoted the way messages quote them: `"a", "b" and "c"`.
 *
 * @param ids the ids, in order
 * @returns the quoted list joined with commas and a final "and"
 */
export function quotedList(ids: readonly string[]): string {
  const q = ids.map((id) => `"${id}"`);
  if (q.length <= 1) return q.join("");
  return `${q.slice(0, -1).join(", ")} and ${q[q.length - 1]}`;
}

/**
 * The first 12 hex digits of a digest, for prose (the full digest sits in the tables).
 *
 * @param sha256 a hex digest
 * @returns its first 12 characters
 */
export function short(sha256: string): string {
  return sha256.slice(0, 12);
}
