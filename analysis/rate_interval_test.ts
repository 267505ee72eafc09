import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { bootstrapRate } from "./bootstrap_rate.ts";
import {
  bootstrapCoverageProblem,
  describeIntervalMethod,
  INTERVAL_METHODS,
  rateInterval,
} from "./rate_interval.ts";

const TOLERANCE = 1e-12;

function close(actual: number, expected: number, what: string): void {
  ok(Math.abs(actual - expected) <= TOLERANCE, `${what}: got ${actual}, expected ${expected}`);
}

Deno.test("rateInterval() by default is seed 001's bootstrap, unchanged", () => {
  const result = rateInterval(37, 60);
  deepEqual(result.interval, bootstrapRate(37, 60));
  equal(result.method, "percentile-bootstrap");
  deepEqual(result.rule, {
    method: "percentile-bootstrap",
    lower: result.interval!.lower,
    upper: result.interval!.upper,
  });
  // n = 60 >= 30 and 23 failures >= 5: no coverage warning.
  equal(result.coverage_warning, null);
  equal(result.wilson, null);
});

Deno.test("rateInterval() warns at small n or few successes or failures, with Wilson beside", () => {
  // The rule: min(k, n − k) < 5 or n < 30. scipy.stats.binomtest(k, n).proportion_ci(
  // method="wilson"): 3/4 -> (0.30064184258240184, 0.9544127391902995),
  // 1/100 -> (0.001767432064140647, 0.054486196178705315).
  const small = rateInterval(3, 4);
  close(small.coverage_warning!.wilson.lower, 0.30064184258240184, "3/4 lower");
  close(small.coverage_warning!.wilson.upper, 0.9544127391902995, "3/4 upper");
  equal(small.rule!.method, "percentile-bootstrap");
  const few = rateInterval(1, 100);
  ok(few.coverage_warning!.reason.startsWith("1 resolved (fewer than 5): "));
  close(few.coverage_warning!.wilson.lower, 0.001767432064140647, "1/100 lower");
  equal(bootstrapCoverageProblem(95, 100), null);
  ok(bootstrapCoverageProblem(96, 100)!.startsWith("4 unresolved (fewer than 5)"));
  ok(bootstrapCoverageProblem(15, 29)!.startsWith("n = 29 < 30: "));
  equal(bootstrapCoverageProblem(15, 30), null);
  // A collapsed interval: the Wilson interval decides and is the one printed beside it.
  const all = rateInterval(10, 10);
  ok(all.collapsed);
  close(all.rule!.lower, 0.7224672001371109, "10/10 Wilson lower");
  deepEqual(all.coverage_warning!.wilson, { lower: all.wilson!.lower, upper: all.wilson!.upper });
});

Deno.test("rateInterval() computes the plan's other methods, which decide and never warn", () => {
  // scipy.stats.binomtest(6, 10).proportion_ci(method="wilson") -> (0.3126737697336583,
  // 0.8318196702937639); method="exact" -> (0.2623780766069451, 0.8784477418801728).
  const wilson = rateInterval(6, 10, { method: "wilson" });
  close(wilson.rule!.lower, 0.3126737697336583, "Wilson lower");
  close(wilson.rule!.upper, 0.8318196702937639, "Wilson upper");
  equal(wilson.coverage_warning, null);
  const exact = rateInterval(6, 10, { method: "clopper-pearson" });
  ok(Math.abs(exact.rule!.lower - 0.2623780766069451) < 1e-10);
  ok(Math.abs(exact.rule!.upper - 0.8784477418801728) < 1e-10);
  equal(exact.rule!.method, "clopper-pearson");
  for (const method of INTERVAL_METHODS) {
    deepEqual(rateInterval(0, 0, { method }).interval, null);
  }
  equal(describeIntervalMethod("percentile-bootstrap"), "percentile-bootstrap (seed 001), 95%");
  equal(describeIntervalMethod("clopper-pearson"), "clopper-pearson, 95%");
});

Deno.test("rateInterval() refuses bad counts and an unknown method", () => {
  throws(() => rateInterval(3, 2, { method: "wilson" }), /0 <= resolved <= scored/);
  throws(() => rateInterval(1, 2, { method: "bca" as "wilson" }), /"method" must be one of/);
});
