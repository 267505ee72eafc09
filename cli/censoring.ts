/**
 * `ledgerbench censoring`: seed 003's two scores and one rate per agent
 * (resolved rate over scored episodes, score over completed tasks only, censoring rate,
 * tokens per success) and the claim the pre-registered policy allows.
 *
 * @module
 */
import type { CensoringClaim, CensoringRow } from "../analysis/censoring.ts";
import { denominatorRecord } from "../analysis/agent_standing.ts";
import {
  assessLoaded,
  standingSection,
  taskListOption,
  TASKS_HELP,
  TASKS_OPTION,
} from "./_standing.ts";
import { formatPercentExact } from "../analysis/format_number.ts";
import { CensoringPolicy } from "../analysis/schema/records.ts";
import { DEFAULT_CENSORING } from "../analysis/defaults.ts";
import { numberOption, parseCommandArgs, rangeText, stringOption } from "./_args.ts";
import { type Io, UsageError } from "./_command.ts";
import { configRef, loadLedger, loadPlan, pick } from "./_load.ts";
import { describeInputs, describeProblems, emit, finish } from "./_output.ts";
import { integer, NOT_RECORDED, percent, quotedList } from "../report/format.ts";
import {
  fitLines,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_HELP,
  WIDTH_OPTION,
} from "./_table_layout.ts";
import { type AgentOrder, agentOrder } from "../analysis/leaderboard.ts";
import { AGENT_COLUMN, RANK_COLUMN, RANK_NOTE } from "./_table_order.ts";
import { summarizeAgents } from "../analysis/summarize_agents.ts";
import { DEFAULT_BOOTSTRAP, DEFAULT_TIE_BAND } from "../analysis/defaults.ts";
import { claimLabel } from "../report/standing_words.ts";
import {
  HEADLINE_MAX_RANGE,
  INTERVAL_METHOD_HELP,
  INTERVAL_METHOD_OPTION,
  intervalMethodOption,
  LABELLED_MAX_RANGE,
} from "./_option_ranges.ts";
import { describeIntervalMethod } from "../analysis/rate_interval.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import { SCORE_WORDS } from "../analysis/score_words.ts";

/** `--headline-max`: the plan's `censoring.headline_max` range. */
const HEADLINE_MAX = { name: "headline-max", range: HEADLINE_MAX_RANGE };
/** `--labelled-max`: the plan's `censoring.labelled_max` range. */
const LABELLED_MAX = { name: "labelled-max", range: LABELLED_MAX_RANGE };

/** Help text, an example first. */
export const help = `Report seed 003's honest summary of a capped run, per agent and pooled: the
resolved rate over scored episodes (a lower bound: a censored episode counts
as not resolved; column "over scored"), the score over completed tasks only
("over completed"), the censoring rate (scored episodes stopped by a cap, a
rate limit or an error), tokens per success, and the claim the censoring
policy allows: under 2% a headline, 2% to 10% both scores labelled, above 10%
budget adequacy only.
Invalid episodes are counted and left out of every figure.
Agents come in leaderboard order (issue 25): rank = 1 + the agents whose
numbers may be stated that beat it by seed 001's rule (compare's verdicts),
so overlapping agents share a rank; withheld agents and agents that resolved
nothing are listed last, unranked, each marked with its claim. Tables fit
the width (--width): long ids keep their head and real tail and are listed
in full once, and columns that do not fit move to a second table.

Censoring of the synthetic example under its plan's policy:
  deno task ledgerbench censoring ledgers/examples/synthetic_ledger.jsonl \\
    --plan ledgers/examples/synthetic_plan.json

USAGE:
  deno task ledgerbench censoring LEDGER [OPTIONS]

OPTIONS:
  --plan FILE         Frozen plan: its "censoring" thresholds
  --headline-max X    Highest censoring rate allowing a headline, exclusive;
                      ${rangeText(HEADLINE_MAX.range)}, at most --labelled-max
                      (default: the plan's, else ${DEFAULT_CENSORING.headline_max})
  --labelled-max X    Highest censoring rate allowing both scores labelled,
                      inclusive; ${rangeText(LABELLED_MAX.range)}
                      (default: the plan's, else ${DEFAULT_CENSORING.labelled_max})
${TASKS_HELP}
${INTERVAL_METHOD_HELP}
                      (recorded; the claims compare rates with thresholds)
  --errata FILE       Apply the corrections of an errata file first
  --lenient           Report every bad line instead of stopping at the first;
                      the rows not used are listed and the exit status is 2
${WIDTH_HELP}
  --json              Canonical JSON instead of tables
  -h, --help          This help
`;

