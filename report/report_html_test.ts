import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { buildReport } from "./build_report.ts";
import { loadReportInputs } from "./load_report_inputs.ts";
import { renderReport } from "./render_report.ts";
import { reportHtml } from "./report_html.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;

Deno.test("reportHtml() inlines every rendered figure and fetches nothing", async () => {
  const report = buildReport(await loadReportInputs({ ledger: SAMPLE }));
  const rendered = await renderReport(report);
  deepEqual(rendered.warnings, []);
  const html = new TextDecoder().decode(
    rendered.files.find((f) => f.path === "report.html")!.bytes,
  );
  for (const figure of report.summary.figures) {
    ok(html.includes(`<figure id="figure-${figure.name}">\n<svg`), figure.name);
  }
  equal(html.match(/<svg /g)?.length, report.summary.figures.length);
  // Nothing that would fetch: no script, stylesheet link, src attribute, CSS import or remote url().
  for (const pattern of [/<script/i, /<link/i, /\ssrc=/i, /@import/i, /url\((?!#)/i, /<img/i]) {
    ok(!pattern.test(html), `found ${pattern}`);
  }
  ok(html.includes(`content="default-src 'none'; style-src 'unsafe-inline'"`));
  // The same document as report.md: every claim stated there is in the page too.
  for (const claim of report.summary.claims) {
    const words = claim.text.split(" ").slice(0, 4).join(" ").replaceAll('"', "&quot;");
    ok(html.includes(words), words);
  }
});

Deno.test("reportHtml() refuses a figure without its SVG", async () => {
  const report = buildReport(await loadReportInputs({ ledger: SAMPLE }));
  throws(
    () => reportHtml(report, {}),
    /Cannot write HTML: figure "forest" has no rendered SVG/,
  );
});
