/**
 * Seed 001's per-agent columns (resolved rate, tokens per resolved, seconds
 * per resolved, cost per resolved) and seed 000's lane-weighted score, from
 * ledger rows alone.
 *
 * @module
 */
import { episodeTokens } from "./classify_episode.ts";
import { totalCost } from "./episode_cost.ts";
import type { Episode, PriceTable } from "./schema/records.ts";

/** Options for {@link summarizeAgents}. */
export interface SummarizeAgentsOptions {
  /** Frozen price table; without it `cost` is null. */
  priceTable?: PriceTable;
  /** Lane weights (seed 000 points, e.g. `{A: 8, B: 24}`); without them `lane_score` is null. */
  laneWeights?: Record<string, number>;
}

/** Money columns of one agent under the frozen price table. */
export interface AgentCost {
  /** The frozen table's id (every row carries it). */
  price_table_id: string;
  /** The table's currency. */
  currency: string;
  /** Cost of the scored episodes (failed attempts included); null when their tokens were not recorded. */
  cost: number | null;
  /** Cost of the invalid episodes, reported apart and never in `cost_per_resolved`; null likewise. */
  invalid_cost: number | null;
  /** cost / resolved; null when nothing resolved or the cost is not known. */
  cost_per_resolved: number | null;
}

/** One lane of one agent. */
export interface LaneEntry {
  /** Lane name, from the rows' `lane` or the weights. */
  lane: string;
  /** The lane's weight; null when the lane has no weight (then it is not scored). */
  weight: number | null;
  /** Scored episodes of the agent in this lane. */
  scored: number;
  /** Resolved episodes of the agent in this lane. */
  resolved: number;
  /** resolved / scored; null when the lane has no scored episodes. */
  pass_rate: number | null;
  /** weight × pass_rate; null when either is missing. */
  points: number | null;
}

/** Seed 000's lane-weighted score of one agent. */
export interface LaneScore {
  /** Σ weight × pass rate over weighted lanes; null unless every lane is accounted for. */
  score: number | null;
  /** Σ of the weights: the score of an agent that passes everything. */
  max_score: number;
  /** Lanes of positive weight without scored episodes for this agent (never counted as 0). */
  missing_lanes: string[];
  /** Lanes with scored episodes but no weight (give them weight 0 to exclude them). */
  unweighted_lanes: string[];
  /** Every weighted or observed lane, sorted by name. */
  lanes: LaneEntry[];
}

/** Seed 001's columns for one agent; plain JSON data, keys in this order. */
export interface AgentSummary {
  /** The agent. */
  agent_id: string;
  /** Every row of the agent, scored or invalid. */
  episodes: number;
  /** Rows with status "invalid" (counted, never scored). */
  invalid: number;
  /** invalid / episodes. */
  invalid_rate: number;
  /** Rows with status "scored" (resolved true or false). */
  scored: number;
  /** Scored rows with resolved true. */
  resolved: number;
  /** resolved / scored; null when nothing was scored. */
  resolved_rate: number | null;
  /**
   * prompt + completion tokens of the scored rows, failed attempts included;
   * null ("not recorded") when any scored row did not record its tokens, and
   * when nothing was scored (no scored row recorded any: never 0, issue 23).
   */
  tokens: number | null;
  /** prompt + completion tokens of the invalid rows (not in `tokens` nor TPR); null likewise. */
  invalid_tokens: number | null;
  /** Σ wall_ms / 1000 of the scored rows; null when any scored row did not record it, or none was scored. */
  wall_seconds: number | null;
  /** Σ wall_ms / 1000 of the invalid rows (not in `wall_seconds` nor SPR); null likewise. */
  invalid_wall_seconds: number | null;
  /** Rows (scored or invalid) whose tokens were not recorded. */
  rows_without_tokens: number;
  /** Rows (scored or invalid) whose wall time was not recorded. */
  rows_without_wall: number;
  /**
   * Scored rows whose tokens the agent itself reported (an imported row's
   * `provenance.tokens_reported_by` is `agent`, e.g. Harbor's
   * `agent_result`): counts no meter witnessed, marked wherever they are
   * printed (issue 23: an agent-reported 0 read as a measured 0).
   */
  agent_reported_token_rows: number;
  /**
   * Tokens per resolved: tokens / resolved; null when nothing resolved
   * ("没有 TPR") or the tokens were not recorded.
   */
  tpr: number | null;
  /** Seconds per resolved: wall_seconds / resolved; null when nothing resolved or not recorded. */
  spr: number | null;
  /** Money columns; null without a price table. */
  cost: AgentCost | null;
  /** Lane-weighted score; null without lane weights. */
  lane_score: LaneScore | null;
}

