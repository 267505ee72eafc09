import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { pairwiseSummary } from "./pairwise_summary.ts";

Deno.test("pairwiseSummary() counts a verdict only when the swapped runs agree", () => {
  const summary = pairwiseSummary(["x", "y"], [
    { task_id: "t1", first: "A", second: "B", unjudged: null }, // x in both positions
    { task_id: "t2", first: "B", second: "A", unjudged: null }, // y in both positions
    { task_id: "t3", first: "tie", second: "tie", unjudged: null },
    { task_id: "t4", first: "A", second: "A", unjudged: null }, // the first position both times
    { task_id: "t5", first: "A", second: "tie", unjudged: null }, // one says x, one says tie
    { task_id: "t6", first: null, second: "B", unjudged: null }, // a judge fault in run 1
    { task_id: "t7", first: null, second: null, unjudged: "no scored attempt of y" },
  ]);
  assertEquals(
    [summary.wins_a, summary.wins_b, summary.ties, summary.inconsistent, summary.judge_faults],
    [1, 1, 1, 2, 1],
  );
  assertEquals(summary.unjudged, [{ task_id: "t7", reason: "no scored attempt of y" }]);
  assertEquals(summary.judged, 5);
  assertEquals(summary.position_consistency.consistent, 3);
  assertEquals(summary.position_consistency.rate, 3 / 5);
  // python3, Wilson by hand: p = 0.6, n = 5, z = 1.959963984540054,
  // c=(0.6+z*z/10)/(1+z*z/5); h=z/(1+z*z/5)*sqrt(0.24/5+z*z/100) -> [0.23072, 0.88238]
  const wilson = summary.position_consistency.wilson!;
  assertEquals([wilson.lower.toFixed(5), wilson.upper.toFixed(5)], ["0.23072", "0.88238"]);
});

Deno.test("pairwiseSummary() of a position-biased judge has consistency 0 and no winner", () => {
  const biased = ["t1", "t2", "t3"].map((task_id) => ({
    task_id,
    first: "A" as const,
    second: "A" as const,
    unjudged: null,
  }));
  const summary = pairwiseSummary(["x", "y"], biased);
  assertEquals([summary.wins_a, summary.wins_b, summary.inconsistent], [0, 0, 3]);
  assertEquals(summary.position_consistency.rate, 0);
});

Deno.test("pairwiseSummary() with nothing judged has no rate", () => {
  const summary = pairwiseSummary(["x", "y"], []);
  assertEquals(summary.position_consistency, {
    consistent: 0,
    judged: 0,
    rate: null,
    wilson: null,
  });
});
