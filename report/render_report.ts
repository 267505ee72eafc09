/**
 * Turns a computed report into the bytes of its files.
 *
 * @module
 */
import { canonicalJson } from "../analysis/canonical_json.ts";
import { figurePath } from "./_document.ts";
import type { Report } from "./report_model.ts";
import { renderFigure } from "./render_figure.ts";
import { reportHtml } from "./report_html.ts";

/** One file of a report directory. */
export interface ReportFile {
  /** Path relative to the report directory, `/`-separated (`figures/forest.svg`). */
  path: string;
  bytes: Uint8Array;
}

/** The files of a report and what rendering logged. */
export interface RenderedReport {
  /** `summary.json`, `report.md`, `report.html`, then each figure's SVG and PNG, in figure order. */
  files: ReportFile[];
  /** Warnings vega-lite and vega logged, each prefixed with its figure's name. */
  warnings: string[];
}

/**
 * Renders every figure of a report (vega → SVG, resvg → PNG at the summary's
 * `parameters.figures.png_scale`) and writes the bytes of every file:
 * `summary.json` as canonical JSON, `report.md`, `report.html` with the SVGs
 * inlined, `figures/<name>.svg` and `figures/<name>.png`. Deterministic: the
 * same report gives the same bytes (PNGs: on the same fonts). Cost: about half
 * a second per figure, dominated by vega's layout.
 *
 * @param report the output of `buildReport`
 * @returns the files in a fixed order, and the warnings logged while rendering
 * @throws {Error} when a figure spec does not compile or render
 */
export async function renderReport(report: Report): Promise<RenderedReport> {
  const encoder = new TextEncoder();
  const { png_scale: scale, font_family: fontFamily } = report.summary.parameters.figures;
  const svgs: Record<string, string> = {};
  const figureFiles: ReportFile[] = [];
  const warnings: string[] = [];
  for (const figure of report.figures) {
    const rendered = await renderFigure(figure.spec, { scale, fontFamily });
    svgs[figure.name] = rendered.svg;
    for (const warning of rendered.warnings) warnings.push(`${figure.name}: ${warning}`);
    figureFiles.push(
      { path: figurePath(figure.name, "svg"), bytes: encoder.encode(rendered.svg) },
      { path: figurePath(figure.name, "png"), bytes: rendered.png },
    );
  }
  return {
    files: [
      { path: "summary.json", bytes: encoder.encode(canonicalJson(report.summary)) },
      { path: "report.md", bytes: encoder.encode(report.markdown) },
      { path: "report.html", bytes: encoder.encode(reportHtml(report, svgs)) },
      ...figureFiles,
    ],
    warnings,
  };
}
