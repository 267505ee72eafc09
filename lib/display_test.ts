import assert from "node:assert/strict";
import * as dfd from "danfojs";
import type { TopLevelSpec } from "vega-lite";
import { figureBundle, formatCell, frameBundle, tableBundle, VEGA_LITE_MIME } from "./display.ts";

Deno.test("formatCell() keeps integers, trims decimals and marks missing values", () => {
  // Hand-written expectations: 2/3 to 4 decimals is 0.6667; 0.5 needs no zeros; -1e-7 rounds to 0.
  assert.equal(formatCell(336), "336");
  assert.equal(formatCell(2 / 3), "0.6667");
  assert.equal(formatCell(0.5), "0.5");
  assert.equal(formatCell(1.25, 1), "1.3");
  assert.equal(formatCell(-1e-7), "0");
  assert.equal(formatCell(null), "—");
  assert.equal(formatCell(undefined), "—");
  assert.equal(formatCell(false), "false");
  assert.equal(formatCell(["a", 1]), '["a",1]');
  assert.equal(formatCell(Infinity), "Infinity");
});

Deno.test("tableBundle() writes the same cells as HTML, Markdown and plain text", () => {
  const rows = [
    { agent: "a", resolved: 3, rate: 0.75, tpr: 23300 / 3 },
    { agent: "b|x", resolved: 2, rate: 0.5, tpr: null },
  ];
  const b = tableBundle(rows, { caption: "Seed 001 sample" });
  assert.deepEqual(Object.keys(b), ["text/html", "text/markdown", "text/plain"]);
  // 23300 / 3 = 7766.666… → 7766.6667; the pipe in "b|x" is escaped in Markdown.
  assert.equal(
    b["text/markdown"],
    [
      "**Seed 001 sample**",
      "",
      "| agent | resolved | rate | tpr |",
      "| --- | ---: | ---: | ---: |",
      "| a | 3 | 0.75 | 7766.6667 |",
      "| b\\|x | 2 | 0.5 | — |",
    ].join("\n"),
  );
  assert.equal(
    b["text/plain"],
    [
      "Seed 001 sample",
      "agent  resolved  rate        tpr",
      "-----  --------  ----  ---------",
      "a             3  0.75  7766.6667",
      "b|x           2   0.5          —",
    ].join("\n"),
  );
  const html = String(b["text/html"]);
  assert.match(html, /<caption[^>]*>Seed 001 sample<\/caption>/);
  assert.match(html, /<td style="text-align:right">7766\.6667<\/td>/);
  assert.equal((html.match(/<tr>/g) ?? []).length, 3);
});

Deno.test("tableBundle() escapes HTML and counts the rows it leaves out", () => {
  const rows = [{ v: "<b>&" }, { v: "x" }, { v: "y" }];
  const b = tableBundle(rows, { maxRows: 1 });
  assert.match(String(b["text/html"]), /<td style="text-align:left">&lt;b&gt;&amp;<\/td>/);
  assert.match(String(b["text/plain"]), /… 2 more rows \(3 in all\)$/);
  assert.throws(() => tableBundle(rows, { maxRows: 0 }), {
    name: "RangeError",
    message: 'Cannot build table: "maxRows" must be a positive integer, got 0',
  });
});

Deno.test("frameBundle() shows a danfojs DataFrame with its row labels", () => {
  const frame = new dfd.DataFrame([{ agent: "a", n: 4 }, { agent: "b", n: 4 }]);
  const b = frameBundle(frame.tail(1), { columns: ["n"] });
  assert.equal(b["text/markdown"], ["|  | n |", "| ---: | ---: |", "| 1 | 4 |"].join("\n"));
});

Deno.test("figureBundle() carries the spec untouched, an embedded PNG, the PNG and the SVG", async () => {
  const spec: TopLevelSpec = {
    title: "Demo",
    width: 80,
    height: 40,
    data: { values: [{ x: 1 }, { x: 2 }] },
    mark: "point",
    encoding: { x: { field: "x", type: "quantitative" }, tooltip: [{ field: "x" }] },
  };
  const copy = structuredClone(spec);
  const b = await figureBundle(spec, { alt: 'Demo "x"' });
  // The order of preference (JupyterLab: vega-lite; nbconvert's HTML: Markdown; GitHub: PNG).
  assert.deepEqual(Object.keys(b), [
    VEGA_LITE_MIME,
    "text/markdown",
    "image/png",
    "image/svg+xml",
    "text/plain",
  ]);
  // The very spec, tooltip included, not a copy the display changed.
  assert.equal(b[VEGA_LITE_MIME], spec);
  // (vega tags the data objects with a symbol while rendering; JSON, what the kernel sends, is unchanged.)
  assert.equal(JSON.stringify(spec), JSON.stringify(copy));
  assert.match(String(b["image/svg+xml"]), /^<svg[^>]*>.*Demo/s);
  // PNG signature, base64 of 89 50 4E 47.
  assert.match(String(b["image/png"]), /^iVBORw0KGgo/);
  const width = String(b["image/svg+xml"]).match(/^<svg[^>]* width="(\d+)"/)![1];
  assert.equal(
    b["text/markdown"],
    `<img alt="Demo &quot;x&quot;" width="${width}" src="data:image/png;base64,${b["image/png"]}">`,
  );
  assert.equal(b["text/plain"], 'Demo "x"');
  // PNG pixels are FIGURE_PNG_SCALE times the SVG's (IHDR width, bytes 16-19).
  const png = Uint8Array.from(atob(String(b["image/png"])), (c) => c.charCodeAt(0));
  assert.equal(new DataView(png.buffer).getUint32(16), 2 * Number(width));
});

Deno.test("figureBundle() refuses a figure vega warns about", async () => {
  // "rate" is misspelt "rates": the scale has no finite values and vega warns.
  const spec: TopLevelSpec = {
    title: "Broken",
    data: { values: [{ rate: 0.5 }] },
    mark: "point",
    encoding: { x: { field: "rates", type: "quantitative" } },
  };
  await assert.rejects(
    () => figureBundle(spec),
    /^Error: Cannot display figure "Broken": vega reported: .*rates/,
  );
});

Deno.test("frameBundle() leaves out positional row labels, which the order already says", () => {
  const frame = new dfd.DataFrame([{ agent: "a", n: 4 }, { agent: "b", n: 5 }]);
  const b = frameBundle(frame);
  assert.equal(
    b["text/markdown"],
    ["| agent | n |", "| --- | ---: |", "| a | 4 |", "| b | 5 |"].join("\n"),
  );
});

Deno.test("tableBundle() keeps an id's underscores in Markdown (escaped, not emphasis)", () => {
  const id = "instance_gravitational__teleport-0c43af__113d";
  const b = tableBundle([{ task: id }]);
  assert.ok(
    String(b["text/markdown"]).includes("instance\\_gravitational\\_\\_teleport-0c43af\\_\\_113d"),
  );
});
