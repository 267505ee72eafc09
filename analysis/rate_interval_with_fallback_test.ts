import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { bootstrapRate } from "./bootstrap_rate.ts";
import { rateIntervalWithFallback } from "./rate_interval_with_fallback.ts";
import { wilsonInterval } from "./wilson_interval.ts";

const TOLERANCE = 1e-12;

function close(actual: number, expected: number, what: string): void {
  ok(Math.abs(actual - expected) <= TOLERANCE, `${what}: got ${actual}, expected ${expected}`);
}

Deno.test("rateIntervalWithFallback() gives no Wilson interval beside an open bootstrap interval", () => {
  // Seed 001 sample, agent a: 3/4 resolved, R = 2000, seed 7 -> [0.25, 1] (seed 001's printed output).
  const { bootstrap, wilson } = rateIntervalWithFallback(3, 4);
  ok(bootstrap !== null);
  equal(bootstrap.lower, 0.25);
  equal(bootstrap.upper, 1);
  equal(bootstrap.collapsed, false);
  equal(wilson, null);
  // Same parameters, same draws as a direct bootstrapRate() call.
  deepEqual(
    rateIntervalWithFallback(7, 12, { rounds: 500, seed: "x" }).bootstrap,
    bootstrapRate(7, 12, { rounds: 500, seed: "x" }),
  );
});

Deno.test("rateIntervalWithFallback() reports a Wilson interval beside a collapsed one", () => {
  // 0/20: every resample has 0 passes, so the bootstrap interval is [0, 0]; Wilson 0/20 at 95% is
  // [0, 0.1611...] (Newcombe 1998, Table II; full precision from the closed form in Python floats).
  const none = rateIntervalWithFallback(0, 20);
  ok(none.bootstrap !== null && none.wilson !== null);
  equal(none.bootstrap.lower, 0);
  equal(none.bootstrap.upper, 0);
  equal(none.bootstrap.collapsed, true);
  equal(none.wilson.method, "wilson");
  equal(none.wilson.lower, 0);
  close(none.wilson.upper, 0.16112515805281938, "0/20 upper");
  // 10/10: [1, 1]; Wilson lower is 1 − z²/(n + z²) = 1 − 0.2775327998628892 (hand computation).
  const all = rateIntervalWithFallback(10, 10);
  ok(all.bootstrap !== null && all.wilson !== null);
  equal(all.bootstrap.collapsed, true);
  close(all.wilson.lower, 1 - 0.2775327998628892, "10/10 lower");
  equal(all.wilson.upper, 1);
  // The quantile option reaches the Wilson interval.
  deepEqual(rateIntervalWithFallback(0, 20, { z: 1 }).wilson, wilsonInterval(0, 20, { z: 1 }));
});

Deno.test("rateIntervalWithFallback() returns no interval when nothing was scored", () => {
  deepEqual(rateIntervalWithFallback(0, 0), { bootstrap: null, wilson: null });
  throws(() => rateIntervalWithFallback(1, 0), RangeError);
  throws(() => rateIntervalWithFallback(5, 4), RangeError);
});
