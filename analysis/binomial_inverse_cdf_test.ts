import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { binomialInverseCdf, binomialQuantiles } from "./binomial_inverse_cdf.ts";
import { binomialPmf, BinomialSupports } from "./binomial_pmf.ts";
import { randomIndex, seededRandom } from "./seeded_random.ts";

/** Empirical CDF of integer draws on 0..n. */
function empiricalCdf(draws: number[], n: number): number[] {
  const counts = new Array<number>(n + 1).fill(0);
  for (const k of draws) counts[k]++;
  let running = 0;
  return counts.map((c) => (running += c) / draws.length);
}

/** Kolmogorov–Smirnov distance max_j |F(j) − G(j)| between two CDFs on 0..n. */
function ksDistance(f: number[], g: number[]): number {
  return Math.max(...f.map((value, j) => Math.abs(value - g[j])));
}

/** The plain bootstrap of seed 001: resample n rows (k resolved) with replacement, count passes. */
function naiveResolvedCounts(n: number, k: number, rounds: number, seed: number): number[] {
  const random = seededRandom(seed);
  const rows = Array.from({ length: n }, (_, i) => i < k);
  const counts: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let passes = 0;
    for (let i = 0; i < n; i++) if (rows[randomIndex(random, n)]) passes++;
    counts.push(passes);
  }
  return counts;
}

function fastResolvedCounts(n: number, p: number, rounds: number, seed: number): number[] {
  const random = seededRandom(seed);
  const quantile = binomialInverseCdf(n, p);
  return Array.from({ length: rounds }, () => quantile(random()));
}

Deno.test("binomialInverseCdf() steps at the hand-computed CDF of Binomial(4, 0.75)", () => {
  // Hand computation: F = [1, 13, 67, 175, 256] / 256; the quantile of u is the
  // smallest j with u < F(j). 1e-12 keeps u clear of the rounding of F (about 1e-16).
  const quantile = binomialInverseCdf(4, 0.75);
  const steps = [1, 13, 67, 175].map((x) => x / 256);
  equal(quantile(0), 0);
  steps.forEach((boundary, j) => {
    equal(quantile(boundary - 1e-12), j, `just below F(${j})`);
    equal(quantile(boundary + 1e-12), j + 1, `just above F(${j})`);
  });
  equal(quantile(1 - 2 ** -53), 4);
});

Deno.test("binomialInverseCdf() never returns a value of probability 0", () => {
  // p = 0 and p = 1 put all mass on 0 and n.
  const none = binomialInverseCdf(7, 0);
  const all = binomialInverseCdf(7, 1);
  for (const u of [0, 0.5, 1 - 2 ** -53]) {
    equal(none(u), 0);
    equal(all(u), 7);
  }
  // n = 100,000: pmf[0] and pmf[n] underflow to 0, so the extreme u map inside the support.
  const pmf = binomialPmf(100000, 0.625);
  const quantile = binomialInverseCdf(100000, 0.625);
  ok(pmf[quantile(0)] > 0);
  ok(pmf[quantile(1 - 2 ** -53)] > 0);
  // The median: scipy.stats.binom.ppf(0.5, 100000, 0.625) -> 62500.
  equal(quantile(0.5), 62500);
});

Deno.test("binomialInverseCdf() draws have the distribution of naive row resampling", () => {
  // Cross-check of the fast path against the plain one: R = 20,000 rounds of resampling
  // n = 50 rows (20 resolved) row by row, against 20,000 inverse-CDF draws of
  // Binomial(50, 0.4) from another seed. Tolerance: the two-sample Kolmogorov–Smirnov
  // critical value at α = 0.001 is 1.949 × sqrt(2 / 20000) = 0.0195 (conservative for a
  // discrete law); one-sample against the exact CDF it is 1.949 / sqrt(20000) = 0.0138.
  const n = 50;
  const rounds = 20000;
  const naive = empiricalCdf(naiveResolvedCounts(n, 20, rounds, 11), n);
  const fast = empiricalCdf(fastResolvedCounts(n, 0.4, rounds, 12), n);
  const pmf = binomialPmf(n, 0.4);
  let running = 0;
  const exact = [...pmf].map((p) => (running += p));
  ok(ksDistance(naive, fast) < 0.0195, `fast vs naive: D = ${ksDistance(naive, fast)}`);
  ok(ksDistance(fast, exact) < 0.0138, `fast vs exact: D = ${ksDistance(fast, exact)}`);
  ok(ksDistance(naive, exact) < 0.0138, `naive vs exact: D = ${ksDistance(naive, exact)}`);
  // Power: the same test tells a slightly wrong sampler apart (p = 0.44 instead of 0.4;
  // the exact CDFs differ by about 0.18 at the median).
  const wrong = empiricalCdf(fastResolvedCounts(n, 0.44, rounds, 12), n);
  ok(ksDistance(naive, wrong) > 0.0195, `wrong sampler: D = ${ksDistance(naive, wrong)}`);
});

Deno.test("binomialInverseCdf() refuses invalid parameters", () => {
  throws(() => binomialInverseCdf(-2, 0.5), RangeError);
  throws(() => binomialInverseCdf(3, -0.1), RangeError);
});

Deno.test("binomialQuantiles() gives binomialInverseCdf()'s counts, near 1 too", () => {
  const uniforms = [0, 1e-300, 0.001, 0.025, 0.5, 0.975, 0.999999, 1 - 1e-15, 1 - 2 ** -53];
  for (const n of [1, 2, 7, 40, 1000, 30011]) {
    const supports = new BinomialSupports(n);
    for (const k of new Set([0, 1, 2, Math.floor(n / 3), n - 1, n].filter((k) => k <= n))) {
      const quantile = binomialInverseCdf(n, k / n);
      const expected = uniforms.map(quantile);
      deepEqual(binomialQuantiles(n, k / n, uniforms, supports), expected, `${k} of ${n}`);
      deepEqual(binomialQuantiles(n, k / n, [...uniforms].reverse()), expected.reverse());
    }
  }
  throws(() => binomialQuantiles(3, 0.5, [0.5], new BinomialSupports(4)), RangeError);
});
