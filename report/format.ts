/**
 * The one formatter of human-readable output: fixed, locale-free numbers (no
 * `toLocaleString`, no `Intl`, so the same results give the same bytes on
 * every machine; the arithmetic is analysis/format_number.ts's, shared with
 * the figures), `"-"` for a missing value, and the plain-text tables of every
 * CLI command. The report's prose and tables and the CLI's text output both
 * use it; JSON output never does (it is written by `canonicalJson` from the
 * full-precision values).
 *
 * Untrusted text (ids, values from a ledger) reaches a table or a quoted list
 * only through `analysis/figures/untrusted_text.ts`.
 *
 * @module
 */
import { formatGrouped, formatPercent } from "../analysis/format_number.ts";
import { distinctShortIds, lineText } from "../analysis/untrusted_text.ts";

/**
 * A rate as a percentage with fixed decimals (`0.75` → `"75.0%"`).
 *
 * @param x the rate; null or undefined gives `"-"`
 * @param digits decimals (default 1)
 * @returns `toFixed` of 100 x, with a percent sign ({@link formatPercent})
 */
export function percent(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? "-" : formatPercent(x, digits);
}

/**
 * An interval of rates as `[25.0%, 100.0%]`.
 *
 * @param interval lower and upper bounds, as a pair or as `{lower, upper}`; null or undefined
 *   gives `"-"`
 * @param digits decimals (default 1)
 * @returns both bounds through {@link percent}, bracketed
 */
export function percentInterval(
  interval: readonly [number, number] | { lower: number; upper: number } | null | undefined,
  digits = 1,
): string {
  if (interval === null || interval === undefined) return "-";
  const [lower, upper] = "lower" in interval ? [interval.lower, interval.upper] : interval;
  return `[${percent(lower, digits)}, ${percent(upper, digits)}]`;
}

/**
 * A p-value as every table prints it: 3 decimals, or `< 0.001` below 0.001
 * (issue 25: `0.000` read as an impossible p of zero, and an exponent form
 * claims digits the test's resolution does not give).
 *
 * @param x the p-value, in [0, 1]; null or undefined gives `"-"`
 * @returns e.g. `0.042`, `< 0.001`
 * @example
 * ```ts
 * import { pValue } from "./format.ts";
 * if (pValue(0.0421) !== "0.042" || pValue(0.00002) !== "< 0.001") throw new Error();
 * ```
 */
export function pValue(x: number | null | undefined): string {
  if (x === null || x === undefined) return "-";
  return x < 0.001 ? "< 0.001" : x.toFixed(3);
}

/** What a figure built on agent-reported tokens carries after it (issue 23). */
export const AGENT_REPORTED = " (agent-reported)";

/** A figure the rows did not record (issue 11), never shown as 0. */
export const NOT_RECORDED = "not recorded";

/**
 * A token total as a cell (issue 23: not recorded is never 0, and an
 * agent-reported count is marked as such): `not recorded` when some row
 * did not record its tokens, `-` when there is nothing to sum, else the
 * grouped integer, followed by `(agent-reported)` when the agent itself
 * reported some of the counts.
 *
 * @param figures the total, the rows that did not record tokens, the agent-reported rows
 * @returns the cell text
 * @example
 * ```ts
 * import { tokensText } from "./format.ts";
 * const none = { tokens: null, rows_without_tokens: 552, agent_reported_token_rows: 0 };
 * if (tokensText(none) !== "not recorded") throw new Error();
 * const zero = { tokens: 0, rows_without_tokens: 0, agent_reported_token_rows: 1 };
 * if (tokensText(zero) !== "0 (agent-reported)") throw new Error();
 * ```
 */
export function tokensText(
  figures: {
    tokens: number | null;
    rows_without_tokens: number;
    agent_reported_token_rows: number;
  },
): string {
  if (figures.tokens === null) return figures.rows_without_tokens > 0 ? NOT_RECORDED : "-";
  return integer(figures.tokens) +
    (figures.agent_reported_token_rows > 0 ? AGENT_REPORTED : "");
}

/**
 * A count with comma grouping (`1234567.4` → `"1,234,567"`), rounded to an integer.
 *
 * @param x the number; null or undefined gives `"-"`
 * @returns the grouped digits, with a leading `-` when negative ({@link formatGrouped})
 */
export function integer(x: number | null | undefined): string {
  return x === null || x === undefined ? "-" : formatGrouped(x);
}

/**
 * A decimal number with a grouped integer part (`1234.5` → `"1,234.50"`).
 *
 * @param x the number; null or undefined gives `"-"`
 * @param digits decimals (default 2)
 * @returns `toFixed(digits)` with comma grouping ({@link formatGrouped})
 */
