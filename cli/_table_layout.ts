/**
 * The one layout of the CLI's text tables (issue 25: tables 145 to 364
 * columns wide that ignored the terminal).
 *
 * The width ({@link outputWidth}): `--width N` when given; else the
 * terminal's columns when stdout is a terminal (`Deno.consoleSize()`); else
 * the `COLUMNS` variable when it holds a whole number; else
 * {@link DEFAULT_WIDTH} (100).
 *
 * The rules ({@link fitTable}), applied in this order until the table fits:
 * 1. a table that fits is printed as `renderTable` prints it (columns
 *    padded to their widest cell, two spaces apart, a dashed rule under the
 *    header), ids shown by `displayId`;
 * 2. a column whose every cell is the same (at least two rows; never a key
 *    or an essential column) leaves the table for a line under it,
 *    `<header>: <cell> (every row)`: nothing is lost;
 * 3. ids are shortened by `fitId` (their head and real tail, never a hash),
 *    each id column down to 20 characters at the least (12 when, after
 *    rule 4, nothing else can give way), a column's ids together by
 *    `distinctShortIds`, so that two ids of the column never read the same
 *    (ids that differ only in the middle keep as much head as tells them
 *    apart, which may widen the column); a shortened agent id is
 *    listed in full once, in a key under the first table that shortens it
 *    (`--json` always has every id in full);
 * 4. the columns of the lowest priority move, a priority group at a time,
 *    to a second table that repeats the key columns (rank and agent), so
 *    no column is ever cut; that table is laid out by the same rules;
 * 5. a number or any other cell is never truncated: a line that is still
 *    too wide (a width below what the key columns need, a long path in a
 *    sentence) is folded by {@link fitLines}, so that no line ever exceeds
 *    the width.
 *
 * The other text follows the same width: `key: value` pairs by
 * {@link fitPairs} (a value continues under itself), every other line by
 * {@link fitLines}; a command's `emit` with a `width` folds its whole text
 * report so (`_output.ts`), never its `--json`.
 *
 * @module
 */
import { distinctShortIds, fitId, lineText } from "../analysis/untrusted_text.ts";
import type { ParsedArgs } from "./_args.ts";
import { UsageError } from "./_command.ts";

/** The width without `--width`, a terminal or `COLUMNS`. */
export const DEFAULT_WIDTH = 100;

/** The narrowest `--width` accepted. */
export const MIN_WIDTH = 40;

/** The narrowest an id column is shortened to (when its ids are longer). */
export const MIN_ID_WIDTH = 20;

/** The narrowest an id column is shortened to when nothing else can give way. */
const LAST_ID_WIDTH = 12;

/** The `--width` option. */
export const WIDTH_OPTION = { width: { type: "string" } } as const;

/** Its help lines, in the layout of the commands' OPTIONS sections. */
export const WIDTH_HELP =
  `  --width N           Width of the text output in columns, at least ${MIN_WIDTH}
                      (default: the terminal's, else $COLUMNS, else ${DEFAULT_WIDTH}):
                      long ids are shortened (head and real tail) and
                      columns that do not fit move to a second table`;

/**
 * {@link WIDTH_HELP} with its descriptions starting at `column` instead of
 * 22, for an OPTIONS section laid out at another column.
 *
 * @param column where the descriptions of the section start (at least 12)
 * @returns the help lines of `--width`
 * @example
 * ```ts
 * import { widthHelpAt } from "./_table_layout.ts";
 * if (!widthHelpAt(19).startsWith("  --width N        Width")) throw new Error();
 * ```
 */
export function widthHelpAt(column: number): string {
  const at = Math.max(12, column);
  const [first, ...rest] = WIDTH_HELP.split("\n").map((line) => line.trim());
  const description = first.slice("--width N".length).trimStart();
  return [
    "  --width N".padEnd(at) + description,
    ...rest.map((line) => " ".repeat(at) + line),
  ].join("\n");
}

/**
 * The width of a command's text output (module doc): `--width`, else the
 * terminal's columns when stdout is a terminal, else `COLUMNS`, else
 * {@link DEFAULT_WIDTH}.
 *
 * @param values the parsed options (`width`)
 * @returns the width in columns
 * @throws {UsageError} when `--width` is not a whole number of at least {@link MIN_WIDTH}
 */
