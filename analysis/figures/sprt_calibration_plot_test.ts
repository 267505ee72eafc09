import assert from "node:assert/strict";
import { calibrateSprt } from "../sprt/calibrate_sprt.ts";
import { sprtOperatingCharacteristic } from "../sprt/sprt_operating_characteristic.ts";
import { sprtCalibrationPlot } from "./sprt_calibration_plot.ts";
import { rowsWith, subtitle } from "./_spec_for_test.ts";

const grid = Array.from({ length: 21 }, (_, i) => sprtOperatingCharacteristic({}, i / 20));
const calibration = calibrateSprt({}, { trials: 2000, rates: [0.3, 0.5, 0.7] });

Deno.test("sprtCalibrationPlot() draws the exact curves with cap-adopt flat at the defaults", () => {
  const spec = sprtCalibrationPlot(grid, calibration);
  const [exact] = rowsWith(spec, "p", "series", "value").filter((rows) => !("lo" in rows[0]));
  assert.equal(exact.length, 21 * 5); // 21 rates × 5 series
  // Seed 002's critique: cap-adopt can never happen with the defaults.
  const capAdopt = exact.filter((r) => r.series === "cap-adopt");
  assert.ok(capAdopt.every((r) => r.value === 0));
  // At p = 0.5: P(adopt) = 0.42229964868, P(N = 60) = 0.16655797081 (exact values
  // pinned in analysis/sprt/sprt_operating_characteristic.ts).
  const at = (series: string) => exact.find((r) => r.p === 0.5 && r.series === series)!.value;
  assert.ok(Math.abs((at("adopt (boundary)") as number) - 0.42229964868) < 1e-10);
  assert.ok(Math.abs((at("budget exhausted (N = cap)") as number) - 0.16655797081) < 1e-10);
  assert.match(subtitle(spec), /Warning: Decision "cap-adopt" can never occur/);
  assert.match(subtitle(spec), /2,000 trials per rate, seed 7/);
});

Deno.test("sprtCalibrationPlot() puts Monte Carlo points and error bars over the exact lines", () => {
  const spec = sprtCalibrationPlot(grid, calibration, { errorBarZ: 2 });
  const [points] = rowsWith(spec, "p", "series", "value", "lo", "hi");
  assert.equal(points.length, 3 * 5); // 3 rates × 5 series
  for (const point of points) {
    const row = calibration.rows.find((r) => r.p_true === point.p)!;
    const key = point.series === "budget exhausted (N = cap)"
      ? "budget_exhausted"
      : (point.series as string).replace(" (boundary)", "") as
        | "adopt"
        | "drop"
        | "cap-adopt"
        | "cap-drop";
    const value = key === "budget_exhausted"
      ? row.monte_carlo.budget_exhausted
      : row.monte_carlo.decisions[key];
    const se = row.monte_carlo.se[key];
    assert.equal(point.value, value);
    assert.ok(Math.abs((point.lo as number) - Math.max(0, value - 2 * se)) < 1e-15);
    assert.ok(Math.abs((point.hi as number) - Math.min(1, value + 2 * se)) < 1e-15);
  }
  // Expected sample size: the exact band and line (21 rates), then the Monte Carlo means.
  const sizes = rowsWith(spec, "p", "mean", "lo", "hi");
  assert.deepEqual(sizes.map((rows) => rows.length), [21, 21, 3, 3]);
  // At p = 0.5, E[N] = 31.36 exactly (seed-002 defaults, dynamic programming).
  assert.ok(Math.abs((sizes[0][10].mean as number) - 31.36) < 0.01);
});

Deno.test("sprtCalibrationPlot() refuses an empty or unsorted curve", () => {
  assert.throws(() => sprtCalibrationPlot([], calibration), {
    message: "Cannot build SPRT calibration plot: the exact curve is empty",
  });
  assert.throws(() => sprtCalibrationPlot([grid[2], grid[1]], calibration), {
    message: 'Cannot build SPRT calibration plot: curve point 1 has p_true "0.05", ' +
      'not above the previous "0.1"',
  });
});

Deno.test("sprtCalibrationPlot() names the exact binomial tests of rare outcomes (issue 13)", () => {
  // The audit's case: 1 cap-adopt in 20,000 against P = 6.272e-7; scipy.stats.binomtest p =
  // 0.012465655858141666 at the level scipy.special.erfc(4 / sqrt(2)) = 6.334e-5.
  const params = { p_adopt: 0.8, p_drop: 0.2, alpha: 0.01, beta: 0.01, n_cap: 5 };
  const curve = [0.02, 0.5].map((p) => sprtOperatingCharacteristic(params, p));
  const spec = JSON.stringify(sprtCalibrationPlot(curve, calibrateSprt(params, { rates: [0.02] })));
  assert.ok(
    spec.includes("largest |z| 1.23 (agrees within |z| ≤ 4); where an expected count is below 10,"),
  );
  assert.ok(spec.includes("smallest p 0.0125 (level 6.33e-5)."));
});
