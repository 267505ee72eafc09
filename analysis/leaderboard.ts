/**
 * The leaderboard's order and ranks (issue 25: at 14 agents every table and
 * figure was alphabetical, and an agent whose numbers are withheld was
 * ranked second with no warning).
 *
 * A rank is not a position in a sorted list: seed 001 declares no winner
 * when the intervals overlap, so two agents whose intervals overlap share
 * a rank. An agent's rank is 1 + the number of agents that beat it by seed
 * 001's rule (`comparisonMatrix`: a winner only when the rate intervals are
 * separated or a tie-break decides); the rank a leaderboard of a public
 * arena prints the same way (one plus the number of models that are
 * statistically better). Only agents whose numbers may be stated are
 * ranked, and only against each other: a withheld agent has no rank, and
 * its wins and losses count for no one. An agent that resolved nothing has
 * no rank either (seed 001: "没有 TPR", report the failure, no ranking).
 *
 * @module
 */
import type { AgentStanding, ClaimAssessment } from "./agent_standing.ts";
import {
  type ComparableAgent,
  type CompareAgentsOptions,
  type Comparison,
  comparisonMatrix,
} from "./compare_agents.ts";

/** One agent's place on the leaderboard. */
export interface LeaderboardPlace {
  agent_id: string;
  /**
   * 1 + the stated agents that beat this one by seed 001's rule; null when
   * the agent is not ranked (`unranked` says why).
   */
  rank: number | null;
  /** Why the agent has no rank: its numbers are withheld, or it resolved nothing; null when ranked. */
  unranked: "withheld" | "nothing_resolved" | null;
  /** The stated agents this one beats. */
  beats: number;
  /** The value the order sorts by within a rank (descending): the score over planned tasks, else the rate. */
  sort_rate: number | null;
}

/** What {@link leaderboard} reads for each agent. */
export interface LeaderboardEntry {
  agent_id: string;
  /** The score the board sorts by within a rank: over planned tasks when known, else over scored. */
  sort_rate: number | null;
}

/**
 * Ranks and orders the agents.
 *
 * Rules:
 * - ranked agents come first, by rank, then by `sort_rate` descending
 *   (null last), then by id (UTF-16 code units);
 * - rank = 1 + the number of stated agents that beat the agent in
 *   `comparisons` (a pair with a withheld side counts for neither);
 * - then stated agents that resolved nothing (named in a comparison's
 *   `failed`), unranked, then withheld agents, unranked; each group by
 *   `sort_rate` descending, then id.
 *
 * Cost: O(agents log agents + pairs).
 *
 * @param entries every agent to place, with its sorting rate
 * @param standings the agents' standings (`assessClaims`); an agent without one is withheld
 * @param comparisons seed 001's verdicts between the agents (`comparisonMatrix`)
 * @returns one place per entry, in leaderboard order
 * @example
 * ```ts
 * import { leaderboard } from "./leaderboard.ts";
 * const standing = (agent_id: string, withheld: "missing" | null) => ({
 *   agent_id, invalid_claim: null, censoring_claim: null, missing_claim: null,
 *   claim: null, withheld, blocking_codes: [],
 * });
 * const places = leaderboard(
 *   [{ agent_id: "a", sort_rate: 0.4 }, { agent_id: "b", sort_rate: 0.5 },
 *    { agent_id: "c", sort_rate: 0.1 }, { agent_id: "d", sort_rate: 0.9 }],
 *   [standing("a", null), standing("b", null), standing("c", null), standing("d", "missing")],
 *   [{ winner: "a", failed: [], a: { agent_id: "a" }, b: { agent_id: "c" } },
 *    { winner: "b", failed: [], a: { agent_id: "b" }, b: { agent_id: "c" } },
 *    { winner: null, failed: [], a: { agent_id: "a" }, b: { agent_id: "b" } },
 *    { winner: "d", failed: [], a: { agent_id: "c" }, b: { agent_id: "d" } }],
 * );
 * // a and b overlap: both rank 1, b first by its rate; d is withheld and not ranked
 * const text = places.map((p) => `${p.agent_id}${p.rank ?? "-"}`).join(" ");
 * if (text !== "b1 a1 c3 d-") throw new Error(text);
 * ```
 */
export function leaderboard(
  entries: readonly LeaderboardEntry[],
  standings: readonly Pick<AgentStanding, "agent_id" | "withheld">[],
  comparisons: readonly (Pick<Comparison, "winner" | "failed"> & {
    a: { agent_id: string };
    b: { agent_id: string };
  })[],
): LeaderboardPlace[] {
  const stated = new Set(standings.filter((s) => s.withheld === null).map((s) => s.agent_id));
  const failed = new Set(comparisons.flatMap((pair) => pair.failed));
  const losses = new Map<string, number>();
  const wins = new Map<string, number>();
  for (const pair of comparisons) {
    if (pair.winner === null) continue;
    if (!stated.has(pair.a.agent_id) || !stated.has(pair.b.agent_id)) continue;
    const loser = pair.winner === pair.a.agent_id ? pair.b.agent_id : pair.a.agent_id;
    losses.set(loser, (losses.get(loser) ?? 0) + 1);
    wins.set(pair.winner, (wins.get(pair.winner) ?? 0) + 1);
  }
  const places = entries.map((entry): LeaderboardPlace => {
    const unranked = !stated.has(entry.agent_id)
      ? "withheld"
      : failed.has(entry.agent_id)
      ? "nothing_resolved"
      : null;
    return {
      agent_id: entry.agent_id,
      rank: unranked === null ? 1 + (losses.get(entry.agent_id) ?? 0) : null,
      unranked,
      beats: unranked === "withheld" ? 0 : wins.get(entry.agent_id) ?? 0,
      sort_rate: entry.sort_rate,
    };
  });
  return places.sort(byPlace);
}

