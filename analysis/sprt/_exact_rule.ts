/**
 * Private exact arithmetic of the SPRT decision rule (issue 13, item 2): the
 * parameters as the exact decimals they were written as, the likelihood
 * ratio of a lattice state compared with Wald's boundaries in BigInt, and
 * the floating-point rounding bound outside which the float comparison is
 * already exact.
 *
 * @module
 */
import type { SprtParams } from "../schema/records.ts";
import { decimalRational, type Rational } from "../exact_ratio.ts";

/** The unit roundoff of IEEE 754 doubles, 2^−53. */
const UNIT_ROUNDOFF = 2 ** -53;

/** The rule's constants as exact rationals, and the rounding bound of its float LLR. */
export interface ExactSprtRule {
  /** p_adopt / p_drop: the likelihood ratio of one pass. */
  readonly pass: Rational;
  /** (1 − p_adopt) / (1 − p_drop): the likelihood ratio of one fail. */
  readonly fail: Rational;
  /** (1 − β) / α: adopt when the likelihood ratio reaches it. */
  readonly upper: Rational;
  /** β / (1 − α): drop when the likelihood ratio reaches it. */
  readonly lower: Rational;
  /** p_adopt, for the cap rule passes / n ≥ p_adopt. */
  readonly pAdopt: Rational;
  /** Rounding bound of the float LLR per pass. */
  readonly errorPerPass: number;
  /** Rounding bound of the float LLR per fail. */
  readonly errorPerFail: number;
  /** Rounding bound of the float boundaries (the larger of the two). */
  readonly errorBoundary: number;
  /** Exact boundary codes of the states already compared, keyed by passes·2^26 + fails. */
  readonly memo: Map<number, number>;
}

/** Largest count for which a state is memoised (keys stay exact doubles). */
const MEMO_LIMIT = 2 ** 26;

/**
 * The exact rule of a parameter set, with the rounding bound of the float
 * LLR it is computed beside.
 *
 * Bound (first-order error analysis, with u = 2^−53 the unit roundoff, then
 * doubled to cover the second-order terms): each parameter's double differs
 * from its decimal by a relative u; 1 − x is off by a relative
 * u·(x/(1 − x) + 1); a quotient adds u; Math.log turns a relative error ε of
 * its argument into an absolute ε and adds at most one ulp (≤ 2u·|result|);
 * the float LLR s·ln a + f·ln b adds u·s·|ln a| and u·f·|ln b| (product) and
 * as much again (sum). Hence, per pass u·(3 + 4|ln a|), per fail
 * u·(p_adopt/(1 − p_adopt) + p_drop/(1 − p_drop) + 3 + 4|ln b|), and for the
 * boundaries u·(β/(1 − β) + 3 + 2|upper|) and u·(α/(1 − α) + 3 + 2|lower|).
 * A float LLR farther than twice the sum from a float boundary is on the same
 * side of it as the exact LLR; within it, the exact comparison decides.
 *
 * @param params complete SPRT parameters
 * @param logs the float LLR steps and boundaries of the parameters
 * @returns the exact rule
 */
export function exactSprtRule(
  params: SprtParams,
  logs: { llrPass: number; llrFail: number; upper: number; lower: number },
): ExactSprtRule {
  const pa = decimalRational(params.p_adopt);
  const pd = decimalRational(params.p_drop);
  const alpha = decimalRational(params.alpha);
  const beta = decimalRational(params.beta);
  const u = UNIT_ROUNDOFF;
  const odds = (x: number) => x / (1 - x);
  return {
    pass: { numerator: pa.numerator * pd.denominator, denominator: pa.denominator * pd.numerator },
    fail: {
      numerator: (pa.denominator - pa.numerator) * pd.denominator,
      denominator: pa.denominator * (pd.denominator - pd.numerator),
    },
    upper: {
      numerator: (beta.denominator - beta.numerator) * alpha.denominator,
      denominator: beta.denominator * alpha.numerator,
    },
    lower: {
      numerator: beta.numerator * alpha.denominator,
      denominator: beta.denominator * (alpha.denominator - alpha.numerator),
    },
    pAdopt: pa,
    errorPerPass: 2 * u * (3 + 4 * Math.abs(logs.llrPass)),
    errorPerFail: 2 * u *
      (odds(params.p_adopt) + odds(params.p_drop) + 3 + 4 * Math.abs(logs.llrFail)),
    errorBoundary: 2 * u *
      Math.max(
        odds(params.beta) + 3 + 2 * Math.abs(logs.upper),
        odds(params.alpha) + 3 + 2 * Math.abs(logs.lower),
      ),
    memo: new Map(),
  };
}

/**
 * The boundary part of the rule, exactly: 1 (adopt) iff
 * (p_adopt/p_drop)^s·((1 − p_adopt)/(1 − p_drop))^f ≥ (1 − β)/α, else 2
 * (drop) iff it is ≤ β/(1 − α), else 0 (continue), compared as BigInt
 * cross-products. Memoised per state. Cost: O((s + f)·digits) BigInt work.
 *
 * @param rule the exact rule
 * @param passes valid passes s
 * @param fails valid fails f
 * @returns 1, 2 or 0 as above
 */
export function exactBoundaryCode(rule: ExactSprtRule, passes: number, fails: number): number {
  const key = passes < MEMO_LIMIT && fails < MEMO_LIMIT ? passes * MEMO_LIMIT + fails : -1;
  const known = rule.memo.get(key);
  if (known !== undefined) return known;
  const s = BigInt(passes), f = BigInt(fails);
  const num = rule.pass.numerator ** s * rule.fail.numerator ** f;
  const den = rule.pass.denominator ** s * rule.fail.denominator ** f;
  const code = num * rule.upper.denominator >= rule.upper.numerator * den
    ? 1
    : num * rule.lower.denominator <= rule.lower.numerator * den
    ? 2
    : 0;
  if (key >= 0) rule.memo.set(key, code);
  return code;
}

/**
 * The cap rule passes / n ≥ p_adopt, exactly. Rounding is monotone and the
 * double of p_adopt is the rounding of its decimal, so the float quotient
 * decides whenever it differs from that double; only equality needs the
 * BigInt cross-product passes·den ≥ num·n. O(1).
 *
 * @param rule the exact rule
 * @param floatPAdopt p_adopt as a double
 * @param passes valid passes
 * @param n valid results, positive
 * @returns whether the point estimate reaches p_adopt
 */
export function capAdopts(
  rule: ExactSprtRule,
  floatPAdopt: number,
  passes: number,
  n: number,
): boolean {
  const rate = passes / n;
  if (rate !== floatPAdopt) return rate > floatPAdopt;
  return BigInt(passes) * rule.pAdopt.denominator >= rule.pAdopt.numerator * BigInt(n);
}
