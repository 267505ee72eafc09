import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { calibrateSprt, SEED_002_RATES } from "./calibrate_sprt.ts";
import { canonicalJson } from "../canonical_json.ts";

Deno.test("calibrateSprt() agrees with the exact values at seed 002's grid and defaults", () => {
  // Seed 002's calibrate.py: trials 20,000, seed 7; grid 0.30, 0.40, 0.50, 0.60, 0.70.
  const cal = calibrateSprt();
  deepEqual(cal.rows.map((r) => r.p_true), [0.3, 0.4, 0.5, 0.6, 0.7]);
  deepEqual(SEED_002_RATES, [0.3, 0.4, 0.5, 0.6, 0.7]);
  equal(cal.trials, 20000);
  equal(cal.seed, 7);
  for (const row of cal.rows) {
    equal(row.stream, `7/p_true=${row.p_true}`);
    for (const [key, z] of Object.entries(row.z)) {
      ok(z !== null && Math.abs(z) <= 4, `|z| of ${key} at ${row.p_true} is ${z}`);
    }
    // cap-adopt is unreachable: exactly 0 in both computations.
    equal(row.exact.decisions["cap-adopt"], 0);
    equal(row.monte_carlo.counts["cap-adopt"], 0);
  }
  ok(cal.agrees);
  ok(cal.max_abs_z !== null && cal.max_abs_z <= 4);
  deepEqual(cal.reachability.unreachable, ["cap-adopt"]);
  equal(cal.warnings.length, 1);
  // Exact answer to seed 002's question (see sprt_operating_characteristic_test.ts): at p = 0.5
  // only 0.1666 of the runs exhaust the budget, and the simulation sees the same within 4 SE.
  const half = cal.rows[2];
  ok(Math.abs(half.exact.budget_exhausted - 0.16655797081) < 1e-10);
  ok(Math.abs(half.monte_carlo.budget_exhausted - 0.16655797081) < 4 * 0.0027);
});

Deno.test("calibrateSprt() gives identical bytes for the same seed", () => {
  const options = { trials: 3000, seed: 2026, rates: [0.35, 0.55] };
  const a = canonicalJson(calibrateSprt({ n_cap: 30 }, options));
  const b = canonicalJson(calibrateSprt({ n_cap: 30 }, options));
  equal(a, b);
  // A rate's stream does not depend on the rest of the grid.
  const alone = calibrateSprt({ n_cap: 30 }, { ...options, rates: [0.55] });
  deepEqual(alone.rows[0], calibrateSprt({ n_cap: 30 }, options).rows[1]);
});

Deno.test("calibrateSprt() agrees for asymmetric parameters where every branch is reachable", () => {
  // n_cap 8 with these parameters reaches all four decisions (checked by brute force in
  // sprt_operating_characteristic_test.ts).
  const cal = calibrateSprt(
    { p_adopt: 0.65, p_drop: 0.45, alpha: 0.2, beta: 0.2, n_cap: 8 },
    { trials: 20000, rates: [0.3, 0.55, 0.8] },
  );
  ok(cal.agrees, `max |z| ${cal.max_abs_z}`);
  deepEqual(cal.reachability.unreachable, []);
  ok(cal.rows.every((r) => r.monte_carlo.counts["cap-adopt"] > 0));
});

Deno.test("calibrateSprt() reports z = 0 for the deterministic rates", () => {
  const cal = calibrateSprt({}, { trials: 100, rates: [0, 1] });
  for (const row of cal.rows) {
    deepEqual(Object.values(row.z), [0, 0, 0, 0, 0, 0]);
  }
  equal(cal.max_abs_z, 0);
  ok(cal.agrees);
});

Deno.test("calibrateSprt() refuses an empty grid, a bad rate and a bad tolerance", () => {
  throws(() => calibrateSprt({}, { rates: [] }), /"rates" must not be empty/);
  throws(() => calibrateSprt({}, { rates: [0.5, 1.2] }), /"p_true" must be in \[0, 1\], got "1.2"/);
  throws(() => calibrateSprt({}, { toleranceZ: 0 }), /"toleranceZ" must be positive, got "0"/);
});

Deno.test("calibrateSprt() uses the exact binomial test for an outcome expected far below once (issue 13)", () => {
  // The audit's case: 1 cap-adopt in 20,000 trials against the exact P(cap-adopt | 0.02) =
  // 6.272e-7 (by hand: 4 passes and 1 fail with the fail among the first four results, else
  // four passes adopt first: 4 · 0.02^4 · 0.98), an expected count of 0.0125: |z| 8.82, but scipy.stats.binomtest(1, 20000, 6.272e-07).pvalue
  // = 0.012465655858141666.
  const params = { p_adopt: 0.8, p_drop: 0.2, alpha: 0.01, beta: 0.01, n_cap: 5 };
  const cal = calibrateSprt(params, { rates: [0.02] });
  const row = cal.rows[0];
  ok(Math.abs(row.exact.decisions["cap-adopt"] - 6.272e-7) < 1e-18);
  equal(row.monte_carlo.counts["cap-adopt"], 1);
  ok(Math.abs((row.z["cap-adopt"] as number) - 8.816574193449531) < 1e-6); // still reported
  ok(Math.abs((row.exact_p["cap-adopt"] as number) - 0.012465655858141666) < 1e-12);
  // P(adopt | 0.02) = 1.6e-7 exactly (four passes in a row), no hit: scipy binomtest p = 1.
  equal(row.exact_p.adopt, 1);
  deepEqual([row.exact_p.drop, row.exact_p["cap-drop"], row.exact_p.budget_exhausted], [
    null,
    null,
    null,
  ]);
  equal(row.min_exact_p, row.exact_p["cap-adopt"]);
  // The level of |z| > 4: scipy.special.erfc(4 / math.sqrt(2)) = 6.334248366623996e-05.
  ok(Math.abs(cal.exact_p_level - 6.334248366623996e-05) < 1e-17);
  ok(row.max_abs_z !== null && row.max_abs_z < 4);
  ok(cal.agrees);
  // At tolerance 2 (level erfc(2 / sqrt 2) = 0.0455) the same count disagrees by its exact p.
  const strict = calibrateSprt(params, { rates: [0.02], toleranceZ: 2 });
  ok(Math.abs(strict.exact_p_level - 0.04550026389635843) < 1e-15);
  ok(strict.rows[0].max_abs_z !== null && strict.rows[0].max_abs_z <= 2);
  equal(strict.agrees, false);
});
