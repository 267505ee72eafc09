/**
 * What `ledgerbench export` hands every format's conversion (`_inspect_export.ts`,
 * `_harbor_export.ts`): each row with its ledger line, the errata that
 * changed it and its conversation; where the rows came from; and the one
 * record of the row that every exported file carries.
 *
 * @module
 */
import type { Episode } from "../analysis/schema/records.ts";

/** One row to export, with its conversation as the format needs it (`C`). */
export interface ExportRow<C> {
  row: Episode;
  /** Its ledger line (1-based). */
  line: number;
  /** The ids of the errata that changed it (empty: none). */
  corrections: readonly string[];
  /** Its conversation, as the format reads it from the row's stored log (null: none). */
  conversation: C;
}

/** What every export records of where its rows came from. */
export interface ExportContext {
  ledger: { path: string; sha256: string };
  errata: { path: string; sha256: string; applied: number } | null;
  /** The denominator: the file it came from (null: the ledger's own tasks), its tasks, attempts each. */
  denominator: {
    source: "plan" | "task list" | "ledger";
    file: string | null;
    tasks: readonly string[];
    attempts_per_task: number | null;
  };
}

/**
 * The row as an exported sample or trial names it (Inspect's
 * `metadata.ledgerbench`, Harbor's trial `agent.kwargs.ledgerbench`): its
 * episode id, run, task, attempt, ledger and line, status, verdict,
 * reasons, notes, provenance, the errata that changed it and its episode
 * log's digest (null where the row has none).
 *
 * @param entry the row to export
 * @param context where the rows came from
 * @returns the record, in that key order
 * @example
 * ```ts
 * import { rowMetadata } from "./_export_row.ts";
 * import { Episode } from "../analysis/schema/records.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t1", seed: 1, resolved: true, prompt_tokens: 10,
 *   completion_tokens: 5, tool_calls: 0, wall_ms: 1500, price_table_id: "p",
 * });
 * const meta = rowMetadata({ row, line: 3, corrections: ["e1"], conversation: null }, {
 *   ledger: { path: "l.jsonl", sha256: "0".repeat(64) },
 *   errata: null,
 *   denominator: { source: "ledger", file: null, tasks: ["t1"], attempts_per_task: null },
 * });
 * if (meta.episode_id !== "r/a/t1/1" || meta.ledger_line !== 3) throw new Error();
 * ```
 */
export function rowMetadata(
  entry: ExportRow<unknown>,
  context: ExportContext,
): Record<string, unknown> {
  const { row } = entry;
  return {
    episode_id: row.episode_id,
    run_id: row.run_id,
    task_id: row.task_id,
    attempt: row.attempt,
    ledger: context.ledger.path,
    ledger_line: entry.line,
    status: row.status,
    resolved: row.resolved,
    invalid_reason: row.invalid_reason,
    stop_reason: row.stop_reason,
    notes: row.notes,
    provenance: row.provenance ?? null,
    corrected_by: [...entry.corrections],
    episode_log_digest: row.episode_log_digest ?? null,
  };
}
