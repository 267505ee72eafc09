/**
 * The Pareto frontier of a set of agents on two axes: a cost to minimise and a
 * benefit to maximise (seed 001: rank by cost, not by pass rate alone; the
 * frontier shows which agents no other agent beats on both at once), and how
 * often each agent is on it when the episodes are resampled (issue 13: a
 * frontier of point estimates hides how fragile its membership is).
 *
 * @module
 */
import { randomIndex, seededRandom } from "./seeded_random.ts";
import { DEFAULT_BOOTSTRAP } from "./defaults.ts";

/** How to read the two coordinates of a point. */
export interface ParetoFrontierOptions<T> {
  /** The coordinate to minimise (cost, tokens); non-finite values leave the point out. */
  cost: (point: T) => number | null | undefined;
  /** The coordinate to maximise (resolved rate); non-finite values leave the point out. */
  benefit: (point: T) => number | null | undefined;
}

/**
 * The points no other point dominates, ordered by cost ascending.
 *
 * Rule: `q` dominates `p` when `cost(q) <= cost(p)` and `benefit(q) >=
 * benefit(p)` with at least one inequality strict. Points with equal cost and
 * benefit do not dominate each other, so duplicates of a frontier point are all
 * on the frontier. A point whose cost or benefit is null, undefined, NaN or
 * infinite (for example tokens per resolved when nothing resolved) is neither
 * on the frontier nor dominates anything. Textbook definition of Pareto
 * optimality for a bi-objective minimise/maximise problem.
 *
 * Cost: O(n log n) (one sort, one sweep). Ties in the output keep input order.
 *
 * @param points the candidates, in any order
 * @param options accessors for the cost (minimised) and the benefit (maximised)
 * @returns the non-dominated points, by cost ascending, then benefit descending
 * @example
 * ```ts
 * import { paretoFrontier } from "./pareto_frontier.ts";
 * const agents = [
 *   { id: "a", cost: 1, rate: 0.5 },
 *   { id: "b", cost: 2, rate: 0.4 }, // dominated by a: dearer and worse
 *   { id: "c", cost: 3, rate: 0.9 },
 * ];
 * const front = paretoFrontier(agents, { cost: (p) => p.cost, benefit: (p) => p.rate });
 * if (front.map((p) => p.id).join() !== "a,c") throw new Error("frontier");
 * ```
 */
export function paretoFrontier<T>(points: readonly T[], options: ParetoFrontierOptions<T>): T[] {
  const usable: { point: T; cost: number; benefit: number; index: number }[] = [];
  points.forEach((point, index) => {
    const cost = options.cost(point);
    const benefit = options.benefit(point);
    if (typeof cost !== "number" || !Number.isFinite(cost)) return;
    if (typeof benefit !== "number" || !Number.isFinite(benefit)) return;
    usable.push({ point, cost, benefit, index });
  });
  usable.sort((p, q) => p.cost - q.cost || q.benefit - p.benefit || p.index - q.index);
  const frontier: T[] = [];
  let best = -Infinity;
  let lastCost = NaN;
  let lastBenefit = NaN;
  for (const item of usable) {
    if (item.benefit > best) {
      frontier.push(item.point);
      best = item.benefit;
      lastCost = item.cost;
      lastBenefit = item.benefit;
    } else if (item.cost === lastCost && item.benefit === lastBenefit) {
      // An exact duplicate of the last frontier point: neither dominates the other.
      frontier.push(item.point);
    }
  }
  return frontier;
}

/** One agent's scored episodes for {@link paretoFrontierProbability}. */
export interface FrontierSample {
  /** The agent. */
  agent_id: string;
  /** Cost of each scored episode (money or tokens), finite and ≥ 0. */
  costs: readonly number[];
  /** Outcome of each, the same length. */
  resolved: readonly boolean[];
}

/** Options for {@link paretoFrontierProbability}; the defaults are seed 001's. */
export interface FrontierProbabilityOptions {
  /** Bootstrap rounds R; default 2000. */
  rounds?: number;
  /** Seed of `seededRandom`; default 7. */
  seed?: number | string;
}

/** How often one agent was on the resampled frontier; plain JSON data, keys in this order. */
export interface FrontierMembership {
  /** The agent. */
  agent_id: string;
  /** Rounds in which the agent was on the frontier. */
  on_frontier: number;
  /** on_frontier / rounds. */
  probability: number;
  /** Rounds whose resample of this agent resolved nothing (no cost per resolved: off the frontier). */
  rounds_without_resolved: number;
}

