import { equal, ok } from "node:assert/strict";
import { sprtOperatingCharacteristic } from "./sprt_operating_characteristic.ts";
import { SPRT_FINAL_DECISIONS, sprtDecision, type SprtFinalDecision } from "./sprt_decision.ts";
import type { SprtParamsInput } from "./sprt_params.ts";

const near = (actual: number, expected: number, tol: number, what = "") =>
  ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} is not ${expected} ± ${tol}`);

Deno.test("sprtOperatingCharacteristic() pins seed 002's p = 0.5: most runs do NOT exhaust the budget", () => {
  // Independent exact computation in Python with integers (paths of a ±1 walk absorbed at ±6,
  // 60 steps, counted over all 2^60 sequences):
  //   adopt = drop = 486878346353534058 / 2^60 = 0.42229964868212116
  //   cap-drop    = 179164811899778860 / 2^60 = 0.1554007026357576
  //   N = 60      = 192028266310262120 / 2^60 = 0.16655797080976895
  // Seed 002 claimed most runs at p = 0.5 exhaust the budget; only 16.66% do.
  const oc = sprtOperatingCharacteristic({}, 0.5);
  const two60 = 2 ** 60;
  near(oc.decisions.adopt, 486878346353534058 / two60, 1e-13, "adopt");
  near(oc.decisions.drop, 486878346353534058 / two60, 1e-13, "drop");
  equal(oc.decisions["cap-adopt"], 0);
  near(oc.decisions["cap-drop"], 179164811899778860 / two60, 1e-13, "cap-drop");
  near(oc.budget_exhausted, 192028266310262120 / two60, 1e-13, "budget");
  near(oc.budget_exhausted, 0.16655797081, 1e-11, "budget");
  ok(oc.budget_exhausted < 0.5, "most runs at p = 0.5 do not exhaust the budget");
  near(oc.cap_decision, 0.1554007026357576, 1e-13, "cap decision");
  near(oc.final_drop, 0.42229964868212116 + 0.1554007026357576, 1e-13, "final drop");
  // Python float DP of seed 002's `decide` (sum of n·P(N = n), sqrt(E[N²] − E[N]²)).
  near(oc.expected_sample_size, 31.36029344982473, 1e-9, "E[N]");
  near(oc.sample_size_sd, 18.110678963433504, 1e-9, "sd(N)");
});

Deno.test("sprtOperatingCharacteristic() pins the seed-002 grid against a Python DP", () => {
  // Python float DP over dict states with seed 002's `decide` verbatim (p_true, P(adopt),
  // P(drop), P(cap-drop), E[N], P(N = 60)).
  const python: [number, number, number, number, number, number][] = [
    [
      0.3,
      0.006149724580182595,
      0.9924676915417038,
      0.0013825838781129584,
      14.802467074086541,
      0.0017641058658326757,
    ],
    [
      0.4,
      0.07653524736081885,
      0.8717843019693263,
      0.0516804506698546,
      24.16670723999962,
      0.057698895773310145,
    ],
    [
      0.6,
      0.8717843019693263,
      0.07653524736081885,
      0.0516804506698546,
      24.166707239999624,
      0.05769889577331014,
    ],
    [
      0.7,
      0.9924676915417044,
      0.006149724580182605,
      0.001382583878112965,
      14.802467074086561,
      0.0017641058658326842,
    ],
  ];
  for (const [p, adopt, drop, capDrop, en, exhausted] of python) {
    const oc = sprtOperatingCharacteristic({}, p);
    near(oc.decisions.adopt, adopt, 1e-12, `adopt at ${p}`);
    near(oc.decisions.drop, drop, 1e-12, `drop at ${p}`);
    near(oc.decisions["cap-drop"], capDrop, 1e-12, `cap-drop at ${p}`);
    equal(oc.decisions["cap-adopt"], 0);
    near(oc.expected_sample_size, en, 1e-9, `E[N] at ${p}`);
    near(oc.budget_exhausted, exhausted, 1e-12, `N = 60 at ${p}`);
  }
  // With the fallback counted, a true 0.60 is dropped 12.82% of the time (> beta = 0.10),
  // while a true 0.40 is adopted 7.65% of the time (< alpha = 0.10).
  near(sprtOperatingCharacteristic({}, 0.6).final_drop, 0.1282156981, 1e-10, "false drop");
  near(sprtOperatingCharacteristic({}, 0.4).final_adopt, 0.0765352474, 1e-10, "false adopt");
});

/**
 * Brute force, independent of the DP: enumerate all 2^n_cap result sequences, walk each with
 * `sprtDecision` until it decides, and weight the sequence by p^passes (1 − p)^fails.
 */
function bruteForce(params: SprtParamsInput & { n_cap: number }, p: number) {
  const totals: Record<SprtFinalDecision, number> = {
    adopt: 0,
    drop: 0,
    "cap-adopt": 0,
    "cap-drop": 0,
  };
  let expectedN = 0, exhausted = 0;
  const nCap = params.n_cap;
  for (let mask = 0; mask < 2 ** nCap; mask++) {
    let weight = 1;
    for (let i = 0; i < nCap; i++) weight *= (mask >> i) & 1 ? p : 1 - p;
    let passes = 0, fails = 0;
    for (let i = 0; i < nCap; i++) {
      if ((mask >> i) & 1) passes++;
      else fails++;
      const d = sprtDecision(params, { passes, fails });
      if (d !== "continue") {
        totals[d] += weight;
        expectedN += (i + 1) * weight;
        if (i + 1 === nCap) exhausted += weight;
        break;
      }
    }
  }
  return { totals, expectedN, exhausted };
}

Deno.test("sprtOperatingCharacteristic() equals a brute-force enumeration at n_cap 8", () => {
  const paramSets = [
    // All four decisions reachable; Python brute force at p = 0.55 gives adopt 0.1820974375,
    // drop 0.1870397578, cap-adopt 0.0784746162, cap-drop 0.5523881885, E[N] 6.9623066172.
    { p_adopt: 0.65, p_drop: 0.45, alpha: 0.2, beta: 0.2, n_cap: 8 },
    { p_adopt: 0.7, p_drop: 0.4, alpha: 0.2, beta: 0.1, n_cap: 8 },
    { p_adopt: 0.6, p_drop: 0.4, alpha: 0.25, beta: 0.25, n_cap: 8 },
    { n_cap: 8 },
  ];
  for (const params of paramSets) {
    for (const p of [0, 0.2, 0.55, 0.8, 1]) {
      const oc = sprtOperatingCharacteristic(params, p);
      const brute = bruteForce(params, p);
      for (const d of SPRT_FINAL_DECISIONS) {
        near(oc.decisions[d], brute.totals[d], 1e-12, `${d} at ${p} ${JSON.stringify(params)}`);
      }
      near(oc.expected_sample_size, brute.expectedN, 1e-11, `E[N] at ${p}`);
      near(oc.budget_exhausted, brute.exhausted, 1e-12, `N = n_cap at ${p}`);
    }
  }
  const oc = sprtOperatingCharacteristic(paramSets[0], 0.55);
  near(oc.decisions.adopt, 0.1820974375, 1e-10, "adopt");
  near(oc.decisions.drop, 0.1870397578, 1e-10, "drop");
  near(oc.decisions["cap-adopt"], 0.0784746162, 1e-10, "cap-adopt");
  near(oc.decisions["cap-drop"], 0.5523881885, 1e-10, "cap-drop");
  near(oc.expected_sample_size, 6.9623066172, 1e-9, "E[N]");
});

Deno.test("sprtOperatingCharacteristic() probabilities sum to 1 for any rate and parameters", () => {
  const paramSets: SprtParamsInput[] = [
    {},
    { p_adopt: 0.7, p_drop: 0.5, alpha: 0.05, beta: 0.2, n_cap: 40 },
    { p_adopt: 0.9, p_drop: 0.1, alpha: 0.001, beta: 0.3, n_cap: 200 },
    { alpha: 0.45, beta: 0.45, n_cap: 1 },
    { alpha: 0.6, beta: 0.7, n_cap: 5 }, // alpha + beta > 1: the first result decides
  ];
  for (const params of paramSets) {
    for (let i = 0; i <= 100; i++) {
      const oc = sprtOperatingCharacteristic(params, i / 100);
      const total = SPRT_FINAL_DECISIONS.reduce((sum, d) => sum + oc.decisions[d], 0);
      near(total, 1, 1e-12, `sum at ${i / 100} ${JSON.stringify(params)}`);
      near(oc.final_adopt + oc.final_drop, 1, 1e-12, "final");
      ok(oc.budget_exhausted >= oc.cap_decision - 1e-15, "the cap fallback implies N = n_cap");
    }
  }
});

Deno.test("sprtOperatingCharacteristic() is symmetric for the symmetric defaults", () => {
  // p_adopt = 1 − p_drop and alpha = beta: swapping passes and fails mirrors the boundaries, so
  // P(adopt | p) = P(drop | 1 − p); the cap fallback is not mirrored (cap-adopt needs ≥ 60%).
  for (let i = 0; i <= 100; i++) {
    const p = i / 100;
    const a = sprtOperatingCharacteristic({}, p);
    const b = sprtOperatingCharacteristic({}, 1 - p);
    near(a.decisions.adopt, b.decisions.drop, 1e-12, `adopt(${p}) vs drop(${1 - p})`);
    near(a.cap_decision, b.cap_decision, 1e-12, "cap");
    near(a.expected_sample_size, b.expected_sample_size, 1e-9, "E[N]");
  }
});

Deno.test("sprtOperatingCharacteristic() handles the deterministic rates 0 and 1", () => {
  // p = 1: six passes in a row adopt at n = 6; p = 0: six fails drop at n = 6 (seed 002: ±6 net).
  const one = sprtOperatingCharacteristic({}, 1);
  equal(one.decisions.adopt, 1);
  equal(one.expected_sample_size, 6);
  equal(one.sample_size_sd, 0);
  const zero = sprtOperatingCharacteristic({}, 0);
  equal(zero.decisions.drop, 1);
  equal(zero.expected_sample_size, 6);
});

Deno.test("sprtOperatingCharacteristic() returns the stopping distribution on request", () => {
  const oc = sprtOperatingCharacteristic({}, 0.5, { stoppingDistribution: true });
  const dist = oc.stopping_distribution as number[];
  equal(dist.length, 61);
  near(dist.reduce((s, x) => s + x, 0), 1, 1e-12, "sum");
  near(dist.reduce((s, x, n) => s + n * x, 0), oc.expected_sample_size, 1e-10, "mean");
  near(dist[60], oc.budget_exhausted, 1e-15, "P(N = 60)");
  // Hand computation: N = 6 needs 6 equal results in a row, 2 · 2^-6 = 0.03125; odd N is impossible.
  near(dist[6], 0.03125, 1e-15, "P(N = 6)");
  equal(dist[7], 0);
  equal(sprtOperatingCharacteristic({}, 0.5).stopping_distribution, undefined);
});

Deno.test("sprtOperatingCharacteristic() refuses a rate outside [0, 1]", () => {
  let message = "";
  try {
    sprtOperatingCharacteristic({}, 1.5);
  } catch (e) {
    message = (e as Error).message;
  }
  equal(
    message,
    'Cannot compute the SPRT operating characteristic: "p_true" must be in [0, 1], got "1.5"',
  );
});

Deno.test("sprtOperatingCharacteristic() counts the walks that land exactly on a boundary (issue 13)", () => {
  // The audit's case: p_adopt 0.3, p_drop 0.1, α = β = 0.1; two passes reach the adopt boundary
  // exactly. Reference: the same dynamic programming in Python with fractions.Fraction (every
  // parameter and the rate as the exact decimal, every comparison exact):
  //   n_cap 100: P(adopt | 0.1) = 0.07046051006886467, P(drop) = 0.9293354357886151,
  //              P(cap-drop) = 0.00020405414252019696
  //   n_cap 60:  P(adopt | 0.1) = 0.07011746491694924
  // The audit prints 0.0705 (the float rule gave 0.0656: 0.06557751786900169 at n_cap 100).
  const audit = { p_adopt: 0.3, p_drop: 0.1, alpha: 0.1, beta: 0.1 };
  const wide = sprtOperatingCharacteristic({ ...audit, n_cap: 100 }, 0.1);
  ok(Math.abs(wide.decisions.adopt - 0.07046051006886467) < 1e-12);
  ok(Math.abs(wide.decisions.drop - 0.9293354357886151) < 1e-12);
  ok(Math.abs(wide.decisions["cap-drop"] - 0.00020405414252019696) < 1e-12);
  equal(wide.decisions.adopt.toFixed(4), "0.0705");
  const seed = sprtOperatingCharacteristic(audit, 0.1);
  ok(Math.abs(seed.decisions.adopt - 0.07011746491694924) < 1e-12);
  // Just off the boundary (β = 0.09999999999999999 as written): two passes continue, and the
  // Python fractions reference gives P(adopt | 0.1) = 0.06557751786900169 at n_cap 100.
  const off = sprtOperatingCharacteristic({ ...audit, beta: 0.09999999999999999, n_cap: 100 }, 0.1);
  ok(Math.abs(off.decisions.adopt - 0.06557751786900169) < 1e-12);
});
