/**
 * The shared look of every figure: font, colour-blind safe palette (Okabe and
 * Ito), dash patterns and point shapes that keep series apart in greyscale,
 * and the vega-lite config block.
 *
 * Private to `analysis/figures/`.
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import { wrap } from "./_format.ts";

/** The vega-lite config block type. */
export type Config = NonNullable<TopLevelSpec["config"]>;
/** A vega-lite title with a subtitle. */
export type TitleParams = Extract<NonNullable<TopLevelSpec["title"]>, { text: unknown }>;

/** The vega-lite JSON Schema the specs are written against (vega-lite 6). */
export const VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";

/** Font stack: DejaVu Sans ships with Debian (fonts-dejavu-core); the rest are fallbacks. */
export const FONT = "DejaVu Sans, Verdana, sans-serif";

/**
 * Okabe and Ito's colour-blind safe palette ("Color Universal Design", 2008),
 * with the Rec. 601 grey level of each colour in the comment, so series can be
 * chosen to stay apart when printed in greyscale.
 */
export const PALETTE = {
  black: "#000000", // grey 0
  blue: "#0072B2", // grey 87
  green: "#009E73", // grey 106
  vermillion: "#D55E00", // grey 119
  purple: "#CC79A7", // grey 151
  sky: "#56B4E9", // grey 158
  orange: "#E69F00", // grey 162
  yellow: "#F0E442", // grey 213
  grey: "#777777",
  lightGrey: "#DDDDDD",
} as const;

/** Dash patterns, from solid to sparse, for lines that must differ in greyscale. */
export const DASHES: readonly number[][] = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4]];

/** Point shapes, one per series, for points that must differ in greyscale. */
export const SHAPES = ["circle", "square", "triangle-up", "diamond", "cross"] as const;

/** The config block shared by every figure (fonts, sizes, white background, tooltips). */
export function baseConfig(): Config {
  return {
    font: FONT,
    background: "white",
    padding: 16,
    view: { stroke: "#BBBBBB" },
    title: {
      anchor: "start",
      fontSize: 15,
      fontWeight: "bold",
      subtitleFontSize: 12,
      subtitleColor: "#333333",
      subtitlePadding: 6,
      offset: 14,
    },
    axis: {
      labelFontSize: 11,
      titleFontSize: 12,
      titleFontWeight: "bold",
      labelLimit: 400,
      titleLimit: 600,
      // vega's default maxExtent (200 px) lets long labels run under the axis title.
      maxExtent: 600,
      gridColor: "#E4E4E4",
      domainColor: "#555555",
      tickColor: "#555555",
    },
    legend: {
      labelFontSize: 11,
      titleFontSize: 12,
      labelLimit: 400,
      titleLimit: 600,
      symbolStrokeWidth: 2,
    },
    header: { labelFontSize: 12, titleFontSize: 12 },
    // Every mark without a tooltip encoding of its own shows its encoded fields on hover (issue
    // 25 item 5: no figure had tooltips, even in JupyterLab); the per-agent figures name each
    // agent in full, with its rate, interval and counts.
    mark: { tooltip: true },
    text: { fontSize: 11 },
    concat: { spacing: 40 },
  };
}

/**
 * A title block: bold title, then the subtitle lines in order, each wrapped at
 * `maxChars` characters (default 110, about 700 px at 12 px DejaVu Sans).
 */
export function titleBlock(
  text: string,
  subtitle: readonly string[],
  maxChars = 110,
): TitleParams {
  return { text, subtitle: subtitle.flatMap((line) => wrap(line, maxChars)) };
}

/**
 * Advance widths of DejaVu Sans (regular), in em, for capitals A–Z and for
 * lowercase a–z, from the font's `hmtx` table (Debian fonts-dejavu-core 2.37,
 * 2048 units per em, rounded to thousandths).
 */
const UPPERCASE_EM = [
  0.684,
  0.686,
  0.698,
  0.77,
  0.632,
  0.575,
  0.775,
  0.752,
  0.295,
  0.295,
  0.656,
  0.557,
  0.863,
  0.748,
  0.787,
  0.603,
  0.787,
  0.695,
  0.635,
  0.611,
  0.732,
  0.684,
  0.989,
  0.685,
  0.611,
  0.685,
];
const LOWERCASE_EM = [
  0.613,
  0.635,
  0.55,
  0.635,
  0.615,
  0.352,
  0.635,
  0.634,
  0.278,
  0.278,
  0.579,
  0.278,
  0.974,
  0.634,
  0.612,
  0.635,
  0.635,
  0.411,
  0.521,
  0.392,
  0.634,
  0.592,
  0.818,
  0.592,
  0.592,
  0.525,
];

/** Widths in em of the other characters labels use; anything else counts as 1 em. */
const OTHER_EM: Record<string, number> = {
  " ": 0.318,
  ".": 0.318,
  ",": 0.318,
  ":": 0.337,
  "-": 0.361,
  "(": 0.39,
  ")": 0.39,
  "%": 0.95,
  '"': 0.46,
};

/**
 * The width in pixels of one line of regular DejaVu Sans text, for laying out
 * labels before vega measures them: letters, digits (0.636 em) and the common
 * punctuation from the font's metrics, every other character 1 em (no
 * printable ASCII character is wider), so a label never needs more room than
 * this gives it. O(length).
 */
export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (code >= 48 && code <= 57) em += 0.636;
    else if (code >= 65 && code <= 90) em += UPPERCASE_EM[code - 65];
    else if (code >= 97 && code <= 122) em += LOWERCASE_EM[code - 97];
    else em += OTHER_EM[ch] ?? 1;
  }
  return em * fontSize;
}
