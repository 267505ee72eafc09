import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { binomialPmf, BinomialSupports } from "./binomial_pmf.ts";

/** |actual − expected| ≤ rel × |expected|, with a readable failure. */
/** Throws unless `fn` throws an instance of `kind` whose message contains `text`. */
function throwsWith(fn: () => unknown, kind: ErrorConstructor, text: string): void {
  throws(fn, (error: unknown) => error instanceof kind && error.message.includes(text));
}

function assertRelClose(actual: number, expected: number, rel: number, what: string): void {
  const error = Math.abs(actual - expected);
  ok(error <= rel * Math.abs(expected), `${what}: got ${actual}, expected ${expected}`);
}

Deno.test("binomialPmf() gives the exact dyadic values of Binomial(4, 0.75)", () => {
  // Hand computation: C(4, j) 3^j / 4^4 = [1, 12, 54, 108, 81] / 256, exact in binary.
  const expected = [1, 12, 54, 108, 81].map((x) => x / 256);
  const pmf = binomialPmf(4, 0.75);
  equal(pmf.length, 5);
  expected.forEach((value, j) => assertRelClose(pmf[j], value, 1e-15, `P(K = ${j})`));
});

Deno.test("binomialPmf() matches scipy.stats.binom.pmf for small and large n", () => {
  // Each expected value is scipy.stats.binom.pmf(k, n, p) (scipy 1.17.1), quoted verbatim.
  // Tolerance: the ratio recurrence adds about |k − mode| roundings of 2^-52 each, so
  // 1500 steps from the mode (k = 61000) give about 3e-13; 1e-11 leaves a wide margin.
  const cases: [number, number, number, number][] = [
    [10, 0.3, 0, 0.0282475249], // = 0.7^10
    [10, 0.3, 3, 0.2668279319999998],
    [10, 0.3, 10, 5.9048999999999975e-06], // = 0.3^10
    [1000, 0.37, 300, 5.414541445425255e-07],
    [1000, 0.37, 370, 0.026122808087172343],
    [1000, 0.37, 450, 3.8634921769379276e-08],
    [100000, 0.625, 62500, 0.0026058729697072767],
    [100000, 0.625, 62000, 1.2666303907181539e-05],
    [100000, 0.625, 61000, 4.716299374285157e-24],
  ];
  const tables = new Map<string, Float64Array>();
  for (const [n, p, k, expected] of cases) {
    const key = `${n}/${p}`;
    if (!tables.has(key)) tables.set(key, binomialPmf(n, p));
    assertRelClose(tables.get(key)![k], expected, 1e-11, `pmf(${k}; ${n}, ${p})`);
  }
});

Deno.test("binomialPmf() sums to scipy.stats.binom.cdf and to 1", () => {
  const pmf = binomialPmf(100000, 0.625);
  let cdf = 0;
  for (let j = 0; j <= 62000; j++) cdf += pmf[j];
  // scipy.stats.binom.cdf(62000, 100000, 0.625) -> 0.000556810789644574
  assertRelClose(cdf, 0.000556810789644574, 1e-9, "cdf(62000)");
  cdf = 0;
  for (let j = 0; j <= 62500; j++) cdf += pmf[j];
  // scipy.stats.binom.cdf(62500, 100000, 0.625) -> 0.5011943593645443
  assertRelClose(cdf, 0.5011943593645443, 1e-9, "cdf(62500)");
  let total = 0;
  for (const value of pmf) total += value;
  // Normalised by construction; 1e-12 allows the rounding of 100,001 additions.
  ok(Math.abs(total - 1) < 1e-12, `total ${total}`);
  // Far tails underflow to exactly 0 instead of going negative or NaN.
  equal(pmf[0], 0);
  equal(pmf[100000], 0);
});

Deno.test("binomialPmf() puts all mass on one end when p is 0 or 1, and handles n = 0", () => {
  deepEqual([...binomialPmf(3, 0)], [1, 0, 0, 0]);
  deepEqual([...binomialPmf(3, 1)], [0, 0, 0, 1]);
  deepEqual([...binomialPmf(0, 0.4)], [1]);
  // n = 1 is Bernoulli(p): [1 − p, p].
  const bernoulli = binomialPmf(1, 0.3);
  assertRelClose(bernoulli[0], 0.7, 1e-15, "P(K = 0)");
  assertRelClose(bernoulli[1], 0.3, 1e-15, "P(K = 1)");
});

Deno.test("binomialPmf() refuses invalid parameters", () => {
  throwsWith(() => binomialPmf(-1, 0.5), RangeError, '"n" must be a non-negative integer, got -1');
  throwsWith(() => binomialPmf(2.5, 0.5), RangeError, '"n" must be a non-negative integer');
  throwsWith(() => binomialPmf(4, 1.5), RangeError, '"p" must lie in [0, 1], got 1.5');
  throwsWith(() => binomialPmf(4, Number.NaN), RangeError, '"p" must lie in [0, 1], got NaN');
});

/** The pmf as a full table of n + 1 entries, the recurrence run over every count (reference). */
function fullTablePmf(n: number, p: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  if (p === 0 || p === 1) {
    pmf[p === 0 ? 0 : n] = 1;
    return pmf;
  }
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const logOdds = Math.log(p) - Math.log1p(-p);
  pmf[mode] = 1;
  let logW = 0;
  for (let j = mode; j < n; j++) {
    logW += Math.log(n - j) - Math.log(j + 1) + logOdds;
    if (logW < -745.2) break;
    pmf[j + 1] = Math.exp(logW);
  }
  logW = 0;
  for (let j = mode; j > 0; j--) {
    logW += Math.log(j) - Math.log(n - j + 1) - logOdds;
    if (logW < -745.2) break;
    pmf[j - 1] = Math.exp(logW);
  }
  let total = 0;
  for (let j = 0; j <= n; j++) total += pmf[j];
  for (let j = 0; j <= n; j++) pmf[j] /= total;
  return pmf;
}

Deno.test("BinomialSupports.of() is the positive part of the full table, to the bit", () => {
  for (const n of [0, 1, 5, 100, 2001, 60000]) {
    const supports = new BinomialSupports(n);
    for (const p of [0, 1, 1e-9, 0.01, 0.3, 0.5, 0.97, 1 - 1e-9, 1 / Math.max(n, 1)]) {
      const full = fullTablePmf(n, p);
      const { first, probabilities } = supports.of(p);
      const last = first + probabilities.length - 1;
      ok(probabilities[0] > 0 && probabilities[probabilities.length - 1] > 0, `${n}, ${p}`);
      full.forEach((value, j) => {
        const got = j >= first && j <= last ? probabilities[j - first] : 0;
        ok(Object.is(got, value), `P(K = ${j}) of Binomial(${n}, ${p}): ${got} vs ${value}`);
      });
      deepEqual(binomialPmf(n, p), full);
    }
  }
});
