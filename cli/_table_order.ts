/**
 * The order of every per-agent CLI table (issue 25: tables were
 * alphabetical, and a withheld agent read as ranked): the leaderboard of
 * `analysis/leaderboard.ts` (rank = 1 + the stated agents that beat the
 * agent by seed 001's verdicts, overlapping agents sharing a rank;
 * withheld agents and agents that resolved nothing listed last, never
 * ranked), sorted within a rank by the score over planned tasks when a
 * denominator is known, else by the resolved rate (`leaderboardOfAgents`,
 * the report's call too). `summarize`, `compare`, `censoring` and
 * `coverage` all call {@link agentOrder}, so their rows come in one order
 * with one rank, the report's.
 *
 * @module
 */
import type { ClaimAssessment } from "../analysis/agent_standing.ts";
import {
  type ComparableAgent,
  type CompareAgentsOptions,
  type Comparison,
  comparisonMatrix,
} from "../analysis/compare_agents.ts";
import { leaderboardOfAgents, type LeaderboardPlace } from "../analysis/leaderboard.ts";

/** The leaderboard of a command's agents, and its cells. */
export interface AgentOrder {
  /** The places, in leaderboard order. */
  places: LeaderboardPlace[];
  /** The agent ids in leaderboard order. */
  ids: string[];
  /** An agent's rank cell: the rank, or `-` when it is not ranked. */
  rank(agentId: string): string;
  /** The ids given, in leaderboard order (ids not on the board last, in the order given). */
  sort(ids: readonly string[]): string[];
}

/**
 * The leaderboard of `agents` (module doc). Without `comparisons`, seed
 * 001's verdicts are computed here (`comparisonMatrix` with `settings`: one
 * bootstrap per agent plus O(agents²)), the same call `compare` makes.
 *
 * @param agents the agents to place (summaries with the columns the rule reads)
 * @param assessment the claim assessment: standings (withheld agents) and coverage (score over planned tasks)
 * @param options `comparisons` already computed, else `settings` for `comparisonMatrix`
 * @returns the order and its cells
 */
export function agentOrder(
  agents: readonly ComparableAgent[],
  assessment: Pick<ClaimAssessment, "standings" | "coverage">,
  options: { comparisons?: readonly Comparison[]; settings?: CompareAgentsOptions } = {},
): AgentOrder {
  const comparisons = options.comparisons ??
    (agents.length < 2 ? [] : comparisonMatrix([...agents], options.settings));
  // The report's leaderboard, by the same call (analysis/leaderboard.ts).
  const places = leaderboardOfAgents(agents, assessment, comparisons);
  const ids = places.map((place) => place.agent_id);
  const position = new Map(ids.map((id, i) => [id, i]));
  const byId = new Map(places.map((place) => [place.agent_id, place]));
  return {
    places,
    ids,
    rank: (agentId) => {
      const rank = byId.get(agentId)?.rank;
      return rank === null || rank === undefined ? "-" : String(rank);
    },
    sort: (list) =>
      [...list].map((id, i) => ({ id, i })).sort((x, y) =>
        (position.get(x.id) ?? ids.length + x.i) - (position.get(y.id) ?? ids.length + y.i)
      ).map((entry) => entry.id),
  };
}

/**
 * The rank column of every per-agent table: right-aligned, a key column
 * (repeated when a table folds), never moved.
 */
export const RANK_COLUMN = { header: "rank", align: "right", key: true } as const;

/** The agent column of every per-agent table: an id, a key, listed in full when shortened. */
export const AGENT_COLUMN = { header: "agent", id: true, key: true, keyed: true } as const;

/** The line under a ranked table saying what the rank is (seed 001's rule). */
export const RANK_NOTE =
  "rank: 1 + the agents that beat it by seed 001's rule (overlapping intervals share a " +
  "rank); withheld agents and agents that resolved nothing are listed last, unranked (-)\n";
