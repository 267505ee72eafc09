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
import { percent, plural, quotedList } from "../report/format.ts";
import { DEFAULT_WIDTH, fitTable, TableContext } from "./_table_layout.ts";
import type { AgentOrder } from "../analysis/leaderboard.ts";
import { AGENT_COLUMN, RANK_COLUMN } from "./_table_order.ts";
import {
  claimLabel,
  denominatorLine,
  flaggedLines,
  missingLines,
  withheldWords,
} from "../report/standing_words.ts";
import { displayId, lineText } from "../analysis/untrusted_text.ts";
import { type ParsedArgs, stringOption } from "./_args.ts";
import { UsageError } from "./_command.ts";
import { chooseTaskList, type LoadedLedger, type LoadedTaskList, NO_TASK_LIST } from "./_load.ts";

/** The option every analysis command takes. */
export const TASKS_OPTION = { tasks: { type: "string" } } as const;

/** Its help lines, in the layout of the commands' OPTIONS sections. */
export const TASKS_HELP =
  `  --tasks FILE        Task list, the denominator of results not run under a
                      plan (written by "import", or one task id per line):
                      per agent, missing tasks and the score over planned
                      tasks; not with --plan, whose tasks are the denominator.
                      Without --tasks and --plan, the list import wrote beside
                      the ledger (LEDGER minus .jsonl, plus .tasks.json) when
                      there is one; --tasks ${NO_TASK_LIST} declines it`;

/**
 * Reads the task list a command uses (`chooseTaskList`, cli/_load.ts):
 * `--tasks FILE`, else (without `--plan`) the list beside the ledger, noted
 * "found beside the ledger"; `--tasks none` declines it (issue 25 item 4).
 *
 * @param values the parsed options
 * @param plan the plan given with `--plan`, or null
 * @param ledger the ledger path, as given
 * @returns the loaded task list, or null
 * @throws {UsageError} when both `--plan` and `--tasks FILE` are given
 * @throws {LedgerError} when the task list cannot be read (inputs/task_list.ts)
 */
export async function taskListOption(
  values: ParsedArgs["values"],
  plan: Loaded<Plan> | null,
  ledger: string,
): Promise<LoadedTaskList | null> {
  const given = stringOption(values, "tasks");
  if (given !== undefined && given !== NO_TASK_LIST && plan !== null) refuseTwoDenominators();
  return (await chooseTaskList(ledger, given, plan !== null)).list;
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
 * are never counted missing. No finding is listed (`maxFindingsPerCode` 0):
 * no command but `validate` and the report prints them, and the standings
 * read the counts, complete at any limit; at a million rows the listed
 * findings held more memory than the rows.
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
    maxFindingsPerCode: 0,
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
 * not in it), one table row per agent (planned tasks, rows, missing, score over planned tasks,
 * resolved rate over scored episodes, the claim allowed or the cause that withholds it), a
 * note per withheld agent with the reason and rule, one per agent
 * lacking rows, and one per agent with rows verified in Harbor's shared
 * mode or resolved with a hijack flag. With an `order` (the leaderboard's), the rows and notes come in
 * leaderboard order with each agent's rank, and the table is laid out at
 * the context's width (cli/_table_layout.ts).
 *
 * @param assessment the command's claim assessment
 * @param options the output's table context and the leaderboard order; default: the default width, agents by id
 * @returns the section, ending in a newline
 */
export function standingSection(
  assessment: LoadedAssessment,
  options: { context?: TableContext; order?: AgentOrder } = {},
): string {
  const context = options.context ?? new TableContext(DEFAULT_WIDTH);
  const order = options.order;
  const ids = assessment.standings.map((s) => s.agent_id);
  const position = new Map((order?.sort(ids) ?? ids).map((id, i) => [id, i]));
  const standings = [...assessment.standings].sort((x, y) =>
    position.get(x.agent_id)! - position.get(y.agent_id)!
  );
  const coverage = new Map((assessment.coverage ?? []).map((row) => [row.agent_id, row]));
  const censoring = new Map(assessment.censoring.agents.map((row) => [row.agent_id, row]));
  let text = denominatorLine(assessment, assessment.file);
  if (assessment.denominator !== null && assessment.leftOut.length > 0) {
    text += `  not in it: ${plural(assessment.leftOut.length, "task")} left out of formal ` +
      `scores (${quotedList(assessment.leftOut.map((task) => task.task_id))}): neither ` +
      "planned nor missing\n";
  }
  text += fitTable(
    context,
    [
      ...(order === undefined ? [] : [RANK_COLUMN]),
      AGENT_COLUMN,
      { header: "planned", align: "right", priority: 3 },
      { header: "rows", align: "right", priority: 2 },
      { header: "missing", align: "right", priority: 1 },
      { header: "score over planned", align: "right", priority: 0 },
      { header: "over scored", align: "right", priority: 1 },
      { header: "claim", priority: 0 },
    ],
    standings.map((standing) => {
      const c = coverage.get(standing.agent_id);
      return [
        ...(order === undefined ? [] : [order.rank(standing.agent_id)]),
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
  for (const standing of standings) {
    const withheld = withheldWords(standing, assessment, assessment.planId);
    if (withheld === null) continue;
    text += `note: agent "${displayId(standing.agent_id)}": capability numbers withheld: ${
      lineText(withheld.reason)
    } (${withheld.rule})\n`;
  }
  return text + missingLines(assessment) + flaggedLines(assessment);
}
