/**
 * The uncertainty of the per-resolved figures, in one record for the report's
 * `summary.json`, its tables and its figures (issue 23, item 5): each agent's
 * tokens, seconds and cost per resolved with a task-cluster bootstrap 95%
 * interval, and how often each agent stays on the cost frontier when the
 * tasks are resampled, the same resample for every agent.
 *
 * @module
 */
import { agentTaskSums } from "./agent_task_sums.ts";
import { type RatioInterval, taskSumsRatioIntervals } from "./ratio_bootstrap.ts";
import { taskSumsFrontierProbability } from "./pareto_frontier.ts";
import type { Episode, PriceTable } from "./schema/records.ts";
import { DEFAULT_BOOTSTRAP } from "./defaults.ts";

/** Why a per-resolved figure has no value. */
export type RatioNullReason =
  /** The agent has no scored attempt (all invalid). */
  | "no_scored_attempts"
  /** A scored attempt did not record the quantity (tokens, wall time): never read as 0. */
  | "not_recorded"
  /** Nothing resolved: no per-resolved figure (seed 001, "没有 TPR"). */
  | "nothing_resolved"
  /** No frozen price table: no money (seed 001). */
  | "no_price_table";

/** Why an agent has no frontier probability. */
export type FrontierNullReason =
  | RatioNullReason
  /** The agent is not in the set the frontier is drawn over (e.g. its numbers are withheld). */
  | "not_in_frontier_set";

/** One per-resolved figure with its 95% interval, or why there is none; keys in this order. */
export interface RatioEstimate {
  /** Σ value / Σ resolved over the scored attempts; null with `null_reason`. */
  estimate: number | null;
  /** The sorted bootstrap ratio at floor(0.025 R); null with `null_reason`. */
  lo: number | null;
  /** The sorted bootstrap ratio at floor(0.975 R); null when unbounded above or with `null_reason`. */
  hi: number | null;
  /** True when more than 2.5% of the rounds resolved nothing, so the interval has no upper end. */
  unbounded_above: boolean;
  /** Rounds whose resample resolved nothing (no ratio; sorted above every ratio); null with `null_reason`. */
  rounds_without_resolved: number | null;
  /** Null when the figure exists, else why it does not. */
  null_reason: RatioNullReason | null;
}

/** One agent's per-resolved intervals and frontier probability; keys in this order. */
export interface AgentPerResolvedUncertainty {
  /** The agent. */
  agent_id: string;
  /** Tasks with at least one scored attempt of the agent: the units resampled. */
  tasks: number;
  /** Scored attempts. */
  scored: number;
  /** Resolved scored attempts. */
  resolved: number;
  /** prompt + completion tokens per resolved. */
  tokens_per_resolved: RatioEstimate;
  /** Wall-clock seconds per resolved. */
  seconds_per_resolved: RatioEstimate;
  /** Money per resolved through the frozen price table. */
  cost_per_resolved: RatioEstimate;
  /**
   * Share of the task-paired bootstrap rounds in which the agent is on the
   * frontier (a stability figure, not the probability that it is the best
   * agent); null with `frontier_null_reason`.
   */
  frontier_probability: number | null;
  /** Rounds in which it is on the frontier; null with `frontier_null_reason`. */
  frontier_rounds: number | null;
  /** Rounds whose resample of its tasks resolved nothing (off the frontier); null likewise. */
  frontier_rounds_without_resolved: number | null;
  /** Null when the probability exists, else why it does not. */
  frontier_null_reason: FrontierNullReason | null;
}