const OPTIONS = {
  ...TASKS_OPTION,
  ...WIDTH_OPTION,
  ...INTERVAL_METHOD_OPTION,
  plan: { type: "string" },
  "headline-max": { type: "string" },
  "labelled-max": { type: "string" },
  errata: { type: "string" },
  lenient: { type: "boolean" },
} as const;

const CLAIMS: Record<string, string> = {
  headline: "headline score, with stop reasons linked",
  both_labelled: "both scores, labelled lower bound and completed-only",
  budget_adequacy_only: "budget adequacy only; no capability headline",
};

/** Runs `censoring`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const headline = numberOption(values, HEADLINE_MAX);
  const labelled = numberOption(values, LABELLED_MAX);
  const lenient = values.lenient === true;
  const width = outputWidth(values);
  const planPath = stringOption(values, "plan");
  const plan = planPath === undefined ? null : await loadPlan(planPath);
  const taskList = await taskListOption(values, plan, positionals[0]);
  const loaded = await loadLedger(positionals[0], {
    errata: stringOption(values, "errata"),
    lenient,
  });
  const headlineParam = pick(
    { flag: headline, plan: plan?.value.censoring.headline_max },
    DEFAULT_CENSORING.headline_max,
  );
  const labelledParam = pick(
    { flag: labelled, plan: plan?.value.censoring.labelled_max },
    DEFAULT_CENSORING.labelled_max,
  );
  const parsed = CensoringPolicy.safeParse({
    headline_max: headlineParam.value,
    labelled_max: labelledParam.value,
  });
  if (!parsed.success) {
    throw new UsageError(
      `Censoring thresholds: "headline_max" ${headlineParam.value} must not exceed ` +
        `"labelled_max" ${labelledParam.value}`,
    );
  }
  const policy = parsed.data;
  const methodParam = intervalMethodOption(values, plan?.value ?? null);
  const assessment = assessLoaded(loaded, plan, taskList, policy);
  const result = assessment.censoring;
  const standings = new Map(assessment.standings.map((s) => [s.agent_id, s]));
  const payload = {
    command: "censoring",
    ledger: loaded.ledger,
    errata: loaded.errata,
    plan: configRef(plan, (p) => ({ plan_id: p.plan_id })),
    task_list: configRef(taskList, (t) => ({ tasks: t.tasks.length })),
    parameters: {
      headline_max: policy.headline_max,
      headline_max_source: headlineParam.source,
      labelled_max: policy.labelled_max,
      labelled_max_source: labelledParam.source,
      interval_method: methodParam.value,
      interval_method_source: methodParam.source,
      lenient,
    },
    problems: loaded.problems,
    censoring: result,
    denominator: denominatorRecord(assessment),
    coverage: assessment.coverage,
    standings: assessment.standings,
    invalid: assessment.invalid,
    pooled: assessment.pooled,
  };
  emit(io, {
    json: values.json === true,
    payload,
    render: () => {
      let text = "Censoring (seed 003)\n\n";
      text += describeInputs(loaded, [["plan", plan], ["task list", taskList]]);
      text +=
        `policy: headline below ${
          formatPercentExact(policy.headline_max, { minDigits: 1 })
        } (${headlineParam.source}), ` +
        `both scores labelled up to ${
          formatPercentExact(policy.labelled_max, { minDigits: 1 })
        } (${labelledParam.source}), ` +
        `above: budget adequacy only\n`;
      text += `interval: ${describeIntervalMethod(methodParam.value)} (${methodParam.source}); ` +
        "the claims compare rates with the thresholds and use no interval\n\n";
      // The leaderboard order (issue 25), by the verdicts `compare` gives under the plan's settings.
      const order = agentOrder(summarizeAgents(loaded.rows), assessment, {
        settings: {
          band: plan?.value.tie_band ?? DEFAULT_TIE_BAND,
          rounds: plan?.value.bootstrap.rounds ?? DEFAULT_BOOTSTRAP.rounds,
          seed: plan?.value.bootstrap.seed ?? DEFAULT_BOOTSTRAP.seed,
          method: methodParam.value,
        },
      });
      const context = new TableContext(width);
      const rows = [...sortRows(result.agents, order), result.overall];
      const rank = (r: CensoringRow) => r.agent_id === "*" ? "" : order.rank(r.agent_id);
      text += fitTable(
        context,
        [
          RANK_COLUMN,
          AGENT_COLUMN,
          { header: "scored", align: "right", priority: 3 },
          { header: "invalid", align: "right", priority: 3 },
          { header: "completed", align: "right", priority: 2 },
          { header: "censored", align: "right", priority: 2 },
          { header: "over scored", align: "right", priority: 0 },
          { header: "over completed", align: "right", priority: 1 },
          { header: "censoring", align: "right", priority: 0 },
          { header: "tokens/success", align: "right", priority: 4 },
          { header: "claim", priority: 0 },
        ],
        rows.map((r) => [
          rank(r),
          r.agent_id === "*" ? "(all)" : r.agent_id,
          String(r.scored),
          String(r.invalid),
          String(r.completed),
          String(r.censored),
          percent(r.score_all_tasks),
          percent(r.score_completed_only),
          percent(r.censoring_rate, 2),
          r.tokens_per_success === null
            ? r.passed > 0 && r.tokens === null ? NOT_RECORDED : "-"
            : integer(r.tokens_per_success),
          claimLabel(r.agent_id === "*" ? assessment.pooled : standings.get(r.agent_id)!),
        ]),
      );
      text += RANK_NOTE;
      text += "\nStop reasons of scored episodes:\n" + stopReasonTable(context, rows, rank);
      text += "\n" + standingSection(assessment, { context, order });
      text +=
        "\nWhat each may claim (every rate together: invalid, censoring, judge faults, missing):\n";
      for (const r of rows) {
        const standing = standings.get(r.agent_id);
        // withheld for censoring or missing tasks: budget adequacy may still be discussed
        const pooled = r.agent_id === "*";
        const own = pooled ? assessment.pooled : standing;
        const claim = own?.withheld === "validation" ? null : own?.claim ?? null;
        const name = pooled ? "all agents pooled" : `agent "${displayId(r.agent_id)}"`;
        const words = claim !== null
          ? CLAIMS[claim] + claimDetail(r, claim)
          : r.claim === null
          ? "nothing scored"
          : "nothing may be stated (the ledger does not validate; see the note above)";
        const weakest = pooled && assessment.pooled.withheld_agents.length > 0
          ? ` (never more than its weakest agent: ${
            quotedList(assessment.pooled.withheld_agents)
          } withheld)`
          : "";
        text += `  ${name}: ${words}${weakest}\n`;
      }
      text += describeProblems(loaded.problems);
      return fitLines(text, width);
    },
  });
  return finish(io, loaded);
}

function claimDetail(r: CensoringRow, claim: CensoringClaim): string {
  if (claim !== "both_labelled") return "";
  return ` (${SCORE_WORDS.scored} ${percent(r.score_all_tasks)}, a lower bound; ` +
    `${SCORE_WORDS.completed} ${percent(r.score_completed_only)})`;
}

/** The agents' rows in leaderboard order. */
function sortRows(rows: readonly CensoringRow[], order: AgentOrder): CensoringRow[] {
  const byId = new Map(rows.map((r) => [r.agent_id, r]));
  return order.sort(rows.map((r) => r.agent_id)).map((id) => byId.get(id)!);
}

function stopReasonTable(
  context: TableContext,
  rows: CensoringRow[],
  rank: (r: CensoringRow) => string,
): string {
  const reasons = Object.keys(rows[0].stop_reasons);
  return fitTable(
    context,
    [
      RANK_COLUMN,
      AGENT_COLUMN,
      ...reasons.map((reason) => ({ header: reason, align: "right" as const })),
    ],
    rows.map((r) => [
      rank(r),
      r.agent_id === "*" ? "(all)" : r.agent_id,
      ...reasons.map((reason) => String(r.stop_reasons[reason as keyof typeof r.stop_reasons])),
    ]),
  );
}
