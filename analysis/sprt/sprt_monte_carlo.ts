/**
 * Seeded Monte Carlo simulation of seed 002's truncated SPRT.
 *
 * @module
 */
import {
  ADOPT,
  CAP_ADOPT,
  CAP_DROP,
  CONTINUE,
  decisionCode,
  decisionShares,
  DROP,
  sprtConstants,
} from "./_decide.ts";
import { parseSprtParams, type SprtParamsInput } from "./sprt_params.ts";
import { checkRate } from "./_counts.ts";
import { type Random, seededRandom } from "../seeded_random.ts";
import type { SprtDecisionProbabilities } from "./sprt_operating_characteristic.ts";
import { DEFAULT_CALIBRATION } from "../defaults.ts";

/** Raw tallies of a simulation. */
export interface SprtMonteCarloCounts {
  /** Trials that adopted. */
  adopt: number;
  /** Trials that dropped. */
  drop: number;
  /** Trials that ended as cap-adopt. */
  "cap-adopt": number;
  /** Trials that ended as cap-drop. */
  "cap-drop": number;
  /** Trials that reached N = n_cap. */
  budget_exhausted: number;
}

/** Monte Carlo standard errors of the estimated quantities. */
export interface SprtMonteCarloErrors {
  /** Standard error of the estimate of P(adopt). */
  adopt: number;
  /** Standard error of the estimate of P(drop). */
  drop: number;
  /** Standard error of the estimate of P(cap-adopt). */
  "cap-adopt": number;
  /** Standard error of the estimate of P(cap-drop). */
  "cap-drop": number;
  /** Standard error of the estimate of P(adopt) + P(cap-adopt). */
  final_adopt: number;
  /** Standard error of the estimate of P(drop) + P(cap-drop). */
  final_drop: number;
  /** Standard error of the estimate of P(cap-adopt) + P(cap-drop). */
  cap_decision: number;
  /** Standard error of the estimate of P(N = n_cap). */
  budget_exhausted: number;
  /** Standard error of the estimate of E[N]. */
  expected_sample_size: number;
}

/** Monte Carlo estimates, with the same quantities as `SprtOperatingPoint`. */
export interface SprtMonteCarloPoint {
  /** The true per-result pass rate. */
  p_true: number;
  /** Number of simulated runs. */
  trials: number;
  /** Raw tallies. */
  counts: SprtMonteCarloCounts;
  /** Frequency of each final decision. */
  decisions: SprtDecisionProbabilities;
  /** Frequency of adopt + cap-adopt. */
  final_adopt: number;
  /** Frequency of drop + cap-drop. */
  final_drop: number;
  /** Frequency of cap-adopt + cap-drop. */
  cap_decision: number;
  /** Frequency of N = n_cap. */
  budget_exhausted: number;
  /** Mean N over the trials. */
  expected_sample_size: number;
  /** Sample standard deviation of N (divisor trials − 1). */
  sample_size_sd: number;
  /** Standard errors: sqrt(f(1 − f)/trials) for frequencies, sd/sqrt(trials) for E[N]. */
  se: SprtMonteCarloErrors;
}

/** Options of {@linkcode sprtMonteCarlo}. */
export interface SprtMonteCarloOptions {
  /** Number of simulated runs (default 20,000, seed 002's `calibrate.py`). */
  trials?: number;
  /** Seed for `seededRandom` when `random` is absent (default 7, seed 002). */
  seed?: number | string;
  /** A generator to draw from instead of `seededRandom(seed)`. */
  random?: Random;
}

/**
 * Simulates `trials` runs of the truncated SPRT with independent results of
 * true pass rate p and estimates the decision frequencies, the mean sample
 * size and the frequency of budget exhaustion, with standard errors.
 *
 * Method: each trial draws u = random() per result, a pass iff u < p, and
 * applies seed 002's `decide` after each result until it returns a final
 * decision (at the latest at n_cap). Standard errors: sqrt(f̂(1 − f̂)/T) for
 * a frequency f̂ over T trials, s/sqrt(T) for the mean N with s the sample
 * standard deviation. Randomness only through `seededRandom` (seedrandom
 * Alea), so the same seed gives the same counts on every machine.
 *
 * Source: seed 002 (`calibrate.py`, trials = 20,000, seed = 7). Use
 * `calibrateSprt` to compare with the exact values.
 *
 * Cost: O(trials × E[N]) draws; no allocation per trial or per step.
 *
 * @param params SPRT parameters (absent fields take seed 002's defaults)
 * @param pTrue the true pass rate, in [0, 1]
 * @param options `trials`, `seed` or `random`
 * @returns the estimates, keys in a fixed order
 * @throws {RangeError} on invalid parameters, rate or trial count
 * @example
 * ```ts
 * import { sprtMonteCarlo } from "./sprt_monte_carlo.ts";
 * const mc = sprtMonteCarlo({}, 0.5, { trials: 1000, seed: 7 });
 * if (mc.counts["cap-adopt"] !== 0) throw new Error("cap-adopt is unreachable at the defaults");
 * ```
 */
export function sprtMonteCarlo(
  params: SprtParamsInput,
  pTrue: number,
  options: SprtMonteCarloOptions = {},
): SprtMonteCarloPoint {
  checkRate("simulate the SPRT", pTrue);
  const trials = options.trials ?? DEFAULT_CALIBRATION.trials;
  if (!Number.isInteger(trials) || trials < 2) {
    throw new RangeError(
      `Cannot simulate the SPRT: "trials" must be an integer of at least 2, got "${
        String(trials)
      }"`,
    );
  }
  const c = sprtConstants(parseSprtParams(params));
  const random = options.random ?? seededRandom(options.seed ?? DEFAULT_CALIBRATION.seed);
  const nCap = c.nCap;
  const ended = new Float64Array(5); // trials per final decision code
  let exhausted = 0;
  let sumN = 0, sumN2 = 0;
  const walk = { passes: 0, fails: 0 }; // one object for every trial: no allocation per step
  for (let t = 0; t < trials; t++) {
    walk.passes = 0;
    walk.fails = 0;
    let code = CONTINUE;
    while (code === CONTINUE) {
      if (random() < pTrue) walk.passes++;
      else walk.fails++;
      code = decisionCode(c, walk);
    }
    const n = walk.passes + walk.fails;
    ended[code]++;
    if (n >= nCap) exhausted++;
    sumN += n;
    sumN2 += n * n;
  }
  const mean = sumN / trials;
  const variance = Math.max(0, (sumN2 - trials * mean * mean) / (trials - 1));
  const sd = Math.sqrt(variance);
  const freq = (k: number) => k / trials;
  const se = (k: number) => {
    const f = k / trials;
    return Math.sqrt(f * (1 - f) / trials);
  };
  const errors = decisionShares(ended, se);
  return {
    p_true: pTrue,
    trials,
    counts: {
      adopt: ended[ADOPT],
      drop: ended[DROP],
      "cap-adopt": ended[CAP_ADOPT],
      "cap-drop": ended[CAP_DROP],
      budget_exhausted: exhausted,
    },
    ...decisionShares(ended, freq),
    budget_exhausted: freq(exhausted),
    expected_sample_size: mean,
    sample_size_sd: sd,
    se: {
      ...errors.decisions,
      final_adopt: errors.final_adopt,
      final_drop: errors.final_drop,
      cap_decision: errors.cap_decision,
      budget_exhausted: se(exhausted),
      expected_sample_size: sd / Math.sqrt(trials),
    },
  };
}