export function outputWidth(values: ParsedArgs["values"]): number {
  const flag = values.width;
  if (typeof flag === "string") {
    const n = Number(flag);
    if (!/^\d+$/.test(flag) || n < MIN_WIDTH) {
      throw new UsageError(
        `Option "--width" must be a whole number of at least ${MIN_WIDTH}: "${flag}"`,
      );
    }
    return n;
  }
  try {
    if (Deno.stdout.isTerminal()) {
      const columns = Deno.consoleSize().columns;
      if (columns > 0) return Math.max(MIN_WIDTH, columns);
    }
  } catch {
    // no console size: fall through to COLUMNS
  }
  const env = Deno.env.get("COLUMNS");
  if (env !== undefined && /^\d+$/.test(env) && Number(env) > 0) {
    return Math.max(MIN_WIDTH, Number(env));
  }
  return DEFAULT_WIDTH;
}

/** One column of a fitted table. */
export interface FitColumn {
  header: string;
  align?: "left" | "right";
  /** The column holds ids: shown by `fitId`, shortened when the table does not fit. */
  id?: boolean;
  /** Repeated in every part of a folded table (rank, agent). */
  key?: boolean;
  /**
   * Which columns move to the second table first: those of the highest
   * priority number, together (a group: tokens, TPR and SPR move as one);
   * 0 never moves; default 1.
   */
  priority?: number;
  /** A shortened id of this column is listed in full in the key (agent ids). */
  keyed?: boolean;
}

/** The width and the ids already listed in full, shared by the tables of one output. */
export class TableContext {
  /** Ids listed in full in a key already (shown → full). */
  readonly keyed = new Map<string, string>();
  /**
   * @param width the output's width (see {@link outputWidth})
   */
  constructor(readonly width: number) {}
}

/** Display length in columns: code points (every cell is escaped to printable characters). */
export function displayLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Lays out a table by the module doc's rules at `context.width`: the
 * table, the lines of its uniform columns, its continuation tables, and a
 * key of the agent ids it shortened that no earlier table listed.
 * O(cells × columns) at worst (one priority group moves at a time).
 *
 * @param context the output's width and key
 * @param columns the columns, in order
 * @param rows the cells, one array per row (untrusted: escaped here)
 * @returns the text, each line ending in a newline, none wider than the width
 * @example
 * ```ts
 * import { fitTable, TableContext } from "./_table_layout.ts";
 * const text = fitTable(new TableContext(40), [
 *   { header: "agent", id: true, key: true },
 *   { header: "rate", align: "right" },
 *   { header: "a long note column", priority: 1 },
 * ], [["a", "40.0%", "x".repeat(30)]]);
 * if (text.split("\n").some((line) => line.length > 40)) throw new Error(text);
 * ```
 */
export function fitTable(
  context: TableContext,
  columns: readonly FitColumn[],
  rows: readonly string[][],
): string {
  const cells = rows.map((row) => columns.map((_, i) => row[i] ?? ""));
  const newlyKeyed: [string, string][] = [];
  const text = fitPart(context, columns.map((_, i) => i), columns, cells, newlyKeyed);
  if (newlyKeyed.length === 0) return text;
  const shortWidth = newlyKeyed.reduce((most, [shown]) => Math.max(most, displayLength(shown)), 0);
  let key = "ids shortened above, in full:\n";
  for (const [shown, full] of newlyKeyed) {
    key += fitLines(`  ${shown.padEnd(shortWidth)}  ${lineText(full)}\n`, context.width);
  }
  return text + key;
}

/** The natural width of an id cell: `fitId` at 48 (`displayId`'s rule). */
const NATURAL_ID = 48;

