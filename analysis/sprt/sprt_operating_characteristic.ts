/**
 * Exact operating characteristic of seed 002's truncated SPRT.
 *
 * @module
 */
import { CONTINUE, decisionCode, decisionShares, sprtConstants } from "./_decide.ts";
import { parseSprtParams, type SprtParamsInput } from "./sprt_params.ts";
import { checkRate } from "./_counts.ts";

/** Probability (or frequency) of each final decision, in a fixed key order. */
export interface SprtDecisionProbabilities {
  /** LLR reached the upper boundary. */
  adopt: number;
  /** LLR reached the lower boundary. */
  drop: number;
  /** Cap reached undecided with passes/n ≥ p_adopt. */
  "cap-adopt": number;
  /** Cap reached undecided with passes/n < p_adopt. */
  "cap-drop": number;
}

/** The exact behaviour of the truncated walk for one true pass rate. */
export interface SprtOperatingPoint {
  /** The true per-result pass rate p. */
  p_true: number;
  /** P(final decision = d) for each d; the four sum to 1. */
  decisions: SprtDecisionProbabilities;
  /** P(adopt) + P(cap-adopt): probability the run ends in adoption. */
  final_adopt: number;
  /** P(drop) + P(cap-drop). */
  final_drop: number;
  /** P(cap-adopt) + P(cap-drop): the cap fallback decided. */
  cap_decision: number;
  /**
   * P(N = n_cap): the run used its whole budget of valid results, whether the
   * last result crossed a boundary or the cap fallback decided.
   */
  budget_exhausted: number;
  /** E[N], the expected number of valid results (expected sample size). */
  expected_sample_size: number;
  /** sd(N) = sqrt(E[N²] − E[N]²). */
  sample_size_sd: number;
  /** P(N = n) at index n = 0..n_cap, only with `stoppingDistribution: true`. */
  stopping_distribution?: number[];
}

/** Options of {@linkcode sprtOperatingCharacteristic}. */
export interface SprtOperatingCharacteristicOptions {
  /** Also return P(N = n) for n = 0..n_cap (default false). */
  stoppingDistribution?: boolean;
}

/**
 * Exact operating characteristic of the truncated SPRT for true pass rate p:
 * the probability of each final decision, the expected sample size and the
 * probability of exhausting the budget.
 *
 * Method: dynamic programming over the alive states (passes, fails) of the
 * walk. Start with mass 1 at (0, 0); for n = 1..n_cap move each alive mass to
 * (passes + 1, fails) with weight p and to (passes, fails + 1) with weight
 * 1 − p, then apply seed 002's `decide` to every state at step n: mass on a
 * state that decides is added to P(decision) and to E[N] (times n) and leaves
 * the walk. Every state decides at n_cap, so all mass is absorbed. Exact up
 * to floating-point rounding (the four probabilities sum to 1 within 1e-12).
 *
 * Source: seed 002 asks to calibrate "the decision distribution, mean number
 * of tasks and budget exhaustion" at several true rates; this is the exact
 * answer, which the Monte Carlo calibration must agree with. With the
 * defaults at p = 0.5: P(adopt) = P(drop) = 0.42229964868, P(cap-drop) =
 * 0.15540070264, P(N = 60) = 0.16655797081, E[N] = 31.36. Seed 002's
 * `calibrate.py` expected "most runs at p = 0.5 exhaust the budget"; that is
 * false: only about one run in six does (the ±1 walk usually reaches ±6 net
 * well before 60 results, as seed 002's critique argues).
 *
 * Cost: O(n_cap²) time, O(n_cap) memory, no allocation inside the loops.
 *
 * @param params SPRT parameters (absent fields take seed 002's defaults)
 * @param pTrue the true pass rate, in [0, 1]
 * @param options `stoppingDistribution` to add P(N = n)
 * @returns the operating point, keys in a fixed order
 * @throws {RangeError} on invalid parameters or a rate outside [0, 1]
 * @example
 * ```ts
 * import { sprtOperatingCharacteristic } from "./sprt_operating_characteristic.ts";
 * const oc = sprtOperatingCharacteristic({}, 0.5);
 * if (Math.abs(oc.budget_exhausted - 0.16655797081) > 1e-10) throw new Error("1 run in 6");
 * ```
 */
export function sprtOperatingCharacteristic(
  params: SprtParamsInput,
  pTrue: number,
  options: SprtOperatingCharacteristicOptions = {},
): SprtOperatingPoint {
  checkRate("compute the SPRT operating characteristic", pTrue);
  const c = sprtConstants(parseSprtParams(params));
  const nCap = c.nCap;
  const p = pTrue;
  const q = 1 - pTrue;
  // mass[s] = probability of being alive with s passes and n − s fails.
  const mass = new Float64Array(nCap + 2);
  mass[0] = 1;
  const stop = options.stoppingDistribution ? new Float64Array(nCap + 1) : null;
  const absorbed = new Float64Array(5); // probability mass per final decision code
  let sumN = 0, sumN2 = 0, exhausted = 0;
  let lo = 0, hi = 0; // alive passes lie in [lo, hi] at step n − 1
  for (let n = 1; n <= nCap; n++) {
    // Step: new[s] = old[s − 1]·p + old[s]·q, computed downwards in place.
    const top = hi + 1;
    for (let s = top; s >= lo; s--) {
      const fromPass = s > 0 ? mass[s - 1] * p : 0;
      mass[s] = fromPass + mass[s] * q;
    }
    let newLo = -1, newHi = -1;
    for (let s = lo; s <= top; s++) {
      const m = mass[s];
      if (n === nCap) exhausted += m;
      const code = decisionCode(c, { passes: s, fails: n - s });
      if (code === CONTINUE) {
        if (newLo < 0) newLo = s;
        newHi = s;
        continue;
      }
      absorbed[code] += m;
      sumN += n * m;
      sumN2 += n * n * m;
      if (stop !== null) stop[n] += m;
      mass[s] = 0;
    }
    if (newLo < 0) break; // every state decided
    lo = newLo;
    hi = newHi;
  }
  const variance = Math.max(0, sumN2 - sumN * sumN);
  const point: SprtOperatingPoint = {
    p_true: pTrue,
    ...decisionShares(absorbed, (p) => p),
    budget_exhausted: exhausted,
    expected_sample_size: sumN,
    sample_size_sd: Math.sqrt(variance),
  };
  if (stop !== null) point.stopping_distribution = Array.from(stop);
  return point;
}
