/**
 * One row per episode (Inspect's `samples_df` for a ledger).
 *
 * @module
 */
import type * as dfd from "danfojs";
import { LEDGER_RECORD_COLUMNS, ledgerRecords } from "./ledger_records.ts";
import { frameOf } from "./frame_of.ts";
import type { OpenedLedger } from "./open_ledger.ts";

/**
 * The episodes formal scores count (errata applied, an uncalibrated judge's
 * rows left out), one row each in ledger order, classified as the analysis
 * classifies them (`ledgerRecords`: `outcome` pass, fail or invalid, seed
 * 000's rule that an invalid attempt is never scored; `censored`, seed 003;
 * tokens and steps null when not recorded, never 0). O(rows).
 *
 * @param run an opened ledger
 * @returns the frame, columns `row, episode_id, agent_id, task_id, lane,
 *   attempt, status, outcome, invalid_reason, stop_reason, censored,
 *   prompt_tokens, completion_tokens, tokens, steps, tool_calls, wall_ms`
 * @example
 * ```ts
 * import { episodesFrame, openLedger } from "../mod.ts";
 * const run = await openLedger(new URL("../ledgers/demo/ledger.jsonl", import.meta.url).pathname);
 * const episodes = episodesFrame(run);
 * const failed = episodes.query(episodes["outcome"].eq("fail"));
 * if (episodes.shape[0] !== 14 || failed.shape[0] === 0) throw new Error();
 * ```
 */
export function episodesFrame(run: Pick<OpenedLedger, "rows">): dfd.DataFrame {
  return frameOf(ledgerRecords(run.rows), LEDGER_RECORD_COLUMNS);
}
