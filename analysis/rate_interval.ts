/**
 * The 95% interval of a resolved rate by the plan's `interval_method`
 * (issue 13): the interval printed, the interval the verdict uses, and the
 * coverage warning the default method carries at small n or few successes
 * or failures. The CLI, the report and `compareAgents` call this one
 * function, so what is printed and what decides cannot drift apart.
 *
 * @module
 */
import type { RateInterval } from "./bootstrap_rate.ts";
import { type ClopperPearsonInterval, clopperPearsonInterval } from "./clopper_pearson.ts";
import { DEFAULT_BOOTSTRAP, DEFAULT_INTERVAL_METHOD, INTERVAL_METHODS } from "./defaults.ts";
import { rateIntervalWithFallback } from "./rate_interval_with_fallback.ts";
import { type WilsonInterval, wilsonInterval } from "./wilson_interval.ts";

export { INTERVAL_METHODS };

/** One of {@link INTERVAL_METHODS}. */
export type IntervalMethod = typeof INTERVAL_METHODS[number];

/** Options for {@link rateInterval}. */
export interface RateIntervalOptions {
  /** The method; default `percentile-bootstrap` (seed 001). */
  method?: IntervalMethod;
  /** Bootstrap rounds; default 2000 (seed 001; the bootstrap only). */
  rounds?: number;
  /** Bootstrap seed; default 7 (seed 001; the bootstrap only). */
  seed?: number | string;
}

/** The coverage warning of a percentile bootstrap interval; plain JSON data. */
export interface CoverageWarning {
  /** Why the interval covers poorly, a sentence fragment (no final period). */
  reason: string;
  /** The Wilson 95% interval to print beside it. */
  wilson: { lower: number; upper: number };
}

/** A rate's interval by method; plain JSON data, keys in this order. */
export interface MethodRateInterval {
  /** The method used. */
  method: IntervalMethod;
  /** The method's interval; null when nothing was scored. */
  interval: RateInterval | WilsonInterval | ClopperPearsonInterval | null;
  /** True when the method's interval is a single point (the bootstrap at 0% or 100%). */
  collapsed: boolean;
  /** The Wilson interval beside a collapsed bootstrap interval; it then decides. Else null. */
  wilson: WilsonInterval | null;
  /** The interval a verdict uses: `wilson` when given, else `interval`; null when nothing was scored. */
  rule: { method: IntervalMethod; lower: number; upper: number } | null;
  /** Under the default method, set when its coverage is poor at this n and count; else null. */
  coverage_warning: CoverageWarning | null;
}

/**
 * The audit's rule for when a percentile bootstrap interval's coverage is
 * poor: n < 30, or fewer than 5 successes or fewer than 5 failures
 * (min(k, n − k) < 5). Source: issue 13, item 6: the interval of seed 001
 * covers 16–18% at n = 10 and p = 0.02 or 0.98, 45% at n = 30 and 88% at
 * n = 100; even with Wilson substituted at 0/n and n/n it covers only
 * 0.84–0.87 with one to three successes or failures. O(1).
 *
 * @param resolved successes k, an integer in [0, scored]
 * @param scored trials n, a positive integer
 * @returns the reason, or null when the rule does not fire
 * @example
 * ```ts
 * import { bootstrapCoverageProblem } from "./rate_interval.ts";
 * if (bootstrapCoverageProblem(50, 100) !== null) throw new Error("50/100 is fine");
 * if (bootstrapCoverageProblem(3, 4) === null) throw new Error("n = 4 is not");
 * ```
 */
export function bootstrapCoverageProblem(resolved: number, scored: number): string | null {
  const parts: string[] = [];
  if (scored < 30) parts.push(`n = ${scored} < 30`);
  const fewest = Math.min(resolved, scored - resolved);
  if (fewest < 5) {
    parts.push(
      `${fewest} ${resolved <= scored - resolved ? "resolved" : "unresolved"} (fewer than 5)`,
    );
  }
  return parts.length === 0
    ? null
    : `${parts.join(", ")}: the percentile bootstrap interval covers well below 95% here`;
}

