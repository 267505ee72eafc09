/**
 * Headless rendering of the figure specs built by `analysis/figures/`:
 * vega-lite spec → vega spec (`vega-lite` compile) → vega View with renderer
 * `"none"` → SVG text (`view.toSVG()`), and SVG → PNG with resvg.
 *
 * Determinism: the same spec gives the same SVG bytes on every machine. Text
 * widths come from a table of DejaVu Sans advance widths (see
 * {@link dejaVuTextWidth}), never from a canvas that may or may not be
 * installed, and specs carry fixed sizes and inlined data. The PNG is deterministic on one machine; across
 * machines it depends on the installed fonts (the figures ask for DejaVu Sans,
 * which Debian ships in `fonts-dejavu-core`).
 *
 * @module
 */
import * as vega from "vega";
import { compile } from "vega-lite";
import type { TopLevelSpec } from "vega-lite";
import { Resvg } from "@resvg/resvg-js";

/** The font family resvg falls back to when a figure names none it can find. */
export const DEFAULT_FONT_FAMILY = "DejaVu Sans";

/** Options for {@link svgToPng}. */
export interface SvgToPngOptions {
  /** Zoom factor from SVG pixels to PNG pixels; default 2 (sharp on high-density screens). */
  scale?: number;
  /** Family used for generic and missing families; default {@link DEFAULT_FONT_FAMILY}. */
  fontFamily?: string;
  /** Extra font files to load besides the system fonts. */
  fontFiles?: string[];
}

/** Options for {@link renderFigure}. */
export type RenderFigureOptions = SvgToPngOptions;

/** One rendered figure. */
export interface RenderedFigure {
  /** The SVG document, as vega writes it. */
  svg: string;
  /** The PNG bytes, rendered from `svg` by resvg. */
  png: Uint8Array;
  /** Warnings vega-lite and vega logged while compiling and running the spec, in order. */
  warnings: string[];
}

/** A vega logger that records warnings and errors instead of printing them. */
function collectingLogger(warnings: string[]): vega.LoggerInterface {
  let current = vega.Warn;
  const logger: vega.LoggerInterface = {
    level(value?: number) {
      if (value === undefined) return current as never;
      current = value;
      return logger as never;
    },
    error(...args: readonly unknown[]) {
      warnings.push(`error: ${args.map(String).join(" ")}`);
      return logger;
    },
    warn(...args: readonly unknown[]) {
      if (current >= vega.Warn) warnings.push(args.map(String).join(" "));
      return logger;
    },
    info() {
      return logger;
    },
    debug() {
      return logger;
    },
  } as vega.LoggerInterface;
  return logger;
}

/**
 * Advance widths of DejaVu Sans (regular and bold) for the printable ASCII
 * characters U+0020..U+007E, in thousandths of an em, read from the `hmtx`
 * table of Debian's fonts-dejavu-core 2.37 (`DejaVuSans.ttf`,
 * `DejaVuSans-Bold.ttf`; 2048 units per em, rounded).
 */
