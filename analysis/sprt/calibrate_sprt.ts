/**
 * Calibration of seed 002's truncated SPRT over a grid of true pass rates:
 * exact values, seeded Monte Carlo, and their agreement.
 *
 * @module
 */
import type { SprtParams } from "../schema/records.ts";
import { parseSprtParams, type SprtParamsInput } from "./sprt_params.ts";
import { type SprtBoundaries, sprtBoundaries } from "./sprt_boundaries.ts";
import {
  sprtOperatingCharacteristic,
  type SprtOperatingPoint,
} from "./sprt_operating_characteristic.ts";
import { sprtMonteCarlo, type SprtMonteCarloPoint } from "./sprt_monte_carlo.ts";
import { type SprtReachability, unreachableDecisions } from "./unreachable_decisions.ts";
import { seededRandom } from "../seeded_random.ts";
import { binomialTestTwoSided } from "../binomial_test.ts";
import { normalTwoSidedTail } from "./_normal_tail.ts";
import { checkRate } from "./_counts.ts";
import { DEFAULT_CALIBRATION } from "../defaults.ts";

/** Seed 002's grid of true rates: 0.30, 0.40, 0.50, 0.60, 0.70. */
export const SEED_002_RATES: readonly number[] = [0.3, 0.4, 0.5, 0.6, 0.7];

/**
 * Expected count on either side below which the normal approximation of a
 * binomial count is not used: with T trials and exact probability P, the
 * z-test applies when T·P ≥ 10 and T·(1 − P) ≥ 10, else the exact binomial
 * test does.
 */
export const NORMAL_APPROXIMATION_MIN_EXPECTED = 10;

/**
 * (Monte Carlo − exact) / exact standard error, per quantity; null only when
 * the exact standard error is 0 and the two values differ (never for a
 * correct simulation). Where the row's `exact_p` is not null the z is shown
 * but not used: the exact binomial test decides.
 */
export interface SprtCalibrationZ {
  /** z of P(adopt). */
  adopt: number | null;
  /** z of P(drop). */
  drop: number | null;
  /** z of P(cap-adopt). */
  "cap-adopt": number | null;
  /** z of P(cap-drop). */
  "cap-drop": number | null;
  /** z of P(N = n_cap). */
  budget_exhausted: number | null;
  /** z of E[N]. */
  expected_sample_size: number | null;
}

/**
 * Exact two-sided binomial p-value (`binomialTestTwoSided`) of the
 * simulated count against the exact probability, per probability quantity;
 * null where the normal approximation holds and the z decides.
 */
export interface SprtCalibrationExactP {
  /** p of the count of adopt. */
  adopt: number | null;
  /** p of the count of drop. */
  drop: number | null;
  /** p of the count of cap-adopt. */
  "cap-adopt": number | null;
  /** p of the count of cap-drop. */
  "cap-drop": number | null;
  /** p of the count of N = n_cap. */
  budget_exhausted: number | null;
}

/** Exact and simulated behaviour at one true rate. */
export interface SprtCalibrationRow {
  /** The true per-result pass rate of this row. */
  p_true: number;
  /** The seed string given to `seededRandom` for this rate's trials. */
  stream: string;
  /** Exact values (dynamic programming). */
  exact: SprtOperatingPoint;
  /** Seeded Monte Carlo estimates. */
  monte_carlo: SprtMonteCarloPoint;
  /** (Monte Carlo − exact) / exact standard error, per quantity. */
  z: SprtCalibrationZ;
  /** Largest |z| of the row where the z decides (null entries count as infinite). */
  max_abs_z: number | null;
  /** Exact binomial p-values where the normal approximation does not hold. */
  exact_p: SprtCalibrationExactP;
  /** Smallest of the row's exact p-values, or null when the z decides every quantity. */
  min_exact_p: number | null;
}