/** The per-resolved uncertainty of a ledger; plain JSON data, keys in this order. */
export interface PerResolvedUncertainty {
  /** Always "task_cluster_percentile_bootstrap". */
  method: "task_cluster_percentile_bootstrap";
  /** Always "task": a draw takes one task with all the agent's scored attempts at it. */
  unit: "task";
  /** Bootstrap rounds R (the plan's). */
  rounds: number;
  /** Seed of `seededRandom` (the plan's). */
  seed: number | string;
  /** The frontier's bootstrap. */
  frontier: {
    /** Always "task_paired": one resample of the tasks per round, applied to every agent. */
    method: "task_paired";
    /** The cost axis: money with a price table, else tokens. */
    measure: "money" | "tokens";
    /** The agents the frontier is computed over (placed: scored, resolved, cost recorded). */
    agents: string[];
    /** Distinct tasks of those agents' scored attempts, the units drawn. */
    tasks: number;
  };
  /** One entry per agent, sorted by agent id. */
  agents: AgentPerResolvedUncertainty[];
}

/** Options for {@link perResolvedUncertainty}. */
export interface PerResolvedUncertaintyOptions {
  /** Bootstrap rounds R; default 2000 (the plan's `bootstrap.rounds`). */
  rounds?: number;
  /** Seed; default 7 (the plan's `bootstrap.seed`). */
  seed?: number | string;
  /** The frozen price table: enables money, and makes money the frontier's cost. */
  priceTable?: PriceTable;
  /** The agents to report; default every agent with a row. Agents without rows get no scored attempts. */
  agents?: readonly string[];
  /** The agents the frontier is drawn over; default every reported agent. */
  frontierAgents?: readonly string[];
}

/**
 * Per agent: tokens, seconds and cost per resolved with their task-cluster
 * bootstrap 95% intervals, and the agent's frontier probability.
 *
 * Rules:
 * - intervals: `agentRatioIntervals`, over the same task sums (each round draws the agent's tasks
 *   with replacement and takes all its scored attempts at each: Σ value /
 *   Σ resolved over the drawn attempts; the percentile interval at
 *   floor(0.025 R) and floor(0.975 R); a resample that resolved nothing is
 *   sorted as unbounded, so `hi` may be null with `unbounded_above`). The
 *   estimate is the same ratio over all scored attempts, as
 *   `summarizeAgents` computes TPR and SPR.
 * - a figure that is not there says why (`null_reason`): no scored attempt,
 *   a scored attempt that did not record it ("not recorded", never 0),
 *   nothing resolved, or (money) no price table.
 * - frontier probability: `paretoFrontierProbability` over the frontier set
 *   (the `frontierAgents` that have scored attempts, resolved something and
 *   recorded the cost), in money per resolved with a price table, else
 *   tokens per resolved, with the same rounds and seed: each round draws
 *   one resample of the tasks for every agent. It is the share of rounds in
 *   which the agent is on the frontier of that set, a stability figure; an
 *   agent outside the set has none (`frontier_null_reason`).
 *
 * Pure: randomness only from `seededRandom(seed)`; same rows and seed, same
 * record. The rows are summed per task in one pass (`agentTaskSums`), so a
 * round costs O(tasks × agents), not O(rows). Cost: O(rows + tasks log tasks
 * + R × tasks × agents) time, O(tasks × agents) memory.
 *
 * @param rows ledger rows, errata applied (and rows left out of scores removed)
 * @param options rounds, seed, price table, the agents and the frontier's set
 * @returns the record, one entry per agent
 * @example
 * ```ts
 * import { perResolvedUncertainty } from "./per_resolved_uncertainty.ts";
 * import { Episode } from "./schema/records.ts";
 * const rows = [["a", true], ["a", false], ["b", true], ["b", true]].map(([agent, ok], i) =>
 *   Episode.parse({ run_id: "r", agent_id: agent, task_id: `t${i % 2}`, seed: 7, resolved: ok,
 *     prompt_tokens: 100, completion_tokens: 10, tool_calls: 1, wall_ms: 1000,
 *     price_table_id: "p" })
 * );
 * const u = perResolvedUncertainty(rows, { rounds: 200 });
 * const [a, b] = u.agents;
 * if (a.tokens_per_resolved.estimate !== 220 || b.frontier_probability !== 1) {
 *   throw new Error(JSON.stringify(u));
 * }
 * if (a.cost_per_resolved.null_reason !== "no_price_table") throw new Error("money");
 * ```
 */
