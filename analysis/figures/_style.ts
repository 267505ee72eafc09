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

/** The config block shared by every figure (fonts, sizes, white background). */
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
