/**
 * Points a row at its evidence (issue 8): stores the episode's log beside
 * its workspace artifact and records the log's digest in the row.
 *
 * @module
 */
import { describeError } from "./episode_row.ts";
import { type EpisodeLogInput, storeEpisodeLog } from "./episode_log_store.ts";
import type { EpisodeDraft } from "./ledger_writer.ts";

/** What {@linkcode withEpisodeLog} stores besides the row. */
export interface EpisodeLogSource extends EpisodeLogInput {
  /** The artifact store's root. */
  root: string;
  /** Values never stored (the upstream key); replaced by `[redacted]`. */
  redact: readonly string[];
}

/**
 * Stores the episode's log (`storeEpisodeLog`, default bounds) and returns the
 * row with `episode_log_digest` set. A log that cannot be stored never costs
 * the row: the row is returned without the digest and with the note
 * `episode log not stored: <why>` (its status is what the episode earned).
 *
 * @param draft the row as classified
 * @param source the episode's id, tails, call records, the store's root and the values to redact
 * @returns the row with its log's digest, or with a note saying why there is none
 */
export async function withEpisodeLog(
  draft: EpisodeDraft,
  source: EpisodeLogSource,
): Promise<EpisodeDraft> {
  const { root, redact, ...input } = source;
  try {
    const stored = await storeEpisodeLog(root, input, { redact });
    return { ...draft, episode_log_digest: stored.digest };
  } catch (error) {
    const note = `episode log not stored: ${describeError(error)}`;
    return { ...draft, notes: draft.notes ? `${draft.notes}; ${note}` : note };
  }
}
