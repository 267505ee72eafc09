import { equal } from "node:assert/strict";
import { decimalRational } from "../exact_ratio.ts";
import { decisionCode, sprtConstants } from "./_decide.ts";
import { parseSprtParams } from "./sprt_params.ts";

/**
 * The naive exact rule, independent of the rounding band: every state
 * compared in BigInt with the parameters as decimals.
 */
function naiveCode(
  p: { p_adopt: number; p_drop: number; alpha: number; beta: number; n_cap: number },
  s: number,
  f: number,
): number {
  const [a, d, al, be] = [p.p_adopt, p.p_drop, p.alpha, p.beta].map(decimalRational);
  // ratio = (a/d)^s ((1−a)/(1−d))^f as N / D
  const N = (a.numerator * d.denominator) ** BigInt(s) *
    ((a.denominator - a.numerator) * d.denominator) ** BigInt(f);
  const D = (a.denominator * d.numerator) ** BigInt(s) *
    (a.denominator * (d.denominator - d.numerator)) ** BigInt(f);
  if (N * be.denominator * al.numerator >= (be.denominator - be.numerator) * al.denominator * D) {
    return 1;
  }
  if (N * be.denominator * (al.denominator - al.numerator) <= be.numerator * al.denominator * D) {
    return 2;
  }
  if (s + f >= p.n_cap) {
    return BigInt(s) * a.denominator >= a.numerator * BigInt(s + f) ? 3 : 4;
  }
  return 0;
}

Deno.test("decisionCode() equals the naive BigInt rule on every state of a parameter grid", () => {
  // Short decimals make exact ties common (ratios like 3 = 0.3/0.1, boundaries like 9 = 0.9/0.1):
  // every one of them must be decided exactly, every other state must agree with the float rule.
  const rates = [0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95];
  const errors = [0.05, 0.1, 0.2, 0.25, 0.5];
  let flips = 0, states = 0;
  for (const pd of rates) {
    for (const pa of rates.filter((x) => x > pd)) {
      for (const alpha of errors) {
        for (const beta of errors) {
          const p = parseSprtParams({ p_adopt: pa, p_drop: pd, alpha, beta, n_cap: 24 });
          const c = sprtConstants(p);
          for (let n = 1; n <= 24; n++) {
            for (let s = 0; s <= n; s++) {
              const f = n - s;
              const expected = naiveCode(p, s, f);
              equal(decisionCode(c, { passes: s, fails: f }), expected, JSON.stringify([p, s]));
              states++;
              const llr = s * c.llrPass + f * c.llrFail;
              const float = llr >= c.upper ? 1 : llr <= c.lower ? 2 : 0;
              if ((expected === 1 || expected === 2 ? expected : 0) !== float) flips++;
            }
          }
        }
      }
    }
  }
  equal(states, 631_800); // 78 (p_adopt, p_drop) pairs × 25 (alpha, beta) × 324 states (n ≤ 24)
  // The float comparison alone decides 126 of these states wrongly (counted by this loop, a
  // regression pin; the audit's case, two passes at 0.3 / 0.1 with alpha = beta = 0.1, is one).
  equal(flips, 126);
});