interface Tally {
  episodes: number;
  invalid: number;
  scored: number;
  resolved: number;
  /** Σ tokens of the scored rows; null once one of them has none recorded. */
  tokens: number | null;
  invalidTokens: number | null;
  wallMs: number | null;
  invalidWallMs: number | null;
  withoutTokens: number;
  withoutWall: number;
  agentReported: number;
  /** The agent's scored and invalid rows, in ledger order, priced with a price table. */
  scoredRows: Episode[];
  invalidRows: Episode[];
  lanes: Map<string, { scored: number; resolved: number }>;
}

/**
 * Per-agent summary of a ledger, sorted by `agent_id` (UTF-16 code unit order).
 *
 * Formulas (seed 001, "第一步：派生三个关键列"; invalid rows follow seed 000:
 * an invalid evaluation has no score, so it is counted but never scored):
 * - invalid_rate = invalid / episodes
 * - resolved_rate = resolved / scored (null when scored = 0)
 * - tokens = Σ (prompt_tokens + completion_tokens) over scored rows, failed
 *   attempts included (seed 001 puts all tokens in the numerator); invalid rows'
 *   tokens are reported apart as `invalid_tokens`
 * - TPR = tokens / resolved, SPR = (Σ wall_ms of scored rows / 1000) / resolved;
 *   both null when resolved = 0 (seed 001: "Agent 没有 TPR")
 * - a sum over rows of which one did not record its tokens (or wall time) is
 *   not known: null, "not recorded", and so are the TPR (SPR) and cost built
 *   on it; never the sum of the rows that did (issue 11: an imported result
 *   without token counts showed TPR 0.00). `rows_without_tokens` and
 *   `rows_without_wall` count such rows. A sum over no scored row is null
 *   too, never 0 (issue 23: an all-error import showed `"tokens": 0` beside
 *   552 rows without tokens); `agent_reported_token_rows` counts the scored
 *   rows whose tokens the agent itself reported
 * - cost (with `priceTable`, see {@link totalCost}) = Σ prompt × prompt rate / 1e6
 *   + Σ completion × completion rate / 1e6 over scored rows (token totals priced
 *   once per agent); cost_per_resolved = cost / resolved (null when 0);
 *   `invalid_cost` likewise over invalid rows; a cost that is not a finite
 *   number is refused (a price table near `Number.MAX_VALUE` per token)
 * - counts are safe integers (the schema's `Count`), so token and wall-clock
 *   sums stay finite (exact up to 2^53, rounded beyond) and so do TPR and SPR
 * - lane score (with `laneWeights`; seed 000's lanes carry weights, A 8, B 24, C 12,
 *   D 20, E 16, F 16, G 4 points of 100): score = Σ over lanes of weight × lane pass rate,
 *   where the pass rate = resolved / scored within the lane; the score is null, and the
 *   lanes are listed, when a lane of positive weight has no scored rows for the agent
 *   (`missing_lanes`, never silently 0) or a lane with scored rows has no weight
 *   (`unweighted_lanes`; give it weight 0 to exclude it on purpose).
 *
 * Cost: one pass, O(rows + agents × lanes log lanes).
 *
 * @param rows ledger rows (e.g. `loadLedger(path).rows`, errata applied)
 * @param options `priceTable` (frozen; enables cost), `laneWeights` (enables the lane score)
 * @returns one {@link AgentSummary} per agent, sorted by `agent_id`
 * @throws {Error} with a price table: when rows mix several `price_table_id`s,
 *   when their `price_table_id` is not the table's, or when an agent has no rate
 * @throws {RangeError} with a price table, when a cost is not a finite number,
 *   naming the price table, the agent and the episode where it overflows
 * @throws {RangeError} when a lane weight is negative or not finite
 * @example
 * ```ts
 * import { summarizeAgents } from "./summarize_agents.ts";
 * import { Episode } from "./schema/records.ts";
 * const rows = [true, false].map((resolved, i) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: `t${i}`, seed: 7, resolved, prompt_tokens: 100,
 *   completion_tokens: 50, tool_calls: 1, wall_ms: 3000, price_table_id: "p",
 * }));
 * const [a] = summarizeAgents(rows);
 * // tokens 300 over 1 resolved; 6 s over 1 resolved
 * if (a.tpr !== 300 || a.spr !== 6 || a.resolved_rate !== 0.5) throw new Error(JSON.stringify(a));
 * ```
 */
