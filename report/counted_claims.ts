/**
 * The claim assessment of the rows formal scores count (issue 14): every
 * command (through `assessLoaded`, cli/_standing.ts) and the report make it
 * here, so a judged task left out of formal scores is left out of the
 * denominator the same way everywhere.
 *
 * @module
 */
import {
  agentStandings,
  assessClaims,
  type ClaimAssessment,
  type ClaimInputs,
} from "../analysis/agent_standing.ts";
import type { LeftOutTask } from "../analysis/judge/judge_rows.ts";
import { leaveOutTasks, taskCoverage } from "../analysis/task_coverage.ts";

/**
 * {@link assessClaims} of the counted rows, with the tasks left out of
 * formal scores left out of the plan's or task list's denominator too.
 *
 * Rules (issue 14; seed 000: "the tasks that depend on the judge are not
 * scored for now"): `inputs.rows` are the counted rows (`judgeLeftOut`'s
 * `counted`), `inputs.recorded` the ledger as recorded, every row, which
 * the plan validates; a left-out task is then neither planned nor missing
 * ({@link leaveOutTasks}), so its absence from the counted rows never
 * lowers an agent's score over planned tasks nor its missing claim. The
 * censoring summary and the validation are assessClaims' own. Without a
 * left-out task the assessment is exactly assessClaims'. Cost: that of
 * assessClaims, plus one more coverage pass when a task is left out.
 *
 * @param inputs what assessClaims reads; `rows` the counted rows
 * @param leftOut the tasks left out of formal scores (`judgeLeftOut`'s `leftOut`)
 * @returns the assessment of the counted rows
 * @example
 * ```ts
 * import { assessCountedClaims } from "./counted_claims.ts";
 * import { CensoringPolicy, Episode, Plan } from "../analysis/schema.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t1", seed: 1, resolved: true, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p",
 * });
 * const plan = Plan.parse({
 *   plan_id: "p", tasks: [{ task_id: "t1" }, { task_id: "essay" }], agents: [{ agent_id: "a" }],
 * });
 * const recorded = {
 *   file: "l.jsonl", sha256: "0".repeat(64), lines: 1, valid_rows: 1, chained: false,
 *   problems: [], rows: [row], row_lines: [1],
 * };
 * const { coverage } = assessCountedClaims(
 *   { recorded, rows: [row], plan, taskList: null, policy: CensoringPolicy.parse({}) },
 *   [{ task_id: "essay", rows: 1, reason: "judged by an uncalibrated LLM judge" }],
 * );
 * // "essay" is left out: 1 planned task, none missing
 * if (coverage![0].planned !== 1 || coverage![0].missing !== 0) throw new Error();
 * ```
 */
export function assessCountedClaims(
  inputs: ClaimInputs,
  leftOut: readonly LeftOutTask[],
): ClaimAssessment {
  const assessment = assessClaims(inputs);
  if (leftOut.length === 0 || assessment.denominator === null) return assessment;
  const denominator = leaveOutTasks(assessment.denominator, leftOut.map((task) => task.task_id));
  if (denominator === assessment.denominator) return assessment;
  const coverage = taskCoverage(inputs.rows, denominator, assessment.missing_policy);
  return {
    ...assessment,
    denominator,
    coverage,
    // the same agents: the denominator's agents and those with counted rows
    standings: agentStandings(
      assessment.standings.map((standing) => standing.agent_id),
      assessment.censoring,
      coverage,
      assessment.validation,
    ),
  };
}
