/**
 * Wald's SPRT boundaries and per-result LLR increments for seed 002.
 *
 * @module
 */
import { sprtConstants } from "./_decide.ts";
import { parseSprtParams, type SprtParamsInput } from "./sprt_params.ts";

/** The decision boundaries and LLR steps of one parameter set. */
export interface SprtBoundaries {
  /** ln((1 − β) / α): adopt when the LLR reaches it (≈ +2.1972 at the defaults). */
  upper: number;
  /** ln(β / (1 − α)): drop when the LLR reaches it (≈ −2.1972 at the defaults). */
  lower: number;
  /** ln(p_adopt / p_drop): LLR added by one pass (ln 1.5 ≈ 0.4055 at the defaults). */
  llr_per_pass: number;
  /** ln((1 − p_adopt) / (1 − p_drop)): LLR added by one fail (≈ −0.4055 at the defaults). */
  llr_per_fail: number;
}

/**
 * Computes Wald's boundaries and the LLR added by one pass and by one fail.
 *
 * Formulas (seed 002, `sprt.py`): upper = ln((1 − β)/α), lower = ln(β/(1 − α)),
 * one pass adds ln(p_adopt/p_drop), one fail adds ln((1 − p_adopt)/(1 − p_drop)).
 * With the defaults, upper = ln 9 ≈ 2.1972, lower = −ln 9, and the steps are
 * ±ln 1.5 ≈ ±0.4055, so adopt needs 6 more passes than fails and drop 6 more
 * fails than passes.
 *
 * @param params SPRT parameters (absent fields take seed 002's defaults)
 * @returns boundaries and steps, keys in a fixed order
 * @throws {RangeError} on invalid parameters
 * @example
 * ```ts
 * import { sprtBoundaries } from "./sprt_boundaries.ts";
 * const b = sprtBoundaries({});
 * if (Math.abs(b.upper - Math.log(9)) > 1e-12) throw new Error("upper is ln 9");
 * ```
 */
export function sprtBoundaries(params: SprtParamsInput = {}): SprtBoundaries {
  const c = sprtConstants(parseSprtParams(params));
  return { upper: c.upper, lower: c.lower, llr_per_pass: c.llrPass, llr_per_fail: c.llrFail };
}
