import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { pilotEstimate } from "./pilot_estimate.ts";

// Pilot: the tokens of seed-001 agent a's four episodes (1800+900, 4200+3100, 5100+4400, 2600+1200).
const PILOT = [2700, 7300, 9500, 3800];
const TOLERANCE = 1e-9;

Deno.test("pilotEstimate() pins seed 003's max projection and refusal", () => {
  // Hand computation: unit = max = 9500; 9500 × 28 × 1.25 = 332500 > 300000; headroom -32500.
  deepEqual(pilotEstimate(PILOT, { tasks: 28, budget: 300_000 }), {
    central: "max",
    safety: 1.25,
    pilot_size: 4,
    tasks: 28,
    unit_tokens: 9500,
    projected_tokens: 332_500,
    budget_tokens: 300_000,
    fits: false,
    headroom: -32_500,
  });
});

Deno.test("pilotEstimate() pins seed 003's mean projection", () => {
  // Hand computation: mean = 23300 / 4 = 5825; 5825 × 28 × 1.25 = 203875 ≤ 300000; headroom 96125.
  const estimate = pilotEstimate(PILOT, { tasks: 28, budget: 300_000 }, { central: "mean" });
  equal(estimate.unit_tokens, 5825);
  equal(estimate.projected_tokens, 203_875);
  equal(estimate.fits, true);
  equal(estimate.headroom, 96_125);
});

Deno.test("pilotEstimate() lets a projection equal to the budget fit", () => {
  // Seed 003: fits = projected <= budget. 8000 × 100 × 1.25 = 1,000,000 exactly.
  const estimate = pilotEstimate([8000, 1000], { tasks: 100, budget: 1_000_000 });
  equal(estimate.projected_tokens, 1_000_000);
  equal(estimate.fits, true);
  equal(estimate.headroom, 0);
  // One token less of budget and it no longer fits.
  equal(pilotEstimate([8000, 1000], { tasks: 100, budget: 999_999 }).fits, false);
});

Deno.test("pilotEstimate() decides an exact fit exactly (issue 13, item 3)", () => {
  // 10000 × 20 × 1.1 = 220,000 exactly (hand arithmetic), but 220000.00000000003 in floating
  // point, which refused the plan with "headroom: -0 tokens".
  const estimate = pilotEstimate([2700, 7300, 10_000, 3800], { tasks: 20, budget: 220_000 }, {
    safety: 1.1,
  });
  equal(estimate.projected_tokens, 220_000.00000000003);
  equal(estimate.fits, true);
  ok(Object.is(estimate.headroom, 0), `headroom ${estimate.headroom}`);
  // One token short: refused, headroom −1 (exactly: 219,999 − 220,000).
  const short = pilotEstimate([10_000], { tasks: 20, budget: 219_999 }, { safety: 1.1 });
  deepEqual([short.fits, short.headroom], [false, -1]);
  // The mean exactly: (1 + 2 + 4) / 3 × 3 × 1.1 = 7.7 fits a budget of 7.7, not of 7.69.
  const mean = { central: "mean", safety: 1.1 } as const;
  equal(pilotEstimate([1, 2, 4], { tasks: 3, budget: 7.7 }, mean).fits, true);
  ok(Object.is(pilotEstimate([1, 2, 4], { tasks: 3, budget: 7.7 }, mean).headroom, 0));
  equal(pilotEstimate([1, 2, 4], { tasks: 3, budget: 7.69 }, mean).fits, false);
  // 0.1 + 0.2 as spends: mean 0.15 exactly, × 2 × 1.25 = 0.375 fits 0.375.
  equal(pilotEstimate([0.1, 0.2], { tasks: 2, budget: 0.375 }, { central: "mean" }).fits, true);
});

Deno.test("pilotEstimate() applies a custom safety factor to a fractional mean", () => {
  // mean(1, 2, 4) = 7/3; 7/3 × 10 × 1.5 = 35; budget 10,000,000 (seed 003's example budget).
  const estimate = pilotEstimate([4, 1, 2], { tasks: 10, budget: 10_000_000 }, {
    central: "mean",
    safety: 1.5,
  });
  ok(Math.abs(estimate.unit_tokens - 7 / 3) < TOLERANCE);
  ok(Math.abs(estimate.projected_tokens - 35) < TOLERANCE);
  ok(Math.abs(estimate.headroom - 9_999_965) < TOLERANCE);
  // Max is never below mean: the conservative choice projects 4 × 10 × 1.5 = 60.
  equal(pilotEstimate([4, 1, 2], { tasks: 10, budget: 0 }, { safety: 1.5 }).projected_tokens, 60);
});

Deno.test("pilotEstimate() refuses an empty pilot and out-of-range inputs", () => {
  throws(
    () => pilotEstimate([], { tasks: 28, budget: 1 }),
    { name: "RangeError", message: "Cannot estimate spend: the pilot produced no usable traces" },
  );
  throws(() => pilotEstimate([1, -2], { tasks: 1, budget: 1 }), /pilot episode 1 has spend -2/);
  throws(
    () => pilotEstimate([1, Number.NaN], { tasks: 1, budget: 1 }),
    /pilot episode 1 has spend NaN/,
  );
  throws(
    () => pilotEstimate([1], { tasks: 0, budget: 1 }),
    /"tasks" must be a positive integer, found 0/,
  );
  throws(() => pilotEstimate([1], { tasks: 2.5, budget: 1 }), /"tasks" must be a positive integer/);
  throws(
    () => pilotEstimate([1], { tasks: 1, budget: -1 }),
    /"budget" must be a finite number ≥ 0/,
  );
  throws(
    () => pilotEstimate([1], { tasks: 1, budget: 1 }, { safety: 0 }),
    /"safety" must be a finite number > 0/,
  );
  throws(
    // deno-lint-ignore no-explicit-any
    () => pilotEstimate([1], { tasks: 1, budget: 1 }, { central: "median" as any }),
    /"central" must be "max" or "mean", found "median"/,
  );
});

Deno.test("pilotEstimate() does not reorder the caller's pilot", () => {
  const pilot = [3, 1, 2];
  pilotEstimate(pilot, { tasks: 1, budget: 10 });
  deepEqual(pilot, [3, 1, 2]);
});
