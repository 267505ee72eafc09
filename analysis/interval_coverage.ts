/**
 * The tool's own error (issue 13, "the tool reports its own error"): how
 * often the 95% interval of a resolved rate that ledgerbench prints
 * contains the true rate, at the agent's n. The coverage is computed
 * exactly, not simulated: for n scored episodes and a true rate p, the
 * resolved count K is Binomial(n, p), and the interval the tool prints for
 * K = k is a fixed function of (k, n) (the percentile bootstrap's rounds
 * and seed are fixed too), so
 *
 *   coverage(n, p) = Σ_{k=0}^{n} P(K = k) · [lower(k, n) ≤ p ≤ upper(k, n)].
 *
 * Same n, p, method and seed give the same number on every machine. The
 * test cross-checks it against a seeded Monte Carlo simulation.
 *
 * The audit's figures, which the tests pin: the percentile bootstrap of
 * seed 001 covers 16–18% at n = 10 and p = 0.02 or 0.98, 45% at n = 30
 * and 88% at n = 100; with Wilson in its place at 0/n and n/n it dips to
 * 0.84–0.87; Wilson stays at or above 0.91 for n ≥ 100.
 *
 * @module
 */
import { binomialPmf, BinomialSupports } from "./binomial_pmf.ts";
import {
  bootstrapRate,
  bootstrapRateForCounts,
  type BootstrapRateOptions,
} from "./bootstrap_rate.ts";
import { wilsonInterval } from "./wilson_interval.ts";
import { INTERVAL_METHODS, rateInterval } from "./rate_interval.ts";

/**
 * The intervals whose coverage can be computed: seed 001's bootstrap as
 * computed (it collapses to a point at 0/n and n/n), and the interval each
 * of the plan's `interval_method`s gives a verdict (`rateInterval(...).rule`:
 * for `percentile-bootstrap` the bootstrap, Wilson in its place when it
 * collapses; `wilson`; `clopper-pearson`), which is what the tool prints.
 */
export const COVERAGE_METHODS = ["bootstrap-as-computed", ...INTERVAL_METHODS] as const;
/** One of {@link COVERAGE_METHODS}. */
export type CoverageMethod = typeof COVERAGE_METHODS[number];

/** The interval of a rate for k resolved of n, by method. */
export type IntervalOf = (k: number, n: number) => Bounds;

/**
 * The interval function of a method, with the bootstrap's rounds and seed.
 *
 * @param method which interval
 * @param options the bootstrap's `rounds` and `seed` (seed 001's defaults)
 * @returns (k, n) → the interval
 */
export function intervalOf(method: CoverageMethod, options: BootstrapRateOptions = {}): IntervalOf {
  if (method === "bootstrap-as-computed") return (k, n) => bootstrapRate(k, n, options);
  return (k, n) => rateInterval(k, n, { ...options, method }).rule!;
}

/** An interval of a rate: its bounds. */
export type Bounds = { lower: number; upper: number };

/**
 * The exact coverage of an interval at n scored episodes and true rate p
 * (the module's formula). Given a function, every count k = 0..n is summed;
 * given a map (as {@link coverageProfile} builds it), only its counts are,
 * the others having probability below {@link NEGLIGIBLE} at p. O(n); given
 * a map, mostly a buffer's fill, then the pmf's positive part (O(√n)) and
 * the map's counts.
 *
 * @param interval (k, n) → interval, or the intervals of the counts that matter
 * @param n scored episodes, a positive integer
 * @param p the true rate in [0, 1]
 * @returns the probability that the interval contains p
 * @throws {RangeError} when n or p are out of range
 * @example
 * ```ts
 * import { exactCoverage, intervalOf } from "./interval_coverage.ts";
 * // 10 episodes at a true rate of 2%: the bootstrap is [0, 0] whenever K = 0 (P = 0.817).
 * const c = exactCoverage(intervalOf("bootstrap-as-computed"), 10, 0.02);
 * if (!(c > 0.16 && c < 0.19)) throw new Error(String(c));
 * ```
 */
export function exactCoverage(
  interval: IntervalOf | ReadonlyMap<number, Bounds>,
  n: number,
  p: number,
): number {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`Cannot compute a coverage: "n" must be a positive integer, got ${n}`);
  }
  if (!(p >= 0 && p <= 1)) {
    throw new RangeError(`Cannot compute a coverage: "p" must lie in [0, 1], got ${p}`);
  }
  let covered = 0;
  if (typeof interval === "function") {
    const pmf = binomialPmf(n, p);
    for (let k = 0; k <= n; k++) {
      const { lower, upper } = interval(k, n);
      if (lower <= p && p <= upper) covered += pmf[k];
    }
  } else {
    // Counts of probability 0 are skipped: adding 0 leaves the sum as it is.
    const { first, probabilities } = new BinomialSupports(n).of(p);
    for (const [k, { lower, upper }] of interval) {
      const i = k - first;
      if (i >= 0 && i < probabilities.length && lower <= p && p <= upper) {
        covered += probabilities[i];
      }
    }
  }
  return Math.min(1, covered);
}

/**
 * A count whose probability is below this at every rate of a profile is left
 * out of its sums: the coverage is then exact to within (n + 1) × 1e-15
 * (2.5e-11 at n = 25,000), far below the 0.1% it is printed to, and still
 * the same number on every machine.
 */
