import { equal, ok } from "node:assert/strict";
import { sprtBoundaries } from "./sprt_boundaries.ts";

const TOLERANCE = 1e-10;
const near = (actual: number, expected: number) =>
  ok(Math.abs(actual - expected) <= TOLERANCE, `${actual} is not ${expected}`);

Deno.test("sprtBoundaries() pins seed 002's defaults: ±ln 9 and ±ln 1.5", () => {
  const b = sprtBoundaries({});
  // ln((1 − 0.1)/0.1) = ln 9 = 2.1972245773 (seed 002: "上下边界约为 ±2.197").
  near(b.upper, 2.1972245773);
  near(b.lower, -2.1972245773);
  // ln(0.6/0.4) = ln 1.5 = 0.4054651081 (seed 002: "LLR ≈ 0.4055 ×（成功数 − 失败数）").
  near(b.llr_per_pass, 0.4054651081);
  near(b.llr_per_fail, -0.4054651081);
  equal(Object.keys(b).join(), "upper,lower,llr_per_pass,llr_per_fail");
});

Deno.test("sprtBoundaries() handles asymmetric parameters", () => {
  // Python math.log: ln(0.8/0.05) = ln 16 = 2.772588722239781, ln(0.2/0.95) = -1.5581446180465497,
  // ln(0.7/0.5) = 0.3364722366212129, ln(0.3/0.5) = -0.5108256237659907.
  const b = sprtBoundaries({ p_adopt: 0.7, p_drop: 0.5, alpha: 0.05, beta: 0.2 });
  near(b.upper, 2.772588722239781);
  near(b.lower, -1.5581446180465497);
  near(b.llr_per_pass, 0.3364722366212129);
  near(b.llr_per_fail, -0.5108256237659907);
});
