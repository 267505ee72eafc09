/**
 * The exact two-sided binomial test: how surprising k successes in n
 * independent trials are if each succeeds with probability p. Used where a
 * normal approximation does not hold (issue 13): the exact McNemar test of
 * a paired comparison (the discordant tasks, p = 1/2) and the Monte Carlo
 * check of the SPRT's operating characteristic when an outcome's expected
 * count is far below 1.
 *
 * @module
 */
import { binomialPmf } from "./binomial_pmf.ts";

/**
 * The relative tolerance with which outcomes as likely as the observed one
 * count as "at least as extreme" (scipy.stats.binomtest uses 1 + 1e-7, so
 * that floating-point noise in equal probabilities does not drop one).
 */
const TIE_TOLERANCE = 1 + 1e-7;

/**
 * The two-sided p-value of observing `k` successes in `n` trials of
 * probability `p`: the total probability of every outcome j whose
 * probability is at most that of k (within {@link TIE_TOLERANCE}), as
 * `scipy.stats.binomtest(k, n, p, alternative="two-sided")` defines it
 * (the "minimum likelihood" two-sided test). For p = 1/2 it equals
 * min(1, 2 P(K ≤ min(k, n − k))), the exact McNemar test. Cost: O(n).
 *
 * @param k observed successes, 0 ≤ k ≤ n
 * @param n trials, a non-negative integer
 * @param p success probability in [0, 1]
 * @returns the p-value in [0, 1]
 * @throws {RangeError} when k or n are not integers with 0 ≤ k ≤ n, or p lies outside [0, 1]
 * @example
 * ```ts
 * import { binomialTestTwoSided } from "./binomial_test.ts";
 * // scipy.stats.binomtest(1, 10, 0.5).pvalue -> 0.021484375 (= 2 * 11 / 1024)
 * if (Math.abs(binomialTestTwoSided(1, 10, 0.5) - 0.021484375) > 1e-15) throw new Error();
 * ```
 */
export function binomialTestTwoSided(k: number, n: number, p: number): number {
  if (!Number.isSafeInteger(n) || n < 0 || !Number.isSafeInteger(k) || k < 0 || k > n) {
    throw new RangeError(
      `Cannot run a binomial test: need integers 0 <= k <= n, got k = ${k}, n = ${n}`,
    );
  }
  const pmf = binomialPmf(n, p);
  const observed = pmf[k] * TIE_TOLERANCE;
  let total = 0;
  for (const probability of pmf) if (probability <= observed) total += probability;
  return Math.min(1, total);
}

/**
 * Holm's step-down adjustment of a family of p-values (Holm 1979, "A simple
 * sequentially rejective multiple test procedure"): sorted ascending, the
 * i-th smallest (from 0) is multiplied by (m − i), each adjusted value is
 * at least the one before it, and none exceeds 1. It controls the
 * family-wise error rate at the nominal level for any dependence between
 * the tests. Cost: O(m log m).
 *
 * @param pValues the raw p-values, in any order
 * @returns the adjusted p-values, in the same order as given
 * @example
 * ```ts
 * import { holmAdjust } from "./binomial_test.ts";
 * // sorted 0.01 × 3, 0.03 × 2, 0.04 × 1, made non-decreasing: [0.03, 0.06, 0.06]
 * const adjusted = holmAdjust([0.01, 0.04, 0.03]);
 * if (adjusted.some((p, i) => Math.abs(p - [0.03, 0.06, 0.06][i]) > 1e-15)) {
 *   throw new Error(String(adjusted));
 * }
 * ```
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, index) => ({ p, index })).sort((a, b) =>
    a.p - b.p || a.index - b.index
  );
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, index }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[index] = running;
  });
  return adjusted;
}