/** Result of {@linkcode calibrateSprt}. */
export interface SprtCalibration {
  /** The complete parameters used. */
  params: SprtParams;
  /** Boundaries and LLR steps of the parameters. */
  boundaries: SprtBoundaries;
  /** Number of simulated runs. */
  trials: number;
  /** The seed the rate streams derive from. */
  seed: number | string;
  /** The generator behind `seededRandom`. */
  rng: "seedrandom.alea";
  /** Agreement threshold in units of Monte Carlo standard error. */
  tolerance_z: number;
  /** One row per true rate, in grid order. */
  rows: SprtCalibrationRow[];
  /** Largest |z| over all rows where the z decides, or null when one of them is null. */
  max_abs_z: number | null;
  /**
   * The level of the exact binomial tests: P(|Z| ≥ tolerance_z) for a
   * standard normal Z (6.334e-5 at 4), the level the |z| threshold has.
   */
  exact_p_level: number;
  /** Smallest exact p-value over all rows, or null when no exact test was needed. */
  min_exact_p: number | null;
  /** Whether every deciding |z| ≤ tolerance_z and every exact p ≥ exact_p_level. */
  agrees: boolean;
  /** Which decisions can occur (see `unreachableDecisions`). */
  reachability: SprtReachability;
  /** The reachability warnings (for example the unreachable cap-adopt of the defaults). */
  warnings: string[];
}

/** Options of {@linkcode calibrateSprt}. */
export interface CalibrateSprtOptions {
  /** Trials per rate (default 20,000, seed 002). */
  trials?: number;
  /** Seed (default 7, seed 002); each rate uses the stream `"<seed>/p_true=<rate>"`. */
  seed?: number | string;
  /** True rates (default 0.30, 0.40, 0.50, 0.60, 0.70). */
  rates?: readonly number[];
  /** |z| above which exact and Monte Carlo disagree (default 4). */
  toleranceZ?: number;
}

/**
 * Calibrates the truncated SPRT at each true rate of a grid: exact operating
 * characteristic (dynamic programming), seeded Monte Carlo estimate with
 * standard errors, and their difference in units of standard error.
 *
 * Formulas: for a probability P from the exact computation and a frequency f̂
 * over T trials, z = (f̂ − P)/sqrt(P(1 − P)/T); for the sample size,
 * z = (mean N − E[N])/(sd(N)/sqrt(T)) with the exact sd(N). Under a correct
 * simulation each z is approximately standard normal; |z| > 4 at a grid of a
 * few rates would be a 1-in-several-thousand event (P(|Z| > 4) = 6.334e-5
 * per quantity).
 *
 * Where an outcome is rare the normal approximation fails (issue 13: 1 hit
 * in 20,000 against P = 6.3e-7 is |z| 8.82, but the exact p is 0.0125).
 * Rule: for a probability P estimated from k hits in T trials, when
 * T·P < 10 or T·(1 − P) < 10 ({@linkcode NORMAL_APPROXIMATION_MIN_EXPECTED}),
 * the exact two-sided binomial test (`binomialTestTwoSided`, scipy's
 * `binomtest`) decides instead, at the level the z threshold has:
 * agreement iff p ≥ P(|Z| ≥ tolerance_z) (`exact_p_level`). Such a
 * quantity's z is still reported but does not count in `max_abs_z`. E[N]
 * (a mean of T sample sizes) always uses its z. Each rate has its own
 * random stream, seeded `"<seed>/p_true=<rate>"`, so a rate's result does
 * not depend on the other rates of the grid.
 *
 * Source: seed 002 (`calibrate.py`: trials = 20,000, seed = 7; the grid 0.30,
 * 0.40, 0.50, 0.60, 0.70 recommended in its closing list). The exact values
 * show that "most runs at p = 0.5 exhaust the budget" is false with the
 * defaults: P(N = 60) = 0.1666.
 *
 * Cost: O(rates × (n_cap² + trials × E[N])).
 *
 * @param params SPRT parameters (absent fields take seed 002's defaults)
 * @param options `trials`, `seed`, `rates`, `toleranceZ`
 * @returns the calibration table, keys in a fixed order, JSON-serialisable
 * @throws {RangeError} on invalid parameters, rates, trials or tolerance
 * @example
 * ```ts
 * import { calibrateSprt } from "./calibrate_sprt.ts";
 * const cal = calibrateSprt({}, { trials: 2000, rates: [0.5] });
 * if (!cal.agrees) throw new Error("exact and Monte Carlo must agree");
 * ```
 */
