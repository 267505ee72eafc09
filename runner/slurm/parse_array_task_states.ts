/**
 * The state of each task of a job array, read from `scontrol show job -o`.
 *
 * @module
 */
import { parseArrayTaskIds } from "./parse_array_task_ids.ts";

/** What Slurm says of one task of a job array. */
export interface ArrayTaskState {
  /**
   * Slurm's job state (squeue(1), "JOB STATE CODES"): `PENDING`, `RUNNING`,
   * `COMPLETING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TIMEOUT`, `NODE_FAIL`,
   * `PREEMPTED`, `BOOT_FAIL`, `OUT_OF_MEMORY`, `DEADLINE`, `SUSPENDED`,
   * `REQUEUED`, ... (upper-case letters and `_`, checked).
   */
  state: string;
  /** Why it is in that state, e.g. `None`, `Resources`, `JobArrayTaskLimit`, `NodeDown`, `TimeLimit`. */
  reason: string;
  /** The nodes it ran or runs on, e.g. `node[01-02]`; `""` while it never ran. */
  nodeList: string;
  /**
   * The batch script's exit status and the signal that ended it (`ExitCode=1:0`
   * is status 1; `0:15` is SIGTERM, as a cancelled or timed-out task shows);
   * `null` when Slurm printed none.
   */
  exitCode: { status: number; signal: number } | null;
  /** How many times Slurm requeued it (a requeued task restarts from scratch). */
  restarts: number;
}

/**
 * Reads the state of every task of job array `arrayJobId` from the text of
 * `scontrol show job -o <arrayJobId>`: one record per line, `Key=Value`
 * fields separated by spaces (scontrol(1)). A task that started has a record
 * of its own (`ArrayTaskId=1`); the tasks still pending share one record
 * whose `ArrayTaskId` is a range (`2-4%2`, see `parseArrayTaskIds`), and
 * that record's state, reason and exit code are each of those tasks'. A
 * task's own record wins over a range that also names it. Records of other
 * jobs are skipped. Task ids Slurm no longer lists (a task cancelled while
 * pending, or the whole job once `MinJobAge` has passed) are absent from the
 * result.
 *
 * The text comes from Slurm and is not trusted: a field is the text after
 * `Key=` up to the next ` Key=`, the first such field counts, and the fields
 * read (`ArrayJobId`, `ArrayTaskId`, `JobState`, `Reason`, `NodeList`,
 * `ExitCode`, `Restarts`) come before every free-text field but `JobName`,
 * which is why `submitJobArray` refuses a job name with spaces. A record of
 * this job whose task ids or state cannot be read is an error, never skipped.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * const tasks = parseArrayTaskStates(
 *   "JobId=46 ArrayJobId=45 ArrayTaskId=0 JobState=RUNNING Reason=None ExitCode=0:0 NodeList=vm\n" +
 *     "JobId=45 ArrayJobId=45 ArrayTaskId=1-4%2 JobState=PENDING Reason=JobArrayTaskLimit NodeList=",
 *   "45",
 * );
 * equal(tasks.get(0)?.state, "RUNNING");
 * equal(tasks.get(3)?.reason, "JobArrayTaskLimit");
 * ```
 *
 * @param text what `scontrol show job -o` printed
 * @param arrayJobId the array's job id (`ArrayJobId`), e.g. `"45"`
 * @returns the state of each task id Slurm lists, by task id
 * @throws {Error} when a record of this array has an unreadable `ArrayTaskId` or `JobState`
 */
export function parseArrayTaskStates(
  text: string,
  arrayJobId: string,
): Map<number, ArrayTaskState> {
  const fromRanges = new Map<number, ArrayTaskState>();
  const own = new Map<number, ArrayTaskState>();
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const fields = recordFields(line);
    if (fields.get("ArrayJobId") !== arrayJobId) continue;
    const where = `scontrol record ${index + 1} of job ${arrayJobId}`;
    const taskIds = fields.get("ArrayTaskId") ?? "";
    let ids: number[];
    try {
      ids = parseArrayTaskIds(taskIds);
    } catch (error) {
      throw new Error(`Cannot read ${where}: ${(error as Error).message}`);
    }
    const state = fields.get("JobState") ?? "";
    if (!/^[A-Z][A-Z_]{0,39}$/.test(state)) {
      throw new Error(
        `Cannot read ${where}: field "JobState" is ${JSON.stringify(state.slice(0, 100))}, ` +
          `not a Slurm job state`,
      );
    }
    const task: ArrayTaskState = {
      state,
      reason: clip(fields.get("Reason") ?? ""),
      nodeList: clip((fields.get("NodeList") ?? "").replace(/^\(null\)$/, "")),
      exitCode: exitCodeOf(fields.get("ExitCode")),
      restarts: /^\d{1,9}$/.test(fields.get("Restarts") ?? "") ? Number(fields.get("Restarts")) : 0,
    };
    const into = /^\d+$/.test(taskIds) ? own : fromRanges;
    for (const id of ids) into.set(id, task);
  }
  const tasks = new Map([...fromRanges, ...own]);
  return new Map([...tasks].sort(([a], [b]) => a - b));
}

/**
 * The fields of one record: a key is a word of letters, digits, `_`, `:` or
 * `/` (`AllocNode:Sid`, `CPUs/Task`) after the line's start or a space and
 * before `=`; its value runs to the next key. The first of a repeated key counts.
 */
function recordFields(line: string): Map<string, string> {
  const fields = new Map<string, string>();
  const keys = [...line.matchAll(/(?:^|\s)([A-Za-z][\w:/]*)=/g)];
  for (const [i, match] of keys.entries()) {
    const start = match.index + match[0].length;
    const end = keys[i + 1]?.index ?? line.length;
    if (!fields.has(match[1])) fields.set(match[1], line.slice(start, end).trim());
  }
  return fields;
}

function exitCodeOf(text: string | undefined): ArrayTaskState["exitCode"] {
  const match = /^(\d{1,3}):(\d{1,3})$/.exec(text ?? "");
  return match ? { status: Number(match[1]), signal: Number(match[2]) } : null;
}

/** Free text from Slurm, at most 200 characters. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
