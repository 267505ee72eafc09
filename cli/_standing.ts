/**
 * The denominator and claim of every analysis command (issue 11): the
 * `--tasks` option, the claim assessment (`assessClaims`, the same call the
 * report makes, with the judged tasks left out of formal scores left out of
 * the denominator, issue 14) and its per-agent table.
 *
 * @module
 */
import { assessView, type ClaimAssessment } from "../analysis/agent_standing.ts";
import type { LeftOutTask } from "../analysis/judge/judge_rows.ts";
import type { CensoringPolicy, Plan, TaskList } from "../analysis/schema/records.ts";
import type { Loaded } from "../inputs/json_file.ts";
import { loadTaskList } from "../inputs/task_list.ts";
import { percent, plural, quotedList, renderTable } from "../report/format.ts";
import {
  claimLabel,
  denominatorLine,
  missingLines,
  withheldWords,
} from "../report/standing_words.ts";
import { displayId, lineText } from "../analysis/untrusted_text.ts";
import { type ParsedArgs, stringOption } from "./_args.ts";
import { UsageError } from "./_command.ts";
import type { LoadedLedger } from "./_load.ts";

/** The option every analysis command takes. */
export const TASKS_OPTION = { tasks: { type: "string" } } as const;

/** Its help lines, in the layout of the commands' OPTIONS sections. */
export const TASKS_HELP =
  `  --tasks FILE        Task list, the denominator of results not run under a
                      plan (written by "import", or one task id per line):
                      per agent, missing tasks and the score over planned
                      tasks; not with --plan, whose tasks are the denominator`;

/**
 * Reads `--tasks` when given.
 *
 * @param values the parsed options
 * @param plan the plan given with `--plan`, or null
 * @returns the loaded task list, or null
 * @throws {UsageError} when both `--plan` and `--tasks` are given
 * @throws {LedgerError} when the task list cannot be read (inputs/task_list.ts)
 */
export async function taskListOption(
  values: ParsedArgs["values"],
  plan: Loaded<Plan> | null,
): Promise<Loaded<TaskList> | null> {
  const path = stringOption(values, "tasks");
  if (path === undefined) return null;
  if (plan !== null) refuseTwoDenominators();
  return await loadTaskList(path);
}

/**
 * Refuses `--plan` together with `--tasks`: the plan's tasks are its
 * denominator, and two denominators would disagree.
 *
 * @throws {UsageError} always
 */
export function refuseTwoDenominators(): never {
  throw new UsageError('Give "--plan" or "--tasks", not both: a plan\'s tasks are its denominator');
}

/** A command's claim assessment and the file its denominator came from. */
export interface LoadedAssessment extends ClaimAssessment {
  /** The plan or task-list file as given; null without either. */
  file: string | null;
  /** The plan's id; null without a plan. */
  planId: string | null;
  /** The tasks left out of formal scores, hence of the denominator (`LoadedLedger.left_out`). */
  leftOut: LeftOutTask[];
}

/**
 * The claim assessment of a command's rows (see `assessClaims`): the
 * counted rows, the recorded ledger validated against the plan, and the
 * tasks left out of formal scores left out of the denominator, so that they
 * are never counted missing.
 *
 * @param loaded the ledger as loaded (recorded rows and corrected rows)
 * @param plan the plan, or null
 * @param taskList the task list, or null
 * @param policy the censoring thresholds in force; default the plan's, else the defaults
 * @returns the assessment, with the denominator's file and the plan's id
 */
export function assessLoaded(
  loaded: LoadedLedger,
  plan: Loaded<Plan> | null,
  taskList: Loaded<TaskList> | null,
  policy?: CensoringPolicy,
): LoadedAssessment {
  const assessment = assessView(loaded, loaded.recorded, {
    plan: plan?.value ?? null,
    taskList: taskList?.value ?? null,
    policy,
  });
  return {
    ...assessment,
    file: plan?.path ?? taskList?.path ?? null,
    planId: plan?.value.plan_id ?? null,
    leftOut: loaded.left_out,
  };
}

/**
 * The text section of the assessment: the denominator line (and, when
 * judged tasks were left out of formal scores, the line saying they are
 * not in it), one table row per agent (planned tasks, rows, missing, score over planned tasks, score
 * over scored rows, the claim allowed or the cause that withholds it), a
 * note per withheld agent with the reason and rule, and one per agent
 * lacking rows.
 *
 * @param assessment the command's claim assessment
 * @returns the section, ending in a newline
 */
export function standingSection(assessment: LoadedAssessment): string {
  const coverage = new Map((assessment.coverage ?? []).map((row) => [row.agent_id, row]));
  const censoring = new Map(assessment.censoring.agents.map((row) => [row.agent_id, row]));
  let text = denominatorLine(assessment, assessment.file);
  if (assessment.denominator !== null && assessment.leftOut.length > 0) {
    text += `  not in it: ${plural(assessment.leftOut.length, "task")} left out of formal ` +
      `scores (${quotedList(assessment.leftOut.map((task) => task.task_id))}): neither ` +
      "planned nor missing\n";
  }
  text += renderTable(
    [
      { header: "agent", id: true },
      { header: "planned", align: "right" },
      { header: "rows", align: "right" },
      { header: "missing", align: "right" },
      { header: "score over planned", align: "right" },
      { header: "score over scored", align: "right" },
      { header: "claim" },
    ],
    assessment.standings.map((standing) => {
      const c = coverage.get(standing.agent_id);
      return [
        standing.agent_id,
        c === undefined ? "-" : String(c.planned),
        c === undefined ? "-" : String(c.rows),
        c === undefined ? "-" : `${c.missing} (${percent(c.missing_rate)})`,
        c === undefined ? "-" : `${percent(c.score_planned)} (lower bound)`,
        percent(censoring.get(standing.agent_id)?.score_all_tasks),
        claimLabel(standing),
      ];
    }),
  );
  for (const standing of assessment.standings) {
    const withheld = withheldWords(standing, assessment, assessment.planId);
    if (withheld === null) continue;
    text += `note: agent "${displayId(standing.agent_id)}": capability numbers withheld: ${
      lineText(withheld.reason)
    } (${withheld.rule})\n`;
  }
  return text + missingLines(assessment);
}
