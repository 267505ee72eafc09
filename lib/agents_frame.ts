/**
 * One row per agent: the leaderboard, with claims and intervals (Inspect's
 * `evals_df`, for a ledger).
 *
 * @module
 */
import type * as dfd from "danfojs";
import { claimLabel } from "../report/standing_words.ts";
import { frameOf } from "./frame_of.ts";
import type { OpenedLedger } from "./open_ledger.ts";

/** One agent's place on the leaderboard as a flat record, keys in this order. */
export interface AgentRecord {
  /** Seed 001's rank: 1 + the stated agents that beat it; null when not ranked. */
  rank: number | null;
  agent_id: string;
  /** What the agent may claim (seed 003), or `withheld (<cause>)`. */
  claim: string;
  /** Planned tasks, from the plan or task list; null without either. */
  planned: number | null;
  /** Planned tasks without a row; null without a denominator. */
  missing: number | null;
  /** Resolved planned tasks over all planned tasks: a lower bound; null without a denominator. */
  score_over_planned: number | null;
  episodes: number;
  invalid: number;
  scored: number;
  resolved: number;
  /** resolved / scored; null when nothing was scored. */
  resolved_rate: number | null;
  /** The 95% interval of `resolved_rate` the verdicts use (the plan's method). */
  rate_lower: number | null;
  rate_upper: number | null;
  /** Tokens, seconds and money per resolved, with their task-cluster bootstrap 95% intervals. */
  tokens_per_resolved: number | null;
  tokens_per_resolved_lower: number | null;
  tokens_per_resolved_upper: number | null;
  seconds_per_resolved: number | null;
  seconds_per_resolved_lower: number | null;
  seconds_per_resolved_upper: number | null;
  cost_per_resolved: number | null;
  cost_per_resolved_lower: number | null;
  cost_per_resolved_upper: number | null;
  /** Share of task-paired resamples with the agent on the cost frontier; null when not placed. */
  frontier_probability: number | null;
}

const COLUMNS: readonly (keyof AgentRecord)[] = [
  "rank",
  "agent_id",
  "claim",
  "planned",
  "missing",
  "score_over_planned",
  "episodes",
  "invalid",
  "scored",
  "resolved",
  "resolved_rate",
  "rate_lower",
  "rate_upper",
  "tokens_per_resolved",
  "tokens_per_resolved_lower",
  "tokens_per_resolved_upper",
  "seconds_per_resolved",
  "seconds_per_resolved_lower",
  "seconds_per_resolved_upper",
  "cost_per_resolved",
  "cost_per_resolved_lower",
  "cost_per_resolved_upper",
  "frontier_probability",
];

function byAgent<T extends { agent_id: string }>(items: readonly T[] | null): Map<string, T> {
  return new Map((items ?? []).map((item) => [item.agent_id, item]));
}

/**
 * The leaderboard as `ledgerbench report` states it (its `summary.json`:
 * `leaderboard`, `agents`, `intervals`, `coverage`, `per_resolved`,
 * `standings`), one row per agent in leaderboard order: seed 001's rank
 * (overlapping intervals share a rank; withheld agents and agents that
 * resolved nothing last, unranked), seed 003's claim, the score over planned
 * tasks (a lower bound, missing tasks counted unresolved) beside the rate
 * over scored attempts, and the per-resolved figures with their intervals.
 * Nothing is computed here; every figure is the report's.
 *
 * @param run an opened ledger
 * @returns the frame, columns as {@link AgentRecord}
 * @example
 * ```ts
 * import { agentsFrame, openLedger } from "../mod.ts";
 * const run = await openLedger(new URL("../ledgers/demo/ledger.jsonl", import.meta.url).pathname);
 * const board = agentsFrame(run);
 * // The demo's two agents, the strong model's solver first.
 * if (board.shape[0] !== 2 || board["rank"].values[0] !== 1) throw new Error();
 * ```
 */
export function agentsFrame(run: Pick<OpenedLedger, "report">): dfd.DataFrame {
  const summary = run.report().summary;
  const agents = byAgent(summary.agents);
  const intervals = byAgent(summary.intervals);
  const coverage = byAgent(summary.coverage);
  const perResolved = byAgent(summary.per_resolved.agents);
  const standings = byAgent(summary.standings);
  const records: AgentRecord[] = summary.leaderboard.map((place) => {
    const id = place.agent_id;
    const a = agents.get(id);
    const rule = intervals.get(id)?.rule ?? null;
    const c = coverage.get(id);
    const p = perResolved.get(id);
    const standing = standings.get(id);
    return {
      rank: place.rank,
      agent_id: id,
      claim: standing === undefined ? "-" : claimLabel(standing),
      planned: c?.planned ?? null,
      missing: c?.missing ?? null,
      score_over_planned: c?.score_planned ?? null,
      episodes: a?.episodes ?? 0,
      invalid: a?.invalid ?? 0,
      scored: a?.scored ?? 0,
      resolved: a?.resolved ?? 0,
      resolved_rate: a?.resolved_rate ?? null,
      rate_lower: rule?.lower ?? null,
      rate_upper: rule?.upper ?? null,
      tokens_per_resolved: p?.tokens_per_resolved.estimate ?? null,
      tokens_per_resolved_lower: p?.tokens_per_resolved.lo ?? null,
      tokens_per_resolved_upper: p?.tokens_per_resolved.hi ?? null,
      seconds_per_resolved: p?.seconds_per_resolved.estimate ?? null,
      seconds_per_resolved_lower: p?.seconds_per_resolved.lo ?? null,
      seconds_per_resolved_upper: p?.seconds_per_resolved.hi ?? null,
      cost_per_resolved: p?.cost_per_resolved.estimate ?? null,
      cost_per_resolved_lower: p?.cost_per_resolved.lo ?? null,
      cost_per_resolved_upper: p?.cost_per_resolved.hi ?? null,
      frontier_probability: p?.frontier_probability ?? null,
    };
  });
  return frameOf(records, COLUMNS);
}
