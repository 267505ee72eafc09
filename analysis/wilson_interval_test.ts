import { equal, ok, throws } from "node:assert/strict";
import { wilsonInterval, Z_95 } from "./wilson_interval.ts";

const TOLERANCE = 1e-12;

function close(actual: number, expected: number, what: string): void {
  ok(Math.abs(actual - expected) <= TOLERANCE, `${what}: got ${actual}, expected ${expected}`);
}

function throwsWith(fn: () => unknown, kind: ErrorConstructor, text: string): void {
  throws(fn, (error: unknown) => error instanceof kind && error.message.includes(text));
}

Deno.test("wilsonInterval() reproduces Newcombe (1998) Table II, method 3", () => {
  // Newcombe, "Two-sided confidence intervals for the single proportion", Stat. Med. 17:857,
  // Table II, Wilson score method without continuity correction, printed to 4 decimals:
  // 81/263 -> 0.2553, 0.3662; 15/148 -> 0.0624, 0.1605; 0/20 -> 0, 0.1611; 1/29 -> 0.0061, 0.1718.
  // Full-precision values: the closed form evaluated in Python floats (same z).
  const cases: [number, number, number, number, number, number][] = [
    [81, 263, 0.2552885198782742, 0.36620957698280004, 0.2553, 0.3662],
    [15, 148, 0.0623863995307363, 0.16048724172330803, 0.0624, 0.1605],
    [0, 20, 0, 0.16112515805281938, 0, 0.1611],
    [1, 29, 0.006113214292762653, 0.17175521879320288, 0.0061, 0.1718],
  ];
  for (const [k, n, lower, upper, printedLower, printedUpper] of cases) {
    const w = wilsonInterval(k, n);
    close(w.lower, lower, `${k}/${n} lower`);
    close(w.upper, upper, `${k}/${n} upper`);
    // The paper's printed values: rounding to 4 decimals is within half a unit, 5e-5.
    ok(Math.abs(w.lower - printedLower) <= 5e-5, `${k}/${n} printed lower`);
    ok(Math.abs(w.upper - printedUpper) <= 5e-5, `${k}/${n} printed upper`);
  }
});

Deno.test("wilsonInterval() pins the seed-001 sample rates and the collapsed ends", () => {
  // Closed form in Python floats, z = 1.959963984540054 (scipy.stats.norm.ppf(0.975)).
  const a = wilsonInterval(3, 4); // seed 001, agent a: 3/4
  close(a.lower, 0.30064184258240184, "3/4 lower");
  close(a.upper, 0.9544127391902995, "3/4 upper");
  const b = wilsonInterval(2, 4); // seed 001, agent b: 2/4
  close(b.lower, 0.15003898915214953, "2/4 lower");
  close(b.upper, 0.8499610108478505, "2/4 upper");
  // At 0/n the upper bound is z²/(n + z²) (hand algebra): 3.8414588206941236 / 7.8414588206941236.
  const none = wilsonInterval(0, 4);
  equal(none.lower, 0);
  close(none.upper, (Z_95 * Z_95) / (4 + Z_95 * Z_95), "0/4 upper");
  // At n/n the interval mirrors 0/n: lower = n/(n + z²) and upper exactly 1.
  const all = wilsonInterval(4, 4);
  equal(all.upper, 1);
  close(all.lower, 4 / (4 + Z_95 * Z_95), "4/4 lower");
  equal(all.method, "wilson");
  equal(all.z, Z_95);
});

Deno.test("wilsonInterval() bounds solve the score equation (p̂ − p)² = z² p(1 − p)/n", () => {
  // Independent of the closed form: plug each bound back into the quadratic it solves.
  for (const [k, n, z] of [[7, 19, Z_95], [33, 40, 2.5758293035489004], [1, 3, 1]]) {
    const w = wilsonInterval(k, n, { z });
    const pHat = k / n;
    for (const p of [w.lower, w.upper]) {
      const residual = (pHat - p) ** 2 - (z * z * p * (1 - p)) / n;
      ok(Math.abs(residual) < 1e-14, `${k}/${n} z=${z} residual ${residual} at ${p}`);
    }
    ok(w.lower < pHat && pHat < w.upper);
  }
});

Deno.test("wilsonInterval() accepts a fractional success count", () => {
  // 2.5 of 5 is p̂ = 0.5: symmetric around 0.5 (hand algebra: centre = 0.5 for any n).
  const w = wilsonInterval(2.5, 5);
  close(w.lower + w.upper, 1, "symmetry");
});

Deno.test("wilsonInterval() refuses invalid input", () => {
  throwsWith(() => wilsonInterval(0, 0), RangeError, '"n" must be positive, got 0');
  throwsWith(() => wilsonInterval(5, 4), RangeError, '"successes" must lie in [0, 4], got 5');
  throwsWith(() => wilsonInterval(-1, 4), RangeError, '"successes" must lie in [0, 4], got -1');
  throwsWith(() => wilsonInterval(1, 4, { z: 0 }), RangeError, '"z" must be positive, got 0');
});
