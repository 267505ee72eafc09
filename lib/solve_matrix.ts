/**
 * The task × agent solve matrix.
 *
 * @module
 */
import * as dfd from "danfojs";
import type { OpenedLedger } from "./open_ledger.ts";

/**
 * Which agent solved which task: one row per task, one column per agent in
 * leaderboard order, each cell the share of the agent's scored attempts at
 * the task that resolved it (1 or 0 with one attempt per task). A cell is
 * null when the agent has no scored attempt of the task: the task is missing
 * for it, or every attempt was invalid (seed 000: an invalid attempt is
 * never scored, so it is neither a 0 nor a 1). The rows are the planned
 * tasks (the plan's or the task list's, in their order), then any task with
 * rows that was not planned; without a denominator, the tasks with rows in
 * the order of their first row. O(rows + tasks × agents).
 *
 * @param run an opened ledger
 * @returns the frame, indexed by task id
 * @example
 * ```ts
 * import { openLedger, solveMatrix } from "../mod.ts";
 * const run = await openLedger(new URL("../ledgers/demo/ledger.jsonl", import.meta.url).pathname);
 * const matrix = solveMatrix(run);
 * // The demo: 7 tasks, 2 agents.
 * if (matrix.shape.join() !== "7,2") throw new Error();
 * ```
 */
export function solveMatrix(
  run: Pick<OpenedLedger, "rows" | "assessment" | "report">,
): dfd.DataFrame {
  const agents = run.report().summary.leaderboard.map((place) => place.agent_id);
  const tasks = [...run.assessment.denominator?.task_ids ?? []];
  const taskIndex = new Map(tasks.map((id, i) => [id, i]));
  const agentIndex = new Map(agents.map((id, j) => [id, j]));
  const resolved: number[][] = [];
  const scored: number[][] = [];
  const rowOf = (task: string) => {
    let i = taskIndex.get(task);
    if (i === undefined) {
      i = tasks.push(task) - 1;
      taskIndex.set(task, i);
    }
    while (resolved.length <= i) {
      resolved.push(new Array(agents.length).fill(0));
      scored.push(new Array(agents.length).fill(0));
    }
    return i;
  };
  for (const task of tasks) rowOf(task);
  for (const row of run.rows) {
    const i = rowOf(row.task_id);
    const j = agentIndex.get(row.agent_id);
    if (j === undefined || row.status !== "scored") continue;
    scored[i][j] += 1;
    if (row.resolved) resolved[i][j] += 1;
  }
  const cells = scored.map((counts, i) =>
    counts.map((n, j) => n === 0 ? null : resolved[i][j] / n)
  );
  return new dfd.DataFrame(cells, { columns: agents, index: tasks });
}