const ASCII_WIDTHS = {
  regular: [
    318,
    401,
    460,
    838,
    636,
    950,
    780,
    275,
    390,
    390,
    500,
    838,
    318,
    361,
    318,
    337,
    636,
    636,
    636,
    636,
    636,
    636,
    636,
    636,
    636,
    636,
    337,
    337,
    838,
    838,
    838,
    531,
    1000,
    684,
    686,
    698,
    770,
    632,
    575,
    775,
    752,
    295,
    295,
    656,
    557,
    863,
    748,
    787,
    603,
    787,
    695,
    635,
    611,
    732,
    684,
    989,
    685,
    611,
    685,
    390,
    337,
    390,
    838,
    500,
    500,
    613,
    635,
    550,
    635,
    615,
    352,
    635,
    634,
    278,
    278,
    579,
    278,
    974,
    634,
    612,
    635,
    635,
    411,
    521,
    392,
    634,
    592,
    818,
    592,
    592,
    525,
    636,
    337,
    636,
    838,
  ],
  bold: [
    348,
    456,
    521,
    838,
    696,
    1002,
    872,
    306,
    457,
    457,
    523,
    838,
    380,
    415,
    380,
    365,
    696,
    696,
    696,
    696,
    696,
    696,
    696,
    696,
    696,
    696,
    400,
    400,
    838,
    838,
    838,
    580,
    1000,
    774,
    762,
    734,
    830,
    683,
    683,
    821,
    837,
    372,
    372,
    775,
    637,
    995,
    837,
    850,
    733,
    850,
    770,
    720,
    682,
    812,
    774,
    1103,
    771,
    724,
    725,
    457,
    365,
    457,
    838,
    500,
    500,
    675,
    716,
    593,
    716,
    678,
    435,
    716,
    712,
    343,
    343,
    665,
    343,
    1042,
    712,
    687,
    716,
    716,
    493,
    595,
    478,
    712,
    652,
    924,
    645,
    652,
    582,
    712,
    365,
    712,
    838,
  ],
};

/** Widths of the non-ASCII characters the figures use (same source and unit). */
const OTHER_WIDTHS: Record<string, [number, number]> = {
  "×": [838, 838],
  "≤": [838, 838],
  "≥": [838, 838],
  "–": [500, 500],
  "—": [1000, 1000],
  "±": [838, 838],
  "→": [838, 838],
  "·": [318, 380],
  "…": [1000, 1000],
  "−": [838, 838],
  "²": [401, 438],
  "µ": [636, 736],
  "σ": [634, 779],
  "α": [659, 687],
  "β": [638, 716],
  "≈": [838, 838],
  "’": [318, 380],
  "“": [518, 657],
  "”": [518, 657],
  "°": [500, 500],
};

/**
 * Width in pixels of `text` set in DejaVu Sans at `fontSize`, without kerning:
 * the layout metric vega uses for every figure (see the module doc).
 *
 * Rule: Σ advance width (em) × fontSize, with the `hmtx` advance widths of
 * DejaVu Sans (or DejaVu Sans Bold) for printable ASCII and a few symbols;
 * other characters count as 1 em when CJK (U+2E80 and up), else as a digit
 * (0.64 em regular, 0.70 em bold). O(text length).
 *
 * @param text the text, one line
 * @param fontSize font size in pixels
 * @param bold whether the text is bold
 * @returns the width in pixels
 * @example
 * ```ts
 * import { dejaVuTextWidth } from "./render_figure.ts";
 * // "H" is 1540/2048 em wide in DejaVu Sans: 7.52 px at 10 px.
 * if (dejaVuTextWidth("H", 10) !== 7.52) throw new Error("width");
 * ```
 */
export function dejaVuTextWidth(text: string, fontSize: number, bold = false): number {
  const table = bold ? ASCII_WIDTHS.bold : ASCII_WIDTHS.regular;
  let sum = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 32 && code <= 126) sum += table[code - 32];
    else if (Object.hasOwn(OTHER_WIDTHS, ch)) sum += OTHER_WIDTHS[ch][bold ? 1 : 0];
    else sum += code >= 0x2e80 ? 1000 : (bold ? 700 : 640); // CJK full width; else a digit's width
  }
  return (sum * fontSize) / 1000;
}

interface TextItem {
  fontSize?: number | string;
  fontWeight?: number | string;
}

function itemWidth(item: TextItem, text: unknown): number {
  const size = item.fontSize != null ? +item.fontSize || 0 : 11;
  const value = text == null ? "" : String(text).trim();
  const weight = item.fontWeight;
  const bold = weight === "bold" || weight === "bolder" || (Number(weight) >= 600);
  return size <= 0 ? 0 : dejaVuTextWidth(value, size, bold);
}

