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

/**
 * Below this log weight a weight is below 2^−53 (e^−36.8 ≈ 1.05e-16, and
 * 2^−53 ≈ 1.11e-16: a margin far wider than the error of `Math.exp`, under
 * one unit in the last place in V8's port of fdlibm).
 */
const ABSORBED = -36.8;

/**
 * The values of {@link binomialInverseCdf}(n, p) at a few uniforms, each
 * the same count, computed with less work when the uniforms are not too
 * close to 1 (the bootstrap bounds of `bootstrapRateForCounts`).
 *
 * Why the same: the pmf's normalising sum Σ w(j) runs in ascending j, so
 * every weight above the mode (weight 1) is added to a partial sum of at
 * least 1; a weight below 2^−53 is then less than half a unit in the last
 * place of that sum, and adding it returns the sum unchanged (round to
 * nearest). Leaving those weights out (their exp is not even taken) gives
 * the very same sum. The CDF is then summed from the first count on, as
 * {@link binomialInverseCdf} sums it, up to the first count left out; a
 * uniform u below the CDF there has its count found, the smallest j with
 * u < F(j). A uniform at or above it (within about 1e-16 of 1) takes the
 * full inverse CDF. Cost: O(s) additions, with the exps and divisions only
 * up to about 8.6 standard deviations above the mode (the weight 2^−53)
 * and up to the largest uniform's count.
 *
 * @param n number of trials, a non-negative integer
 * @param p success probability in [0, 1]
 * @param uniforms the u in [0, 1) to invert
 * @param supports the pmfs of this n, to share across calls (default: fresh ones)
 * @returns the count of each uniform, in the order given
 * @throws {RangeError} when `n` or `p` is invalid, or `supports` are of another n
 */
export function binomialQuantiles(
  n: number,
  p: number,
  uniforms: readonly number[],
  supports: BinomialSupports = new BinomialSupports(n),
): number[] {
  if (supports.n !== n) {
    throw new RangeError(`Cannot build an inverse CDF: supports of n = ${supports.n}, not ${n}`);
  }
  if (!(p > 0 && p < 1)) return uniforms.map(binomialInverseCdf(n, p, supports));
  const { mode, first, last, logWeights } = supports.logWeights(p);
  // The counts [first, end) are summed into the CDF: up to the first one above the mode
  // whose weight is absorbed.
  let end = last + 1;
  for (let j = mode + 1; j <= last; j++) {
    if (logWeights[j] < ABSORBED) {
      end = j;
      break;
    }
  }
  const weights = new Float64Array(end - first);
  for (let i = 0; i < weights.length; i++) weights[i] = Math.exp(logWeights[first + i]);
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i];
  // Past `end`, only a weight of 2^−53 or more changes the sum (none, unless the log
  // weights rose again): it is added in its place in the order.
  for (let j = end; j <= last; j++) {
    if (logWeights[j] >= ABSORBED) total += Math.exp(logWeights[j]);
  }
  const counts = uniforms.map(() => -1);
  let open = uniforms.length;
  let cdf = 0;
  for (let i = 0; i < weights.length && open > 0; i++) {
    cdf += weights[i] / total;
    for (let at = 0; at < uniforms.length; at++) {
      if (counts[at] === -1 && uniforms[at] < cdf) {
        counts[at] = first + i;
        open--;
      }
    }
  }
  if (open === 0) return counts;
  const inverse = binomialInverseCdf(n, p, supports);
  return counts.map((count, at) => (count === -1 ? inverse(uniforms[at]) : count));
}
