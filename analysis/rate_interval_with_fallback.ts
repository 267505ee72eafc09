/**
 * Seed 001's bootstrap interval of a resolved rate, with a Wilson interval
 * beside it whenever the bootstrap collapses to a point: the one place this
 * reporting rule is written (compareAgents, the report and `summarize` call it).
 *
 * @module
 */
import { bootstrapRate, type BootstrapRateOptions, type RateInterval } from "./bootstrap_rate.ts";
import { type WilsonInterval, wilsonInterval } from "./wilson_interval.ts";

/** Options for {@link rateIntervalWithFallback}; the defaults are seed 001's. */
export interface RateIntervalWithFallbackOptions extends BootstrapRateOptions {
  /** Normal quantile of the Wilson interval; default Φ⁻¹(0.975) (see `wilsonInterval`). */
  z?: number;
}

/** A bootstrap interval and its Wilson fallback; plain JSON data, keys in this order. */
export interface RateIntervalWithFallback {
  /** The percentile bootstrap interval; null when nothing was scored. */
  bootstrap: RateInterval | null;
  /** The Wilson interval, given only when `bootstrap.collapsed` is true; else null. */
  wilson: WilsonInterval | null;
}

/**
 * Percentile bootstrap 95% interval of `resolved / scored`, plus a Wilson 95%
 * interval when the bootstrap interval collapses to a point.
 *
 * Rule: a 0% or 100% rate resamples to itself every round, so its percentile
 * bootstrap interval is a single point that understates the uncertainty; such
 * an interval is still reported (seed 001's method) but a Wilson score
 * interval is reported beside it. Otherwise only the bootstrap interval is
 * reported. With no scored episode there is no rate and both are null.
 * Source: seed 001 (bootstrap interval, default R = 2000, seed 7); the Wilson
 * fallback is this project's reporting rule ({@link wilsonInterval}).
 * Cost: that of {@link bootstrapRate}, O(n + R log R), plus O(1).
 *
 * @param resolved number of resolved scored episodes k, integer in [0, scored]
 * @param scored number of scored episodes n, a non-negative integer
 * @param options `rounds` (default 2000), `seed` (default 7), `z` (Wilson quantile)
 * @returns `{bootstrap, wilson}`: both null when `scored` is 0; `wilson` null
 *   unless `bootstrap.collapsed`
 * @throws {RangeError} when the counts, `rounds` or `z` are not valid
 * @example
 * ```ts
 * import { rateIntervalWithFallback } from "./rate_interval_with_fallback.ts";
 * const { bootstrap, wilson } = rateIntervalWithFallback(0, 10);
 * // 0/10 collapses to [0, 0]; Wilson upper z²/(n + z²) ≈ 0.2775
 * if (!bootstrap?.collapsed || wilson === null || wilson.lower !== 0) throw new Error("no fallback");
 * ```
 */
export function rateIntervalWithFallback(
  resolved: number,
  scored: number,
  options: RateIntervalWithFallbackOptions = {},
): RateIntervalWithFallback {
  if (scored === 0) {
    if (resolved !== 0) {
      throw new RangeError(
        `Cannot bootstrap a rate: "resolved" must be 0 when "scored" is 0, got ${resolved}`,
      );
    }
    return { bootstrap: null, wilson: null };
  }
  const bootstrap = bootstrapRate(resolved, scored, { rounds: options.rounds, seed: options.seed });
  const wilson = bootstrap.collapsed
    ? wilsonInterval(resolved, scored, options.z === undefined ? {} : { z: options.z })
    : null;
  return { bootstrap, wilson };
}
