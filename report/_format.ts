/**
 * Fixed, locale-free number formatting for the report's prose and tables, so
 * that the same results give the same bytes on every machine (no
 * `toLocaleString`, no `Intl`).
 *
 * Private to `report/`.
 *
 * @module
 */

/** `x` as a percentage with `digits` decimals (`0.75` → `"75.0%"`); `"-"` for null. */
export function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? "-" : `${(100 * x).toFixed(digits)}%`;
}

/** An interval of rates as `[25.0%, 100.0%]`; `"-"` for null. */
export function pctInterval(
  interval: { lower: number; upper: number } | null | undefined,
  digits = 1,
): string {
  if (interval === null || interval === undefined) return "-";
  return `[${pct(interval.lower, digits)}, ${pct(interval.upper, digits)}]`;
}

/** An integer with comma grouping (`1234567.4` → `"1,234,567"`); `"-"` for null. */
export function int(x: number | null | undefined): string {
  if (x === null || x === undefined) return "-";
  const rounded = Math.round(x);
  const digits = String(Math.abs(rounded));
  let out = "";
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ",";
    out += digits[i];
  }
  return (rounded < 0 ? "-" : "") + out;
}

/** `x` with `digits` decimals and a grouped integer part (`1234.5` → `"1,234.50"`); `"-"` for null. */
export function dec(x: number | null | undefined, digits = 2): string {
  if (x === null || x === undefined) return "-";
  const fixed = Math.abs(x).toFixed(digits);
  const [whole, fraction] = fixed.split(".");
  const sign = x < 0 && Number(fixed) !== 0 ? "-" : "";
  return sign + int(Number(whole)) + (fraction === undefined ? "" : `.${fraction}`);
}

/** A money amount: 4 decimals under 1, else 2 (`0.01894` → `"0.0189"`); `"-"` for null. */
export function money(x: number | null | undefined): string {
  if (x === null || x === undefined) return "-";
  return dec(x, Math.abs(x) < 1 ? 4 : 2);
}

/** `"1 row"`, `"2 rows"`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${int(n)} ${n === 1 ? one : many}`;
}

/** Ids quoted the way messages quote them: `"a", "b" and "c"`. */
export function quotedList(ids: readonly string[]): string {
  const q = ids.map((id) => `"${id}"`);
  if (q.length <= 1) return q.join("");
  return `${q.slice(0, -1).join(", ")} and ${q[q.length - 1]}`;
}

/** The first 12 hex digits of a digest, for prose (the full digest sits in the tables). */
export function short(sha256: string): string {
  return sha256.slice(0, 12);
}
