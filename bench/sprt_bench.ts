/**
 * Benchmarks of seed 002's SPRT computations (issue 2):
 *
 * - the exact operating characteristic over 101 true rates (0, 0.01, …, 1),
 *   against a plain dense dynamic programme written inline here (a full
 *   (n_cap + 1)² table, no pruning of dead states): the same answer, so the
 *   benchmark also cross-checks the library;
 * - the Monte Carlo calibration of 20,000 trials × 5 rates (seed 002's
 *   `calibrate.py`), against the floor any simulation with this generator
 *   must pay: drawing the same number of uniforms from `seededRandom`.
 *
 * @module
 */
import { sprtOperatingCharacteristic } from "../analysis/sprt/sprt_operating_characteristic.ts";
import { calibrateSprt } from "../analysis/sprt/calibrate_sprt.ts";
import { seededRandom } from "../analysis/seeded_random.ts";
import { type BenchResult, timeBest } from "./_measure.ts";

/** Seed 002's defaults. */
const P_ADOPT = 0.6, P_DROP = 0.4, ALPHA = 0.1, BETA = 0.1, N_CAP = 60;

/**
 * Plain dense DP of the truncated walk: P(adopt) and E[N] at rate p, with a
 * full table of alive mass over (passes, fails). O(n_cap²) time and memory.
 */
function plainExact(p: number): { adopt: number; expectedN: number } {
  const llrPass = Math.log(P_ADOPT / P_DROP);
  const llrFail = Math.log((1 - P_ADOPT) / (1 - P_DROP));
  const upper = Math.log((1 - BETA) / ALPHA);
  const lower = Math.log(BETA / (1 - ALPHA));
  const alive: number[][] = Array.from({ length: N_CAP + 1 }, () => new Array(N_CAP + 1).fill(0));
  alive[0][0] = 1;
  let adopt = 0, expectedN = 0;
  for (let n = 1; n <= N_CAP; n++) {
    for (let s = 0; s <= n; s++) {
      const f = n - s;
      const m = (s > 0 ? alive[s - 1][f] * p : 0) + (f > 0 ? alive[s][f - 1] * (1 - p) : 0);
      const llr = s * llrPass + f * llrFail;
      const decided = llr >= upper || llr <= lower || n >= N_CAP;
      if (decided) {
        if (llr >= upper || (llr > lower && s / n >= P_ADOPT)) adopt += m;
        expectedN += n * m;
      } else {
        alive[s][f] = m;
      }
    }
  }
  return { adopt, expectedN };
}

/** Times the exact operating characteristic over `rates` true rates. */
export async function sprtExactBench(rates = 101): Promise<BenchResult> {
  const grid = Array.from({ length: rates }, (_, i) => i / (rates - 1));
  const exact = await timeBest(() => grid.map((p) => sprtOperatingCharacteristic({}, p)), 5);
  const plain = await timeBest(() => grid.map((p) => plainExact(p)), 5);
  let maxDiff = 0;
  for (let i = 0; i < rates; i++) {
    maxDiff = Math.max(
      maxDiff,
      Math.abs(exact.value[i].final_adopt - plain.value[i].adopt),
      Math.abs(exact.value[i].expected_sample_size - plain.value[i].expectedN) / N_CAP,
    );
  }
  return {
    name: "sprt exact",
    workload: `exact operating characteristic, ${rates} true rates, seed-002 defaults (n_cap 60)`,
    ms: exact.ms,
    baseline: { name: "plain dense DP, full table", ms: plain.ms },
    ratio: exact.ms / plain.ms,
    target: null,
    peak_rss_mib: null,
    notes: [`max |difference| from the plain DP (P(adopt), E[N]/60): ${maxDiff.toExponential(2)}`],
  };
}

/**
 * Times the Monte Carlo calibration of seed 002 (`calibrateSprt`: `trials` per
 * rate over `rates`, with the exact values beside) against the floor of any
 * simulation with this generator: drawing as many uniforms as the simulated
 * runs used results.
 */
export async function sprtMonteCarloBench(
  trials = 20_000,
  rates: number[] = [0.3, 0.4, 0.5, 0.6, 0.7],
): Promise<BenchResult> {
  const calibration = await timeBest(() => calibrateSprt({}, { trials, rates, seed: 7 }), 3);
  const draws = Math.round(
    calibration.value.rows.reduce(
      (sum, row) => sum + row.monte_carlo.expected_sample_size * row.monte_carlo.trials,
      0,
    ),
  );
  const floor = await timeBest(() => {
    const random = seededRandom(7);
    let sum = 0;
    for (let i = 0; i < draws; i++) sum += random();
    return sum;
  }, 3);
  const cal = calibration.value;
  return {
    name: "sprt monte carlo",
    workload: `calibrateSprt: ${trials.toLocaleString("en")} trials × ${rates.length} rates ` +
      `(${rates.join(", ")}), ${draws.toLocaleString("en")} results drawn, exact values beside`,
    ms: calibration.ms,
    baseline: { name: `${draws.toLocaleString("en")} uniforms from seededRandom`, ms: floor.ms },
    ratio: calibration.ms / floor.ms,
    target: null,
    peak_rss_mib: null,
    notes: [
      `exact and Monte Carlo agree: ${cal.agrees} (largest |z| ${cal.max_abs_z?.toFixed(2)})`,
      `unreachable decisions: ${cal.reachability.unreachable.join(", ") || "none"}`,
    ],
  };
}
