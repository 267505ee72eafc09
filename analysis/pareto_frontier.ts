/**
 * The Pareto frontier of a set of agents on two axes: a cost to minimise and a
 * benefit to maximise (seed 001: rank by cost, not by pass rate alone; the
 * frontier shows which agents no other agent beats on both at once), and how
 * often each agent is on it when the tasks are resampled (issue 13: a
 * frontier of point estimates hides how fragile its membership is; issue
 * 23: the agents ran the same tasks, so one resample of tasks serves all).
 *
 * @module
 */
import type { AgentSums, TaskSums } from "./agent_task_sums.ts";
import { seededIndices } from "./seeded_random.ts";
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
  /** Task of each scored episode. */
  task_ids: readonly string[];
  /** Cost of each (money or tokens), finite and ≥ 0, the same length. */
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
  /** Tasks with at least one of its scored episodes. */
  tasks: number;
  /** Rounds in which the agent was on the frontier. */
  on_frontier: number;
  /** on_frontier / rounds. */
  probability: number;
  /** Rounds whose resample of this agent resolved nothing (no cost per resolved: off the frontier). */
  rounds_without_resolved: number;
}

/** The bootstrap frontier membership; plain JSON data, keys in this order. */
export interface FrontierProbability {
  /** Always "task_paired": each round draws one resample of tasks for every agent. */
  method: "task_paired";
  /** Bootstrap rounds R. */
  rounds: number;
  /** Seed of `seededRandom`. */
  seed: number | string;
  /** Distinct tasks over all agents' episodes, the units each round draws T of. */
  tasks: number;
  /** One entry per agent, in the order given. */
  agents: FrontierMembership[];
}

/**
 * How often each agent is on the cost-accuracy Pareto frontier when the
 * tasks are resampled with replacement, the same resample for every agent
 * (a task-paired bootstrap).
 *
 * Rule: the units are the T distinct task ids of all agents' episodes,
 * sorted by code unit; each agent's episodes at a task are summed there
 * (cost, resolved, attempts; zero at a task it has no episode on). R rounds
 * from one `seededRandom(seed)`; each draws T tasks with replacement
 * (`randomIndex(random, T)`, T draws) and applies that one draw to every
 * agent, since the agents ran the same tasks: an agent's cost per resolved
 * is Σ cost / Σ resolved and its rate Σ resolved / Σ attempts over the drawn
 * tasks (with multiplicity), and {@link paretoFrontier} of those points
 * (cost minimised, rate maximised) names the agents on the frontier that
 * round. An agent whose resample resolved nothing has no cost per resolved:
 * it is off the frontier that round, and the round is counted in
 * `rounds_without_resolved`. The probability is on_frontier / R.
 *
 * What it is: a stability figure, the share of resamples of the tasks in
 * which the agent stays on the frontier (a bootstrap estimate of the
 * variability of frontier membership; Efron & Tibshirani 1993, ch. 6; the
 * frontier's uncertainty, which point-estimate frontiers such as HAL's
 * leave out). It is not the probability that the agent is truly on the
 * frontier, nor that it is the best agent: it depends on the other agents
 * in the set, and an agent tied with another stays on in most rounds.
 * Pairing matters because the agents' results on one task are correlated
 * (a hard task is hard for all): resampling each agent independently
 * moves the shares (issue 23 measured up to 0.06). Cost: O(n log n + R ×
 * (T A + A log A)) time for n episodes of A agents, O(T A) memory.
 *
 * @param samples each agent's scored episodes (task, cost and outcome)
 * @param options `rounds` (default 2000), `seed` (default 7)
 * @returns per agent, the rounds on the frontier and its share of R
 * @throws {RangeError} when an agent has no episodes, its arrays differ in
 *   length, a cost is negative or not finite, or `rounds` is not a positive integer
 * @example
 * ```ts
 * import { paretoFrontierProbability } from "./pareto_frontier.ts";
 * const tasks = ["t1", "t2", "t3", "t4"];
 * const result = paretoFrontierProbability([
 *   { agent_id: "cheap", task_ids: tasks, costs: [1, 1, 1, 1], resolved: [true, true, false, false] },
 *   { agent_id: "dear", task_ids: tasks, costs: [9, 9, 9, 9], resolved: [true, false, false, false] },
 * ], { rounds: 500 });
 * // "dear" resolves only t1, which "cheap" resolves too: it is never on the frontier
 * if (result.agents[1].probability !== 0) throw new Error(JSON.stringify(result));
 * ```
 */
