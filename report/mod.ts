/**
 * Replayable reports (issue 4): `ledgerbench report` computes every number,
 * claim and figure of a ledger once, in the pure {@link buildReport}, renders
 * them to `report.md`, a self-contained `report.html`, `figures/*.svg`,
 * `figures/*.png` and `summary.json` ({@link renderReport}, {@link writeReport}),
 * and `ledgerbench verify-report` recomputes all of it from the inputs named in
 * `summary.json` and lists every difference ({@link verifyReport}).
 *
 * Pipeline: {@link loadReportInputs} (I/O: ledger, errata, plan, price table,
 * each with its SHA-256) → {@link buildReport} (pure: analysis, claims the
 * seeds' rules allow, figure specs, Markdown) → {@link renderReport} (vega SVG,
 * resvg PNG, {@link reportHtml}) → {@link writeReport} (I/O).
 *
 * @module
 */
export * from "./report_model.ts";
export * from "./build_report.ts";
export * from "./report_html.ts";
export * from "./render_report.ts";
export * from "./load_report_inputs.ts";
export * from "./write_report.ts";
export * from "./verify_report.ts";
export * from "./diff_json.ts";
export * from "./render_figure.ts";