export function summarizeAgents(
  rows: Iterable<Episode>,
  options: SummarizeAgentsOptions = {},
): AgentSummary[] {
  const { priceTable, laneWeights } = options;
  if (priceTable !== undefined) checkPriceTables(rows, priceTable);
  if (laneWeights !== undefined) checkWeights(laneWeights);
  const tallies = new Map<string, Tally>();
  for (const row of rows) {
    let tally = tallies.get(row.agent_id);
    if (tally === undefined) {
      tally = {
        episodes: 0,
        invalid: 0,
        scored: 0,
        resolved: 0,
        tokens: 0,
        invalidTokens: 0,
        wallMs: 0,
        invalidWallMs: 0,
        withoutTokens: 0,
        withoutWall: 0,
        agentReported: 0,
        scoredRows: [],
        invalidRows: [],
        lanes: new Map(),
      };
      tallies.set(row.agent_id, tally);
    }
    tally.episodes++;
    const tokens = episodeTokens(row);
    if (tokens === null) tally.withoutTokens++;
    if (row.wall_ms === null) tally.withoutWall++;
    if (row.status === "invalid") {
      tally.invalid++;
      tally.invalidTokens = sumOrNull(tally.invalidTokens, tokens);
      tally.invalidWallMs = sumOrNull(tally.invalidWallMs, row.wall_ms);
      if (priceTable !== undefined) tally.invalidRows.push(row);
      continue;
    }
    tally.scored++;
    tally.tokens = sumOrNull(tally.tokens, tokens);
    if (tokens !== null && row.provenance?.tokens_reported_by === "agent") tally.agentReported++;
    tally.wallMs = sumOrNull(tally.wallMs, row.wall_ms);
    if (priceTable !== undefined) tally.scoredRows.push(row);
    let lane = tally.lanes.get(row.lane);
    if (lane === undefined) {
      lane = { scored: 0, resolved: 0 };
      tally.lanes.set(row.lane, lane);
    }
    lane.scored++;
    if (row.resolved === true) {
      tally.resolved++;
      lane.resolved++;
    }
  }
  const agents = [...tallies.keys()].sort(byCodeUnit);
  return agents.map((agentId) => {
    const t = tallies.get(agentId)!;
    // A sum over no scored row is no figure: not recorded, never 0 (issue 23).
    const tokens = t.scored === 0 ? null : t.tokens;
    const wallSeconds = t.scored === 0 || t.wallMs === null ? null : t.wallMs / 1000;
    return {
      agent_id: agentId,
      episodes: t.episodes,
      invalid: t.invalid,
      invalid_rate: t.invalid / t.episodes,
      scored: t.scored,
      resolved: t.resolved,
      resolved_rate: t.scored === 0 ? null : t.resolved / t.scored,
      tokens,
      invalid_tokens: t.invalidTokens,
      wall_seconds: wallSeconds,
      invalid_wall_seconds: t.invalidWallMs === null ? null : t.invalidWallMs / 1000,
      rows_without_tokens: t.withoutTokens,
      rows_without_wall: t.withoutWall,
      agent_reported_token_rows: t.agentReported,
      tpr: t.resolved === 0 || tokens === null ? null : tokens / t.resolved,
      spr: t.resolved === 0 || wallSeconds === null ? null : wallSeconds / t.resolved,
      cost: priceTable === undefined ? null : agentCost(t, priceTable),
      lane_score: laneWeights === undefined ? null : laneScore(t, laneWeights),
    };
  });
}

