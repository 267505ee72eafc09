import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { binomialTestTwoSided, holmAdjust } from "./binomial_test.ts";

/** |a − b| within a relative 1e-12. */
function close(actual: number, expected: number): void {
  ok(
    Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)),
    `${actual} vs ${expected}`,
  );
}

Deno.test("binomialTestTwoSided() matches scipy.stats.binomtest, two-sided", () => {
  // scipy 1.17.1 `binomtest(k, n, p).pvalue`; for p = 1/2 also by hand:
  // 2 * P(K <= 1 | 10, 1/2) = 2 * 11 / 1024.
  close(binomialTestTwoSided(1, 10, 0.5), 22 / 1024);
  close(binomialTestTwoSided(7, 30, 0.5), 0.005222879350185395);
  close(binomialTestTwoSided(3, 20, 0.3), 0.2204182673807094);
  // pmf(0) = 0.32768; outcomes 0, 2, 3, 4, 5 are no likelier: 0.5904.
  close(binomialTestTwoSided(0, 5, 0.2), 0.5904);
  equal(binomialTestTwoSided(5, 10, 0.5), 1);
  equal(binomialTestTwoSided(0, 0, 0.4), 1);
});

Deno.test("binomialTestTwoSided(): one hit where 6.3e-7 was expected, exact rather than |z| 8.8", () => {
  // The audit's case: an outcome of exact probability q = 6.3e-7 seen once in
  // 20,000 trials. Two-sided: P(K >= 1) = 1 - (1 - q)^20000 ≈ 0.0125, since
  // P(K = 0) is the likelier outcome.
  const q = 6.3e-7;
  close(binomialTestTwoSided(1, 20_000, q), -Math.expm1(20_000 * Math.log1p(-q)));
  // scipy: binomtest(1, 20000, 6.3e-7).pvalue
  ok(Math.abs(binomialTestTwoSided(1, 20_000, q) - 0.012520956267749529) < 1e-12);
});

Deno.test("binomialTestTwoSided() refuses counts outside 0..n", () => {
  throws(() => binomialTestTwoSided(4, 3, 0.5), RangeError);
  throws(() => binomialTestTwoSided(-1, 3, 0.5), RangeError);
  throws(() => binomialTestTwoSided(1, 3, 1.5), RangeError);
});

Deno.test("holmAdjust() is Holm's step-down, in the given order (by hand)", () => {
  // [0.01, 0.04, 0.03]: sorted 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> max 0.06.
  const adjusted = holmAdjust([0.01, 0.04, 0.03]);
  [0.03, 0.06, 0.06].forEach((expected, i) => close(adjusted[i], expected));
  deepEqual(holmAdjust([0.5, 0.01]), [0.5, 0.02]);
  deepEqual(holmAdjust([0.6, 0.7]), [1, 1]);
  deepEqual(holmAdjust([]), []);
});
