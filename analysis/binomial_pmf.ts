/**
 * The exact Binomial(n, p) probability mass function, computed in log space.
 *
 * Used by `bootstrapRate` (through `binomialInverseCdf`): resampling n pass/fail rows with replacement
 * gives a resolved count distributed exactly as Binomial(n, k/n), so the
 * bootstrap can draw that count by inverse CDF over this table.
 *
 * @module
 */

/** Below this, exp(x) is exactly 0 in double precision (the smallest positive double is e^−744.4). */
const UNDERFLOW = -745.2;

/** The positive part of a Binomial(n, p) pmf: P(K = first + i) is `probabilities[i]`. */
export interface BinomialSupport {
  /** The smallest count of positive probability. */
  first: number;
  /** P(K = first), P(K = first + 1), …, up to the largest count of positive probability. */
  probabilities: Float64Array;
}

/**
 * The Binomial(n, p) pmfs of one n, for many p: each {@link of} call gives
 * the probabilities of positive value, the same doubles as in
 * {@link binomialPmf}'s table, in time proportional to their number rather
 * than to n. The logarithms log(1)..log(n) are computed once, as needed,
 * and shared by every p (each is the very double `Math.log` returns in its
 * place), and the log weights go to a buffer of n + 1 reused by every call.
 * Memory: O(n).
 */
export class BinomialSupports {
  /** Number of trials. */
  readonly n: number;
  /** log(i) at i once computed, NaN before. */
  readonly #logs: Float64Array;
  /** The log weights of the call under way, at their counts. */
  readonly #logWeights: Float64Array;

  /**
   * @param n number of trials, a non-negative integer
   * @throws {RangeError} when `n` is not a non-negative safe integer
   */
  constructor(n: number) {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new RangeError(
        `Cannot compute a binomial pmf: "n" must be a non-negative integer, got ${n}`,
      );
    }
    this.n = n;
    this.#logs = new Float64Array(n + 1).fill(Number.NaN);
    this.#logWeights = new Float64Array(n + 1);
  }

  /** Math.log(i), computed once. */
  #log(i: number): number {
    let value = this.#logs[i];
    if (value !== value) value = this.#logs[i] = Math.log(i);
    return value;
  }

  /**
   * The Binomial(n, p) probabilities of positive value; every count outside
   * `[first, first + probabilities.length)` has probability exactly 0.
   *
   * Formula: P(K = j) = C(n, j) p^j (1 − p)^(n − j). To stay exact without a
   * log-gamma function, the weights are built from the mode m = floor((n + 1) p)
   * outward in log space with the ratio recurrence
   * log w(j + 1) = log w(j) + log(n − j) − log(j + 1) + log(p / (1 − p)),
   * starting at log w(m) = 0, stopping on either side at the first weight
   * below e^−745.2, whose exp is exactly 0 (further out the weights keep
   * falling); then P(K = j) = w(j) / Σ w(i), the sum taken in ascending j.
   * Every weight is at most 1 and the sum is at least 1, so nothing
   * overflows. Relative error of a term is about |j − m| × 2^−52, e.g. 1e-12
   * near the mode for n = 100,000.
   * Source: textbook binomial distribution; needed by seed 001's bootstrap.
   * Cost: O(s) time and memory, s the number of weights above e^−745.2
   * (about 77 standard deviations, √(n p (1 − p))).
   *
   * @param p success probability in [0, 1]
   * @returns the first count of positive probability and the probabilities from it on
   * @throws {RangeError} when `p` is outside [0, 1]
   * @example
   * ```ts
   * import { BinomialSupports } from "./binomial_pmf.ts";
   * const { first, probabilities } = new BinomialSupports(3).of(1);
   * if (first !== 3 || probabilities.length !== 1 || probabilities[0] !== 1) throw new Error();
   * ```
   */
  of(p: number): BinomialSupport {
    if (p === 0 || p === 1) {
      return { first: p === 0 ? 0 : this.n, probabilities: Float64Array.of(1) };
    }
    const { first, last, logWeights } = this.logWeights(p);
    const weights = new Float64Array(last - first + 1);
    for (let i = 0; i < weights.length; i++) weights[i] = Math.exp(logWeights[first + i]);
    // The counts beyond [first, last] have weight 0, which changes no partial sum (x + 0 = x).
    let total = 0;
    for (let i = 0; i < weights.length; i++) total += weights[i];
    for (let i = 0; i < weights.length; i++) weights[i] /= total;
    // A weight of e^−745 or so divided by the total may round to 0: trim it off either end.
    let start = 0;
    while (weights[start] === 0) start++;
    let end = weights.length;
    while (weights[end - 1] === 0) end--;
    return { first: first + start, probabilities: weights.subarray(start, end) };
  }

  /**
   * The log weights of Binomial(n, p) for 0 < p < 1, as {@link of} builds
   * them: `logWeights[j]` = log w(j) for j in [first, last], 0 at the mode,
   * every weight outside having an exp of exactly 0. The array is this
   * instance's buffer, overwritten by the next call. Cost: O(last − first).
   *
   * @param p success probability in [0, 1]; 0 and 1 have no log weights
   * @returns the mode, the range and the buffer
   * @throws {RangeError} when `p` is not strictly between 0 and 1
   */
  logWeights(p: number): { mode: number; first: number; last: number; logWeights: Float64Array } {
    const n = this.n;
    if (!(p >= 0 && p <= 1)) {
      throw new RangeError(`Cannot compute a binomial pmf: "p" must lie in [0, 1], got ${p}`);
    }
    if (p === 0 || p === 1) {
      throw new RangeError(`Cannot compute binomial log weights: "p" is ${p}, all mass on one end`);
    }
    const logWeights = this.#logWeights;
    const mode = Math.min(n, Math.floor((n + 1) * p));
    const logOdds = Math.log(p) - Math.log1p(-p);
    logWeights[mode] = 0;
    let logW = 0;
    let last = mode;
    for (let j = mode; j < n; j++) {
      logW += this.#log(n - j) - this.#log(j + 1) + logOdds;
      if (logW < UNDERFLOW) break;
      logWeights[++last] = logW;
    }
    logW = 0;
    let first = mode;
    for (let j = mode; j > 0; j--) {
      // w(j - 1) / w(j) = j / (n - j + 1) × (1 - p) / p
      logW += this.#log(j) - this.#log(n - j + 1) - logOdds;
      if (logW < UNDERFLOW) break;
      logWeights[--first] = logW;
    }
    return { mode, first, last, logWeights };
  }
}

/**
 * The Binomial(n, p) probabilities P(K = j) for j = 0..n: the values of
 * {@link BinomialSupports.of} (which gives the formula), and 0 at every other j.
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
  const { first, probabilities } = new BinomialSupports(n).of(p);
  const pmf = new Float64Array(n + 1);
  pmf.set(probabilities, first);
  return pmf;
}