/** A running sum that stays null ("not recorded") once one term is. */
function sumOrNull(sum: number | null, term: number | null): number | null {
  return sum === null || term === null ? null : sum + term;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function checkPriceTables(rows: Iterable<Episode>, table: PriceTable): void {
  const ids = [...new Set(Iterator.from(rows).map((row) => row.price_table_id))].sort(byCodeUnit);
  if (ids.length > 1) {
    throw new Error(
      `Cannot price episodes: rows mix price tables ${ids.map((id) => `"${id}"`).join(", ")}`,
    );
  }
  const stranger = Iterator.from(rows).find((row) => row.price_table_id !== table.price_table_id);
  if (stranger !== undefined) {
    throw new Error(
      `Cannot price episode "${stranger.episode_id}": its price table ` +
        `"${stranger.price_table_id}" is not the frozen table "${table.price_table_id}"`,
    );
  }
}

function checkWeights(weights: Record<string, number>): void {
  for (const [lane, weight] of Object.entries(weights)) {
    if (!(Number.isFinite(weight) && weight >= 0)) {
      throw new RangeError(
        `Cannot score lanes: weight of lane "${lane}" must be a non-negative number, got ${weight}`,
      );
    }
  }
}

function agentCost(t: Tally, table: PriceTable): AgentCost {
  const cost = t.scored === 0 ? null : totalCost(t.scoredRows, table);
  return {
    price_table_id: table.price_table_id,
    currency: table.currency,
    cost,
    invalid_cost: totalCost(t.invalidRows, table),
    cost_per_resolved: t.resolved === 0 || cost === null ? null : cost / t.resolved,
  };
}

function laneScore(t: Tally, weights: Record<string, number>): LaneScore {
  const names = new Set([...Object.keys(weights), ...t.lanes.keys()]);
  const lanes: LaneEntry[] = [...names].sort(byCodeUnit).map((lane) => {
    const weight = Object.hasOwn(weights, lane) ? weights[lane] : null;
    const tally = t.lanes.get(lane) ?? { scored: 0, resolved: 0 };
    const passRate = tally.scored === 0 ? null : tally.resolved / tally.scored;
    return {
      lane,
      weight,
      scored: tally.scored,
      resolved: tally.resolved,
      pass_rate: passRate,
      points: weight === null || passRate === null ? null : weight * passRate,
    };
  });
  const missing = lanes
    .filter((l) => l.weight !== null && l.weight > 0 && l.scored === 0)
    .map((l) => l.lane);
  const unweighted = lanes.filter((l) => l.weight === null).map((l) => l.lane);
  let maxScore = 0;
  let score = 0;
  for (const l of lanes) {
    if (l.weight !== null) maxScore += l.weight;
    if (l.points !== null) score += l.points;
  }
  return {
    score: missing.length === 0 && unweighted.length === 0 ? score : null,
    max_score: maxScore,
    missing_lanes: missing,
    unweighted_lanes: unweighted,
    lanes,
  };
}
