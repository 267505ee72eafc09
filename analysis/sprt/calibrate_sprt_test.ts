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
