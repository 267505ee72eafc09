/**
 * The decision after each valid result of seed 002's SPRT.
 *
 * @module
 */
import { DECISION_NAMES, decisionCode, sprtConstants } from "./_decide.ts";
import { parseSprtParams, type SprtParamsInput } from "./sprt_params.ts";
import { checkCounts } from "./_counts.ts";
import type { SprtCounts } from "./sprt_counts.ts";

/** A final decision of the truncated SPRT. */
export type SprtFinalDecision = "adopt" | "drop" | "cap-adopt" | "cap-drop";

/** What the rule says after a result: a final decision, or keep going. */
export type SprtDecision = SprtFinalDecision | "continue";

/** The four final decisions in their fixed reporting order. */
export const SPRT_FINAL_DECISIONS: readonly SprtFinalDecision[] = [
  "adopt",
  "drop",
  "cap-adopt",
  "cap-drop",
];

/**
 * Seed 002's stopping rule applied to the counts so far.
 *
 * Rule (seed 002, `Plan.decide`), in this order:
 * 1. LLR ≥ ln((1 − β)/α) → `"adopt"`;
 * 2. LLR ≤ ln(β/(1 − α)) → `"drop"`;
 * 3. n = passes + fails ≥ n_cap → `"cap-adopt"` if passes/n ≥ p_adopt, else `"cap-drop"`
 *    (the budget fallback to the point estimate, outside the SPRT's error control);
 * 4. otherwise `"continue"`.
 *
 * The boundaries are checked before the cap, so a boundary crossing at
 * n = n_cap is an `"adopt"` or `"drop"`. With the defaults: +6 net passes
 * adopt, −6 drop, and `"cap-adopt"` cannot be reached by a real walk (see
 * `unreachableDecisions`). Counts beyond n_cap are evaluated like the seed
 * does (boundaries, then the cap rule). O(1).
 *
 * @param params SPRT parameters (absent fields take seed 002's defaults)
 * @param counts `passes` and `fails`: valid passes and fails so far, non-negative integers
 * @returns the decision
 * @throws {RangeError} on invalid parameters or counts
 * @example
 * ```ts
 * import { sprtDecision } from "./sprt_decision.ts";
 * if (sprtDecision({}, { passes: 6, fails: 0 }) !== "adopt") throw new Error("+6 net adopts");
 * if (sprtDecision({}, { passes: 5, fails: 0 }) !== "continue") throw new Error("+5 net continues");
 * if (sprtDecision({}, { passes: 32, fails: 28 }) !== "cap-drop") throw new Error("32/60 < 0.6");
 * ```
 */
export function sprtDecision(params: SprtParamsInput, counts: SprtCounts): SprtDecision {
  checkCounts("decide", counts);
  return DECISION_NAMES[decisionCode(sprtConstants(parseSprtParams(params)), counts)];
}
