import { deepEqual, equal, notDeepEqual, ok, throws } from "node:assert/strict";
import { sprtMonteCarlo } from "./sprt_monte_carlo.ts";
import { seededRandom } from "../seeded_random.ts";

Deno.test("sprtMonteCarlo() is reproducible from its seed", () => {
  const a = sprtMonteCarlo({}, 0.5, { trials: 5000, seed: 7 });
  const b = sprtMonteCarlo({}, 0.5, { trials: 5000, seed: "7" });
  const c = sprtMonteCarlo({}, 0.5, { trials: 5000, random: seededRandom(7) });
  deepEqual(a, b);
  deepEqual(a, c);
  notDeepEqual(a.counts, sprtMonteCarlo({}, 0.5, { trials: 5000, seed: 8 }).counts);
});

Deno.test("sprtMonteCarlo() tallies every trial once and derives frequencies and errors", () => {
  const mc = sprtMonteCarlo({}, 0.45, { trials: 4000, seed: 11 });
  const { counts } = mc;
  equal(counts.adopt + counts.drop + counts["cap-adopt"] + counts["cap-drop"], 4000);
  // At the defaults cap-adopt is unreachable (seed 002), so no trial can produce it.
  equal(counts["cap-adopt"], 0);
  ok(counts.budget_exhausted >= counts["cap-drop"], "a cap decision happens at N = n_cap");
  equal(mc.decisions.drop, counts.drop / 4000);
  // Binomial standard error sqrt(f(1 − f)/T).
  const f = counts.adopt / 4000;
  ok(Math.abs(mc.se.adopt - Math.sqrt(f * (1 - f) / 4000)) < 1e-15);
  ok(Math.abs(mc.se.expected_sample_size - mc.sample_size_sd / Math.sqrt(4000)) < 1e-15);
  equal(mc.final_drop, (counts.drop + counts["cap-drop"]) / 4000);
});

Deno.test("sprtMonteCarlo() is exact for the deterministic rates 0 and 1", () => {
  // p = 1: every trial passes six times in a row and adopts at n = 6 (seed 002: +6 net).
  const one = sprtMonteCarlo({}, 1, { trials: 100 });
  equal(one.counts.adopt, 100);
  equal(one.expected_sample_size, 6);
  equal(one.sample_size_sd, 0);
  const zero = sprtMonteCarlo({}, 0, { trials: 100 });
  equal(zero.counts.drop, 100);
});

Deno.test("sprtMonteCarlo() reaches the cap on every trial when no boundary is reachable", () => {
  // n_cap 4 < 6 net needed: every run ends at n = 4 through the cap fallback.
  const mc = sprtMonteCarlo({ n_cap: 4 }, 0.5, { trials: 1000, seed: 3 });
  equal(mc.counts.budget_exhausted, 1000);
  equal(mc.expected_sample_size, 4);
  equal(mc.counts.adopt + mc.counts.drop, 0);
});

Deno.test("sprtMonteCarlo() refuses bad trials and rates", () => {
  throws(
    () => sprtMonteCarlo({}, 0.5, { trials: 1 }),
    /^RangeError: Cannot simulate the SPRT: "trials" must be an integer of at least 2, got "1"$/,
  );
  throws(() => sprtMonteCarlo({}, Number.NaN), /"p_true" must be in \[0, 1\], got "NaN"/);
});

Deno.test("sprtMonteCarlo() stops a walk exactly on a boundary (issue 13)", () => {
  // p_adopt 0.3, p_drop 0.1, α = β = 0.1: two passes reach (1 − β)/α = 9 exactly. At p = 1 every
  // trial is two passes and an adopt (the float rule walked a third result).
  const audit = { p_adopt: 0.3, p_drop: 0.1, alpha: 0.1, beta: 0.1 };
  const sure = sprtMonteCarlo(audit, 1, { trials: 100, seed: 7 });
  equal(sure.counts.adopt, 100);
  equal(sure.expected_sample_size, 2);
});
