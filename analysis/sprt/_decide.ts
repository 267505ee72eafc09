/**
 * Private core of the SPRT decision rule. Every computation of this folder
 * (single decisions, ledger replay, exact operating characteristic, Monte
 * Carlo, reachability) goes through {@linkcode decisionCode}, so that they
 * agree on every knife-edge case. The rule is seed 002's `decide` with its
 * boundary and cap comparisons made exact (issue 13): the parameters are the
 * decimals they were written as, and a state whose float LLR lies within the
 * derived rounding bound of a boundary is compared in BigInt
 * (`_exact_rule.ts`). The printed LLR and boundaries stay seed 002's floats.
 *
 * @module
 */
import type { SprtParams } from "../schema/records.ts";
import type { SprtCounts } from "./sprt_counts.ts";
import { capAdopts, exactBoundaryCode, type ExactSprtRule, exactSprtRule } from "./_exact_rule.ts";

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
  /** The exact rule, for the states within rounding of a boundary. */
  readonly exact: ExactSprtRule;
}

/**
 * Computes the float constants with exactly the seed's expressions, and the
 * exact rule beside them.
 */
export function sprtConstants(params: SprtParams): SprtConstants {
  const logs = {
    llrPass: Math.log(params.p_adopt / params.p_drop),
    llrFail: Math.log((1 - params.p_adopt) / (1 - params.p_drop)),
    upper: Math.log((1 - params.beta) / params.alpha),
    lower: Math.log(params.beta / (1 - params.alpha)),
  };
  return {
    pAdopt: params.p_adopt,
    nCap: params.n_cap,
    ...logs,
    exact: exactSprtRule(params, logs),
  };
}

/** The LLR as the seed computes it: passes·ln(pa/pd) + fails·ln((1−pa)/(1−pd)). */
export function llrOf(c: SprtConstants, counts: SprtCounts): number {
  return counts.passes * c.llrPass + counts.fails * c.llrFail;
}

/**
 * Seed 002's `decide`, as a code, decided exactly: upper boundary first
 * ((p_adopt/p_drop)^passes·((1 − p_adopt)/(1 − p_drop))^fails ≥ (1 − β)/α),
 * then lower boundary (≤ β/(1 − α)), then the cap (n ≥ n_cap: cap-adopt iff
 * passes / n ≥ p_adopt), else continue. The float LLR decides when it lies
 * farther from both boundaries than the rounding bound
 * passes·errorPerPass + fails·errorPerFail + errorBoundary (derived in
 * `exactSprtRule`); otherwise the BigInt comparison does. So two passes at
 * p_adopt 0.3, p_drop 0.1, α = β = 0.1 (ratio 9 = (1 − β)/α, float LLR
 * 2.1972245773362191 below the float boundary 2.1972245773362196) adopt.
 * O(1) and allocation-free off the rounding band.
 */
export function decisionCode(c: SprtConstants, counts: SprtCounts): number {
  const { passes, fails } = counts;
  const n = passes + fails;
  const llr = passes * c.llrPass + fails * c.llrFail;
  const e = c.exact;
  const band = passes * e.errorPerPass + fails * e.errorPerFail + e.errorBoundary;
  const toUpper = llr - c.upper, toLower = llr - c.lower;
  const boundary = Math.abs(toUpper) <= band || Math.abs(toLower) <= band
    ? exactBoundaryCode(e, passes, fails)
    : toUpper >= 0
    ? ADOPT
    : toLower <= 0
    ? DROP
    : CONTINUE;
  if (boundary !== CONTINUE) return boundary;
  if (n >= c.nCap) return capAdopts(e, c.pAdopt, passes, n) ? CAP_ADOPT : CAP_DROP;
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
