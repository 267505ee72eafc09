/**
 * Exact inverse CDF of a binomial distribution: turns one uniform number into
 * one exact Binomial(n, p) draw, the fast path of `bootstrapRate`.
 *
 * @module
 */
import { BinomialSupports } from "./binomial_pmf.ts";

/**
 * Builds the inverse CDF (quantile function) of Binomial(n, p): a function
 * mapping u ∈ [0, 1) to the smallest j with u < F(j), where F(j) = Σ_{i ≤ j} P(K = i).
 *
 * Fed a uniform u, it returns an exact Binomial(n, p) draw (no normal or other
 * approximation; F is the cumulative sum of the binomial pmf, computed in
 * log space, over the counts of positive probability, {@link BinomialSupports}).
 * Values of j with probability exactly 0 (underflow, or p ∈ {0, 1}) are never
 * returned; a u at or above the rounded F(n) returns the largest j
 * with positive probability. Source: inverse transform sampling (textbook);
 * used by seed 001's bootstrap through `bootstrapRate`.
 * Cost: O(s) to build, O(log s) per call (binary search), O(s) memory, s the
 * number of counts of positive probability (about 77 standard deviations of
 * K), plus O(n) for the supports unless they are given.
 *
 * @param n number of trials, a non-negative integer
 * @param p success probability in [0, 1]
 * @param supports the pmfs of this n, to share across calls (default: fresh ones)
 * @returns `(u) => j` for u in [0, 1)
 * @throws {RangeError} when `n` or `p` is invalid (see {@link BinomialSupports})
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
export function binomialInverseCdf(
  n: number,
  p: number,
  supports: BinomialSupports = new BinomialSupports(n),
): (u: number) => number {
  if (supports.n !== n) {
    throw new RangeError(`Cannot build an inverse CDF: supports of n = ${supports.n}, not ${n}`);
  }
  // Support [first, first + cdf.length): the counts of positive probability, whose
  // probabilities are summed in place into the CDF.
  const { first, probabilities: cdf } = supports.of(p);
  let sum = 0;
  for (let i = 0; i < cdf.length; i++) {
    sum += cdf[i];
    cdf[i] = sum;
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
