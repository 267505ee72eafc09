/**
 * Test helper: each agent's scored episodes as per-episode arrays, the form
 * `ratioBootstrap` and `paretoFrontierProbability` take, built the obvious
 * way, one push per row. The tests hold `agentTaskSums`' per-task sums (and
 * the bootstraps drawn from them) against these to the bit.
 *
 * @module
 */
import { episodeTokens, isScored } from "./classify_episode.ts";
import { episodeCost } from "./episode_cost.ts";
import type { Episode, PriceTable } from "./schema/records.ts";

/** One agent's scored episodes, in ledger order; a column any episode did not record is null. */
export interface EpisodeSample {
  agent_id: string;
  task_ids: string[];
  resolved: boolean[];
  tokens: number[] | null;
  seconds: number[] | null;
  cost: number[] | null;
}

/** Every agent's {@link EpisodeSample}, sorted by agent id. */
export function episodeSamples(rows: Iterable<Episode>, priceTable?: PriceTable): EpisodeSample[] {
  const byAgent = new Map<string, EpisodeSample>();
  const push = (column: number[] | null, value: number | null) =>
    column === null || value === null ? null : [...column, value];
  for (const row of rows) {
    if (!isScored(row)) continue;
    const sample = byAgent.get(row.agent_id) ?? {
      agent_id: row.agent_id,
      task_ids: [],
      resolved: [],
      tokens: [],
      seconds: [],
      cost: priceTable === undefined ? null : [],
    };
    byAgent.set(row.agent_id, sample);
    sample.task_ids.push(row.task_id);
    sample.resolved.push(row.resolved === true);
    sample.tokens = push(sample.tokens, episodeTokens(row));
    sample.seconds = push(sample.seconds, row.wall_ms === null ? null : row.wall_ms / 1000);
    if (priceTable !== undefined) sample.cost = push(sample.cost, episodeCost(row, priceTable));
  }
  return [...byAgent.values()].sort((x, y) => (x.agent_id < y.agent_id ? -1 : 1));
}

/**
 * Rows with the shapes a real ledger has and the synthetic example lacks:
 * every seventh row of each agent but the first dropped (agents with
 * different tasks), every fifth repeated with its outcome flipped (several
 * attempts at a task, added to its sums after others), in ledger order.
 */
export function unevenRows(rows: readonly Episode[]): Episode[] {
  const first = rows[0]?.agent_id;
  const kept = rows.filter((row, i) => row.agent_id === first || i % 7 !== 3);
  const repeats = kept.filter((_, i) => i % 5 === 0).map((row) => ({
    ...row,
    resolved: row.resolved === null ? null : !row.resolved,
  }));
  return [...kept, ...repeats];
}
