/**
 * Fixed, locale-free number formatting for figure labels, so that the same
 * results give the same spec bytes on every machine (no `toLocaleString`); the
 * arithmetic is analysis/format_number.ts's, shared with the report.
 *
 * Private to `analysis/figures/`.
 *
 * @module
 */
import { formatGrouped, formatPercent } from "../format_number.ts";
import { displayId, distinctShortIds, lineText } from "../untrusted_text.ts";

/** The true minus sign the figures write (U+2212). */
const MINUS = "\u2212";

/** `x` as a percentage with `digits` decimals: `0.75` → `"75.0%"` ({@link formatPercent}). */
export function percent(x: number, digits = 1): string {
  return formatPercent(x, digits);
}

/** An integer with comma grouping and a true minus sign (U+2212): `1234567.4` → `"1,234,567"`. */
export function grouped(x: number): string {
  return formatGrouped(x, { minus: MINUS });
}

/** `x` with `digits` decimals and comma grouping of the integer part: `1234.5` → `"1,234.50"`. */
export function decimal(x: number, digits: number): string {
  return formatGrouped(x, { digits, minus: MINUS });
}

/** A value with up to three significant decimals for small magnitudes, grouped for large ones. */
export function compact(x: number): string {
  const size = Math.abs(x);
  if (size >= 100) return grouped(x);
  if (size >= 10) return decimal(x, 1);
  if (size >= 1) return decimal(x, 2);
  return decimal(x, 3);
}

/** Quotes agent ids the way error messages do: `"a", "b"`. */
export function quoted(ids: readonly string[]): string {
  return ids.map((id) => `"${id}"`).join(", ");
}

/**
 * Breaks `text` into lines of at most `maxChars` characters at spaces (a word
 * longer than the limit gets a line of its own).
 */
export function wrap(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= maxChars) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines;
}

/** Ids up to this many characters are shown whole in a tooltip. */
const TOOLTIP_ID_MAX = 200;

/**
 * An id as a figure's tooltip shows it (issue 25 item 5): whole, through
 * `lineText` (no control or bidirectional character), up to 200
 * characters, so a label shortened by `displayId` can be read in full;
 * longer (hostile) ids as `displayId` shortens them, so a spec's size stays
 * bounded.
 *
 * @param id an untrusted id
 * @returns the id to put in the tooltip's data
 */
export function tooltipId(id: string): string {
  return id.length <= TOOLTIP_ID_MAX ? lineText(id) : displayId(id);
}

/**
 * The names a figure shows its agents by: their ids shortened together
 * (`distinctShortIds`), so that no two agents of one figure look alike (a
 * figure keys its marks by these names); an id outside `ids` by `displayId`.
 * O(total length of the ids).
 *
 * @param ids the figure's agent ids
 * @returns the name of an agent id
 */
export function agentNames(ids: readonly string[]): (id: string) => string {
  const shown = distinctShortIds(ids);
  const byId = new Map(ids.map((id, i) => [id, shown[i]]));
  return (id) => byId.get(id) ?? displayId(id);
}
