/**
 * Private core of the SPRT decision rule. Every computation of this folder
 * (single decisions, ledger replay, exact operating characteristic, Monte
 * Carlo, reachability) goes through {@linkcode decisionCode}, so that they
 * agree on every knife-edge case and reproduce seed 002's `decide` exactly,
 * including its floating-point arithmetic.
 *
 * @module
 */
import type { SprtParams } from "../schema.ts";
import type { SprtCounts } from "./sprt_counts.ts";

/** Decision codes, indices into {@linkcode DECISION_NAMES}. */
export const CONTINUE = 0;
/** LLR reached the upper boundary. */
export const ADOPT = 1;
/** LLR reached the lower boundary. */
export const DROP = 2;
/** Cap reached undecided, point estimate at or above `p_adopt`. */
export const CAP_ADOPT = 3;
/** Cap reached undecided, point estimate below `p_adopt`. */
export const CAP_DROP = 4;

/** Names of the codes, in code order. */
export const DECISION_NAMES = ["continue", "adopt", "drop", "cap-adopt", "cap-drop"] as const;

/** Constants of the rule, computed once per parameter set. */
export interface SprtConstants {
  readonly pAdopt: number;
  readonly nCap: number;
  /** ln(p_adopt / p_drop): LLR added by one pass. */
  readonly llrPass: number;
  /** ln((1 − p_adopt) / (1 − p_drop)): LLR added by one fail. */
  readonly llrFail: number;
  /** ln((1 − β) / α). */
  readonly upper: number;
  /** ln(β / (1 − α)). */
  readonly lower: number;
}

/** Computes the constants with exactly the seed's expressions. */
export function sprtConstants(params: SprtParams): SprtConstants {
  return {
    pAdopt: params.p_adopt,
    nCap: params.n_cap,
    llrPass: Math.log(params.p_adopt / params.p_drop),
    llrFail: Math.log((1 - params.p_adopt) / (1 - params.p_drop)),
    upper: Math.log((1 - params.beta) / params.alpha),
    lower: Math.log(params.beta / (1 - params.alpha)),
  };
}

/** The LLR as the seed computes it: passes·ln(pa/pd) + fails·ln((1−pa)/(1−pd)). */
export function llrOf(c: SprtConstants, counts: SprtCounts): number {
  return counts.passes * c.llrPass + counts.fails * c.llrFail;
}

/**
 * Seed 002's `decide`, as a code: upper boundary first, then lower boundary,
 * then the cap (n ≥ n_cap: cap-adopt iff passes / n ≥ p_adopt), else continue.
 * O(1), allocation-free.
 */
export function decisionCode(c: SprtConstants, counts: SprtCounts): number {
  const { passes, fails } = counts;
  const n = passes + fails;
  const llr = passes * c.llrPass + fails * c.llrFail;
  if (llr >= c.upper) return ADOPT;
  if (llr <= c.lower) return DROP;
  if (n >= c.nCap) return passes / n >= c.pAdopt ? CAP_ADOPT : CAP_DROP;
  return CONTINUE;
}

/**
 * The decision shares of a walk from totals per final decision code
 * (`totals[code]`, e.g. a `Float64Array(5)`; index 0, continue, is unused):
 * each final decision, adopt + cap-adopt, drop + cap-drop and cap-adopt +
 * cap-drop, each passed through `share` (identity for exact probabilities;
 * count / trials, or its standard error, for a simulation). Keys in the order
 * the operating points list them. O(1).
 *
 * @param totals mass or trials per decision code
 * @param share what to report for a total
 * @returns the four decisions and the three sums, through `share`
 */
export function decisionShares(
  totals: ArrayLike<number>,
  share: (total: number) => number,
): {
  decisions: { adopt: number; drop: number; "cap-adopt": number; "cap-drop": number };
  final_adopt: number;
  final_drop: number;
  cap_decision: number;
} {
  return {
    decisions: {
      adopt: share(totals[ADOPT]),
      drop: share(totals[DROP]),
      "cap-adopt": share(totals[CAP_ADOPT]),
      "cap-drop": share(totals[CAP_DROP]),
    },
    final_adopt: share(totals[ADOPT] + totals[CAP_ADOPT]),
    final_drop: share(totals[DROP] + totals[CAP_DROP]),
    cap_decision: share(totals[CAP_ADOPT] + totals[CAP_DROP]),
  };
}
