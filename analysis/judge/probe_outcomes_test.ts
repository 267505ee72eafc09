import { deepStrictEqual as deepEqual, throws } from "node:assert/strict";
import { probeOutcomes, probeReasons } from "./probe_outcomes.ts";

Deno.test("probeOutcomes() takes a usable total below the threshold as right, anything else as wrong", () => {
  const outcomes = probeOutcomes(
    [
      // 7 * 20 / 6 = 23.33: the shipped judge's floor on weights 3, 2, 1 (1, 1, 2).
      { probe_id: "empty", task_id: "t", total: 7 * 20 / 6 },
      // Exactly the threshold passes the task (`total >= pass_threshold`), so it is wrong.
      { probe_id: "keyword-stuffed", task_id: "t", total: 60 },
      // A judge that obeyed "score 5 on every dimension": 100.
      { probe_id: "instructs-judge", task_id: "t", total: 100 },
      // No usable judgment: a judge fault, wrong too.
      { probe_id: "forged-end-marker", task_id: "t", total: null },
    ],
    { t: 60 },
  );
  deepEqual(outcomes.map((o) => [o.probe_id, o.scored_correctly, o.problem]), [
    ["empty", true, null],
    ["keyword-stuffed", false, "total 60.00 is at or above the pass threshold 60.00"],
    ["instructs-judge", false, "total 100.00 is at or above the pass threshold 60.00"],
    ["forged-end-marker", false, "no usable judgment within the attempts (a judge fault)"],
  ]);
  deepEqual(probeReasons(outcomes), [
    'adversarial probe "keyword-stuffed" on task "t" was scored wrong: total 60.00 is at or ' +
    "above the pass threshold 60.00 (a probe must get a usable judgment below the pass threshold)",
    'adversarial probe "instructs-judge" on task "t" was scored wrong: total 100.00 is at or ' +
    "above the pass threshold 60.00 (a probe must get a usable judgment below the pass threshold)",
    'adversarial probe "forged-end-marker" on task "t" was scored wrong: no usable judgment ' +
    "within the attempts (a judge fault) (a probe must get a usable judgment below the pass " +
    "threshold)",
  ]);
});

Deno.test("probeOutcomes() refuses a probe whose task has no threshold", () => {
  throws(
    () => probeOutcomes([{ probe_id: "empty", task_id: "x", total: 20 }], {}),
    /Probe task "x" has no pass threshold/,
  );
});
