/**
 * Flat records of ledger rows, one per episode, for a danfojs DataFrame.
 *
 * @module
 */
import {
  episodeSteps,
  episodeTokens,
  isCensored,
  isInvalid,
} from "../analysis/classify_episode.ts";
import type { Episode, InvalidReason, StopReason } from "../analysis/schema/records.ts";

/** One episode as a flat record (no nested objects), keys in this order. */
export interface LedgerRecord {
  /** 1-based position of the row among the rows given (ledger order). */
  row: number;
  episode_id: string;
  agent_id: string;
  task_id: string;
  lane: string;
  attempt: number;
  status: "scored" | "invalid";
  /** `"pass"` or `"fail"` for scored rows, `"invalid"` for invalid ones (never scored). */
  outcome: "pass" | "fail" | "invalid";
  invalid_reason: InvalidReason | null;
  stop_reason: StopReason;
  /** Scored and stopped by anything but `completed` (`isCensored`). */
  censored: boolean;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** `episodeTokens`: prompt + completion; null for each count not recorded (imported rows). */
  tokens: number | null;
  /** `episodeSteps`: model calls, or tool calls when model calls were not recorded. */
  steps: number | null;
  tool_calls: number | null;
  wall_ms: number | null;
}

/** The keys of a {@link LedgerRecord}, in order: a frame's columns even when it has no row. */
export const LEDGER_RECORD_COLUMNS: readonly (keyof LedgerRecord)[] = [
  "row",
  "episode_id",
  "agent_id",
  "task_id",
  "lane",
  "attempt",
  "status",
  "outcome",
  "invalid_reason",
  "stop_reason",
  "censored",
  "prompt_tokens",
  "completion_tokens",
  "tokens",
  "steps",
  "tool_calls",
  "wall_ms",
];

/**
 * Flattens ledger rows into records for a DataFrame (`new dfd.DataFrame(records)`).
 *
 * Rule: each row keeps its identifying and spend fields; `outcome`,
 * `censored`, `tokens` and `steps` come from `analysis/classify_episode.ts`
 * (`isInvalid`, `isCensored`, `episodeTokens`, `episodeSteps`), so a notebook
 * groups on the project's classification rather than re-deriving it. Nested
 * fields (caps, evidence, environment) are left out. O(rows).
 *
 * @param rows ledger rows (errata applied, if any)
 * @returns one record per row, in the given order
 * @example
 * ```ts
 * import { Episode } from "../analysis/schema/records.ts";
 * import { ledgerRecords } from "./ledger_records.ts";
 * const [r] = ledgerRecords([Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t", seed: 1, resolved: false, stop_reason: "token_cap",
 *   prompt_tokens: 100, completion_tokens: 50, tool_calls: 3, wall_ms: 9, price_table_id: "p",
 * })]);
 * if (r.outcome !== "fail" || !r.censored || r.tokens !== 150 || r.steps !== 3) throw new Error();
 * ```
 */
export function ledgerRecords(rows: readonly Episode[]): LedgerRecord[] {
  return rows.map((row, i) => ({
    row: i + 1,
    episode_id: row.episode_id,
    agent_id: row.agent_id,
    task_id: row.task_id,
    lane: row.lane,
    attempt: row.attempt,
    status: row.status,
    outcome: isInvalid(row) ? "invalid" : row.resolved ? "pass" : "fail",
    invalid_reason: row.invalid_reason,
    stop_reason: row.stop_reason,
    censored: isCensored(row),
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    tokens: episodeTokens(row),
    steps: episodeSteps(row),
    tool_calls: row.tool_calls,
    wall_ms: row.wall_ms,
  }));
}

/** One judged episode's judge record as a flat record (issue 14), keys in this order. */
export interface JudgeRecordRow {
  /** 1-based position of the row among the rows given (ledger order). */
  row: number;
  episode_id: string;
  agent_id: string;
  task_id: string;
  attempt: number;
  /** `"pass"`, `"fail"` or `"invalid"`, as {@link ledgerRecords} classifies the row. */
  outcome: "pass" | "fail" | "invalid";
  invalid_reason: InvalidReason | null;
  /** The judge's model, as the row records it. */
  judge_model: string;
  /** Whether the judge was calibrated: only then do formal scores count the row. */
  calibrated: boolean;
  /** Calls the judge made for this judgment, of at most `max_attempts`. */
  judge_attempts: number;
  max_attempts: number;
  /** The total code computed from the judge's scores (0–100); null: no usable judgment. */
  total: number | null;
  pass_threshold: number;
  passed: boolean | null;
  judge_model_calls: number;
  judge_prompt_tokens: number;
  judge_completion_tokens: number;
}

/**
 * The judge records of the judged rows (rows without a `judge` record are
 * skipped), flat for a DataFrame: each row's judge model, calibration,
 * attempts, the total code computed (never recomputed here), the threshold,
 * the verdict and the judge's own spend. O(rows).
 *
 * @param rows ledger rows (errata applied, if any), judged or not
 * @returns one record per judged row, in the given order; `row` counts every row given
 * @example
 * ```ts
 * import { Episode } from "../analysis/schema/records.ts";
 * import { judgeRecords } from "./ledger_records.ts";
 * const row = (judge?: Record<string, unknown>) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t", seed: 1, resolved: true, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p", judge,
 * });
 * const [r] = judgeRecords([row(), row({
 *   rubric_id: "essay", rubric_sha256: "0".repeat(64), model: "m", calibrated: false,
 *   max_attempts: 2, attempts: [{ reply: "{}", reply_chars: 2, problem: null }],
 *   scores: [{ name: "correctness", score: 4 }], total: 75, pass_threshold: 60, passed: true,
 *   prompt_tokens: 500, completion_tokens: 10, model_calls: 1, evidence: null,
 * })]);
 * if (r.row !== 2 || r.total !== 75 || r.calibrated || r.judge_attempts !== 1) throw new Error();
 * ```
 */
export function judgeRecords(rows: readonly Episode[]): JudgeRecordRow[] {
  const records: JudgeRecordRow[] = [];
  rows.forEach((row, i) => {
    const judge = row.judge;
    if (judge === undefined) return;
    records.push({
      row: i + 1,
      episode_id: row.episode_id,
      agent_id: row.agent_id,
      task_id: row.task_id,
      attempt: row.attempt,
      outcome: isInvalid(row) ? "invalid" : row.resolved ? "pass" : "fail",
      invalid_reason: row.invalid_reason,
      judge_model: judge.model,
      calibrated: judge.calibrated,
      judge_attempts: judge.attempts.length,
      max_attempts: judge.max_attempts,
      total: judge.total,
      pass_threshold: judge.pass_threshold,
      passed: judge.passed,
      judge_model_calls: judge.model_calls,
      judge_prompt_tokens: judge.prompt_tokens,
      judge_completion_tokens: judge.completion_tokens,
    });
  });
  return records;
}
