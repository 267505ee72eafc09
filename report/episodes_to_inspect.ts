/**
 * The episodes a reader of a report should look into (issue 8): every failed
 * and every invalid attempt, each of which `ledgerbench show` opens.
 *
 * @module
 */
import type { Episode, InvalidReason, StopReason } from "../analysis/schema/records.ts";

/** One failed or invalid episode, as `summary.json` records it. */
export interface EpisodeToInspect {
  episode_id: string;
  agent_id: string;
  task_id: string;
  /** `failed`: scored, not resolved. `invalid`: not scored (see `invalid_reason`). */
  outcome: "failed" | "invalid";
  invalid_reason: InvalidReason | null;
  stop_reason: StopReason;
  /** The row's `episode_log_digest`; null when the row names no stored log. */
  episode_log_digest: string | null;
  /**
   * Where an imported row came from (its `provenance`: the source file as
   * given at import and the position inside it); absent for rows the runner
   * wrote. `show` has nothing more to print for such a row than the row
   * itself (issue 25 item 2), so the report names the source instead.
   */
  imported?: { source: string; position: string };
}

/**
 * The failed (scored, `resolved` false) and invalid rows, in ledger order.
 * Pass the rows after errata: an episode a re-verification resolved is no
 * longer failed, one an erratum invalidated is listed as invalid. O(rows).
 *
 * @param rows ledger rows, errata applied
 * @returns one entry per failed or invalid row
 * @example
 * ```ts
 * import { episodesToInspect } from "./episodes_to_inspect.ts";
 * import { Episode } from "../analysis/schema/records.ts";
 * const rows = [true, false].map((resolved, i) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: `t${i}`, seed: 7, resolved, prompt_tokens: 100,
 *   completion_tokens: 50, tool_calls: 1, wall_ms: 3000, price_table_id: "p",
 * }));
 * const [entry] = episodesToInspect(rows);
 * if (entry.episode_id !== "r/a/t1/1" || entry.outcome !== "failed") throw new Error();
 * ```
 */
export function episodesToInspect(rows: Iterable<Episode>): EpisodeToInspect[] {
  return Iterator.from(rows).filter((row) => row.status === "invalid" || row.resolved === false)
    .map((row): EpisodeToInspect => ({
      episode_id: row.episode_id,
      agent_id: row.agent_id,
      task_id: row.task_id,
      outcome: row.status === "invalid" ? "invalid" : "failed",
      invalid_reason: row.invalid_reason,
      stop_reason: row.stop_reason,
      episode_log_digest: row.episode_log_digest ?? null,
      ...(row.provenance === undefined
        ? {}
        : { imported: { source: row.provenance.source, position: row.provenance.position } }),
    })).toArray();
}