export function decimal(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? "-" : formatGrouped(x, { digits });
}

/**
 * A decimal number without grouping (`1234.5` → `"1234.50"`), for the CLI's
 * columns of ratios.
 *
 * @param x the number; null or undefined gives `"-"`
 * @param digits decimals (default 2)
 * @returns `x.toFixed(digits)`
 */
export function fixed(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined ? "-" : x.toFixed(digits);
}

/**
 * A decimal number with an explicit sign (`+0.4055`, `-0.4055`); a value that
 * rounds to zero prints as `0.0000`, never `-0.0000`.
 *
 * @param x the number; null or undefined gives `"-"`
 * @param digits decimals (default 4)
 * @returns `x.toFixed(digits)`, with `+` when positive
 */
export function signedFixed(x: number | null | undefined, digits = 4): string {
  if (x === null || x === undefined) return "-";
  const text = x.toFixed(digits);
  if (/^-?0\.?0*$/.test(text)) return text.replace("-", "");
  return x > 0 ? `+${text}` : text;
}

/**
 * A money amount: 4 decimals under 1, else 2 (`0.01894` → `"0.0189"`).
 *
 * @param x the amount; null or undefined gives `"-"`
 * @returns the amount through {@link decimal}
 */
export function money(x: number | null | undefined): string {
  if (x === null || x === undefined) return "-";
  return decimal(x, Math.abs(x) < 1 ? 4 : 2);
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
  return `${integer(n)} ${n === 1 ? one : many}`;
}

/**
 * Ids quoted the way messages quote them, `"a", "b" and "c"`, each shown by
 * `distinctShortIds` (escaped, shortened past 48 characters, never two
 * alike).
 *
 * @param ids the ids, in order
 * @returns the quoted list joined with commas and a final "and"
 */
export function quotedList(ids: readonly string[]): string {
  const q = distinctShortIds(ids).map((id) => `"${id}"`);
  if (q.length <= 1) return q.join("");
  return `${q.slice(0, -1).join(", ")} and ${q[q.length - 1]}`;
}

/** One column of a plain-text table: its header and alignment (numbers right, text left). */
export interface Column {
  header: string;
  align?: "left" | "right";
  /** The column holds ids (agent, task, episode, model): they are shown by `distinctShortIds`. */
  id?: boolean;
}

/**
 * Renders rows under headers, columns padded to their widest cell and
 * separated by two spaces, with a dashed rule under the header. Every cell is
 * untrusted: it is shown by `lineText` (control, bidirectional and line
 * separator characters escaped, so a cell stays on its line and in its
 * order), and the cells of an `id` column together by `distinctShortIds`
 * (also shortened past 48 characters, never two alike), so no id can
 * reorder, split or stretch a row.
 * O(cells).
 *
 * @param columns the headers and alignments
 * @param rows the cells, one array per row
 * @returns the table, one line per row, each ending with a newline
 * @example
 * ```ts
 * import { renderTable } from "./format.ts";
 * const text = renderTable([{ header: "agent" }, { header: "n", align: "right" }], [["a", "4"]]);
 * if (text !== "agent  n\n-----  -\na      4\n") throw new Error(text);
 * ```
 */
export function renderTable(columns: readonly Column[], rows: readonly string[][]): string {
  // An id column's ids are shortened together, so that no two read the same.
  const idForms = columns.map((column, i) =>
    column.id === true ? distinctShortIds(rows.map((row) => row[i] ?? "")) : null
  );
  const shown = rows.map((row, r) => row.map((cell, i) => idForms[i]?.[r] ?? lineText(cell)));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...shown.map((row) => (row[i] ?? "").length))
  );
  const line = (cells: string[]) =>
    cells.map((cell, i) =>
      columns[i].align === "right" ? cell.padStart(widths[i]) : cell.padEnd(widths[i])
    ).join("  ").trimEnd() + "\n";
  return line(columns.map((column) => column.header)) +
    line(widths.map((width) => "-".repeat(width))) +
    shown.map((row) => line(row)).join("");
}

/**
 * Renders `key: value` pairs, keys padded to the longest one; each value is
 * shown by `lineText` (escaped, never shortened: values hold paths and digests).
 *
 * @param pairs the keys and values, in order
 * @returns one line per pair, each ending with a newline
 * @example
 * ```ts
 * import { renderPairs } from "./format.ts";
 * if (renderPairs([["seed", "7"], ["rounds", "2000"]]) !== "seed:    7\nrounds:  2000\n") throw new Error();
 * ```
 */
export function renderPairs(pairs: readonly [string, string][]): string {
  const width = Math.max(0, ...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => `${(key + ":").padEnd(width + 1)}  ${lineText(value)}\n`)
    .join("");
}
