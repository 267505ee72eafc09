/**
 * Seed 001's percentile bootstrap interval of a resolved rate, drawn exactly
 * and fast: O(n + R log R) instead of O(n R).
 *
 * @module
 */
import { binomialInverseCdf, binomialQuantiles } from "./binomial_inverse_cdf.ts";
import { BinomialSupports } from "./binomial_pmf.ts";
import { seededRandom } from "./seeded_random.ts";
import { DEFAULT_BOOTSTRAP } from "./defaults.ts";

/** Options for {@link bootstrapRate}; the defaults are seed 001's. */
export interface BootstrapRateOptions {
  /** Bootstrap rounds R; default 2000. */
  rounds?: number;
  /** Seed of {@link seededRandom}; default 7. */
  seed?: number | string;
}

/** A percentile bootstrap interval of a rate; plain JSON data, keys in this order. */
export interface RateInterval {
  /** Always "percentile_bootstrap". */
  method: "percentile_bootstrap";
  /** Bootstrap rounds R. */
  rounds: number;
  /** Seed of `seededRandom`. */
  seed: number | string;
  /** Resolved scored episodes k. */
  resolved: number;
  /** Scored episodes n. */
  scored: number;
  /** Point estimate resolved / scored. */
  rate: number;
  /** The sorted statistic at index floor(0.025 R). */
  lower: number;
  /** The sorted statistic at index floor(0.975 R). */
  upper: number;
  /** True when lower === upper (a 0% or 100% rate resamples to itself). */
  collapsed: boolean;
}

/**
 * Percentile bootstrap 95% interval of the resolved rate `resolved / scored`.
 *
 * Rule (seed 001, `bootstrap_rate`): R rounds; each round resamples the
 * `scored` pass/fail rows with replacement and records the resolved rate;
 * the R statistics are sorted and the bounds are the entries at indices
 * floor(0.025 R) and floor(0.975 R) (for R = 2000: 50 and 1950).
 *
 * Shortcut, same distribution: a resample of n rows of which k passed holds
 * K ~ Binomial(n, k/n) passes, and the rate depends on the rows only through K.
 * So each round draws K directly by exact inverse CDF
 * ({@link binomialInverseCdf}(n, k/n), built on the log-space binomial pmf; no
 * normal approximation): one uniform u from `seededRandom(seed)`, then the
 * smallest j with u < F(j). Each call starts a fresh generator, as seed 001's
 * script does per agent, so the same counts and seed give identical output.
 * Randomness comes only from `seededRandom(seed)` (seedrandom Alea).
 * Cost: O(n) for the table, mostly a buffer's fill, and O(√n) for its
 * entries (the counts of positive probability), O(R log n) for the draws and
 * O(R log R) for the sort, memory O(n + R).
 *
 * @param resolved number of resolved (passing) scored episodes k, 0 ≤ k ≤ n
 * @param scored number of scored episodes n ≥ 1 (invalid episodes are never scored)
 * @param options `rounds` (default 2000), `seed` (default 7)
 * @returns the interval, the point rate, the parameters and a `collapsed` flag
 * @throws {RangeError} when the counts or `rounds` are not valid integers
 * @example
 * ```ts
 * import { bootstrapRate } from "./bootstrap_rate.ts";
 * const a = bootstrapRate(3, 4); // seed 001 sample, agent a
 * if (a.lower !== 0.25 || a.upper !== 1) throw new Error(JSON.stringify(a));
 * ```
 */
export function bootstrapRate(
  resolved: number,
  scored: number,
  options: BootstrapRateOptions = {},
): RateInterval {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  if (!Number.isSafeInteger(scored) || scored < 1) {
    throw new RangeError(
      `Cannot bootstrap a rate: "scored" must be a positive integer, got ${scored}`,
    );
  }
  if (!Number.isSafeInteger(resolved) || resolved < 0 || resolved > scored) {
    throw new RangeError(
      `Cannot bootstrap a rate: "resolved" must be an integer in [0, ${scored}], got ${resolved}`,
    );
  }
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Cannot bootstrap a rate: "rounds" must be a positive integer, got ${rounds}`,
    );
  }
  const random = seededRandom(seed);
  const inverseCdf = binomialInverseCdf(scored, resolved / scored);
  const draws = new Int32Array(rounds);
  for (let r = 0; r < rounds; r++) draws[r] = inverseCdf(random());
  draws.sort();
  return interval(resolved, scored, { rounds, seed }, [
    draws[Math.floor(0.025 * rounds)],
    draws[Math.floor(0.975 * rounds)],
  ]);
}

/** The interval record of k of n from its two bounding counts. */
function interval(
  resolved: number,
  scored: number,
  { rounds, seed }: { rounds: number; seed: number | string },
  [low, high]: readonly [number, number],
): RateInterval {
  const lower = low / scored;
  const upper = high / scored;
  return {
    method: "percentile_bootstrap",
    rounds,
    seed,
    resolved,
    scored,
    rate: resolved / scored,
    lower,
    upper,
    collapsed: lower === upper,
  };
}

/**
 * {@link bootstrapRate} for many counts of one n at once, each interval
 * equal to `bootstrapRate(k, scored, options)` (issue 13: the exact
 * coverage of the interval needs it at every count that matters).
 *
 * Why it is the same interval: every call starts a fresh generator from the
 * same seed, so all counts see the same R uniforms u_1..u_R; the inverse
 * CDF is non-decreasing in u, so the sorted draws are the inverse CDF at
 * the sorted uniforms, and the bounds at indices floor(0.025 R) and
 * floor(0.975 R) are the inverse CDF of Binomial(n, k/n) at those two order
 * statistics of u. Cost: O(R log R) and O(n) for the pmf's logarithms and
 * buffer (`BinomialSupports`, shared by every count) once, then the two
 * quantiles of each count (`binomialQuantiles`), O(√n) (the counts of
 * positive probability), instead of R draws and a sort.
 *
 * @param counts the resolved counts k, each an integer in [0, scored]
 * @param scored number of scored episodes n ≥ 1
 * @param options `rounds` (default 2000), `seed` (default 7)
 * @returns one interval per count, in the order given
 * @throws {RangeError} as {@link bootstrapRate}
 */
export function bootstrapRateForCounts(
  counts: readonly number[],
  scored: number,
  options: BootstrapRateOptions = {},
): RateInterval[] {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  // The argument checks of one call, for the first count (the others share n and the options).
  if (counts.length > 0) bootstrapRate(counts[0], scored, { rounds: 1, seed });
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Cannot bootstrap a rate: "rounds" must be a positive integer, got ${rounds}`,
    );
  }
  const random = seededRandom(seed);
  const uniforms = new Float64Array(rounds);
  for (let r = 0; r < rounds; r++) uniforms[r] = random();
  uniforms.sort();
  const uLower = uniforms[Math.floor(0.025 * rounds)];
  const uUpper = uniforms[Math.floor(0.975 * rounds)];
  const supports = new BinomialSupports(scored);
  return counts.map((resolved) => {
    if (!Number.isSafeInteger(resolved) || resolved < 0 || resolved > scored) {
      throw new RangeError(
        `Cannot bootstrap a rate: "resolved" must be an integer in [0, ${scored}], got ${resolved}`,
      );
    }
    const [low, high] = binomialQuantiles(scored, resolved / scored, [uLower, uUpper], supports);
    return interval(resolved, scored, { rounds, seed }, [low, high]);
  });
}