function fitPart(
  context: TableContext,
  indices: number[],
  columns: readonly FitColumn[],
  cells: string[][],
  newlyKeyed: [string, string][],
): string {
  const width = context.width;
  // An id column's ids are shortened together (`distinctShortIds`), once per length tried.
  const shortened = new Map<string, Map<string, string>>();
  const idAt = (i: number, id: string, length: number) => {
    const key = `${i}:${length}`;
    if (!shortened.has(key)) {
      const ids = [...new Set(cells.map((row) => row[i]))];
      const forms = distinctShortIds(ids, length);
      shortened.set(key, new Map(ids.map((one, k) => [one, forms[k]])));
    }
    return shortened.get(key)!.get(id)!;
  };
  const plain = (i: number, cell: string) =>
    columns[i].id ? idAt(i, cell, NATURAL_ID) : lineText(cell);
  const natural = (i: number) =>
    Math.max(
      displayLength(columns[i].header),
      ...cells.map((row) => displayLength(plain(i, row[i]))),
    );
  const total = (list: number[], widthOf: (i: number) => number) =>
    list.reduce((sum, i) => sum + widthOf(i), 0) + 2 * Math.max(0, list.length - 1);
  let shown = [...indices];
  let notes = "";
  if (total(shown, natural) > width) {
    // rule 2: uniform columns leave the table for a line under it
    const uniform = shown.filter((i) =>
      !columns[i].key && (columns[i].priority ?? 1) > 0 && cells.length >= 2 &&
      cells.every((row) => row[i] === cells[0][i])
    );
    if (uniform.length > 0) {
      shown = shown.filter((i) => !uniform.includes(i));
      notes = uniform.map((i) => `${columns[i].header}: ${lineText(cells[0][i])} (every row)\n`)
        .join("");
    }
  }
  // rule 3: the narrowest each id column may be
  const minimum = (i: number) =>
    columns[i].id
      ? Math.min(
        natural(i),
        Math.max(
          MIN_ID_WIDTH,
          displayLength(columns[i].header),
          distinctWidth(cells.map((row) => row[i])),
        ),
      )
      : natural(i);
  // rule 4: move columns out until the rest fits with ids at their narrowest
  const moved: number[] = [];
  const movable = () => shown.filter((i) => !columns[i].key && (columns[i].priority ?? 1) > 0);
  // A table keeps at least one column besides its keys, so that each continuation is narrower
  // than the table it continues and the layout ends.
  const rest = () => shown.filter((i) => !columns[i].key).length;
  while (total(shown, minimum) > width && movable().length > 0 && rest() > 1) {
    const candidates = movable();
    const top = Math.max(...candidates.map((i) => columns[i].priority ?? 1));
    let out = candidates.filter((i) => (columns[i].priority ?? 1) === top);
    if (out.length >= rest()) out = out.slice(1);
    shown = shown.filter((i) => !out.includes(i));
    moved.unshift(...out);
  }
  // still too wide with nothing left to move: the id columns shrink further, to 12 at the least
  const widths = new Map(shown.map((i) => [i, minimum(i)]));
  for (const i of shown) {
    const excess = total(shown, (k) => widths.get(k)!) - width;
    if (!columns[i].id || excess <= 0) continue;
    const ids = cells.map((row) => row[i]);
    let length = Math.max(LAST_ID_WIDTH, widths.get(i)! - excess, displayLength(columns[i].header));
    while (
      length < widths.get(i)! &&
      new Set(ids.map((id) => fitId(id, length))).size < new Set(ids).size
    ) {
      length++;
    }
    widths.set(i, Math.min(widths.get(i)!, length));
  }
  // widen the id columns back as far as the width allows, first column first
  let spare = width - total(shown, (i) => widths.get(i)!);
  for (const i of shown) {
    if (!columns[i].id || spare <= 0) continue;
    const grow = Math.min(spare, natural(i) - widths.get(i)!);
    widths.set(i, widths.get(i)! + grow);
    spare -= grow;
  }
  // a column whose ids need more than its width to stay apart takes what they need
  for (const i of shown) {
    if (!columns[i].id) continue;
    const length = widths.get(i)!;
    // a fold, not a spread: a table can have more rows than a call has room for arguments
    const needed = cells.reduce(
      (most, row) => Math.max(most, displayLength(idAt(i, row[i], length))),
      -Infinity,
    );
    widths.set(i, Math.max(length, needed));
  }
  const cell = (i: number, text: string) => {
    if (!columns[i].id) return lineText(text);
    const fitted = idAt(i, text, widths.get(i)!);
    if (columns[i].keyed && fitted !== lineText(text) && !context.keyed.has(fitted)) {
      context.keyed.set(fitted, text);
      newlyKeyed.push([fitted, text]);
    }
    return fitted;
  };
  const body = cells.map((row) => shown.map((i) => cell(i, row[i])));
  const padded = (texts: string[]) =>
    texts.map((text, k) => {
      const i = shown[k];
      const pad = " ".repeat(Math.max(0, widths.get(i)! - displayLength(text)));
      return columns[i].align === "right" ? pad + text : text + pad;
    }).join("  ").trimEnd() + "\n";
  let text = padded(shown.map((i) => columns[i].header)) +
    padded(shown.map((i) => "-".repeat(widths.get(i)!))) +
    body.map(padded).join("");
  text = fitLines(text, width) + fitLines(notes, width);
  if (moved.length === 0) return text;
  const keys = indices.filter((i) => columns[i].key);
  moved.sort((x, y) => x - y);
  return text + "\n" + fitPart(context, [...keys, ...moved], columns, cells, newlyKeyed);
}

