/**
 * Inline display for the notebooks (Deno Jupyter kernel): figures as a
 * vega-lite bundle (interactive, with the spec's tooltips), PNG and SVG,
 * tables as HTML, Markdown and plain text.
 *
 * Every number shown comes from `analysis/`; this module only renders and
 * formats (fixed, locale-free formatting, so re-running a notebook gives the
 * same text). Figures are rendered by `report/render_figure.ts`, the same
 * renderer as the report, and a figure that vega reports warnings for is an
 * error (a misspelt field or an empty domain usually means a wrong figure).
 *
 * Outside the Jupyter kernel (`deno run`, `deno test`) `Deno.jupyter` does
 * not exist; {@link display} then prints the bundle's `text/plain` part.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { TopLevelSpec } from "vega-lite";
import { markdownText } from "../analysis/markdown_text.ts";
import { renderSvg, svgToPng } from "../report/render_figure.ts";

/**
 * The MIME type of the vega-lite bundle: the newest one Jupyter frontends
 * register a renderer for (JupyterLab, nteract, VS Code). The specs are
 * written for vega-lite 6 (their `$schema` says so); a frontend whose renderer
 * is older may draw them differently, and the SVG beside them is the
 * rendering the report uses.
 */
export const VEGA_LITE_MIME = "application/vnd.vegalite.v5+json";

/** A Jupyter MIME bundle: MIME type → data (text, or an object for JSON types). */
export type MediaBundle = Record<string, string | object>;

/** A table as danfojs holds it (a `dfd.DataFrame` fits). */
export interface FrameLike {
  /** Column names, in order. */
  columns: string[];
  /** One array of cells per row. */
  values: unknown[] | unknown[][];
  /** Row labels. */
  index: (string | number)[];
}

/** Options for {@link tableBundle}, {@link frameBundle} and their `show*` forms. */
export interface TableOptions {
  /** Columns to show, in order; default the keys of the first row (frames: all columns). */
  columns?: readonly string[];
  /** A caption shown above the table. */
  caption?: string;
  /** Rows shown at most; the rest are counted in a note; default 50. */
  maxRows?: number;
  /** Decimals kept for non-integers (trailing zeros dropped); default 4. */
  digits?: number;
}

/** Options for {@link figureBundle} and {@link showFigure}. */
export interface FigureOptions {
  /** Text for frontends that show neither SVG nor vega-lite; default the spec's title. */
  alt?: string;
}

/**
 * Formats one table cell: `null`/`undefined` as "—", integers as written,
 * other numbers with at most `digits` decimals (trailing zeros dropped),
 * booleans and strings as written, arrays and objects as JSON.
 *
 * @param value the cell
 * @param digits decimals kept for non-integers (default 4)
 * @returns the text shown
 * @example
 * ```ts
 * import { formatCell } from "./display.ts";
 * if (formatCell(2 / 3) !== "0.6667" || formatCell(null) !== "—") throw new Error();
 * ```
 */
export function formatCell(value: unknown, digits = 4): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number") {
    if (Number.isInteger(value) || !Number.isFinite(value)) return String(value);
    const fixed = value.toFixed(digits);
    const trimmed = fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
    return trimmed === "-0" ? "0" : trimmed;
  }
  if (typeof value === "string") return value;
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value);
}

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

function isRightAligned(rows: readonly Record<string, unknown>[], column: string): boolean {
  return rows.some((row) => typeof row[column] === "number") &&
    rows.every((row) => row[column] === null || typeof row[column] === "number");
}

/**
 * A MIME bundle for a table of records: `text/html` (a plain `<table>`),
 * `text/markdown` (GitHub table) and `text/plain` (aligned columns), all
 * showing the same cells formatted by {@link formatCell}.
 *
 * Cost: O(rows shown × columns).
 *
 * @param rows the records, one per table row
 * @param options columns, caption, row limit, decimals
 * @returns the bundle
 * @throws {RangeError} when `maxRows` is not a positive integer
 * @example
 * ```ts
 * import { tableBundle } from "./display.ts";
 * const b = tableBundle([{ agent: "a", rate: 0.75 }, { agent: "b", rate: null }]);
 * if (!String(b["text/markdown"]).includes("| a | 0.75 |")) throw new Error(String(b["text/markdown"]));
 * ```
 */