export function calibrateSprt(
  params: SprtParamsInput = {},
  options: CalibrateSprtOptions = {},
): SprtCalibration {
  const p = parseSprtParams(params);
  const trials = options.trials ?? DEFAULT_CALIBRATION.trials;
  const seed = options.seed ?? DEFAULT_CALIBRATION.seed;
  const rates = options.rates ?? SEED_002_RATES;
  const toleranceZ = options.toleranceZ ?? DEFAULT_CALIBRATION.toleranceZ;
  if (!(toleranceZ > 0)) {
    throw new RangeError(
      `Cannot calibrate the SPRT: "toleranceZ" must be positive, got "${String(toleranceZ)}"`,
    );
  }
  if (rates.length === 0) {
    throw new RangeError('Cannot calibrate the SPRT: "rates" must not be empty');
  }
  for (const rate of rates) checkRate("calibrate the SPRT", rate);
  const level = normalTwoSidedTail(toleranceZ);
  const rows: SprtCalibrationRow[] = [];
  let worst: number | null = 0;
  let smallestP: number | null = null;
  for (const rate of rates) {
    const stream = `${seed}/p_true=${rate}`;
    const exact = sprtOperatingCharacteristic(p, rate);
    const mc = sprtMonteCarlo(p, rate, { trials, random: seededRandom(stream) });
    const zp = (f: number, exactP: number) =>
      zScore(f - exactP, Math.sqrt(exactP * (1 - exactP) / trials));
    const z: SprtCalibrationZ = {
      adopt: zp(mc.decisions.adopt, exact.decisions.adopt),
      drop: zp(mc.decisions.drop, exact.decisions.drop),
      "cap-adopt": zp(mc.decisions["cap-adopt"], exact.decisions["cap-adopt"]),
      "cap-drop": zp(mc.decisions["cap-drop"], exact.decisions["cap-drop"]),
      budget_exhausted: zp(mc.budget_exhausted, exact.budget_exhausted),
      expected_sample_size: zScore(
        mc.expected_sample_size - exact.expected_sample_size,
        exact.sample_size_sd / Math.sqrt(trials),
      ),
    };
    const exactP = (k: number, exactP: number) =>
      Math.min(trials * exactP, trials * (1 - exactP)) < NORMAL_APPROXIMATION_MIN_EXPECTED
        ? binomialTestTwoSided(k, trials, exactP)
        : null;
    const exact_p: SprtCalibrationExactP = {
      adopt: exactP(mc.counts.adopt, exact.decisions.adopt),
      drop: exactP(mc.counts.drop, exact.decisions.drop),
      "cap-adopt": exactP(mc.counts["cap-adopt"], exact.decisions["cap-adopt"]),
      "cap-drop": exactP(mc.counts["cap-drop"], exact.decisions["cap-drop"]),
      budget_exhausted: exactP(mc.counts.budget_exhausted, exact.budget_exhausted),
    };
    const deciding = (Object.keys(z) as (keyof SprtCalibrationZ)[])
      .filter((key) => key === "expected_sample_size" || exact_p[key] === null)
      .map((key) => z[key]);
    const rowMax = deciding.includes(null)
      ? null
      : Math.max(...deciding.map((v) => Math.abs(v as number)));
    if (rowMax === null) worst = null;
    else if (worst !== null) worst = Math.max(worst, rowMax);
    const ps = Object.values(exact_p).filter((v): v is number => v !== null);
    const rowMinP = ps.length === 0 ? null : Math.min(...ps);
    if (rowMinP !== null) smallestP = Math.min(smallestP ?? 1, rowMinP);
    rows.push({
      p_true: rate,
      stream,
      exact,
      monte_carlo: mc,
      z,
      max_abs_z: rowMax,
      exact_p,
      min_exact_p: rowMinP,
    });
  }
  const reachability = unreachableDecisions(p);
  return {
    params: p,
    boundaries: sprtBoundaries(p),
    trials,
    seed,
    rng: "seedrandom.alea",
    tolerance_z: toleranceZ,
    rows,
    max_abs_z: worst,
    exact_p_level: level,
    min_exact_p: smallestP,
    agrees: worst !== null && worst <= toleranceZ && (smallestP === null || smallestP >= level),
    reachability,
    warnings: reachability.warnings,
  };
}

/** diff / se; a zero standard error gives 0 for a (near-)zero difference, else null. */
function zScore(diff: number, se: number): number | null {
  if (se > 1e-15) return diff / se;
  return Math.abs(diff) <= 1e-12 ? 0 : null;
}
