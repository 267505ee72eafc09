/**
 * The Clopper–Pearson ("exact") confidence interval of a binomial
 * proportion, from the exact binomial tail.
 *
 * @module
 */
import { binomialPmf } from "./binomial_pmf.ts";

/** Options for {@link clopperPearsonInterval}. */
export interface ClopperPearsonOptions {
  /** Confidence level in (0, 1); default 0.95. */
  confidence?: number;
}

/** A Clopper–Pearson interval; plain JSON data, keys in this order. */
export interface ClopperPearsonInterval {
  /** Always "clopper-pearson". */
  method: "clopper-pearson";
  /** The confidence level used. */
  confidence: number;
  /** Lower bound, 0 exactly when there are no successes. */
  lower: number;
  /** Upper bound, 1 exactly when every trial succeeded. */
  upper: number;
}

/**
 * Clopper–Pearson interval of `successes / n` at the given confidence.
 *
 * Rule (Clopper & Pearson 1934), with α = 1 − confidence and K ~ Binomial(n, p):
 * the lower bound is the p with P(K ≥ k | p) = α/2 (0 when k = 0), the upper
 * bound the p with P(K ≤ k | p) = α/2 (1 when k = n); equivalently the α/2
 * quantile of Beta(k, n − k + 1) and the 1 − α/2 quantile of Beta(k + 1, n − k).
 * Each tail is monotone in p, so each bound is found by bisection on [0, 1]
 * until the bracket stops shrinking in double precision, the tail summed from
 * the exact binomial pmf ({@link binomialPmf}). The interval covers p with
 * probability at least the confidence for every p (it is conservative).
 * Agrees with scipy's `binomtest(k, n).proportion_ci(method="exact")` to
 * about 1e-12. Cost: O(n) per tail evaluation, about 60 evaluations per bound.
 *
 * @param successes number of successes k, an integer in [0, n]
 * @param n number of trials, a positive integer
 * @param options `confidence` (default 0.95)
 * @returns `{method: "clopper-pearson", confidence, lower, upper}`
 * @throws {RangeError} when the counts or the confidence are out of range
 * @example
 * ```ts
 * import { clopperPearsonInterval } from "./clopper_pearson.ts";
 * const { lower, upper } = clopperPearsonInterval(6, 10);
 * // scipy.stats.binomtest(6, 10).proportion_ci(method="exact") -> (0.26237807660, 0.87844774188)
 * if (Math.abs(lower - 0.2623780766) > 1e-9 || Math.abs(upper - 0.8784477419) > 1e-9) {
 *   throw new Error(`${lower} ${upper}`);
 * }
 * ```
 */
export function clopperPearsonInterval(
  successes: number,
  n: number,
  options: ClopperPearsonOptions = {},
): ClopperPearsonInterval {
  const confidence = options.confidence ?? 0.95;
  if (!(Number.isSafeInteger(n) && n > 0)) {
    throw new RangeError(
      `Cannot compute a Clopper-Pearson interval: "n" must be a positive integer, got ${n}`,
    );
  }
  if (!(Number.isSafeInteger(successes) && successes >= 0 && successes <= n)) {
    throw new RangeError(
      `Cannot compute a Clopper-Pearson interval: "successes" must be an integer in [0, ${n}], ` +
        `got ${successes}`,
    );
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(
      `Cannot compute a Clopper-Pearson interval: "confidence" must lie in (0, 1), ` +
        `got ${confidence}`,
    );
  }
  const tail = (1 - confidence) / 2;
  // P(K >= k | p) rises with p; the lower bound is where it reaches the tail.
  const lower = successes === 0 ? 0 : bisect((p) => upperTail(successes, n, p) < tail);
  // P(K <= k | p) falls with p; the upper bound is where it drops to the tail.
  const upper = successes === n ? 1 : bisect((p) => 1 - upperTail(successes + 1, n, p) > tail);
  return { method: "clopper-pearson", confidence, lower, upper };
}

/** P(K ≥ k) for K ~ Binomial(n, p), summed from the smaller terms up. */
function upperTail(k: number, n: number, p: number): number {
  const pmf = binomialPmf(n, p);
  let sum = 0;
  for (let j = n; j >= k; j--) sum += pmf[j];
  return Math.min(1, sum);
}

/** The boundary in [0, 1] where `below` turns from true to false. */
function bisect(below: (p: number) => boolean): number {
  let lo = 0;
  let hi = 1;
  for (;;) {
    const mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi) return (lo + hi) / 2;
    if (below(mid)) lo = mid;
    else hi = mid;
  }
}
