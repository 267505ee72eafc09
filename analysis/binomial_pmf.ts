/**
 * The exact Binomial(n, p) probability mass function, computed in log space.
 *
 * Used by `bootstrapRate` (through `binomialInverseCdf`): resampling n pass/fail rows with replacement
 * gives a resolved count distributed exactly as Binomial(n, k/n), so the
 * bootstrap can draw that count by inverse CDF over this table.
 *
 * @module
 */

/**
 * The Binomial(n, p) probabilities P(K = j) for j = 0..n.
 *
 * Formula: P(K = j) = C(n, j) p^j (1 − p)^(n − j). To stay exact without a
 * log-gamma function, the table is built from the mode m = floor((n + 1) p)
 * outward in log space with the ratio recurrence
 * log w(j + 1) = log w(j) + log(n − j) − log(j + 1) + log(p / (1 − p)),
 * starting at log w(m) = 0, then normalised: P(K = j) = exp(log w(j)) / Σ exp(log w(i)).
 * Every weight is at most 1 and the sum is at least 1, so nothing overflows;
 * terms below e^−745 underflow to exactly 0. Relative error of a term is about
 * |j − m| × 2^−52, e.g. 1e-12 near the mode for n = 100,000.
 * Source: textbook binomial distribution; needed by seed 001's bootstrap.
 * Cost: O(n) time and memory.
 *
 * @param n number of trials, a non-negative integer
 * @param p success probability in [0, 1]
 * @returns a `Float64Array` of length n + 1 whose entries sum to 1 (within rounding)
 * @throws {RangeError} when `n` is not a non-negative safe integer or `p` is outside [0, 1]
 * @example
 * ```ts
 * import { binomialPmf } from "./binomial_pmf.ts";
 * const pmf = binomialPmf(4, 0.75);
 * // scipy.stats.binom.pmf(3, 4, 0.75) -> 0.421875
 * if (Math.abs(pmf[3] - 0.421875) > 1e-15) throw new Error(String(pmf[3]));
 * ```
 */
export function binomialPmf(n: number, p: number): Float64Array {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(
      `Cannot compute a binomial pmf: "n" must be a non-negative integer, got ${n}`,
    );
  }
  if (!(p >= 0 && p <= 1)) {
    throw new RangeError(`Cannot compute a binomial pmf: "p" must lie in [0, 1], got ${p}`);
  }
  const pmf = new Float64Array(n + 1);
  if (p === 0 || p === 1) {
    pmf[p === 0 ? 0 : n] = 1;
    return pmf;
  }
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const logOdds = Math.log(p) - Math.log1p(-p);
  const UNDERFLOW = -745.2; // exp(x) is exactly 0 below this
  pmf[mode] = 1;
  let logW = 0;
  for (let j = mode; j < n; j++) {
    logW += Math.log(n - j) - Math.log(j + 1) + logOdds;
    if (logW < UNDERFLOW) break;
    pmf[j + 1] = Math.exp(logW);
  }
  logW = 0;
  for (let j = mode; j > 0; j--) {
    // w(j - 1) / w(j) = j / (n - j + 1) × (1 - p) / p
    logW += Math.log(j) - Math.log(n - j + 1) - logOdds;
    if (logW < UNDERFLOW) break;
    pmf[j - 1] = Math.exp(logW);
  }
  let total = 0;
  for (let j = 0; j <= n; j++) total += pmf[j];
  for (let j = 0; j <= n; j++) pmf[j] /= total;
  return pmf;
}