const GROUP = { ranked: 0, nothing_resolved: 1, withheld: 2 } as const;

function byPlace(x: LeaderboardPlace, y: LeaderboardPlace): number {
  const group = GROUP[x.unranked ?? "ranked"] - GROUP[y.unranked ?? "ranked"];
  if (group !== 0) return group;
  if (x.rank !== null && y.rank !== null && x.rank !== y.rank) return x.rank - y.rank;
  if (x.sort_rate !== y.sort_rate) {
    if (x.sort_rate === null) return 1;
    if (y.sort_rate === null) return -1;
    return y.sort_rate - x.sort_rate;
  }
  return x.agent_id < y.agent_id ? -1 : x.agent_id > y.agent_id ? 1 : 0;
}

/**
 * Agents sorted by a rate, descending (null last), then by id: the order of
 * every per-agent figure (issue 25: rows were alphabetical). O(n log n).
 *
 * @param entries the agents with the rate the figure draws
 * @returns the agent ids in figure order
 * @example
 * ```ts
 * import { byRateDescending } from "./leaderboard.ts";
 * const order = byRateDescending([
 *   { agent_id: "a", sort_rate: 0.2 }, { agent_id: "b", sort_rate: null },
 *   { agent_id: "c", sort_rate: 0.7 },
 * ]);
 * if (order.join() !== "c,a,b") throw new Error(order.join());
 * ```
 */
export function byRateDescending(entries: readonly LeaderboardEntry[]): string[] {
  return entries
    .map((entry) => ({ ...entry, rank: 1, unranked: null, beats: 0 }))
    .sort(byPlace)
    .map((entry) => entry.agent_id);
}

/**
 * The leaderboard of summarized agents (the report's, issue 25): each
 * agent's sorting rate is its score over planned tasks when a denominator
 * is known (`coverage`), else its resolved rate over scored episodes (null
 * when nothing was scored), the rule {@link agentOrder} sorts by too;
 * then {@link leaderboard}. Only the agents given are placed. Cost: as
 * {@link leaderboard}.
 *
 * @param agents the agents, with resolved and scored counts
 * @param assessment the standings (withheld agents) and coverage (score over planned tasks; null: none)
 * @param comparisons seed 001's verdicts between the agents
 * @returns one place per agent, in leaderboard order
 * @example
 * ```ts
 * import { leaderboardOfAgents } from "./leaderboard.ts";
 * const standing = (agent_id: string) => ({ agent_id, withheld: null });
 * const places = leaderboardOfAgents(
 *   [{ agent_id: "a", resolved: 3, scored: 4 }, { agent_id: "b", resolved: 2, scored: 4 }],
 *   { standings: [standing("a"), standing("b")], coverage: null },
 *   [{ winner: null, failed: [], a: { agent_id: "a" }, b: { agent_id: "b" } }],
 * );
 * // overlapping: both rank 1, a first by its rate
 * if (places.map((p) => `${p.agent_id}${p.rank}`).join() !== "a1,b1") throw new Error();
 * ```
 */
export function leaderboardOfAgents(
  agents: readonly { agent_id: string; resolved: number; scored: number }[],
  assessment: {
    standings: readonly Pick<AgentStanding, "agent_id" | "withheld">[];
    coverage: readonly { agent_id: string; score_planned: number | null }[] | null;
  },
  comparisons: Parameters<typeof leaderboard>[2],
): LeaderboardPlace[] {
  const planned = new Map((assessment.coverage ?? []).map((row) => [row.agent_id, row]));
  const shown = new Set(agents.map((agent) => agent.agent_id));
  return leaderboard(
    agents.map((agent) => ({
      agent_id: agent.agent_id,
      sort_rate: planned.get(agent.agent_id)?.score_planned ??
        (agent.scored === 0 ? null : agent.resolved / agent.scored),
    })),
    assessment.standings.filter((s) => shown.has(s.agent_id)),
    comparisons,
  );
}

/**
 * The order of a per-agent figure (issue 25): the order given (the report
 * passes its leaderboard, so a withheld agent is never drawn second), the
 * agents it does not name after them by {@link byRateDescending}; without
 * an order, {@link byRateDescending} alone. Ids in `order` but not in
 * `entries` are skipped. O(n log n).
 *
 * @param entries the agents drawn, with the rate the figure draws
 * @param order an agent order to follow (`summary.leaderboard`), or undefined
 * @returns the agent ids of `entries` in figure order
 * @example
 * ```ts
 * import { figureOrder } from "./leaderboard.ts";
 * const entries = [
 *   { agent_id: "a", sort_rate: 0.2 }, { agent_id: "b", sort_rate: 0.9 },
 *   { agent_id: "c", sort_rate: 0.5 },
 * ];
 * if (figureOrder(entries).join() !== "b,c,a") throw new Error();
 * if (figureOrder(entries, ["a", "x"]).join() !== "a,b,c") throw new Error();
 * ```
 */
export function figureOrder(
  entries: readonly LeaderboardEntry[],
  order?: readonly string[],
): string[] {
  if (order === undefined) return byRateDescending(entries);
  const present = new Set(entries.map((e) => e.agent_id));
  const first = order.filter((id) => present.has(id));
  const named = new Set(first);
  return [...first, ...byRateDescending(entries.filter((e) => !named.has(e.agent_id)))];
}

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
 * The leaderboard of `agents` with the cells every per-agent table prints
 * (the CLI's tables and the notebooks, issue 25): {@link leaderboardOfAgents}.
 * Without `comparisons`, seed
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
