import assert from "node:assert/strict";
import { pilotEstimate } from "../pilot_estimate.ts";
import { pilotProjectionPlot } from "./pilot_projection_plot.ts";
import { rowsWith, subtitle } from "./_spec_for_test.ts";

const pilot = [2700, 7300, 9500, 3800];
const target = { tasks: 28, budget: 300_000 };

Deno.test("pilotProjectionPlot() shows the max projection over the budget and the mean under it", () => {
  const spec = pilotProjectionPlot(
    [pilotEstimate(pilot, target), pilotEstimate(pilot, target, { central: "mean" })],
    { pilotSpend: pilot },
  );
  // Max: 9500 × 28 × 1.25 = 332,500 > 300,000, over by 32,500 (the example of
  // analysis/pilot_estimate.ts). Mean: 23300 / 4 = 5825; × 28 × 1.25 = 203,875,
  // headroom 96,125 (hand computation).
  const [bars] = rowsWith(spec, "name", "projected", "status");
  assert.deepEqual(bars.map((b) => [b.name, b.projected, b.status, b.text]), [
    [
      "pilot max × 28 × 1.25",
      332_500,
      "over the budget: shrink the plan",
      "332,500: over by 32,500",
    ],
    ["pilot mean × 28 × 1.25", 203_875, "fits the budget", "203,875: fits, headroom 96,125"],
  ]);
  const [budget] = rowsWith(spec, "budget", "text");
  assert.deepEqual(budget, [{ budget: 300_000, text: "budget 300,000 tokens" }]);
  // The pilot panel: one point per pilot episode, the max and mean units marked.
  const [episodes] = rowsWith(spec, "value", "episode");
  assert.deepEqual(episodes.map((e) => e.value), pilot);
  const [units] = rowsWith(spec, "value", "name");
  assert.deepEqual(units, [{ value: 9500, name: "pilot max" }, {
    value: 5825,
    name: "pilot mean",
  }]);
  assert.match(subtitle(spec), /projected 332,500 tokens: does not fit/);
});

Deno.test("pilotProjectionPlot() refuses no estimates and estimates of different budgets", () => {
  assert.throws(() => pilotProjectionPlot([]), {
    message: "Cannot build pilot projection plot: no estimates",
  });
  assert.throws(
    () =>
      pilotProjectionPlot([
        pilotEstimate(pilot, target),
        pilotEstimate(pilot, { tasks: 28, budget: 1 }),
      ]),
    { message: 'Cannot build pilot projection plot: budgets differ ("300000" and "1")' },
  );
});
