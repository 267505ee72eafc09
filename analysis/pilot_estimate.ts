/**
 * Seed 003's pilot estimator: project the spend of a planned matrix from a
 * pilot sample and refuse a plan that cannot finish inside its budget.
 *
 * @module
 */
import { DEFAULT_PILOT_SAFETY } from "./defaults.ts";
import { decimalRational, type Rational } from "./exact_ratio.ts";

/** The matrix being planned. */
export interface PilotTarget {
  /** Episodes the matrix will run (tasks × agents × attempts planned), a positive integer. */
  tasks: number;
  /** Budget in the same unit as the pilot spend (usually tokens), ≥ 0. */
  budget: number;
}

/** Options for {@link pilotEstimate}. */
export interface PilotEstimateOptions {
  /** Multiplier on the projection, > 0; default 1.25 (seed 003). */
  safety?: number;
  /** `"max"` (default; seed 003's conservative choice for long right tails) or `"mean"`. */
  central?: "max" | "mean";
}

/** The projection, with every input recorded beside it. */
export interface PilotEstimate {
  central: "max" | "mean";
  safety: number;
  /** Number of pilot episodes. */
  pilot_size: number;
  tasks: number;
  /** Pilot maximum or mean spend per episode. */
  unit_tokens: number;
  /** `unit_tokens × tasks × safety`. */
  projected_tokens: number;
  budget_tokens: number;
  /** `projected_tokens ≤ budget_tokens`, decided exactly (see {@link pilotEstimate}). */
  fits: boolean;
  /** `budget_tokens − projected_tokens` from the exact difference; negative only when the plan does not fit, never −0. */
  headroom: number;
}

/**
 * Projects the spend of a matrix from a pilot (seed 003, `estimate`).
 *
 * Rule, in the seed's order of operations:
 *
 * - unit = max(pilot) when `central` is `"max"`, else Σ pilot / n with the sum
 *   taken over the pilot sorted ascending
 * - projected = unit × tasks × safety
 * - fits = projected ≤ budget (a projection equal to the budget fits)
 * - headroom = budget − projected
 *
 * `fits` and `headroom` are computed exactly (issue 13, item 3: a pilot that
 * exactly fits was refused with "headroom: -0 tokens", since 10000 × 20 × 1.1
 * is 220000.00000000003 in floating point): every spend, the budget and the
 * safety factor are taken as the decimals they are written as
 * (`decimalRational`), the mean as the exact Σ / n, and the comparison and the
 * difference are made in BigInt rationals; `headroom` is that difference as
 * the nearest double (0 exactly when it is zero, never −0). `unit_tokens` and
 * `projected_tokens` are the floating-point products, for display. The seed
 * rounds unit, projection and headroom to one decimal for display; here they
 * are returned unrounded and rounding is left to the output format.
 * Cost: O(n log n) for the sort, O(n) BigInt additions.
 *
 * @param pilotSpend spend per pilot episode (finite, ≥ 0); at least one
 * @param target the planned episode count and the budget
 * @param options safety factor (default 1.25) and central value (default `"max"`)
 * @returns the projection and every input used
 * @throws {RangeError} when the pilot is empty ("pilot produced no usable traces")
 *   or any input is out of range
 * @example
 * ```ts
 * import { pilotEstimate } from "./pilot_estimate.ts";
 * // 9500 × 28 × 1.25 = 332500 > 300000.
 * const e = pilotEstimate([2700, 7300, 9500, 3800], { tasks: 28, budget: 300_000 });
 * if (e.projected_tokens !== 332_500 || e.fits || e.headroom !== -32_500) throw new Error();
 * ```
 */
export function pilotEstimate(
  pilotSpend: readonly number[],
  target: PilotTarget,
  options: PilotEstimateOptions = {},
): PilotEstimate {
  const safety = options.safety ?? DEFAULT_PILOT_SAFETY;
  const central = options.central ?? "max";
  if (pilotSpend.length === 0) {
    throw new RangeError("Cannot estimate spend: the pilot produced no usable traces");
  }
  pilotSpend.forEach((spend, i) => {
    if (!(Number.isFinite(spend) && spend >= 0)) {
      throw new RangeError(
        `Cannot estimate spend: pilot episode ${i} has spend ${spend}, expected a finite number ≥ 0`,
      );
    }
  });
  if (!(Number.isInteger(target.tasks) && target.tasks > 0)) {
    throw new RangeError(
      `Cannot estimate spend: "tasks" must be a positive integer, found ${target.tasks}`,
    );
  }
  if (!(Number.isFinite(target.budget) && target.budget >= 0)) {
    throw new RangeError(
      `Cannot estimate spend: "budget" must be a finite number ≥ 0, found ${target.budget}`,
    );
  }
  if (!(Number.isFinite(safety) && safety > 0)) {
    throw new RangeError(
      `Cannot estimate spend: "safety" must be a finite number > 0, found ${safety}`,
    );
  }
  if (central !== "max" && central !== "mean") {
    throw new RangeError(
      `Cannot estimate spend: "central" must be "max" or "mean", found "${central}"`,
    );
  }
  const sorted = [...pilotSpend].sort((a, b) => a - b);
  let unit: number;
  if (central === "max") {
    unit = sorted[sorted.length - 1];
  } else {
    let sum = 0;
    for (const spend of sorted) sum += spend;
    unit = sum / sorted.length;
  }
  const projected = unit * target.tasks * safety;
  const exactUnit = central === "max" ? decimalRational(unit) : exactMean(sorted);
  const factor = decimalRational(safety);
  const budget = decimalRational(target.budget);
  // headroom = budget − unit × tasks × safety over the common denominator.
  const denominator = exactUnit.denominator * factor.denominator * budget.denominator;
  const spent = exactUnit.numerator * BigInt(target.tasks) * factor.numerator *
    budget.denominator;
  const headroom = budget.numerator * exactUnit.denominator * factor.denominator - spent;
  return {
    central,
    safety,
    pilot_size: sorted.length,
    tasks: target.tasks,
    unit_tokens: unit,
    projected_tokens: projected,
    budget_tokens: target.budget,
    fits: headroom >= 0n,
    headroom: headroom === 0n ? 0 : Number(headroom) / Number(denominator),
  };
}

/** Σ spend / n exactly, each spend the decimal it is written as (denominators are powers of 10). */
function exactMean(spend: readonly number[]): Rational {
  const terms = spend.map(decimalRational);
  const scale = terms.reduce((max, t) => t.denominator > max ? t.denominator : max, 1n);
  let numerator = 0n;
  for (const t of terms) numerator += t.numerator * (scale / t.denominator);
  return { numerator, denominator: scale * BigInt(spend.length) };
}