export function tableBundle(
  rows: readonly Record<string, unknown>[],
  options: TableOptions = {},
): MediaBundle {
  const maxRows = options.maxRows ?? 50;
  if (!(Number.isInteger(maxRows) && maxRows > 0)) {
    throw new RangeError(
      `Cannot build table: "maxRows" must be a positive integer, got ${maxRows}`,
    );
  }
  const digits = options.digits ?? 4;
  const columns = [...(options.columns ?? Object.keys(rows[0] ?? {}))];
  const shown = rows.slice(0, maxRows);
  const cells = shown.map((row) => columns.map((c) => formatCell(row[c], digits)));
  const right = columns.map((c) => isRightAligned(shown, c));
  const more = rows.length - shown.length;
  const note = more > 0 ? `… ${more} more row${more === 1 ? "" : "s"} (${rows.length} in all)` : "";
  const caption = options.caption ?? "";

  const th = columns.map((c, j) =>
    `<th style="text-align:${right[j] ? "right" : "left"}">${escapeHtml(c)}</th>`
  ).join("");
  const trs = cells.map((row) =>
    `<tr>${
      row.map((cell, j) =>
        `<td style="text-align:${right[j] ? "right" : "left"}">${escapeHtml(cell)}</td>`
      ).join("")
    }</tr>`
  );
  const html = [
    "<table>",
    caption === "" ? "" : `<caption style="text-align:left">${escapeHtml(caption)}</caption>`,
    `<thead><tr>${th}</tr></thead>`,
    `<tbody>${trs.join("")}</tbody>`,
    "</table>",
    note === "" ? "" : `<p>${escapeHtml(note)}</p>`,
  ].join("");

  const mdRow = (row: string[]) => `| ${row.map(markdownText).join(" | ")} |`;
  const markdown = [
    ...(caption === "" ? [] : [`**${markdownText(caption)}**`, ""]),
    mdRow(columns),
    `|${right.map((r) => (r ? " ---: " : " --- ")).join("|")}|`,
    ...cells.map(mdRow),
    ...(note === "" ? [] : ["", note]),
  ].join("\n");

  const widths = columns.map((c, j) => Math.max(c.length, ...cells.map((row) => row[j].length)));
  const pad = (text: string, j: number) =>
    right[j] ? text.padStart(widths[j]) : text.padEnd(widths[j]);
  const plainRow = (row: string[]) => row.map(pad).join("  ").trimEnd();
  const plain = [
    ...(caption === "" ? [] : [caption]),
    plainRow(columns),
    plainRow(widths.map((w) => "-".repeat(w))),
    ...cells.map(plainRow),
    ...(note === "" ? [] : [note]),
  ].join("\n");

  return { "text/html": html, "text/markdown": markdown, "text/plain": plain };
}

/**
 * A MIME bundle for a danfojs DataFrame (or anything with `columns`,
 * `values` and `index`): {@link tableBundle} of its rows, with the row label
 * as the first column (headed "" ), unless the labels are the positions
 * 0, 1, 2, … (a fresh frame's, or after `resetIndex`), which say nothing the
 * row order does not.
 *
 * @param frame the frame (`new dfd.DataFrame(...)`, `df.head()`, a groupby result)
 * @param options columns, caption, row limit, decimals
 * @returns the bundle
 * @throws {RangeError} when a row's length differs from the number of columns
 */
