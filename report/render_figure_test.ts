import assert from "node:assert/strict";
import { censoringSummary } from "../analysis/censoring.ts";
import { comparisonMatrix } from "../analysis/compare_agents.ts";
import { exampleFigures } from "../tests/_example_inputs.ts";
import { textWidth } from "../analysis/figures/_style.ts";
import { row } from "../analysis/figures/_spec_for_test.ts";
import {
  costFrontierPlot,
  efficiencyPlot,
  forestPlot,
  sprtPathPlot,
  stopReasonsPlot,
} from "../analysis/figures/mod.ts";
import { replaySprt } from "../analysis/sprt/replay_sprt.ts";
import { dejaVuTextWidth, renderFigure, renderSvg, svgToPng } from "./render_figure.ts";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width and height from a PNG's IHDR chunk (bytes 16..23, big-endian). */
function pngSize(png: Uint8Array): [number, number] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return [view.getUint32(16), view.getUint32(20)];
}

/** The SVG's declared width and height. */
function svgSize(svg: string): [number, number] {
  const match = /^<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg);
  assert.ok(match, "the SVG declares its size");
  return [Number(match[1]), Number(match[2])];
}

function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

Deno.test("renderFigure() renders every figure of the seed-001 sample, twice identically", async () => {
  const [sample] = await exampleFigures();
  assert.equal(sample.ledger, "sample_ledger");
  assert.equal(sample.figures.length, 8);
  for (const { name, spec } of sample.figures) {
    const first = await renderFigure(spec, { scale: 1 });
    const second = await renderFigure(spec, { scale: 1 });
    assert.deepEqual(first.warnings, [], `${name}: vega-lite or vega warned`);
    assert.ok(first.svg.startsWith("<svg") && first.svg.length > 1000, `${name}: SVG`);
    const title = (spec as { title: { text: string } }).title.text;
    assert.ok(first.svg.includes(escapeXml(title)), `${name}: the SVG holds the title "${title}"`);
    assert.deepEqual([...first.png.slice(0, 8)], PNG_SIGNATURE, `${name}: PNG signature`);
    // Deterministic: same spec, same bytes.
    assert.ok(first.svg === second.svg, `${name}: two SVG renders differ`);
    assert.deepEqual(first.png, second.png, `${name}: two PNG renders differ`);
    // Scale 1: the PNG has the SVG's pixel size.
    assert.deepEqual(pngSize(first.png), svgSize(first.svg), `${name}: PNG size`);
  }
});

Deno.test("renderFigure() renders the builders' empty and degenerate cases without warnings", async () => {
  const invalid = { status: "invalid", resolved: null, invalid_reason: "provider_fault" };
  const nothing = { agent_id: "x", scored: 3, resolved: 0, tpr: null, spr: null };
  const specs = {
    "agent with nothing scored": forestPlot(comparisonMatrix([
      { ...nothing, scored: 0 },
      { agent_id: "y", scored: 3, resolved: 1, tpr: 5, spr: 1 },
    ])),
    "no tokens per resolved at all": efficiencyPlot([nothing]),
    "no cost per resolved at all": costFrontierPlot([{ ...nothing, resolved_rate: 0, cost: null }]),
    "SPRT replay without rows": sprtPathPlot(replaySprt([row({})], { agentId: "nobody" })),
    "only invalid attempts": stopReasonsPlot(censoringSummary([row(invalid)])),
  };
  for (const [name, spec] of Object.entries(specs)) {
    const { warnings, svg } = await renderFigure(spec, { scale: 1 });
    assert.deepEqual(warnings, [], name);
    assert.ok(svg.startsWith("<svg"), name);
  }
});

