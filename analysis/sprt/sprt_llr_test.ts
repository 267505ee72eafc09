import { ok, throws } from "node:assert/strict";
import { sprtLlr } from "./sprt_llr.ts";

const near = (actual: number, expected: number, tol: number) =>
  ok(Math.abs(actual - expected) <= tol, `${actual} is not ${expected}`);

Deno.test("sprtLlr() is ln 1.5 × (passes − fails) at seed 002's defaults", () => {
  // Seed 002: with symmetric defaults LLR ≈ 0.4055 × (passes − fails); ln 1.5 = 0.4054651081.
  for (let passes = 0; passes <= 60; passes++) {
    for (let fails = 0; passes + fails <= 60; fails++) {
      near(sprtLlr({}, { passes, fails }), 0.4054651081 * (passes - fails), 1e-8);
    }
  }
  // Hand computation: 6·ln 1.5 = 2.4327906486 (first adopting state), 5·ln 1.5 = 2.0273255405.
  near(sprtLlr({}, { passes: 6, fails: 0 }), 2.4327906486, 1e-9);
  near(sprtLlr({}, { passes: 5, fails: 0 }), 2.0273255405, 1e-9);
});

Deno.test("sprtLlr() weighs passes and fails separately for asymmetric parameters", () => {
  // Hand computation: 3·ln(0.7/0.5) + 2·ln(0.3/0.5) = 3·0.3364722366 − 2·0.5108256238 = -0.0122345377.
  near(
    sprtLlr({ p_adopt: 0.7, p_drop: 0.5 }, { passes: 3, fails: 2 }),
    3 * 0.3364722366 - 2 * 0.5108256238,
    1e-9,
  );
});

Deno.test("sprtLlr() refuses counts that are not non-negative integers", () => {
  throws(
    () => sprtLlr({}, { passes: -1, fails: 0 }),
    /^RangeError: Cannot compute the SPRT LLR: "passes" must be a non-negative integer, got "-1"$/,
  );
  throws(
    () => sprtLlr({}, { passes: 0, fails: 1.5 }),
    /"fails" must be a non-negative integer, got "1.5"/,
  );
});
