import { equal, throws } from "node:assert/strict";
import { SPRT_FINAL_DECISIONS, type SprtDecision, sprtDecision } from "./sprt_decision.ts";

Deno.test("sprtDecision() adopts at +6 net, drops at −6 net, continues in between (seed 002)", () => {
  // Seed 002: "成功数比失败数多 6 次就采用，少 6 次就放弃，否则继续，最多累计 60 次有效结果".
  // The rule restated on net = passes − fails (boundaries ±ln 9 / ln 1.5 = ±5.42 net) is an
  // independent oracle for every state of the default walk.
  for (let passes = 0; passes <= 60; passes++) {
    for (let fails = 0; passes + fails <= 60; fails++) {
      const net = passes - fails;
      const n = passes + fails;
      let expected: SprtDecision = "continue";
      if (net >= 6) expected = "adopt";
      else if (net <= -6) expected = "drop";
      else if (n >= 60) expected = passes / n >= 0.6 ? "cap-adopt" : "cap-drop";
      equal(sprtDecision({}, { passes, fails }), expected, `(${passes}, ${fails})`);
    }
  }
  equal(sprtDecision({}, { passes: 6, fails: 0 }), "adopt");
  equal(sprtDecision({}, { passes: 5, fails: 0 }), "continue");
  equal(sprtDecision({}, { passes: 0, fails: 6 }), "drop");
  equal(sprtDecision({}, { passes: 0, fails: 5 }), "continue");
  equal(sprtDecision({}, { passes: 0, fails: 0 }), "continue");
});

Deno.test("sprtDecision() checks the boundaries before the cap", () => {
  // n = 60 = n_cap: +6 net still adopts and −6 net drops; |net| ≤ 4 falls back to the estimate.
  equal(sprtDecision({}, { passes: 33, fails: 27 }), "adopt");
  equal(sprtDecision({}, { passes: 27, fails: 33 }), "drop");
  equal(sprtDecision({}, { passes: 32, fails: 28 }), "cap-drop"); // 32/60 = 0.533 < 0.6
  equal(sprtDecision({}, { passes: 28, fails: 32 }), "cap-drop");
});

Deno.test("sprtDecision() gives cap-adopt iff passes/n ≥ p_adopt at the cap", () => {
  // alpha = beta = 0.01: boundaries ±ln 99 = ±4.595, i.e. 11.3 net, out of reach at n_cap 10.
  const params = { alpha: 0.01, beta: 0.01, n_cap: 10 };
  equal(sprtDecision(params, { passes: 6, fails: 4 }), "cap-adopt"); // 6/10 = 0.6 ≥ 0.6 (equality adopts)
  equal(sprtDecision(params, { passes: 5, fails: 5 }), "cap-drop");
  equal(sprtDecision(params, { passes: 6, fails: 3 }), "continue");
});

Deno.test("sprtDecision() follows asymmetric parameters", () => {
  // Python math.log: upper ln 16 = 2.7726, lower ln(0.2/0.95) = −1.5581; a pass adds
  // ln 1.4 = 0.3365, a fail ln 0.6 = −0.5108. 8 passes: 2.6918 (continue), 9: 3.0283 (adopt);
  // 3 fails: −1.5325 (continue, just above −1.5581), 4: −2.0433 (drop).
  const params = { p_adopt: 0.7, p_drop: 0.5, alpha: 0.05, beta: 0.2, n_cap: 20 };
  equal(sprtDecision(params, { passes: 8, fails: 0 }), "continue");
  equal(sprtDecision(params, { passes: 9, fails: 0 }), "adopt");
  equal(sprtDecision(params, { passes: 0, fails: 3 }), "continue");
  equal(sprtDecision(params, { passes: 0, fails: 4 }), "drop");
  // 9·0.3365 − 0.5108 = 2.5174 < 2.7726: one fail undoes an adoption at 9 passes.
  equal(sprtDecision(params, { passes: 9, fails: 1 }), "continue");
  // n = 20 undecided: 14/20 = 0.7 ≥ 0.7 gives cap-adopt; llr 14·0.3365 − 6·0.5108 = 1.6456.
  equal(sprtDecision(params, { passes: 14, fails: 6 }), "cap-adopt");
  equal(sprtDecision(params, { passes: 13, fails: 7 }), "cap-drop"); // llr 0.7983, 13/20 = 0.65 < 0.7
});

Deno.test("sprtDecision() refuses negative counts", () => {
  throws(
    () => sprtDecision({}, { passes: 0, fails: -2 }),
    /Cannot decide: "fails" must be a non-negative integer/,
  );
  equal(SPRT_FINAL_DECISIONS.join(), "adopt,drop,cap-adopt,cap-drop");
});

Deno.test("sprtDecision() decides a walk exactly on the adopt boundary as adopt (issue 13)", () => {
  // The audit's case: 0.3 / 0.1 = 3 exactly, so two passes give likelihood ratio 9 = (1 − β)/α
  // = 0.9 / 0.1: adopt. In floating point 0.3 / 0.1 = 2.9999999999999996 and the float LLR
  // 2.1972245773362191 lies below the float boundary 2.1972245773362196 (seed 002 continued).
  const audit = { p_adopt: 0.3, p_drop: 0.1, alpha: 0.1, beta: 0.1 };
  equal(sprtDecision(audit, { passes: 2, fails: 0 }), "adopt");
  equal(sprtDecision(audit, { passes: 1, fails: 0 }), "continue");
  // Just off the boundary: β = 0.09999999999999999 (as written) makes (1 − β)/α =
  // 9.0000000000000001 > 9, so two passes continue, although the float LLR and boundary are
  // within one ulp of each other.
  equal(sprtDecision({ ...audit, beta: 0.09999999999999999 }, { passes: 2, fails: 0 }), "continue");
  equal(sprtDecision({ ...audit, beta: 0.09999999999999999 }, { passes: 3, fails: 0 }), "adopt");
  // α = 0.10000000000000002 makes (1 − β)/α < 9: two passes adopt.
  equal(sprtDecision({ ...audit, alpha: 0.10000000000000002 }, { passes: 2, fails: 0 }), "adopt");
});

Deno.test("sprtDecision() decides a walk exactly on the drop boundary as drop", () => {
  // (1 − 0.9)/(1 − 0.7) = 1/3, so two fails give 1/9 = β/(1 − α) = 0.1/0.9: drop.
  const p = { p_adopt: 0.9, p_drop: 0.7, alpha: 0.1, beta: 0.1 };
  equal(sprtDecision(p, { passes: 0, fails: 2 }), "drop");
  equal(sprtDecision({ ...p, alpha: 0.09999999999999999 }, { passes: 0, fails: 2 }), "continue");
});

Deno.test("sprtDecision() applies the cap rule passes / n ≥ p_adopt exactly", () => {
  // 3/10 = 0.3 exactly: cap-adopt; p_adopt 0.30000000000000004 (as written) is above 3/10 although
  // 3/10 rounds to the double 0.3 just below it.
  const p = { p_adopt: 0.3, p_drop: 0.2, alpha: 0.001, beta: 0.001, n_cap: 10 };
  equal(sprtDecision(p, { passes: 3, fails: 7 }), "cap-adopt");
  equal(sprtDecision({ ...p, p_adopt: 0.30000000000000004 }, { passes: 3, fails: 7 }), "cap-drop");
});