/** The bootstrap frontier membership; plain JSON data, keys in this order. */
export interface FrontierProbability {
  /** Bootstrap rounds R. */
  rounds: number;
  /** Seed of `seededRandom`. */
  seed: number | string;
  /** One entry per agent, in the order given. */
  agents: FrontierMembership[];
}

/**
 * The bootstrap probability that each agent is on the cost-accuracy Pareto
 * frontier.
 *
 * Rule: R rounds from one `seededRandom(seed)`; in each, every agent in the
 * order given draws n_i of its n_i scored episodes with replacement
 * (`randomIndex`, n_i draws; agents are resampled independently), and gets
 * cost per resolved = Σ cost / Σ resolved and rate = Σ resolved / n_i over
 * its resample; {@link paretoFrontier} of those points (cost minimised, rate
 * maximised) names the agents on the frontier that round. An agent whose
 * resample resolved nothing has no cost per resolved: it is off the frontier
 * that round, and the round is counted in `rounds_without_resolved`. The
 * probability is on_frontier / R, a nonparametric bootstrap estimate of how
 * stable the agent's membership is (Efron & Tibshirani 1993, ch. 6; the
 * frontier's uncertainty, which point-estimate frontiers such as HAL's leave
 * out). Cost: O(R × (Σ n_i + A log A)) time, O(A) memory.
 *
 * @param samples each agent's scored episodes (cost and outcome)
 * @param options `rounds` (default 2000), `seed` (default 7)
 * @returns per agent, the rounds on the frontier and its share of R
 * @throws {RangeError} when an agent has no episodes, its arrays differ in
 *   length, a cost is negative or not finite, or `rounds` is not a positive integer
 * @example
 * ```ts
 * import { paretoFrontierProbability } from "./pareto_frontier.ts";
 * const result = paretoFrontierProbability([
 *   { agent_id: "cheap", costs: [1, 1, 1, 1], resolved: [true, true, false, false] },
 *   { agent_id: "dear", costs: [9, 9, 9, 9], resolved: [true, false, false, false] },
 * ], { rounds: 500 });
 * // "dear" is on the frontier only in rounds where its resample beats cheap's rate
 * if (result.agents[0].probability < result.agents[1].probability) throw new Error();
 * ```
 */
export function paretoFrontierProbability(
  samples: readonly FrontierSample[],
  options: FrontierProbabilityOptions = {},
): FrontierProbability {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Cannot bootstrap the frontier: "rounds" must be a positive integer, got ${rounds}`,
    );
  }
  for (const sample of samples) {
    const n = sample.costs.length;
    if (n === 0 || sample.resolved.length !== n) {
      throw new RangeError(
        `Cannot bootstrap the frontier: agent "${sample.agent_id}" needs as many outcomes as ` +
          `costs (at least one), got ${n} costs and ${sample.resolved.length} outcomes`,
      );
    }
    const bad = sample.costs.find((c) => !(Number.isFinite(c) && c >= 0));
    if (bad !== undefined) {
      throw new RangeError(
        `Cannot bootstrap the frontier: agent "${sample.agent_id}" has a cost that is not a ` +
          `finite number >= 0: ${bad}`,
      );
    }
  }
  const costs = samples.map((sample) => Float64Array.from(sample.costs));
  const wins = samples.map((sample) => Uint8Array.from(sample.resolved, (x) => (x ? 1 : 0)));
  const random = seededRandom(seed);
  const onFrontier = new Array<number>(samples.length).fill(0);
  const without = new Array<number>(samples.length).fill(0);
  const points = samples.map((_, index) => ({ index, cost: NaN, rate: NaN }));
  for (let r = 0; r < rounds; r++) {
    for (let a = 0; a < samples.length; a++) {
      const cost = costs[a];
      const win = wins[a];
      const n = cost.length;
      let total = 0;
      let hits = 0;
      for (let i = 0; i < n; i++) {
        const j = randomIndex(random, n);
        total += cost[j];
        hits += win[j];
      }
      if (hits === 0) without[a]++;
      points[a].cost = hits === 0 ? NaN : total / hits;
      points[a].rate = hits / n;
    }
    const front = paretoFrontier(points, { cost: (p) => p.cost, benefit: (p) => p.rate });
    for (const point of front) onFrontier[point.index]++;
  }
  return {
    rounds,
    seed,
    agents: samples.map((sample, a) => ({
      agent_id: sample.agent_id,
      on_frontier: onFrontier[a],
      probability: onFrontier[a] / rounds,
      rounds_without_resolved: without[a],
    })),
  };
}