export function frameBundle(frame: FrameLike, options: TableOptions = {}): MediaBundle {
  const columns = frame.columns;
  const values = frame.values as unknown[];
  const positional = frame.index.every((label, i) => label === i);
  const records = values.map((row, i) => {
    const cells = Array.isArray(row) ? row : [row];
    if (cells.length !== columns.length) {
      throw new RangeError(
        `Cannot display frame: row ${i} has ${cells.length} cells for ${columns.length} columns`,
      );
    }
    const record: Record<string, unknown> = positional ? {} : { "": frame.index[i] };
    columns.forEach((c, j) => (record[c] = cells[j]));
    return record;
  });
  const shown = options.columns ?? columns;
  return tableBundle(records, { ...options, columns: positional ? shown : ["", ...shown] });
}

function specTitle(spec: TopLevelSpec): string {
  const title = (spec as { title?: unknown }).title;
  if (typeof title === "string") return title;
  if (title !== null && typeof title === "object" && "text" in title) {
    const text = (title as { text: unknown }).text;
    return Array.isArray(text) ? text.join(" ") : String(text);
  }
  return "figure";
}

/** Zoom from SVG pixels to PNG pixels of a figure's PNG: sharp on high-density screens. */
export const FIGURE_PNG_SCALE = 2;

/** The width and height attributes vega writes on an SVG's root, in CSS pixels. */
function svgSize(svg: string): { width: number; height: number } {
  const root = svg.slice(0, svg.indexOf(">"));
  const attribute = (name: string) => Number(root.match(new RegExp(` ${name}="([0-9.]+)"`))?.[1]);
  return { width: attribute("width"), height: attribute("height") };
}

/**
 * A MIME bundle for a figure, so that every frontend shows it (issue 25: an
 * executed notebook exported with `nbconvert --to html` lost every SVG):
 *
 * | part | what | who shows it |
 * | --- | --- | --- |
 * | {@link VEGA_LITE_MIME} | the spec, untouched (its tooltips and selections work) | JupyterLab, Notebook 7, VS Code (interactive) |
 * | `text/markdown` | an `<img>` of the PNG, embedded as a data URL | `nbconvert --to html`, classic Notebook |
 * | `image/png` | the PNG (base64), rendered from the SVG by resvg | GitHub, `nbconvert` formats without Markdown |
 * | `image/svg+xml` | the SVG, rendered headless as in the report | frontends without vega-lite |
 * | `text/plain` | a line naming the figure | terminals |
 *
 * A frontend picks by its own ranking of MIME types, not by the bundle's
 * order: JupyterLab ranks vega-lite (57) above Markdown (60), SVG (80) and
 * PNG (90); nbconvert's HTML exporter ranks Markdown above SVG above PNG,
 * and its HTML sanitizer (lxml's `clean_html` in nbconvert 6) strips an
 * SVG's elements, leaving only its text. The Markdown part is therefore
 * what nbconvert embeds. The keys are written in that order of preference
 * all the same. The SVG and PNG are those of `report/render_figure.ts`
 * (`renderSvg`, `svgToPng` at {@link FIGURE_PNG_SCALE}), the report's own.
 *
 * @param spec a vega-lite spec from `analysis/figures/` (inlined data)
 * @param options alternative text
 * @returns the bundle
 * @throws {Error} when the spec does not render, or renders with warnings
 *   (`Cannot display figure "<title>": vega reported ...`)
 */
export async function figureBundle(
  spec: TopLevelSpec,
  options: FigureOptions = {},
): Promise<MediaBundle> {
  const title = specTitle(spec);
  const warnings: string[] = [];
  const svg = await renderSvg(spec, warnings);
  if (warnings.length > 0) {
    throw new Error(`Cannot display figure "${title}": vega reported: ${warnings.join("; ")}`);
  }
  const png = Buffer.from(svgToPng(svg, { scale: FIGURE_PNG_SCALE })).toString("base64");
  const alt = options.alt ?? title;
  const { width } = svgSize(svg);
  const size = Number.isFinite(width) ? ` width="${width}"` : "";
  return {
    [VEGA_LITE_MIME]: spec as object,
    "text/markdown": `<img alt="${escapeHtml(alt)}"${size} src="data:image/png;base64,${png}">`,
    "image/png": png,
    "image/svg+xml": svg,
    "text/plain": options.alt ?? `[figure] ${title}`,
  };
}

