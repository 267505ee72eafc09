/**
 * The log-likelihood ratio of seed 002's SPRT.
 *
 * @module
 */
import { llrOf, sprtConstants } from "./_decide.ts";
import { parseSprtParams, type SprtParamsInput } from "./sprt_params.ts";
import { checkCounts } from "./_counts.ts";
import type { SprtCounts } from "./sprt_counts.ts";

/**
 * Log-likelihood ratio of `passes` passes and `fails` fails for p_adopt
 * against p_drop.
 *
 * Formula (seed 002, `Plan.llr`):
 * LLR = passes·ln(p_adopt/p_drop) + fails·ln((1 − p_adopt)/(1 − p_drop)).
 * With the symmetric defaults (0.60 / 0.40) this is ln 1.5·(passes − fails)
 * ≈ 0.4055·(passes − fails). O(1).
 *
 * @param params SPRT parameters (absent fields take seed 002's defaults)
 * @param counts `passes` and `fails`: numbers of valid passes and fails, non-negative integers
 * @returns the LLR (positive favours p_adopt)
 * @throws {RangeError} on invalid parameters or counts
 * @example
 * ```ts
 * import { sprtLlr } from "./sprt_llr.ts";
 * const llr = sprtLlr({}, { passes: 7, fails: 3 });
 * if (Math.abs(llr - 4 * Math.log(1.5)) > 1e-12) throw new Error("4 net passes");
 * ```
 */
export function sprtLlr(params: SprtParamsInput, counts: SprtCounts): number {
  checkCounts("compute the SPRT LLR", counts);
  return llrOf(sprtConstants(parseSprtParams(params)), counts);
}
