/**
 * What `report --help` says of report.html is what it is: its figures are
 * static SVG (no script may run under the page's Content-Security-Policy,
 * `default-src 'none'`, so no tooltip or click), the interactive vega-lite
 * views being the notebooks'. A vega runtime inlined for them would add
 * 521 KB (vega.min.js, 180 KB gzipped) to every report.html and need
 * `'unsafe-eval'` (vega's expression code generation) or a further
 * interpreter package in a page that shows untrusted strings.
 *
 * @module
 */
import { ok } from "node:assert/strict";
import { help } from "../cli/report.ts";
import { buildReport } from "../report/build_report.ts";
import { loadReportInputs } from "../report/load_report_inputs.ts";
import { renderReport } from "../report/render_report.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;

Deno.test("report --help calls report.html's figures static, and they are", async () => {
  ok(
    help.includes(
      "report.html (figures inline as static SVG: no script, so no tooltips or\nclicks",
    ),
  );
  const rendered = await renderReport(buildReport(await loadReportInputs({ ledger: SAMPLE })));
  const html = new TextDecoder().decode(
    rendered.files.find((f) => f.path === "report.html")!.bytes,
  );
  ok(html.includes(`content="default-src 'none'; style-src 'unsafe-inline'"`));
  for (const pattern of [/<script/i, /\son[a-z]+=/i, /javascript:/i]) {
    ok(!pattern.test(html), `found ${pattern}`);
  }
});