/** `Deno.jupyter` when running in the Jupyter kernel, else null (it throws when read elsewhere). */
function jupyter(): typeof Deno.jupyter | null {
  try {
    return Deno.jupyter;
  } catch {
    return null;
  }
}

/**
 * Milliseconds {@link display} waits after handing a bundle to the kernel.
 *
 * Deno 2.9's kernel evaluates cells on a REPL thread and forwards
 * `display_data` messages to the iopub socket from a queue that the kernel
 * thread drains concurrently with replying "idle"; a client such as
 * `jupyter nbconvert --execute` stops collecting a cell's outputs at "idle",
 * so a display issued just before a cell ends was occasionally lost (seen in
 * about one headless run in three). Waiting lets the queue drain first: 30 ms
 * was enough on an idle machine, not for a figure's bundle (vega-lite, PNG
 * and SVG) on a loaded one (a headless run beside other work on two cores
 * lost it); 250 ms is a pause a reader does not notice.
 */
export const DISPLAY_SETTLE_MS = 250;

/**
 * Displays a MIME bundle as the output of the current cell
 * (`Deno.jupyter.display(bundle, {raw: true})`, then a pause of
 * {@link DISPLAY_SETTLE_MS}); outside the kernel, prints its `text/plain`
 * part to stdout.
 *
 * @param bundle the bundle to display
 * @returns when the kernel has had time to publish it
 */
export async function display(bundle: MediaBundle): Promise<void> {
  const kernel = jupyter();
  if (kernel === null) {
    console.log(String(bundle["text/plain"] ?? ""));
    return;
  }
  await kernel.display(bundle, { raw: true });
  await new Promise((resolve) => setTimeout(resolve, DISPLAY_SETTLE_MS));
}

/**
 * Displays a figure inline: vega-lite, an embedded PNG, PNG and SVG ({@link figureBundle}).
 *
 * @param spec a vega-lite spec from `analysis/figures/`
 * @param options alternative text
 * @throws {Error} when the spec does not render, or renders with warnings
 */
export async function showFigure(spec: TopLevelSpec, options: FigureOptions = {}): Promise<void> {
  await display(await figureBundle(spec, options));
}

/**
 * Displays records as a table ({@link tableBundle}).
 *
 * @param rows the records
 * @param options columns, caption, row limit, decimals
 */
export async function showTable(
  rows: readonly Record<string, unknown>[],
  options: TableOptions = {},
): Promise<void> {
  await display(tableBundle(rows, options));
}

/**
 * Displays a danfojs DataFrame as a table ({@link frameBundle}).
 *
 * @param frame the frame
 * @param options columns, caption, row limit, decimals
 */
export async function showFrame(frame: FrameLike, options: TableOptions = {}): Promise<void> {
  await display(frameBundle(frame, options));
}

/**
 * Displays Markdown text (with the same text as `text/plain`).
 *
 * @param text Markdown
 */
export async function showMarkdown(text: string): Promise<void> {
  await display({ "text/markdown": text, "text/plain": text });
}

/**
 * Displays a danfojs DataFrame ({@link frameBundle}, its row labels first)
 * or an array of records ({@link tableBundle}) as a table: HTML, Markdown
 * with every cell escaped (an id keeps its underscores) and aligned text.
 *
 * @param table a frame or records
 * @param options columns, caption, row limit, decimals
 * @example
 * ```ts
 * import { show } from "./display.ts";
 * // Outside the Jupyter kernel the table is printed as text.
 * await show([{ agent: "a", rate: 0.75 }], { caption: "Rates" });
 * ```
 */
export async function show(
  table: FrameLike | readonly Record<string, unknown>[],
  options: TableOptions = {},
): Promise<void> {
  await display(
    Array.isArray(table)
      ? tableBundle(table as readonly Record<string, unknown>[], options)
      : frameBundle(table as FrameLike, options),
  );
}
