/**
 * Exact inverse CDF of a binomial distribution: turns one uniform number into
 * one exact Binomial(n, p) draw, the fast path of `bootstrapRate`.
 *
 * @module
 */
import { binomialPmf } from "./binomial_pmf.ts";

/**
 * Builds the inverse CDF (quantile function) of Binomial(n, p): a function
 * mapping u ∈ [0, 1) to the smallest j with u < F(j), where F(j) = Σ_{i ≤ j} P(K = i).
 *
 * Fed a uniform u, it returns an exact Binomial(n, p) draw (no normal or other
 * approximation; F is the cumulative sum of {@link binomialPmf}, computed in
 * log space). Values of j with probability exactly 0 (underflow, or p ∈ {0, 1})
 * are never returned; a u at or above the rounded F(n) returns the largest j
 * with positive probability. Source: inverse transform sampling (textbook);
 * used by seed 001's bootstrap through `bootstrapRate`.
 * Cost: O(n) to build, O(log n) per call (binary search), O(n) memory.
 *
 * @param n number of trials, a non-negative integer
 * @param p success probability in [0, 1]
 * @returns `(u) => j` for u in [0, 1)
 * @throws {RangeError} when `n` or `p` is invalid (see {@link binomialPmf})
 * @example
 * ```ts
 * import { binomialInverseCdf } from "./binomial_inverse_cdf.ts";
 * // Binomial(4, 0.75): F = [1, 13, 67, 175, 256] / 256 (hand computation)
 * const quantile = binomialInverseCdf(4, 0.75);
 * if (quantile(0) !== 0 || quantile(0.01) !== 1 || quantile(0.5) !== 3 || quantile(0.99) !== 4) {
 *   throw new Error("quantile");
 * }
 * ```
 */
export function binomialInverseCdf(n: number, p: number): (u: number) => number {
  const pmf = binomialPmf(n, p);
  // Support [first, last]: entries outside are exactly 0.
  let first = 0;
  while (pmf[first] === 0) first++;
  let last = n;
  while (pmf[last] === 0) last--;
  const cdf = new Float64Array(last - first + 1);
  let sum = 0;
  for (let j = first; j <= last; j++) {
    sum += pmf[j];
    cdf[j - first] = sum;
  }
  const top = cdf.length - 1;
  return (u: number): number => {
    let lo = 0;
    let hi = top;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (u < cdf[mid]) hi = mid;
      else lo = mid + 1;
    }
    return first + lo;
  };
}
