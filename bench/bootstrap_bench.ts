/**
 * Benchmark: percentile bootstrap of the resolved rate for 4 agents ×
 * 100,000 scored episodes × 10,000 rounds (issue 2), against the plain method
 * it replaces: resampling the rows one by one (seed 001's `bootstrap_rate`).
 * The plain method needs 4 × 10⁵ × 10⁴ = 4·10⁹ draws, so it runs for a reduced
 * number of rounds and is scaled linearly to 10,000 rounds (its cost is
 * exactly linear in the rounds: each round is n draws and a count).
 *
 * @module
 */
import { bootstrapRate } from "../analysis/bootstrap_rate.ts";
import { seededRandom } from "../analysis/seeded_random.ts";
import { type BenchResult, timeBest } from "./_measure.ts";

/** Options for {@link bootstrapBench}. */
export interface BootstrapBenchOptions {
  agents?: number;
  episodes?: number;
  rounds?: number;
  /** Rounds of the plain resampling baseline before scaling; default 20. */
  baselineRounds?: number;
}

/** Resolved counts of the benchmark's agents: rates 0.35, 0.5, 0.65, 0.8 of n. */
function resolvedCounts(agents: number, episodes: number): number[] {
  return Array.from({ length: agents }, (_, i) => Math.round(episodes * (0.35 + 0.15 * i)));
}

/**
 * Seed 001's plain bootstrap: each round draws n row indices with
 * replacement and counts the resolved ones. O(n R).
 */
function plainBootstrap(outcomes: Uint8Array, rounds: number, seed: number): [number, number] {
  const random = seededRandom(seed);
  const n = outcomes.length;
  const stats = new Float64Array(rounds);
  for (let r = 0; r < rounds; r++) {
    let resolved = 0;
    for (let i = 0; i < n; i++) resolved += outcomes[Math.floor(random() * n)];
    stats[r] = resolved / n;
  }
  stats.sort();
  return [stats[Math.floor(0.025 * rounds)], stats[Math.floor(0.975 * rounds)]];
}

/**
 * Times {@link bootstrapRate} on 4 × 100,000 × 10,000 against the plain
 * row-resampling bootstrap (reduced rounds, scaled).
 */
export async function bootstrapBench(options: BootstrapBenchOptions = {}): Promise<BenchResult> {
  const agents = options.agents ?? 4;
  const episodes = options.episodes ?? 100_000;
  const rounds = options.rounds ?? 10_000;
  const baselineRounds = options.baselineRounds ?? 20;
  const counts = resolvedCounts(agents, episodes);
  const fast = await timeBest(
    () => counts.map((k, i) => bootstrapRate(k, episodes, { rounds, seed: 7 + i })),
    3,
  );
  const plain = await timeBest(() =>
    counts.map((k, i) => {
      const outcomes = new Uint8Array(episodes);
      outcomes.fill(1, 0, k);
      return plainBootstrap(outcomes, baselineRounds, 7 + i);
    })
  );
  const scaledMs = plain.ms * (rounds / baselineRounds);
  const widths = fast.value.map((interval) => (interval.upper - interval.lower).toFixed(4));
  return {
    name: "bootstrap",
    workload: `${agents} agents × ${episodes.toLocaleString("en")} episodes × ` +
      `${rounds.toLocaleString("en")} rounds`,
    ms: fast.ms,
    baseline: {
      name: `plain row resampling (${baselineRounds} rounds, scaled ×${rounds / baselineRounds})`,
      ms: scaledMs,
    },
    ratio: fast.ms / scaledMs,
    target: null,
    peak_rss_mib: null,
    notes: [
      "fast path: one exact inverse-CDF Binomial(n, k/n) draw per round (same distribution)",
      `95% interval widths: ${widths.join(", ")}`,
    ],
  };
}