export function paretoFrontierProbability(
  samples: readonly FrontierSample[],
  options: FrontierProbabilityOptions = {},
): FrontierProbability {
  const { rounds, seed } = roundsAndSeed(options);
  for (const sample of samples) {
    const n = sample.costs.length;
    if (n === 0 || sample.resolved.length !== n || sample.task_ids.length !== n) {
      throw new RangeError(
        `Cannot bootstrap the frontier: agent "${sample.agent_id}" needs as many outcomes and ` +
          `task ids as costs (at least one), got ${n} costs, ${sample.resolved.length} ` +
          `outcomes and ${sample.task_ids.length} task ids`,
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
  // The distinct tasks, without a list of every episode's task (a million at 1M rows).
  const distinct = new Set<string>();
  for (const sample of samples) for (const task of sample.task_ids) distinct.add(task);
  const ids = [...distinct].sort(byCodeUnit);
  const index = new Map(ids.map((id, u) => [id, u]));
  const agents = samples.length;
  const cells = new Float64Array(ids.length * agents * 3);
  samples.forEach((sample, a) => {
    sample.task_ids.forEach((task, i) => {
      const cell = (index.get(task)! * agents + a) * 3;
      cells[cell] += sample.costs[i];
      if (sample.resolved[i]) cells[cell + 1]++;
      cells[cell + 2]++;
    });
  });
  const members = samples.map((s) => ({ agent_id: s.agent_id, tasks: new Set(s.task_ids).size }));
  return frontierRounds(cells, ids.length, members, rounds, seed);
}

/**
 * {@link paretoFrontierProbability} of rows already summed per task by
 * `agentTaskSums`: the same rule and the same result to the bit (each
 * agent's cost at a task is the sum of its attempts' costs in ledger order,
 * as the per-episode form adds them), with O(tasks × agents) memory and no
 * per-episode list. The units are the tasks any of the given agents ran.
 *
 * @param sums `agentTaskSums(rows, priceTable)`
 * @param agents the agents of the frontier set, entries of `sums.agents`, each with a recorded `measure`
 * @param measure the cost axis: `"cost"` (money) or `"tokens"`
 * @param options `rounds` (default 2000), `seed` (default 7)
 * @returns per agent, in the order given, the rounds on the frontier and its share of R
 * @throws {RangeError} when an agent did not record the measure or `rounds` is not a positive integer
 */
export function taskSumsFrontierProbability(
  sums: TaskSums,
  agents: readonly AgentSums[],
  measure: "cost" | "tokens",
  options: FrontierProbabilityOptions = {},
): FrontierProbability {
  const { rounds, seed } = roundsAndSeed(options);
  for (const agent of agents) {
    if (agent.totals[measure] === null) {
      throw new RangeError(
        `Cannot bootstrap the frontier: agent "${agent.agent_id}" did not record its ${measure}`,
      );
    }
  }
  const units: number[] = [];
  for (let u = 0; u < sums.tasks.length; u++) {
    if (agents.some((agent) => agent.at(u, "attempts") > 0)) units.push(u);
  }
  const width = agents.length * 3;
  const cells = new Float64Array(units.length * width);
  units.forEach((u, v) => {
    agents.forEach((agent, a) => {
      const cell = v * width + a * 3;
      cells[cell] = agent.at(u, measure);
      cells[cell + 1] = agent.at(u, "resolved");
      cells[cell + 2] = agent.at(u, "attempts");
    });
  });
  const members = agents.map((a) => ({ agent_id: a.agent_id, tasks: a.units.length }));
  return frontierRounds(cells, units.length, members, rounds, seed);
}

/** The options' rounds and seed, else seed 001's defaults; the rounds checked. */
function roundsAndSeed(
  options: FrontierProbabilityOptions,
): { rounds: number; seed: number | string } {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Cannot bootstrap the frontier: "rounds" must be a positive integer, got ${rounds}`,
    );
  }
  return { rounds, seed: options.seed ?? DEFAULT_BOOTSTRAP.seed };
}

/**
 * The rounds of {@link paretoFrontierProbability} over per-task cells: task
 * u and agent a at [(u × agents + a) × 3] hold Σ cost, Σ resolved and
 * attempts, one task's cells side by side, so that a draw reads one
 * contiguous block.
 */
function frontierRounds(
  cells: Float64Array,
  tasks: number,
  members: readonly { agent_id: string; tasks: number }[],
  rounds: number,
  seed: number | string,
): FrontierProbability {
  const agents = members.length;
  const draw = seededIndices(seed);
  const picks = new Int32Array(tasks);
  const onFrontier = new Array<number>(agents).fill(0);
  const without = new Array<number>(agents).fill(0);
  const cost = new Float64Array(agents);
  const rate = new Float64Array(agents);
  const order = new Int32Array(agents);
  // Per agent a, at [a * 3]: the round's Σ cost, Σ resolved, attempts.
  const sums = new Float64Array(agents * 3);
  const width = agents * 3;
  for (let r = 0; r < rounds; r++) {
    sums.fill(0);
    draw(picks, tasks, tasks);
    for (let i = 0; i < tasks; i++) {
      const row = picks[i] * width;
      for (let x = 0; x < width; x++) sums[x] += cells[row + x];
    }
    for (let a = 0; a < agents; a++) {
      const hits = sums[a * 3 + 1];
      if (hits === 0) without[a]++;
      cost[a] = hits === 0 ? NaN : sums[a * 3] / hits;
      rate[a] = hits === 0 ? NaN : hits / sums[a * 3 + 2];
    }
    countFrontier(cost, rate, order, onFrontier);
  }
  return {
    method: "task_paired",
    rounds,
    seed,
    tasks,
    agents: members.map((member, a) => ({
      agent_id: member.agent_id,
      tasks: member.tasks,
      on_frontier: onFrontier[a],
      probability: onFrontier[a] / rounds,
      rounds_without_resolved: without[a],
    })),
  };
}

/**
 * {@linkcode paretoFrontier}'s rule over one round's points (agent `a` at
 * `cost[a]`, `rate[a]`), counting each member in `onFrontier` without
 * allocating: the bootstrap calls it once per round. The points with a
 * finite cost and rate are put in `order` by an insertion sort on the same
 * total order (cost ascending, rate descending, index ascending; a
 * difference of two unequal finite doubles is never zero), so the members
 * are exactly those `paretoFrontier` returns. O(agents²) per round, for the
 * few agents of a leaderboard.
 */
function countFrontier(
  cost: Float64Array,
  rate: Float64Array,
  order: Int32Array,
  onFrontier: number[],
): void {
  const precedes = (a: number, b: number) =>
    cost[a] !== cost[b] ? cost[a] < cost[b] : rate[a] !== rate[b] ? rate[a] > rate[b] : a < b;
  let n = 0;
  for (let a = 0; a < cost.length; a++) {
    if (!Number.isFinite(cost[a]) || !Number.isFinite(rate[a])) continue;
    let at = n++;
    while (at > 0 && precedes(a, order[at - 1])) {
      order[at] = order[at - 1];
      at--;
    }
    order[at] = a;
  }
  let best = -Infinity;
  let lastCost = NaN;
  let lastRate = NaN;
  for (let k = 0; k < n; k++) {
    const a = order[k];
    if (rate[a] > best) {
      onFrontier[a]++;
      best = rate[a];
      lastCost = cost[a];
      lastRate = rate[a];
    } else if (cost[a] === lastCost && rate[a] === lastRate) {
      // An exact duplicate of the last frontier point: neither dominates the other.
      onFrontier[a]++;
    }
  }
}

function byCodeUnit(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