/**
 * The 95% interval of `resolved / scored` by `method`, the interval a
 * verdict uses, and the default method's coverage warning.
 *
 * Rule:
 * - `percentile-bootstrap` (default; seed 001): {@link rateIntervalWithFallback}.
 *   When it collapses to a point (0% or 100%), the Wilson interval printed
 *   beside it is the one a verdict uses (issue 13, item 5: 10/10 against
 *   6/10 is not separated by [100%, 100%] against [30%, 90%], since Wilson
 *   10/10 is [72.2%, 100%]). When {@link bootstrapCoverageProblem} fires,
 *   `coverage_warning` carries the reason and the Wilson interval to print
 *   beside it; the bootstrap interval still decides unless it collapsed.
 * - `wilson`: {@link wilsonInterval}; it decides; no warning.
 * - `clopper-pearson`: {@link clopperPearsonInterval}; it decides; no warning.
 *
 * With nothing scored every interval is null. Cost: that of the method,
 * O(n + R log R) for the bootstrap, O(n) per bisection step for
 * Clopper–Pearson, O(1) for Wilson.
 *
 * @param resolved resolved scored episodes k, an integer in [0, scored]
 * @param scored scored episodes n, a non-negative integer
 * @param options `method`, `rounds` and `seed` (the bootstrap's)
 * @returns the interval, the rule's interval and any warning
 * @throws {RangeError} when the counts, the method or the bootstrap options are not valid
 * @example
 * ```ts
 * import { rateInterval } from "./rate_interval.ts";
 * const all = rateInterval(10, 10);
 * // The bootstrap collapses to [1, 1]; the verdict uses Wilson [0.7225, 1].
 * if (!all.collapsed || Math.abs(all.rule!.lower - 0.7224672) > 1e-6) throw new Error();
 * ```
 */
export function rateInterval(
  resolved: number,
  scored: number,
  options: RateIntervalOptions = {},
): MethodRateInterval {
  const method = options.method ?? DEFAULT_INTERVAL_METHOD;
  if (!(INTERVAL_METHODS as readonly string[]).includes(method)) {
    throw new RangeError(
      `Cannot compute a rate interval: "method" must be one of ${
        INTERVAL_METHODS.map((m) => `"${m}"`).join(", ")
      }, got "${method}"`,
    );
  }
  if (method === "percentile-bootstrap") {
    const { bootstrap, wilson } = rateIntervalWithFallback(resolved, scored, {
      rounds: options.rounds ?? DEFAULT_BOOTSTRAP.rounds,
      seed: options.seed ?? DEFAULT_BOOTSTRAP.seed,
    });
    if (bootstrap === null) return empty(method);
    const problem = bootstrapCoverageProblem(resolved, scored);
    const beside = problem === null ? null : wilson ?? wilsonInterval(resolved, scored);
    return {
      method,
      interval: bootstrap,
      collapsed: bootstrap.collapsed,
      wilson,
      rule: wilson === null
        ? { method, lower: bootstrap.lower, upper: bootstrap.upper }
        : { method: "wilson", lower: wilson.lower, upper: wilson.upper },
      coverage_warning: problem === null || beside === null
        ? null
        : { reason: problem, wilson: { lower: beside.lower, upper: beside.upper } },
    };
  }
  if (
    !(Number.isSafeInteger(scored) && Number.isSafeInteger(resolved) && 0 <= resolved &&
      resolved <= scored)
  ) {
    throw new RangeError(
      `Cannot compute a rate interval: "resolved" and "scored" must be integers with ` +
        `0 <= resolved <= scored, got ${resolved} and ${scored}`,
    );
  }
  if (scored === 0) return empty(method);
  const interval = method === "wilson"
    ? wilsonInterval(resolved, scored)
    : clopperPearsonInterval(resolved, scored);
  return {
    method,
    interval,
    collapsed: false,
    wilson: null,
    rule: { method, lower: interval.lower, upper: interval.upper },
    coverage_warning: null,
  };
}

/**
 * How a method is named in the text outputs, e.g. `percentile-bootstrap
 * (seed 001), 95%`: the line `interval: ...` that says which interval the
 * verdicts used. O(1).
 *
 * @param method the method
 * @returns its description
 * @example
 * ```ts
 * import { describeIntervalMethod } from "./rate_interval.ts";
 * if (describeIntervalMethod("wilson") !== "wilson, 95%") throw new Error();
 * ```
 */
export function describeIntervalMethod(method: IntervalMethod): string {
  return method === "percentile-bootstrap"
    ? "percentile-bootstrap (seed 001), 95%"
    : `${method}, 95%`;
}

function empty(method: IntervalMethod): MethodRateInterval {
  return {
    method,
    interval: null,
    collapsed: false,
    wilson: null,
    rule: null,
    coverage_warning: null,
  };
}
