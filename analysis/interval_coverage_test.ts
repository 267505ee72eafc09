import { deepEqual, equal, ok } from "node:assert/strict";
import { binomialInverseCdf } from "./binomial_inverse_cdf.ts";
import { binomialPmf } from "./binomial_pmf.ts";
import {
  COVERAGE_RATES,
  type CoverageMethod,
  coverageProfile,
  coverageProfiles,
  exactCoverage,
  intervalOf,
  NEGLIGIBLE,
} from "./interval_coverage.ts";
import { seededRandom } from "./seeded_random.ts";

/** Every count's interval of `method` at n, computed once (the naive full table). */
function table(method: CoverageMethod, n: number) {
  const interval = intervalOf(method);
  return new Map(Array.from({ length: n + 1 }, (_, k) => [k, interval(k, n)] as const));
}

Deno.test("exactCoverage(): the audit's figures for seed 001's percentile bootstrap", () => {
  const bootstrap = intervalOf("bootstrap-as-computed");
  // The audit: 16-18% at n = 10 and p = 0.02 or 0.98, 45% at n = 30, 88% at n = 100.
  for (const p of [0.02, 0.98]) {
    const c = exactCoverage(bootstrap, 10, p);
    ok(c > 0.16 && c < 0.19, `n = 10, p = ${p}: ${c}`);
  }
  const at30 = exactCoverage(bootstrap, 30, 0.02);
  ok(Math.abs(at30 - 0.45) < 0.01, `n = 30: ${at30}`);
  // At n = 100, p = 0.02, the ideal percentile interval (R -> infinity) covers
  // exactly the counts 1..7: 1 - P(K = 0) - P(K >= 8) = 0.8660 (by hand from the
  // pmf); seed 7's 2,000 rounds move one endpoint, giving 0.863 and 0.866.
  const pmf = binomialPmf(100, 0.02);
  const ideal = pmf.slice(1, 8).reduce((a, b) => a + b, 0);
  ok(Math.abs(ideal - 0.8660) < 5e-4, String(ideal));
  for (const p of [0.02, 0.98]) {
    const c = exactCoverage(bootstrap, 100, p);
    ok(Math.abs(c - ideal) < 0.005, `n = 100, p = ${p}: ${c}`);
  }
});

Deno.test("exactCoverage(): the printed interval (Wilson at 0/n and n/n) dips to 0.84-0.87; Wilson stays >= 0.91 at n >= 100", () => {
  const printed = table("percentile-bootstrap", 100);
  let lowest = 1;
  for (let i = 1; i < 1000; i++) lowest = Math.min(lowest, exactCoverage(printed, 100, i / 1000));
  ok(lowest > 0.84 && lowest < 0.87, `printed, n = 100: ${lowest}`);
  for (const n of [100, 200, 500]) {
    const wilson = table("wilson", n);
    for (const p of COVERAGE_RATES) {
      const c = exactCoverage(wilson, n, p);
      ok(c >= 0.91, `Wilson, n = ${n}, p = ${p}: ${c}`);
    }
  }
});

Deno.test("exactCoverage() agrees with a seeded Monte Carlo simulation of the same intervals", () => {
  // Independent check: draw K ~ Binomial(n, p) by inverse CDF and count how
  // often the interval printed for K holds p; within 4 standard errors.
  const draws = 20_000;
  for (
    const [method, n, p] of [
      ["bootstrap-as-computed", 30, 0.1],
      ["wilson", 50, 0.9],
      ["clopper-pearson", 40, 0.05],
    ] as const
  ) {
    const intervals = table(method, n);
    const random = seededRandom(`coverage-${method}`);
    const cdf = binomialInverseCdf(n, p);
    let hits = 0;
    for (let i = 0; i < draws; i++) {
      const k = cdf(random());
      const { lower, upper } = intervals.get(k)!;
      if (lower <= p && p <= upper) hits++;
    }
    const exact = exactCoverage(intervals, n, p);
    const se = Math.sqrt(exact * (1 - exact) / draws);
    ok(
      Math.abs(hits / draws - exact) < 4 * se + 1e-9,
      `${method} ${n} ${p}: ${hits / draws} vs ${exact}`,
    );
  }
});

Deno.test("coverageProfile() equals the naive sum over every count, within its documented bound", () => {
  for (const method of ["bootstrap-as-computed", "percentile-bootstrap", "wilson"] as const) {
    for (const [k, n] of [[5, 40], [120, 300]]) {
      const fast = coverageProfile(method, k, n);
      const full = table(method, n);
      const bound = (n + 1) * NEGLIGIBLE;
      ok(Math.abs(fast.at_observed! - exactCoverage(full, n, k / n)) <= bound, `${method} ${n}`);
      for (const point of fast.across) {
        ok(
          Math.abs(point.coverage - exactCoverage(full, n, point.rate)) <= bound,
          `${method} ${n}`,
        );
      }
    }
  }
  // Clopper-Pearson past its limit is not computed (it is >= 95% by construction).
  deepEqual(coverageProfile("clopper-pearson", 10, 2001).lowest, null);
});

Deno.test("coverageProfile() gives the observed rate's coverage and the lowest across rates, replayably", () => {
  const a = coverageProfile("percentile-bootstrap", 5, 7);
  const b = coverageProfile("percentile-bootstrap", 5, 7);
  // Clopper-Pearson is conservative: at least 95% at every rate (n = 20, by its construction).
  const exact = coverageProfile("clopper-pearson", 5, 20);
  ok(exact.lowest!.coverage >= 0.95, String(exact.lowest!.coverage));
  equal(JSON.stringify(a), JSON.stringify(b));
  equal(a.across.length, COVERAGE_RATES.length);
  equal(a.lowest!.coverage, Math.min(...a.across.map((point) => point.coverage)));
  equal(a.at_observed, exactCoverage(intervalOf("percentile-bootstrap"), 7, 5 / 7));
});

Deno.test("coverageProfiles() shares the intervals of agents with one n and equals coverageProfile()", () => {
  const agents = [{ resolved: 3, scored: 40 }, { resolved: 31, scored: 40 }, {
    resolved: 2,
    scored: 9,
  }];
  const together = coverageProfiles("percentile-bootstrap", agents);
  agents.forEach((a, i) => {
    const alone = coverageProfile("percentile-bootstrap", a.resolved, a.scored);
    // The shared set holds more counts; each sum differs by at most (n + 1) x NEGLIGIBLE.
    ok(Math.abs(together[i].at_observed! - alone.at_observed!) <= (a.scored + 1) * NEGLIGIBLE);
    equal(together[i].lowest!.rate, alone.lowest!.rate);
  });
});
