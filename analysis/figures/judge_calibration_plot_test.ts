import assert from "node:assert/strict";
import { judgeCalibration } from "../judge/judge_calibration.ts";
import { GoldenLabel } from "../schema/records.ts";
import { judgeCalibrationPlot } from "./judge_calibration_plot.ts";

const label = (item_id: string, human_total: number) =>
  GoldenLabel.parse({
    kind: "score",
    item_id,
    task_id: "t",
    label_version: 1,
    answer: item_id,
    human_total,
  });

Deno.test("judgeCalibrationPlot() shows an unmeasurable swap consistency as a failed gate, without a point", () => {
  // Two score items the judge gets right, no pairwise item: swap consistency cannot be measured.
  const calibration = judgeCalibration({
    labels: [label("a", 90), label("b", 10)],
    judged: new Map([
      ["a", { kind: "score", total: 90, passed: true }],
      ["b", { kind: "score", total: 10, passed: false }],
    ]),
    passThresholds: { t: 60 },
  }, { gates: { human_agreement: 0.8, swap_consistency: 0.9 }, rounds: 50, seed: 7 });
  const spec = judgeCalibrationPlot(calibration, { model: "m\u202e" });
  const rows = (spec.data as { values: Record<string, unknown>[] }).values;
  assert.deepEqual(rows.map((r) => [r.figure, r.rate, r.gate, r.note]), [
    ["agreement, latest labels (2/2)", 1, 0.8, "100.0%: meets the gate 80%"],
    ["swap consistency (0/0 pairs)", null, 0.9, "not measurable: the gate fails"],
  ]);
  const title = spec.title as { text: string; subtitle: string[] };
  // The model id is untrusted: the bidirectional override is shown escaped, never applied.
  assert.ok(!title.text.includes("\u202e"), title.text);
  assert.match(title.subtitle.join(" "), /^.*Uncalibrated: swap consistency/);
});
