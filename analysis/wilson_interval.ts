/**
 * The Wilson score interval for a proportion: the interval reported beside a
 * percentile bootstrap interval that has collapsed to a point (a 0% or 100%
 * rate resamples to itself every round).
 *
 * @module
 */

/** Two-sided 95% normal quantile, Φ⁻¹(0.975) (scipy.stats.norm.ppf(0.975)). */
export const Z_95 = 1.959963984540054;

/** Options for {@link wilsonInterval}. */
export interface WilsonIntervalOptions {
  /** Normal quantile; default {@link Z_95} (a two-sided 95% interval). */
  z?: number;
}

/** A Wilson score interval; plain JSON data, keys in this order. */
export interface WilsonInterval {
  /** Always "wilson". */
  method: "wilson";
  /** The normal quantile used. */
  z: number;
  /** Lower bound, 0 exactly when there are no successes. */
  lower: number;
  /** Upper bound, 1 exactly when every trial succeeded. */
  upper: number;
}

/**
 * Wilson score interval of a proportion `successes / n`.
 *
 * Formula (Wilson 1927; Agresti & Coull 1998), with p̂ = successes / n:
 * centre = (p̂ + z²/(2n)) / (1 + z²/n),
 * half-width = z / (1 + z²/n) × √(p̂(1 − p̂)/n + z²/(4n²)),
 * interval = [centre − half-width, centre + half-width] clamped to [0, 1].
 * The bounds are the two roots p of (p̂ − p)² = z² p (1 − p) / n; at p̂ = 0 the
 * lower bound is exactly 0 and at p̂ = 1 the upper bound is exactly 1. Unlike
 * a percentile bootstrap, it never collapses to a point.
 * Source: the comparison rules of seed 001 need an interval beside a collapsed
 * bootstrap interval; the formula is the textbook one. Cost: O(1).
 *
 * @param successes number of successes in [0, n]; may be fractional (e.g. a
 *   per-task mean rate × number of tasks)
 * @param n number of trials, > 0
 * @param options `z` (default 1.959963984540054)
 * @returns `{method: "wilson", z, lower, upper}`
 * @throws {RangeError} when `n` is not positive, `successes` is outside [0, n],
 *   or `z` is not a positive finite number
 * @example
 * ```ts
 * import { wilsonInterval } from "./wilson_interval.ts";
 * const { lower, upper } = wilsonInterval(0, 10);
 * // 0/10 at 95%: [0, 0.27753...] (closed form z²/(n + z²))
 * if (lower !== 0 || Math.abs(upper - 0.2775327998628892) > 1e-12) throw new Error(String(upper));
 * ```
 */
export function wilsonInterval(
  successes: number,
  n: number,
  options: WilsonIntervalOptions = {},
): WilsonInterval {
  const z = options.z ?? Z_95;
  if (!(Number.isFinite(n) && n > 0)) {
    throw new RangeError(`Cannot compute a Wilson interval: "n" must be positive, got ${n}`);
  }
  if (!(successes >= 0 && successes <= n)) {
    throw new RangeError(
      `Cannot compute a Wilson interval: "successes" must lie in [0, ${n}], got ${successes}`,
    );
  }
  if (!(Number.isFinite(z) && z > 0)) {
    throw new RangeError(`Cannot compute a Wilson interval: "z" must be positive, got ${z}`);
  }
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const lower = successes === 0 ? 0 : Math.max(0, centre - half);
  const upper = successes === n ? 1 : Math.min(1, centre + half);
  return { method: "wilson", z, lower, upper };
}