/**
 * Makes vega lay text out with DejaVu Sans metrics instead of a canvas (absent
 * in Deno) or its coarse estimate (0.8 × characters × font size), so that
 * titles, legends and labels get the room they need, and layout is the same on
 * every machine. vega supports a user-defined `textMetrics.width` (vl-convert
 * does the same). This sets a global of the loaded vega module.
 */
function useDejaVuTextWidths(): void {
  const metrics = (vega as unknown as { textMetrics?: { width: unknown } }).textMetrics;
  if (metrics !== undefined) metrics.width = itemWidth;
}

/**
 * Renders a vega-lite spec to SVG text, headless.
 *
 * Pipeline: `compile(spec)` (vega-lite) → `new View(parse(vegaSpec), {renderer:
 * "none"})` → `await view.toSVG()`; the view is finalized afterwards. Same spec,
 * same bytes. Cost: linear in the number of marks.
 *
 * @param spec a vega-lite spec with inlined data (no URLs: nothing is fetched)
 * @param warnings when given, receives the warnings vega-lite and vega log
 * @returns the SVG document
 * @throws {Error} when vega-lite cannot compile the spec or vega cannot run it
 * @example
 * ```ts
 * import { renderSvg } from "./render_figure.ts";
 * const svg = await renderSvg({
 *   width: 100, height: 50, title: "Demo",
 *   data: { values: [{ x: 1 }] }, mark: "point", encoding: { x: { field: "x", type: "quantitative" } },
 * });
 * if (!svg.startsWith("<svg") || !svg.includes("Demo")) throw new Error(svg);
 * ```
 */
export async function renderSvg(spec: TopLevelSpec, warnings: string[] = []): Promise<string> {
  useDejaVuTextWidths();
  const logger = collectingLogger(warnings);
  const compiled = compile(spec, { logger });
  const view = new vega.View(vega.parse(compiled.spec), { renderer: "none", logger });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Rasterises SVG text to PNG with resvg, loading the system fonts.
 *
 * Rule: `new Resvg(svg, {fitTo: {mode: "zoom", value: scale}, font:
 * {loadSystemFonts: true, defaultFontFamily, sansSerifFamily}})`, white
 * background. Cost: proportional to the PNG's pixel count.
 *
 * @param svg an SVG document
 * @param options zoom factor and fonts
 * @returns the PNG bytes (they start with the 8-byte PNG signature)
 * @throws {RangeError} when `scale` is not a positive finite number
 * @throws {Error} when resvg cannot parse the SVG
 */
export function svgToPng(svg: string, options: SvgToPngOptions = {}): Uint8Array {
  const scale = options.scale ?? 2;
  if (!(Number.isFinite(scale) && scale > 0)) {
    throw new RangeError(`Cannot render PNG: "scale" must be a positive number, got "${scale}"`);
  }
  const family = options.fontFamily ?? DEFAULT_FONT_FAMILY;
  const resvg = new Resvg(svg, {
    background: "white",
    fitTo: { mode: "zoom", value: scale },
    font: {
      loadSystemFonts: true,
      fontFiles: options.fontFiles ?? [],
      defaultFontFamily: family,
      sansSerifFamily: family,
    },
  });
  return new Uint8Array(resvg.render().asPng());
}

/**
 * Renders a vega-lite spec to SVG and PNG, collecting warnings.
 *
 * Rule: {@link renderSvg} then {@link svgToPng}. A figure that renders with
 * warnings is usually wrong (a misspelt field, an empty domain): callers and
 * tests should check `warnings` is empty.
 *
 * @param spec a vega-lite spec with inlined data
 * @param options PNG zoom factor and fonts
 * @returns SVG text, PNG bytes and warnings
 * @throws {Error} when the spec does not compile or render
 */
export async function renderFigure(
  spec: TopLevelSpec,
  options: RenderFigureOptions = {},
): Promise<RenderedFigure> {
  const warnings: string[] = [];
  const svg = await renderSvg(spec, warnings);
  return { svg, png: svgToPng(svg, options), warnings };
}
