import { equal, throws } from "node:assert/strict";
import { weightedTotal } from "./weighted_total.ts";
import { MIXED_RUBRIC, SEED_RUBRIC } from "./_test_rubrics.ts";

function throwsWith(fn: () => unknown, text: string): void {
  throws(fn, (error: unknown) => error instanceof RangeError && error.message.includes(text));
}

Deno.test("weightedTotal() reproduces the seed's worked example bit for bit", () => {
  // Weights 3, 2, 1; scores 4, 5, 3 on 1..5: weighted = 12 + 10 + 3 = 25.
  // python3: 25*20.0/6 -> 83.33333333333333 (the seed's Java formula in doubles)
  const total = weightedTotal(SEED_RUBRIC, [
    { name: "correctness", score: 4 },
    { name: "completeness", score: 5 },
    { name: "clarity", score: 3 },
  ]);
  equal(total, 83.33333333333333);
  equal(total, (25 * 20.0) / 6);
});

Deno.test("weightedTotal() equals the seed's formula exactly at every 1..5 judgment", () => {
  // Every one of the 125 judgments of the seed rubric: the seed's division, no tolerance.
  for (let a = 1; a <= 5; a++) {
    for (let b = 1; b <= 5; b++) {
      for (let c = 1; c <= 5; c++) {
        const total = weightedTotal(SEED_RUBRIC, [
          { name: "clarity", score: c },
          { name: "correctness", score: a },
          { name: "completeness", score: b },
        ]);
        equal(total, ((a * 3 + b * 2 + c * 1) * 20.0) / 6, `${a} ${b} ${c}`);
      }
    }
  }
});

Deno.test("weightedTotal() has the 1..5 scale's floor of 20 and ceiling of 100", () => {
  const all = (score: number) => SEED_RUBRIC.dimensions.map(({ name }) => ({ name, score }));
  // python3: (3+2+1)*20.0/6 -> 20.0
  equal(weightedTotal(SEED_RUBRIC, all(1)), 20);
  equal(weightedTotal(SEED_RUBRIC, all(5)), 100);
});

Deno.test("weightedTotal() mixes 0..10, 1..5 and 0..4 dimensions by score / max", () => {
  // accuracy 7/10 (weight 2), reasoning 4/5 (weight 3), style 3/4 (weight 1), W = 6.
  // python3: from fractions import Fraction as F;
  //   float(F(100,6)*(F(7,10)*2+F(4,5)*3+F(3,4))) -> 75.83333333333333 (= 455/6)
  const total = weightedTotal(MIXED_RUBRIC, [
    { name: "style", score: 3 },
    { name: "accuracy", score: 7 },
    { name: "reasoning", score: 4 },
  ]);
  equal(total, 75.83333333333333);
  // A 0..max dimension at 0 adds nothing: only reasoning 1/5 × 3 of 6 -> 10.
  equal(
    weightedTotal(MIXED_RUBRIC, [
      { name: "accuracy", score: 0 },
      { name: "reasoning", score: 1 },
      { name: "style", score: 0 },
    ]),
    10,
  );
});

Deno.test("weightedTotal() refuses a missing, repeated, unknown or out-of-range score", () => {
  const good = [
    { name: "correctness", score: 4 },
    { name: "completeness", score: 5 },
    { name: "clarity", score: 3 },
  ];
  throwsWith(
    () => weightedTotal(SEED_RUBRIC, good.slice(0, 2)),
    'the dimension "clarity" has no score',
  );
  throwsWith(
    () => weightedTotal(SEED_RUBRIC, [...good, { name: "clarity", score: 3 }]),
    'the dimension "clarity" has two scores',
  );
  throwsWith(
    () => weightedTotal(SEED_RUBRIC, [...good, { name: "style", score: 3 }]),
    'the score of "style" names no dimension of the rubric "essay"',
  );
  throwsWith(
    () => weightedTotal(SEED_RUBRIC, [good[0], good[1], { name: "clarity", score: 0 }]),
    'the score 0 of "clarity" is not an integer in 1..5',
  );
  throwsWith(
    () => weightedTotal(SEED_RUBRIC, [good[0], good[1], { name: "clarity", score: 6 }]),
    'the score 6 of "clarity" is not an integer in 1..5',
  );
  throwsWith(
    () => weightedTotal(SEED_RUBRIC, [good[0], good[1], { name: "clarity", score: 2.5 }]),
    'the score 2.5 of "clarity" is not an integer in 1..5',
  );
});