/** The narrowest `fitId` length at which the ids of a column stay distinct (O(ids × length)). */
function distinctWidth(ids: readonly string[]): number {
  const unique = [...new Set(ids)];
  const longest = Math.max(0, ...unique.map((id) => displayLength(lineText(id))));
  for (let length = MIN_ID_WIDTH; length < Math.min(longest, NATURAL_ID); length++) {
    if (new Set(unique.map((id) => fitId(id, length))).size === unique.length) return length;
  }
  return Math.min(longest, NATURAL_ID);
}

/**
 * Folds every line longer than `width` (module doc, rule 5): at the last
 * space that fits, the continuation indented two spaces past the line's own
 * indent; a word longer than the room is cut across lines (a path, a
 * digest), never dropped. Lines that fit are unchanged. O(length).
 *
 * @param text lines, each ending in a newline
 * @param width the most columns per line
 * @returns the same words, no line wider than `width`
 * @example
 * ```ts
 * import { fitLines } from "./_table_layout.ts";
 * if (fitLines("aaa bbb ccc\n", 8) !== "aaa bbb\n  ccc\n") throw new Error();
 * ```
 */
export function fitLines(text: string, width: number): string {
  if (text === "") return "";
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const out: string[] = [];
  for (const line of lines) {
    const own = /^ */.exec(line)![0];
    foldLine(out, line, width, own.length + 2 <= width / 2 ? own + "  " : "", own.length);
  }
  return out.join("\n") + "\n";
}

/**
 * Renders `key: value` pairs as `renderPairs` does (keys padded to the
 * longest one, values escaped, never shortened) and folds a value that does
 * not fit at `width`: its continuation lines start under the value when the
 * keys take at most half the width, else two spaces in. O(length).
 *
 * @param pairs the keys and values, in order
 * @param width the most columns per line
 * @returns one line per pair or more, each ending with a newline
 * @example
 * ```ts
 * import { fitPairs } from "./_table_layout.ts";
 * if (fitPairs([["seed", "7"], ["path", "aaa bbb ccc"]], 14) !== "seed:  7\npath:  aaa bbb\n       ccc\n") {
 *   throw new Error();
 * }
 * ```
 */
export function fitPairs(pairs: readonly [string, string][], width: number): string {
  const keyWidth = Math.max(0, ...pairs.map(([key]) => displayLength(key)));
  const column = keyWidth + 3;
  const indent = " ".repeat(column <= width / 2 ? column : 2);
  const out: string[] = [];
  for (const [key, value] of pairs) {
    const pad = " ".repeat(keyWidth - displayLength(key));
    // a first line never holds the key alone when the value would continue at the same column
    foldLine(out, `${key}:${pad}  ${lineText(value)}`, width, indent, indent.length);
  }
  return out.length === 0 ? "" : out.join("\n") + "\n";
}

/**
 * Pushes `line` onto `out` folded at `width` (see {@link fitLines}), continuations after
 * `indent`; the first line is cut at a space past column `keep`, else mid-word.
 */
function foldLine(out: string[], line: string, width: number, indent: string, keep: number): void {
  if (displayLength(line) <= width) {
    out.push(line);
    return;
  }
  let rest = [...line];
  let first = true;
  while (rest.length > 0) {
    const prefix = first ? [] : [...indent];
    if (!first) {
      while (rest[0] === " ") rest = rest.slice(1);
      if (rest.length === 0) break;
    }
    const room = width - prefix.length;
    if (rest.length <= room) {
      out.push([...prefix, ...rest].join(""));
      break;
    }
    let cut = -1;
    for (let k = room; k > 0; k--) {
      if (rest[k] === " ") {
        cut = k;
        break;
      }
    }
    if (cut <= (first ? keep : 0)) cut = room;
    out.push([...prefix, ...rest.slice(0, cut)].join("").trimEnd());
    rest = rest.slice(cut);
    first = false;
  }
}
