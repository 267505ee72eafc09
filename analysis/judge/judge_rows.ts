/**
 * Ledger rows of judge-verified tasks (issue 14, seed 000 §06): which rows
 * formal scores leave out because their judge was not calibrated, and the
 * judge's own figures over the rows it judged.
 *
 * @module
 */
import type { Episode } from "../schema/records.ts";
import { type EpisodeRows, keptRows } from "../episode_table.ts";

/** Why {@link judgeLeftOut} leaves a task's rows out of formal scores. */
export const UNCALIBRATED_JUDGE_REASON =
  "judged by an uncalibrated LLM judge (issue 14, seed 000 §06)";

/** A task whose rows are left out of formal scores; plain JSON data, keys in this order. */
export interface LeftOutTask {
  /** The task. */
  task_id: string;
  /** Its rows left out. */
  rows: number;
  /** Why ({@link UNCALIBRATED_JUDGE_REASON}). */
  reason: string;
}

/** The rows formal scores count, and the tasks left out. */
export interface JudgeLeftOut {
  /** Rows without a judge record, or judged by a calibrated judge, in ledger order. */
  counted: EpisodeRows;
  /** One entry per task with rows left out, in the order of its first such row. */
  leftOut: LeftOutTask[];
}

/** One task's judge figures; plain JSON data, keys in this order. */
export interface JudgeTaskFigures {
  task_id: string;
  /** Rows with a judge record. */
  rows: number;
  /** Of those, rows invalid as `judge_fault`. */
  judge_faults: number;
  /** Rows whose judge record has `passed` true. */
  passed: number;
  /** Rows whose judge record has `passed` false. */
  failed: number;
}

/** The judge's figures over the rows it judged; plain JSON data, keys in this order. */
export interface JudgeFigures {
  /** Rows with a judge record. */
  rows: number;
  /** Of those, rows whose judge was calibrated. */
  calibrated_rows: number;
  /** Rows invalid as `judge_fault` (no usable judgment within the recorded attempts). */
  judge_faults: number;
  /** judge_faults / rows; null with no rows. */
  judge_invalid_rate: number | null;
  /** Mean of the judge totals that are not null; null when there is none. */
  mean_total: number | null;
  /** The judge's model calls, summed. */
  judge_model_calls: number;
  /** The judge's prompt tokens, summed (never counted in the agent's tokens). */
  judge_prompt_tokens: number;
  /** The judge's completion tokens, summed. */
  judge_completion_tokens: number;
  /** Per task, sorted by task id (UTF-16 code units). */
  by_task: JudgeTaskFigures[];
}

/**
 * Splits rows into those formal scores count and those they leave out.
 *
 * Rule (seed 000: "正式批次里 Judge 固定标为不可用，依赖 Judge 的两道题也暂时不计分",
 * in a formal batch the judge is marked unavailable and the tasks that
 * depend on it are not scored for now; issue 14): a row whose `judge`
 * record says `calibrated: false` is left out; a row without a judge
 * record, or with `calibrated: true`, is counted. Left-out rows are grouped
 * by task, in the order of each task's first left-out row. O(rows).
 *
 * @param rows ledger rows
 * @returns the counted rows, in order, and the tasks left out
 * @example
 * ```ts
 * import { judgeLeftOut } from "./judge_rows.ts";
 * import { Episode } from "../schema/records.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t", seed: 1, resolved: true, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p",
 * });
 * const { counted, leftOut } = judgeLeftOut([row]);
 * if (counted.length !== 1 || leftOut.length !== 0) throw new Error();
 * ```
 */
export function judgeLeftOut(rows: EpisodeRows): JudgeLeftOut {
  let counted = 0;
  const byTask = new Map<string, LeftOutTask>();
  for (const row of rows) {
    if (isCounted(row)) {
      counted++;
      continue;
    }
    const task = byTask.get(row.task_id);
    if (task === undefined) {
      byTask.set(row.task_id, {
        task_id: row.task_id,
        rows: 1,
        reason: UNCALIBRATED_JUDGE_REASON,
      });
    } else task.rows++;
  }
  return { counted: keptRows(rows, isCounted, counted), leftOut: [...byTask.values()] };
}

/** A row formal scores count: no judge record, or a calibrated judge's. */
function isCounted(row: Episode): boolean {
  return row.judge === undefined || row.judge.calibrated;
}

/**
 * The judge's figures over the rows that carry a judge record (rows
 * without one are ignored): how many, how many calibrated, its faults and
 * their rate, its mean total, its own spend, and per task its faults,
 * passes and fails. A fault is a row invalid as `judge_fault` (seed 000
 * §06: never scored 0); its total is null and is left out of the mean.
 * O(rows + tasks log tasks).
 *
 * @param rows ledger rows
 * @returns the figures; with no judged rows every count is 0 and every rate null
 * @example
 * ```ts
 * import { judgeFigures } from "./judge_rows.ts";
 * const figures = judgeFigures([]);
 * if (figures.rows !== 0 || figures.judge_invalid_rate !== null) throw new Error();
 * ```
 */
export function judgeFigures(rows: Iterable<Episode>): JudgeFigures {
  let judged = 0;
  let calibrated = 0;
  let faults = 0;
  let totals = 0;
  let totalSum = 0;
  let calls = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  const byTask = new Map<string, JudgeTaskFigures>();
  for (const row of rows) {
    const judge = row.judge;
    if (judge === undefined) continue;
    judged++;
    if (judge.calibrated) calibrated++;
    const fault = row.invalid_reason === "judge_fault";
    if (fault) faults++;
    if (judge.total !== null) {
      totals++;
      totalSum += judge.total;
    }
    calls += judge.model_calls;
    promptTokens += judge.prompt_tokens;
    completionTokens += judge.completion_tokens;
    let task = byTask.get(row.task_id);
    if (task === undefined) {
      task = { task_id: row.task_id, rows: 0, judge_faults: 0, passed: 0, failed: 0 };
      byTask.set(row.task_id, task);
    }
    task.rows++;
    if (fault) task.judge_faults++;
    if (judge.passed === true) task.passed++;
    else if (judge.passed === false) task.failed++;
  }
  return {
    rows: judged,
    calibrated_rows: calibrated,
    judge_faults: faults,
    judge_invalid_rate: judged === 0 ? null : faults / judged,
    mean_total: totals === 0 ? null : totalSum / totals,
    judge_model_calls: calls,
    judge_prompt_tokens: promptTokens,
    judge_completion_tokens: completionTokens,
    by_task: [...byTask.values()].sort((a, b) =>
      a.task_id < b.task_id ? -1 : a.task_id > b.task_id ? 1 : 0
    ),
  };
}
