/**
 * What every importer of `ledgerbench import` returns (issue 11): the
 * attempts it read from one source, each as a ledger row without the
 * fields the import command adds (`seed`, `price_table_id`, the hash
 * chain), plus the tasks the source declares as its denominator.
 *
 * Importers read files (they belong to the inputs layer) and never write;
 * `cli/import.ts` turns a batch into ledger rows and a task list.
 *
 * @module
 */
import type { InvalidReason, Provenance, StopReason } from "../../analysis/schema/records.ts";

/** The verdict of one imported attempt: scored (resolved or not) or invalid. */
export type ImportedOutcome =
  | { status: "scored"; resolved: boolean }
  | { status: "invalid"; invalid_reason: InvalidReason };

/** One attempt read from a source; null numbers are "not recorded", never 0. */
export interface ImportedAttempt {
  run_id: string;
  agent_id: string;
  task_id: string;
  /** 1-based attempt number (Inspect's epoch; 1 where the format has none). */
  attempt: number;
  outcome: ImportedOutcome;
  stop_reason: StopReason;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  tool_calls: number | null;
  model_calls: number | null;
  wall_ms: number | null;
  /** ISO 8601 with a zone (`z.iso.datetime()` form, UTC `Z`), or null. */
  started_at: string | null;
  finished_at: string | null;
  /** What the source said that the row's fields cannot hold (an error message, a limit), escaped by outputs. */
  notes: string;
  provenance: Provenance;
  /** What the source kept of the conversation (absent: nothing), stored beside the ledger by `import`. */
  transcript?: ImportedTranscript;
}

/**
 * An imported attempt's conversation as its source wrote it, kept so that
 * `view` can show it and `export inspect` can give it back.
 *
 * - `inspect`: `record` is the JSON text (Python's bare `NaN`/`Infinity`
 *   allowed, `pythonJson`) of an object holding the Inspect sample's
 *   `input`, `target`, `messages` and, where the sample has them, `output`,
 *   `events` (older logs: `transcript.events`), `attachments` and
 *   `events_data`, each member as the log holds it;
 * - `atif`: `record` is the text of a Harbor trial's agent trajectory
 *   (`agent/trajectory.json`, the Agent Trajectory Interchange Format), as
 *   the file holds it.
 */
export interface ImportedTranscript {
  format: "inspect" | "atif";
  record: string;
}

/** Everything an importer read from one source. */
export interface ImportBatch {
  attempts: ImportedAttempt[];
  /**
   * The task ids the source declares as planned, in source order (an
   * Inspect log's `eval.dataset.sample_ids`, a SWE-bench report's id
   * lists); null when it declares none beyond its own attempts.
   */
  planned_tasks: string[] | null;
  /** Attempts each planned task was to get (Inspect's `eval.config.epochs`); 1 elsewhere. */
  attempts_per_task: number;
  /** Things the user must know (a cancelled log, a count the ids do not reach), one line each. */
  warnings: string[];
}
