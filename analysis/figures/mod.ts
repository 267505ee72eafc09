/**
 * Figure builders: pure functions from analysis results to vega-lite specs
 * (no I/O, no clock). Each spec inlines its data, has a fixed size, a title
 * and a subtitle stating the rule it shows, and axis titles with units.
 * Colours come from Okabe and Ito's colour-blind safe palette, and series also
 * differ by dash pattern or point shape so they survive greyscale printing.
 * Render them with `report/render_figure.ts` (SVG through vega, PNG through
 * resvg); golden copies for the example ledgers live in `golden/` (refresh
 * with `deno task golden`).
 *
 * | figure | builder | seed rule |
 * |---|---|---|
 * | 1 | {@linkcode forestPlot}: resolved rate with bootstrap intervals, pairwise overlap matrix | 001: no winner when intervals overlap |
 * | 2 | {@linkcode efficiencyPlot}: tokens and seconds per resolved with the tie band and task-cluster intervals | 001: efficiency tie-break, 10% band |
 * | 3 | {@linkcode stopReasonsPlot}: stop reasons, censoring rate, allowed claim | 003: censoring policy |
 * | 4 | {@linkcode sprtPathPlot}: cumulative LLR against the boundaries | 002: Wald SPRT, invalid attempts |
 * | 5 | {@linkcode sprtCalibrationPlot}: exact OC and E[N] with Monte Carlo points | 002: calibration |
 * | 6 | {@linkcode pilotProjectionPlot}: projection against the budget | 003: pilot estimator |
 * | 7 | {@linkcode costFrontierPlot}: cost per resolved against rate, Pareto frontier, each agent's share of task-paired resamples on it | 001: cost per resolved |
 *
 * {@linkcode assembleFigures} is the one assembly (which figures, their order,
 * file stems, titles, captions and builder inputs) that the report and
 * {@linkcode ledgerFigures} both call; `ledgerFigures` builds all that a
 * ledger supports in one call.
 *
 * @module
 */
export * from "./forest_plot.ts";
export * from "./efficiency_plot.ts";
export * from "./stop_reasons_plot.ts";
export * from "./sprt_path_plot.ts";
export * from "./sprt_calibration_plot.ts";
export * from "./pilot_projection_plot.ts";
export * from "./cost_frontier_plot.ts";
export * from "./assemble_figures.ts";
export * from "./ledger_figures.ts";
export * from "./judge_calibration_plot.ts";