export const NEGLIGIBLE = 1e-15;

/**
 * The largest n at which the Clopper–Pearson interval's coverage is
 * computed: each of its intervals takes a bisection of O(n) steps. Past it
 * the profile says it was not computed; the interval covers at least 95% at
 * every rate by its construction (Clopper and Pearson 1934).
 */
export const CLOPPER_PEARSON_MAX_N = 2000;

/** The counts k whose probability is at least {@link NEGLIGIBLE} at one of `rates`. */
function countsThatMatter(n: number, rates: readonly number[]): number[] {
  const keep = new Uint8Array(n + 1);
  const supports = new BinomialSupports(n);
  for (const rate of rates) {
    const { first, probabilities } = supports.of(rate);
    probabilities.forEach((probability, i) => {
      if (probability >= NEGLIGIBLE) keep[first + i] = 1;
    });
  }
  const counts: number[] = [];
  keep.forEach((flag, k) => flag === 1 && counts.push(k));
  return counts;
}

/**
 * The intervals of `method` at `counts` of n, equal to {@link intervalOf}'s
 * and computed faster: the bootstrap's for all counts from one pass of its
 * generator (`bootstrapRateForCounts`), Wilson in place of a collapsed one
 * as `rateInterval` puts it.
 */
function intervalsForCounts(
  method: CoverageMethod,
  counts: readonly number[],
  n: number,
  options: BootstrapRateOptions,
): Map<number, Bounds> {
  if (method === "bootstrap-as-computed" || method === "percentile-bootstrap") {
    const boots = bootstrapRateForCounts(counts, n, options);
    return new Map(counts.map((k, i) => [
      k,
      method === "percentile-bootstrap" && boots[i].collapsed ? wilsonInterval(k, n) : boots[i],
    ]));
  }
  const interval = intervalOf(method, options);
  return new Map(counts.map((k) => [k, interval(k, n)]));
}

/**
 * The true rates the coverage is reported across: near 0 and 1, where a
 * percentile interval fails most, and the middle.
 */
export const COVERAGE_RATES: readonly number[] = [
  0.01,
  0.02,
  0.05,
  0.1,
  0.2,
  0.3,
  0.5,
  0.7,
  0.8,
  0.9,
  0.95,
  0.98,
  0.99,
];

/** The coverage of one method at one n: at the observed rate and across {@link COVERAGE_RATES}. */
export interface CoverageProfile {
  method: CoverageMethod;
  n: number;
  /** Null when not computed (Clopper–Pearson past {@link CLOPPER_PEARSON_MAX_N}). */
  at_observed: number | null;
  /** Coverage at each rate of `rates`, in order; empty when not computed. */
  across: { rate: number; coverage: number }[];
  /** The lowest of `across`, and its rate; null when not computed. */
  lowest: { rate: number; coverage: number } | null;
}

/**
 * The coverage profile of `method` for an agent with k resolved of n
 * scored: at the observed rate and across `rates`, each summed over the
 * counts that matter there ({@link NEGLIGIBLE}). Cost: one interval per
 * such count (about 16 standard deviations around each rate), the
 * bootstrap's from one pass of its generator.
 *
 * @param method which interval
 * @param k resolved scored episodes
 * @param n scored episodes (positive)
 * @param options the bootstrap's rounds and seed, and the rates (default {@link COVERAGE_RATES})
 * @returns the profile
 */
export function coverageProfile(
  method: CoverageMethod,
  k: number,
  n: number,
  options: BootstrapRateOptions & { rates?: readonly number[] } = {},
): CoverageProfile {
  return coverageProfiles(method, [{ resolved: k, scored: n }], options)[0];
}

/**
 * {@link coverageProfile} for several agents at once: agents with the same n
 * (the usual case: every agent of a plan attempts the same tasks) share one
 * set of intervals, computed once for the counts that matter to any of them.
 *
 * @param method which interval
 * @param agents each agent's resolved and scored counts (scored positive)
 * @param options the bootstrap's rounds and seed, and the rates (default {@link COVERAGE_RATES})
 * @returns one profile per agent, in the order given
 */
export function coverageProfiles(
  method: CoverageMethod,
  agents: readonly { resolved: number; scored: number }[],
  options: BootstrapRateOptions & { rates?: readonly number[] } = {},
): CoverageProfile[] {
  const rates = options.rates ?? COVERAGE_RATES;
  const { rates: _, ...bootstrap } = options;
  const byN = new Map<number, Map<number, Bounds>>();
  for (const n of new Set(agents.map((a) => a.scored))) {
    if (method === "clopper-pearson" && n > CLOPPER_PEARSON_MAX_N) continue;
    const observed = agents.filter((a) => a.scored === n).map((a) => a.resolved / n);
    byN.set(
      n,
      intervalsForCounts(method, countsThatMatter(n, [...rates, ...observed]), n, bootstrap),
    );
  }
  return agents.map(({ resolved: k, scored: n }) => {
    const intervals = byN.get(n);
    if (intervals === undefined) return { method, n, at_observed: null, across: [], lowest: null };
    const across = rates.map((rate) => ({ rate, coverage: exactCoverage(intervals, n, rate) }));
    const lowest = across.reduce((low, point) => (point.coverage < low.coverage ? point : low));
    return { method, n, at_observed: exactCoverage(intervals, n, k / n), across, lowest };
  });
}
