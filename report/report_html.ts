/**
 * The self-contained HTML page of a report.
 *
 * @module
 */
import { toHtml } from "./_document.ts";
import type { Report } from "./report_model.ts";

/**
 * Renders a computed report as one self-contained HTML page: the same
 * document as `report.md`, with inline CSS and every figure's SVG inlined (ids
 * scoped per figure so clip paths never collide); no script, no stylesheet,
 * font or image is fetched, and a `default-src 'none'` Content-Security-Policy
 * forbids any fetch. Pure; O(size of the page).
 *
 * @param report the output of `buildReport`
 * @param svgs the SVG text of each figure, by figure name (from `renderReport`)
 * @returns the HTML document, ending with a newline
 * @throws {Error} when a figure of the report has no SVG in `svgs`
 * @example
 * ```ts
 * import { buildReport } from "./build_report.ts";
 * import { reportHtml } from "./report_html.ts";
 * import { Episode } from "../analysis/schema/records.ts";
 * const rows = [Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t", seed: 7, resolved: true, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p",
 * })];
 * const report = buildReport({
 *   ledger: { file: "l.jsonl", sha256: "0".repeat(64), lines: 1, valid_rows: 1, chained: false,
 *     problems: [], rows, row_lines: [1] },
 * });
 * const svgs = Object.fromEntries(report.figures.map((f) => [f.name, "<svg></svg>"]));
 * if (!reportHtml(report, svgs).startsWith("<!DOCTYPE html>")) throw new Error("html");
 * ```
 */
export function reportHtml(report: Report, svgs: Readonly<Record<string, string>>): string {
  return toHtml(report.blocks, { title: report.summary.title, svgs });
}
