import { equal, ok } from "node:assert/strict";
import { cohenKappa } from "./cohen_kappa.ts";

const TOLERANCE = 1e-12;

function close(actual: number | null, expected: number, what: string): void {
  ok(
    actual !== null && Math.abs(actual - expected) <= TOLERANCE,
    `${what}: got ${actual}, expected ${expected}`,
  );
}

function repeat(pair: [string, string], times: number): [string, string][] {
  return Array.from({ length: times }, () => pair);
}

Deno.test("cohenKappa() matches a hand computation over three categories", () => {
  // 30 pairs: AA x10, AB x3, Atie x2, BA x1, BB x8, tietie x4, tieB x2.
  // python3 (/tmp/kappa_ref.py, p_o and p_e by hand with collections.Counter):
  //   kappa(p1) -> 0.5876288659793814 in floats; with fractions.Fraction: 57/97 ->
  //   0.5876288659793815, the double this function's one division gives
  const pairs = [
    ...repeat(["A", "A"], 10),
    ...repeat(["A", "B"], 3),
    ...repeat(["A", "tie"], 2),
    ...repeat(["B", "A"], 1),
    ...repeat(["B", "B"], 8),
    ...repeat(["tie", "tie"], 4),
    ...repeat(["tie", "B"], 2),
  ];
  close(cohenKappa(pairs), 0.5876288659793814, "three categories");
  equal(cohenKappa(pairs), 57 / 97);
});

Deno.test("cohenKappa() matches a hand computation over pass and fail", () => {
  // 50 pairs: pass/pass 20, pass/fail 5, fail/pass 10, fail/fail 15: p_o = 0.7, p_e = 0.5.
  // python3 (/tmp/kappa_ref.py): kappa(p2) -> 0.3999999999999999 (floats); exactly 2/5.
  const pairs = [
    ...repeat(["pass", "pass"], 20),
    ...repeat(["pass", "fail"], 5),
    ...repeat(["fail", "pass"], 10),
    ...repeat(["fail", "fail"], 15),
  ];
  close(cohenKappa(pairs), 0.4, "pass/fail");
  // One correctly rounded division of the integer counts gives the exact rational's double.
  equal(cohenKappa(pairs), 0.4);
});

Deno.test("cohenKappa() is -1 at perfect disagreement and 0 at chance", () => {
  // python3 (/tmp/kappa_ref.py): kappa([("x","y"),("y","x")]) -> -1.0;
  //   kappa([("x","x"),("x","y")]) -> 0.0
  equal(cohenKappa([["x", "y"], ["y", "x"]]), -1);
  equal(cohenKappa([["x", "x"], ["x", "y"]]), 0);
  // Perfect agreement over two categories: 1.
  equal(cohenKappa([["x", "x"], ["y", "y"]]), 1);
});

Deno.test("cohenKappa() is null with no pairs and when chance agreement is 1", () => {
  equal(cohenKappa([]), null);
  // Both raters always say "pass": p_e = 1, κ = 0/0.
  equal(cohenKappa(repeat(["pass", "pass"], 5)), null);
});
