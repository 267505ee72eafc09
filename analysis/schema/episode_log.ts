/**
 * The episode log's stored form: what the runner keeps of one episode
 * beside its ledger row (the candidate's output tails, the relay's call
 * records and bodies, the judge's calls, the verifier's output and
 * evidence, the workspace diff, an imported row's transcript), as one
 * zod schema, so that the store (`runner/episode_log_store.ts`) writes
 * and reads it, and every reader above (`viewer/`, `cli/show.ts`, the
 * library's frames) types it, through the same definition.
 *
 * @module
 */
import { z } from "zod";
import { VerifierMode } from "./records.ts";
import { RelayCallRecord, RelayDeniedRequest } from "./relay_call_record.ts";
import { EgressRequest } from "./egress_request.ts";

/** The format tag of every stored log; bumped when its layout changes. */
export const EPISODE_LOG_FORMAT = "ledgerbench-episode-log/1";

/** The head of one body as the relay kept it (`BodyExcerpt`). */
const BodyExcerpt = z.object({
  text: z.string(),
  bytes: z.number().int().nonnegative(),
  truncated: z.boolean(),
}).strict();

/** One call's bodies as the relay kept them (`CallBodies`, held equal by the store's type check). */
const StoredCallBodies = z.object({
  index: z.number().int().positive(),
  endpoint: z.string().min(1),
  request: BodyExcerpt,
  response: BodyExcerpt,
}).strict();

/** An episode's log as stored. */
export const EpisodeLog = z.object({
  format: z.literal(EPISODE_LOG_FORMAT),
  episode_id: z.string().min(1),
  /** The candidate's stdout tail; null when the candidate's output was never captured. */
  stdout_tail: z.string().nullable(),
  /** The candidate's stderr tail; null when the candidate's output was never captured. */
  stderr_tail: z.string().nullable(),
  /** The relay's call records, in the order the calls finished; empty when no relay ran. */
  calls: z.array(RelayCallRecord),
  /** Records left out past the store's `maxCalls` (the last ones). */
  calls_omitted: z.number().int().nonnegative(),
  /** Each call's request and response bodies, in index order; empty when no relay ran. */
  bodies: z.array(StoredCallBodies),
  /** Bodies left out past the store's `maxCalls` (the last ones). */
  bodies_omitted: z.number().int().nonnegative(),
  /**
   * Requests the relay answered locally outside the model APIs, with method
   * and target, in arrival order (its first 256). Absent: none, or
   * a log written before they were kept.
   */
  denied_requests: z.array(RelayDeniedRequest).optional(),
  /**
   * The LLM judge's calls for this episode: its relay's records
   * and bodies (the prompt it was shown, its replies), bounded as the
   * candidate's. Absent: the task is not judged, or the judge was not asked.
   */
  judge: z.object({
    calls: z.array(RelayCallRecord),
    bodies: z.array(StoredCallBodies),
  }).strict().optional(),
  /**
   * The verifier's output: the mode
   * it ran in and the tails of its stdout and stderr, bounded and redacted
   * as the candidate's. Untrusted diagnostics (in the shared mode the
   * candidate's code ran in the test run), never parsed for a verdict.
   * Absent: the verifier did not run (an earlier rule decided the row, the
   * harness failed), its sandbox kept no output, or a log written before.
   */
  verifier: z.object({
    mode: VerifierMode,
    stdout_tail: z.string(),
    stderr_tail: z.string(),
    /**
     * Shared mode (Harbor's verifier runs in the agent's container): the
     * candidate's container's diff against its
     * image after the agent's exit (its first {@link VERIFIER_EVIDENCE_LIMITS}
     * entries), and how many were left out. Absent: not a shared verification.
     */
    changes: z.array(
      z.object({
        path: z.string(),
        kind: z.enum(["modified", "added", "deleted"]),
      }).strict(),
    ).optional(),
    changes_omitted: z.number().int().nonnegative().optional(),
    /** Shared mode: the processes alive when verification started (host PIDs, commands bounded). */
    processes: z.array(
      z.object({
        pid: z.number().int(),
        ppid: z.number().int(),
        user: z.string(),
        command: z.string(),
      }).strict(),
    ).optional(),
    processes_omitted: z.number().int().nonnegative().optional(),
    /** Every request the verifier sent through its egress proxy, allowed or denied. */
    egress: z.array(EgressRequest).optional(),
    egress_omitted: z.number().int().nonnegative().optional(),
  }).strict().optional(),
  /**
   * What the candidate changed in its workspace: the patch from
   * the task's `workspace/` to the stored artifact, its first
   * `WORKSPACE_DIFF_LIMITS.maxBytes` (`truncated` says when cut), and the
   * changed paths. Absent: no artifact was stored, the task's workspace
   * comes from an image (its start is not a directory of the suite), the
   * diff could not be made, or a log written before.
   */
  workspace_diff: z.object({
    text: z.string(),
    truncated: z.boolean(),
    files: z.array(
      z.object({ path: z.string(), kind: z.enum(["added", "deleted", "modified"]) }).strict(),
    ),
    files_omitted: z.number().int().nonnegative(),
  }).strict().optional(),
  /**
   * Every request the agent sent through its own egress proxy, allowed or
   * denied (its first `VERIFIER_EVIDENCE_LIMITS.egress`, the rest counted).
   * Absent: the agent had no network, or a log written before.
   */
  agent_egress: z.array(EgressRequest).optional(),
  agent_egress_omitted: z.number().int().nonnegative().optional(),
  /**
   * An imported row's conversation as its source wrote it (an Inspect
   * sample's messages and events, a Harbor trial's ATIF trajectory:
   * `ImportedTranscript`), kept whole and
   * unbounded, as the source holds it. Absent: a row the runner wrote, or a
   * source that kept none.
   */
  imported: z.object({ format: z.enum(["inspect", "atif"]), record: z.string() }).strict()
    .optional(),
}).strict();
export type EpisodeLog = z.infer<typeof EpisodeLog>;