export function perResolvedUncertainty(
  rows: Iterable<Episode>,
  options: PerResolvedUncertaintyOptions = {},
): PerResolvedUncertainty {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  const { priceTable } = options;
  const ids = [...new Set(options.agents ?? Iterator.from(rows).map((row) => row.agent_id))].sort(
    byCodeUnit,
  );
  const sums = agentTaskSums(rows, priceTable);
  const byId = new Map(sums.agents.map((agent) => [agent.agent_id, agent]));
  const intervals = new Map(
    taskSumsRatioIntervals(sums, { rounds, seed }).map((i) => [i.agent_id, i]),
  );
  const measure = priceTable === undefined ? "tokens" : "money";
  const cost = measure === "money" ? "cost" : "tokens";
  const inSet = new Set(options.frontierAgents ?? ids);
  const placed = ids.flatMap((id) => {
    const agent = byId.get(id);
    if (!inSet.has(id) || agent === undefined || agent.totals[cost] === null) return [];
    return agent.resolved === 0 ? [] : [agent];
  });
  const membership = taskSumsFrontierProbability(sums, placed, cost, { rounds, seed });
  const frontierOf = new Map(membership.agents.map((m) => [m.agent_id, m]));

  const agents = ids.map((agent_id): AgentPerResolvedUncertainty => {
    const summed = byId.get(agent_id);
    const interval = intervals.get(agent_id);
    const resolved = summed?.resolved ?? 0;
    const scoredReason = summed === undefined
      ? "no_scored_attempts"
      : resolved === 0
      ? "nothing_resolved"
      : null;
    const estimate = (
      value: RatioInterval | null | undefined,
      missing: RatioNullReason,
    ): RatioEstimate => {
      const reason = summed === undefined
        ? "no_scored_attempts"
        : value == null
        ? missing
        : scoredReason;
      return reason !== null || value == null ? withheld(reason ?? missing) : {
        estimate: value.estimate,
        lo: value.lower,
        hi: value.upper,
        unbounded_above: value.upper === null,
        rounds_without_resolved: value.rounds_without_resolved,
        null_reason: null,
      };
    };
    const costMissing = priceTable === undefined ? "no_price_table" : "not_recorded";
    const member = frontierOf.get(agent_id);
    const measured = summed?.totals[cost];
    const frontierReason: FrontierNullReason | null = member !== undefined
      ? null
      : !inSet.has(agent_id)
      ? "not_in_frontier_set"
      : summed === undefined
      ? "no_scored_attempts"
      : measured == null
      ? (measure === "money" ? costMissing : "not_recorded")
      : "nothing_resolved";
    return {
      agent_id,
      tasks: summed?.units.length ?? 0,
      scored: summed?.episodes ?? 0,
      resolved,
      tokens_per_resolved: estimate(interval?.tpr, "not_recorded"),
      seconds_per_resolved: estimate(interval?.spr, "not_recorded"),
      cost_per_resolved: estimate(interval?.cost_per_resolved, costMissing),
      frontier_probability: member?.probability ?? null,
      frontier_rounds: member?.on_frontier ?? null,
      frontier_rounds_without_resolved: member?.rounds_without_resolved ?? null,
      frontier_null_reason: frontierReason,
    };
  });
  return {
    method: "task_cluster_percentile_bootstrap",
    unit: "task",
    rounds,
    seed,
    frontier: {
      method: "task_paired",
      measure,
      agents: placed.map((agent) => agent.agent_id),
      tasks: membership.tasks,
    },
    agents,
  };
}

function withheld(reason: RatioNullReason): RatioEstimate {
  return {
    estimate: null,
    lo: null,
    hi: null,
    unbounded_above: false,
    rounds_without_resolved: null,
    null_reason: reason,
  };
}

function byCodeUnit(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