Deno.test("svgToPng() zooms by the scale and refuses a bad one", async () => {
  const svg = await renderSvg({
    width: 100,
    height: 50,
    title: "Zoom",
    data: { values: [{ x: 1 }] },
    mark: "point",
    encoding: { x: { field: "x", type: "quantitative" } },
  });
  const [w, h] = svgSize(svg);
  assert.deepEqual(pngSize(svgToPng(svg, { scale: 2 })), [2 * w, 2 * h]);
  assert.throws(() => svgToPng(svg, { scale: 0 }), {
    name: "RangeError",
    message: 'Cannot render PNG: "scale" must be a positive number, got "0"',
  });
});

Deno.test("renderFigure() collects vega-lite warnings instead of printing them", async () => {
  // A shape encoding on a bar mark is dropped by vega-lite with a warning.
  const { warnings, svg } = await renderFigure({
    width: 100,
    height: 50,
    data: { values: [{ a: "x", b: 1 }] },
    mark: "bar",
    encoding: {
      x: { field: "a", type: "nominal" },
      y: { field: "b", type: "quantitative" },
      shape: { field: "a", type: "nominal" },
    },
  }, { scale: 1 });
  assert.ok(svg.startsWith("<svg"));
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /shape/);
});

Deno.test("dejaVuTextWidth() sums DejaVu Sans advance widths", () => {
  // hmtx of DejaVuSans.ttf (2048 units per em): H 1540, e 1260, l 569, o 1253
  // → 0.752 + 0.615 + 0.278 + 0.278 + 0.612 = 2.535 em; at 10 px: 25.35 px.
  assert.ok(Math.abs(dejaVuTextWidth("Hello", 10) - 25.35) < 1e-9);
  // Bold is wider: H 0.837, e 0.678, l 0.343, o 0.687 → 2.888 em.
  assert.ok(Math.abs(dejaVuTextWidth("Hello", 10, true) - 28.88) < 1e-9);
  // Characters outside the table count as a digit's width (0.64 em).
  assert.ok(Math.abs(dejaVuTextWidth("\u00e9", 10) - 6.4) < 1e-9);
  assert.equal(dejaVuTextWidth("", 12), 0);
});

Deno.test("dejaVuTextWidth() never exceeds the width the figures lay their labels out with", async () => {
  // The cost frontier places its labels with analysis/figures' textWidth before vega
  // measures them with dejaVuTextWidth: the estimate must not be narrower, or a label
  // placed clear of the frontier could still touch it.
  // Every label line: a `text` field that is a string or, for a two-line label, an array.
  const textsOf = (node: unknown): string[] =>
    Array.isArray(node)
      ? node.flatMap(textsOf)
      : typeof node !== "object" || node === null
      ? []
      : Object.entries(node).flatMap(([key, value]) =>
        key === "text" && (typeof value === "string" || Array.isArray(value))
          ? [value].flat().filter((line): line is string => typeof line === "string")
          : textsOf(value)
      );
  const labels = (await exampleFigures()).flatMap((example) =>
    example.figures.filter((f) => f.builder === "costFrontierPlot").flatMap((f) => textsOf(f.spec))
  );
  assert.ok(labels.includes("agent-beta: 56.0% at 0.033 USD"), labels.join("; "));
  assert.ok(labels.includes("on the frontier in 98% of task resamples"), labels.join("; "));
  for (const text of [...labels, "Zz: 100.0% at 1,234,567 tokens", "\u2212WM%", ""]) {
    const exact = dejaVuTextWidth(text, 11);
    const estimate = textWidth(text, 11);
    assert.ok(estimate >= exact - 1e-9, `"${text}": estimate ${estimate} < ${exact}`);
    // Lowercase, digits and punctuation use the font's own widths: within 10% for labels.
    if (labels.includes(text)) assert.ok(estimate <= exact * 1.1, `"${text}": ${estimate}`);
  }
  // Hand value: "10%" = (0.636 + 0.636 + 0.950) em × 11 px = 24.442 px.
  assert.ok(Math.abs(textWidth("10%", 11) - 24.442) < 1e-9);
});
