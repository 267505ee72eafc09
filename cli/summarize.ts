/**
 * `ledgerbench summarize`: seed 001's per-agent columns (resolved rate with
 * its percentile bootstrap interval, tokens and seconds per resolved, cost per
 * resolved through a frozen price table) and seed 000's lane-weighted score.
 *
 * @module
 */
import { type AgentSummary, summarizeAgents } from "../analysis/summarize_agents.ts";
import {
  type PerResolvedUncertainty,
  perResolvedUncertainty,
  type RatioEstimate,
} from "../analysis/per_resolved_uncertainty.ts";
import type { WilsonInterval } from "../analysis/wilson_interval.ts";
import {
  type CoverageWarning,
  describeIntervalMethod,
  type MethodRateInterval,
  rateInterval,
} from "../analysis/rate_interval.ts";
import { DEFAULT_BOOTSTRAP, DEFAULT_TIE_BAND } from "../analysis/defaults.ts";
import { numberOption, parseCommandArgs, rangeText, seedOption, stringOption } from "./_args.ts";
import type { Io } from "./_command.ts";
import {
  configRef,
  type LoadedConfig,
  loadLedger,
  loadPlan,
  loadPriceTable,
  pick,
} from "./_load.ts";
import { describeInputs, describeProblems, emit, finish } from "./_output.ts";
import {
  AGENT_REPORTED,
  fixed,
  integer,
  NOT_RECORDED,
  percent,
  percentInterval,
  plural,
  tokensText,
} from "../report/format.ts";
import {
  type FitColumn,
  fitLines,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_HELP,
  WIDTH_OPTION,
} from "./_table_layout.ts";
import { type AgentOrder, agentOrder } from "../analysis/leaderboard.ts";
import { AGENT_COLUMN, RANK_COLUMN, RANK_NOTE } from "./_table_order.ts";
import type {
  CensoringPolicy,
  Episode,
  Plan,
  PriceTable,
  StopReason,
} from "../analysis/schema/records.ts";
import { type AgentStanding, denominatorRecord } from "../analysis/agent_standing.ts";
import {
  assessLoaded,
  standingSection,
  taskListOption,
  TASKS_HELP,
  TASKS_OPTION,
} from "./_standing.ts";
import {
  BOOTSTRAP_ROUNDS_RANGE,
  INTERVAL_METHOD_HELP,
  INTERVAL_METHOD_OPTION,
  intervalMethodOption,
} from "./_option_ranges.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import { SCORE_WORDS } from "../analysis/score_words.ts";
import type { JudgeFigures, LeftOutTask } from "../analysis/judge/judge_rows.ts";
import type { AgentJudgeFaults } from "../analysis/judge/judge_faults.ts";
import { formatPercentExact } from "../analysis/format_number.ts";
import { CLAIM_SHORT_WORDS, claimLabel } from "../report/standing_words.ts";

/** `--rounds`: the plan's `bootstrap.rounds` range. */
const ROUNDS = { name: "rounds", range: BOOTSTRAP_ROUNDS_RANGE };

/** Help text, an example first. */
export const help = `Summarize a ledger per agent (seed 001): episodes, invalid rate, resolved
rate with its 95% percentile bootstrap interval, tokens per resolved (TPR, all
tokens of scored attempts, failed ones included), seconds per resolved (SPR),
cost per resolved through a frozen price table, and seed 000's lane-weighted
score when the plan gives lane weights. Beside the resolved rate, how many
scored episodes are censored (seed 003: stopped by rate_limited, a cap or an
error, not completed); the rate counts them as the ledger scores them, and
"censoring" gives the score over completed tasks only. Rows whose LLM
judge was not calibrated are recorded but left out of every figure (seed 000,
issue 14): their tasks are listed with their rows and the reason, are neither
planned nor missing, and a judge section gives the judge's own figures. TPR,
SPR and cost per resolved carry 95% intervals that resample tasks (each with
all its attempts), and each agent the share of task-paired resamples in which
it is on the cost frontier (issue 23; JSON: per_resolved).
Agents come in leaderboard order (issue 25): rank = 1 + the agents whose
numbers may be stated that beat it by seed 001's rule (compare's verdicts),
so overlapping agents share a rank; withheld agents and agents that resolved
nothing are listed last, unranked, each marked with its claim. Tables fit
the width (--width): long ids keep their head and real tail and are listed
in full once, and columns that do not fit move to a second table.

Summarize the seed-001 sample:
  deno task ledgerbench summarize ledgers/examples/sample_ledger.jsonl

With errata, a plan and a price table, as JSON:
  deno task ledgerbench summarize ledgers/examples/synthetic_ledger.jsonl \\
    --errata ledgers/examples/synthetic_errata.jsonl \\
    --plan ledgers/examples/synthetic_plan.json \\
    --price-table ledgers/examples/price_table.json --json

USAGE:
  deno task ledgerbench summarize LEDGER [OPTIONS]

OPTIONS:
  --errata FILE       Apply the corrections of an errata file (the ledger is
                      never rewritten; the output lists every correction)
  --plan FILE         Frozen plan: lane weights and bootstrap defaults
  --price-table FILE  Frozen price table: cost and cost per resolved
${TASKS_HELP}
  --rounds N          Bootstrap rounds, ${rangeText(ROUNDS.range)} (default: the
                      plan's, else ${DEFAULT_BOOTSTRAP.rounds})
  --seed S            Bootstrap seed: an integer (007 is 7) or any other text
                      (default: the plan's, else ${DEFAULT_BOOTSTRAP.seed})
${INTERVAL_METHOD_HELP}
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
  errata: { type: "string" },
  plan: { type: "string" },
  "price-table": { type: "string" },
  rounds: { type: "string" },
  seed: { type: "string" },
  lenient: { type: "boolean" },
} as const;

/** An agent's summary with its rate interval. */
export interface SummarizedAgent extends AgentSummary {
  /** The rate's 95% interval by the interval method; null when nothing was scored. */
  interval: MethodRateInterval["interval"];
  /** Wilson 95% interval, only beside a collapsed bootstrap interval. */
  wilson: WilsonInterval | null;
  /** The percentile bootstrap's coverage warning and the Wilson interval beside it; else null. */
  coverage_warning: CoverageWarning | null;
  /**
   * Scored episodes whose stop reason is not `completed` (seed 003's
   * censored rows, `censoringSummary`): in `scored` and the resolved rate as
   * the ledger scores them (issue 9, item 10: 429s under `halt` read as
   * plain failures otherwise).
   */
  censored: number;
  /** `censored` per stop reason, only the reasons that occur, in the enum's order. */
  censored_stop_reasons: Partial<Record<StopReason, number>>;
  /**
   * The rows whose prompts the provider billed beyond the relay's bound of
   * them, and those tokens summed (`evidence.prompt_bound_excess`: by as much
   * the rows' tokens may pass their token cap); 0 and 0 when none.
   */
  prompt_bound_excess: { rows: number; tokens: number };
}

/** Runs `summarize`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const rounds = numberOption(values, ROUNDS);
  const seed = seedOption(values);
  const lenient = values.lenient === true;
  const width = outputWidth(values);
  const planPath = stringOption(values, "plan");
  const pricePath = stringOption(values, "price-table");
  const plan: LoadedConfig<Plan> | null = planPath === undefined ? null : await loadPlan(planPath);
  const prices: LoadedConfig<PriceTable> | null = pricePath === undefined
    ? null
    : await loadPriceTable(pricePath);
  const taskList = await taskListOption(values, plan, positionals[0]);
  const loaded = await loadLedger(positionals[0], {
    errata: stringOption(values, "errata"),
    lenient,
  });
  const assessment = assessLoaded(loaded, plan, taskList);
  const roundsParam = pick(
    { flag: rounds, plan: plan?.value.bootstrap.rounds },
    DEFAULT_BOOTSTRAP.rounds,
  );
  const seedParam = pick({ flag: seed, plan: plan?.value.bootstrap.seed }, DEFAULT_BOOTSTRAP.seed);
  const methodParam = intervalMethodOption(values, plan?.value ?? null);
  const laneWeights = plan !== null && Object.keys(plan.value.lane_weights).length > 0
    ? plan.value.lane_weights
    : undefined;
  const censoring = new Map(assessment.censoring.agents.map((row) => [row.agent_id, row]));
  const excess = promptBoundExcess(loaded.rows);
  const agents: SummarizedAgent[] = summarizeAgents(loaded.rows, {
    priceTable: prices?.value,
    laneWeights,
  }).map((agent) => {
    const { interval, wilson, coverage_warning } = rateInterval(agent.resolved, agent.scored, {
      method: methodParam.value,
      rounds: roundsParam.value,
      seed: seedParam.value,
    });
    const stops = censoring.get(agent.agent_id)!.stop_reasons;
    const censoredStops = Object.fromEntries(
      Object.entries(stops).filter(([reason, count]) => reason !== "completed" && count > 0),
    );
    return {
      ...agent,
      interval,
      wilson,
      coverage_warning,
      censored: censoring.get(agent.agent_id)!.censored,
      censored_stop_reasons: censoredStops,
      prompt_bound_excess: excess.get(agent.agent_id) ?? { rows: 0, tokens: 0 },
    };
  });
  // Task-cluster intervals of TPR, SPR and cost per resolved, and the frontier share over the
  // agents whose claims stand (the report's set), with the same bootstrap (issue 23).
  const perResolved = perResolvedUncertainty(loaded.rows, {
    rounds: roundsParam.value,
    seed: seedParam.value,
    priceTable: prices?.value,
    agents: agents.map((a) => a.agent_id),
    frontierAgents: assessment.standings.filter((s) => s.withheld === null).map((s) => s.agent_id),
  });
  // The leaderboard order of every table below (issue 25), by the verdicts `compare` gives.
  const order = agentOrder(agents, assessment, {
    settings: {
      band: plan?.value.tie_band ?? DEFAULT_TIE_BAND,
      rounds: roundsParam.value,
      seed: seedParam.value,
      method: methodParam.value,
    },
  });
  const payload = {
    command: "summarize",
    ledger: loaded.ledger,
    errata: loaded.errata,
    plan: configRef(plan, (p) => ({ plan_id: p.plan_id })),
    price_table: configRef(prices, (t) => ({ price_table_id: t.price_table_id })),
    task_list: configRef(taskList, (t) => ({ tasks: t.tasks.length })),
    parameters: {
      bootstrap: {
        rounds: roundsParam.value,
        rounds_source: roundsParam.source,
        seed: seedParam.value,
        seed_source: seedParam.source,
      },
      interval_method: methodParam.value,
      interval_method_source: methodParam.source,
      lane_weights: laneWeights ?? null,
      lenient,
    },
    problems: loaded.problems,
    agents,
    per_resolved: perResolved,
    denominator: denominatorRecord(assessment),
    coverage: assessment.coverage,
    standings: assessment.standings,
    invalid: assessment.invalid,
    pooled: assessment.pooled,
    // Only with judged rows (issue 14): a ledger without them keeps its bytes. Each agent's
    // judge-fault rate and the claim it allows (issue 21) beside the judge's figures.
    ...(loaded.judge === null
      ? {}
      : { judge: loaded.judge, judge_faults: assessment.judge_faults }),
  };
  emit(io, {
    json: values.json === true,
    payload,
    render: () => {
      let text = "Per-agent summary (seed 001)\n\n";
      text += describeInputs(loaded, [["plan", plan], ["price table", prices], [
        "task list",
        taskList,
      ]]);
      const r = roundsParam.value;
      text += `interval: ${describeIntervalMethod(methodParam.value)} (${methodParam.source})\n`;
      if (methodParam.value === "percentile-bootstrap") {
        text += `bootstrap: ${r} rounds (${roundsParam.source}), seed ${seedParam.value} ` +
          `(${seedParam.source}); 95% percentile interval, sorted indices ` +
          `${Math.floor(0.025 * r)} and ${Math.floor(0.975 * r)}\n`;
      }
      text += "\n";
      const context = new TableContext(width);
      const sorted = sortAgents(agents, order);
      text += agentTable(context, sorted, assessment.standings, order);
      text += "\n" + perResolvedTable(context, perResolved, order);
      if (agents.some((agent) => agent.cost !== null)) {
        text += "\n" + costTable(context, sorted, order);
      }
      if (agents.some((agent) => agent.lane_score !== null)) {
        text += "\n" + laneTable(context, sorted, order);
      }
      text += "\n" + standingSection(assessment, { context, order });
      if (loaded.judge !== null) {
        text += "\n" + judgeSection(context, loaded.judge, loaded.left_out);
        text += judgeFaultSection(
          context,
          assessment.judge_faults,
          assessment.judge_fault_policy,
          order,
        );
      }
      text += notes(sorted);
      text += describeProblems(loaded.problems);
      return fitLines(text, width);
    },
  });
  return finish(io, loaded);
}

/** The agents in leaderboard order (`agentOrder`). */
function sortAgents<T extends { agent_id: string }>(agents: readonly T[], order: AgentOrder): T[] {
  const byId = new Map(agents.map((agent) => [agent.agent_id, agent]));
  return order.sort(agents.map((agent) => agent.agent_id)).map((id) => byId.get(id)!);
}

/**
 * The per-agent table, in leaderboard order with each agent's rank
 * (issue 25); its last column is the claim each agent may carry
 * (`claimLabel`), so a withheld agent's rate and interval are marked where
 * they are printed (issue 23). The rate, its interval and the claim never
 * leave the table; the counts move to a second table first when it is too
 * wide (cli/_table_layout.ts).
 */
function agentTable(
  context: TableContext,
  agents: SummarizedAgent[],
  standings: readonly AgentStanding[],
  order: AgentOrder,
): string {
  const claims = new Map(standings.map((s) => [s.agent_id, claimLabel(s)]));
  return fitTable(
    context,
    [
      RANK_COLUMN,
      AGENT_COLUMN,
      { header: "episodes", align: "right", priority: 3 },
      { header: "invalid", align: "right", priority: 3 },
      { header: "resolved", align: "right", priority: 2 },
      { header: "rate", align: "right", priority: 0 },
      { header: "95% interval", align: "right", priority: 0 },
      { header: "censored", align: "right", priority: 4 },
      { header: "tokens", align: "right", priority: 6 },
      { header: "TPR", align: "right", priority: 6 },
      { header: "SPR (s)", align: "right", priority: 6 },
      { header: "claim", priority: 0 },
    ],
    agents.map((a) => [
      order.rank(a.agent_id),
      a.agent_id,
      String(a.episodes),
      a.invalid === 0 ? "0" : `${a.invalid} (${percent(a.invalid_rate)})`,
      `${a.resolved}/${a.scored}`,
      percent(a.resolved_rate),
      a.interval === null ? "-" : percentInterval([a.interval.lower, a.interval.upper]),
      String(a.censored),
      tokensText(a),
      a.tokens === null
        ? tokensText(a)
        : fixed(a.tpr) + (a.tpr !== null && a.agent_reported_token_rows > 0 ? AGENT_REPORTED : ""),
      a.wall_seconds === null ? a.rows_without_wall > 0 ? NOT_RECORDED : "-" : fixed(a.spr),
      claims.get(a.agent_id) ?? "-",
    ]),
  ) + RANK_NOTE;
}

/**
 * TPR, SPR and cost per resolved with their task-cluster 95% intervals, and
 * the share of task-paired resamples on the cost frontier (a stability
 * figure, not the chance of being the best agent).
 */
function perResolvedTable(
  context: TableContext,
  u: PerResolvedUncertainty,
  order: AgentOrder,
): string {
  const cell = (r: RatioEstimate, digits: number) =>
    r.null_reason !== null
      ? r.null_reason.replaceAll("_", " ")
      : `${fixed(r.estimate, digits)} [${fixed(r.lo, digits)}, ${
        r.hi === null ? "unbounded" : fixed(r.hi, digits)
      }]`;
  const priced = u.frontier.measure === "money";
  const columns: FitColumn[] = [
    RANK_COLUMN,
    AGENT_COLUMN,
    { header: "tasks", align: "right", priority: 2 },
    { header: "TPR [95%]", align: "right" },
    { header: "SPR (s) [95%]", align: "right" },
    ...(priced ? [{ header: "cost/resolved [95%]", align: "right" as const }] : []),
    { header: "on frontier", align: "right" },
  ];
  return `95% intervals: the tasks resampled, each with all its attempts (${u.rounds} rounds, ` +
    `seed ${u.seed})\non frontier: share of task-paired resamples on the ${
      priced ? "cost" : "tokens"
    } frontier (how stable, not the chance of being best)\n` + fitTable(
      context,
      columns,
      sortAgents(u.agents, order).map((a) => [
        order.rank(a.agent_id),
        a.agent_id,
        String(a.tasks),
        cell(a.tokens_per_resolved, 2),
        cell(a.seconds_per_resolved, 2),
        ...(priced ? [cell(a.cost_per_resolved, 4)] : []),
        a.frontier_probability === null
          ? a.frontier_null_reason!.replaceAll("_", " ")
          : percent(a.frontier_probability),
      ]),
    );
}

function costTable(context: TableContext, agents: SummarizedAgent[], order: AgentOrder): string {
  return fitTable(
    context,
    [
      RANK_COLUMN,
      AGENT_COLUMN,
      { header: "price table", priority: 2 },
      { header: "cost", align: "right" },
      { header: "cost/resolved", align: "right" },
      { header: "invalid cost", align: "right" },
    ],
    agents.map((a) => [
      order.rank(a.agent_id),
      a.agent_id,
      a.cost?.price_table_id ?? "-",
      a.cost === null ? "-" : `${fixed(a.cost.cost, 4)} ${a.cost.currency}`,
      a.cost === null ? "-" : fixed(a.cost.cost_per_resolved, 4),
      a.cost === null ? "-" : fixed(a.cost.invalid_cost, 4),
    ]),
  );
}

function laneTable(context: TableContext, agents: SummarizedAgent[], order: AgentOrder): string {
  const rows: string[][] = [];
  for (const a of agents) {
    if (a.lane_score === null) continue;
    const s = a.lane_score;
    for (const lane of s.lanes) {
      rows.push([
        order.rank(a.agent_id),
        a.agent_id,
        lane.lane,
        lane.weight === null ? "-" : String(lane.weight),
        `${lane.resolved}/${lane.scored}`,
        percent(lane.pass_rate),
        fixed(lane.points),
      ]);
    }
    rows.push([
      order.rank(a.agent_id),
      a.agent_id,
      "(score)",
      String(s.max_score),
      "",
      "",
      s.score === null ? "-" : `${fixed(s.score)} of ${s.max_score}`,
    ]);
  }
  return "Lane-weighted score (seed 000: sum of weight x lane pass rate):\n" + fitTable(
    context,
    [
      RANK_COLUMN,
      AGENT_COLUMN,
      { header: "lane" },
      { header: "weight", align: "right" },
      { header: "resolved", align: "right" },
      { header: "pass rate", align: "right" },
      { header: "points", align: "right" },
    ],
    rows,
  );
}

/**
 * The LLM judge's figures over every judged row, left-out rows included
 * (issue 14): its rows and how many a calibrated judge gave, the
 * judge-invalid rate (`judge_fault` rows over judged rows), the mean total,
 * its own calls and tokens (never an agent's), and per task its rows,
 * faults, passes, fails and whether formal scores count it.
 */
function judgeSection(
  context: TableContext,
  judge: JudgeFigures,
  leftOut: readonly LeftOutTask[],
): string {
  const left = new Set(leftOut.map((task) => task.task_id));
  let text = `LLM judge (issue 14): ${plural(judge.rows, "judge-verified row")}, ` +
    `${integer(judge.calibrated_rows)} of them by a calibrated judge\n`;
  text += `  judge-invalid rate: ${percent(judge.judge_invalid_rate)} (${
    plural(judge.judge_faults, "judge_fault row")
  } of ${integer(judge.rows)})\n`;
  text += `  mean total: ${
    judge.mean_total === null ? "none (no row has a total)" : `${fixed(judge.mean_total)} of 100`
  }\n`;
  text += `  the judge's own spend (never in an agent's tokens): ${
    plural(judge.judge_model_calls, "model call")
  }, ${integer(judge.judge_prompt_tokens)} prompt and ${
    integer(judge.judge_completion_tokens)
  } completion tokens\n`;
  return text + fitTable(
    context,
    [
      { header: "task", id: true, key: true },
      { header: "judged rows", align: "right" },
      { header: "judge_fault", align: "right" },
      { header: "passed", align: "right" },
      { header: "failed", align: "right" },
      { header: "formal scores" },
    ],
    judge.by_task.map((task) => [
      task.task_id,
      String(task.rows),
      String(task.judge_faults),
      String(task.passed),
      String(task.failed),
      left.has(task.task_id) ? "left out" : "counted",
    ]),
  );
}

/**
 * Each agent's judge-fault rate over its counted judged rows (issue 21,
 * `agentJudgeFaults`): faults, rate, the claim the censoring thresholds
 * allow for it, and the resolved rate with every fault counted as a
 * failure (a lower bound); empty when no counted row was judged.
 */
function judgeFaultSection(
  context: TableContext,
  rows: readonly AgentJudgeFaults[],
  policy: CensoringPolicy,
  order: AgentOrder,
): string {
  if (rows.length === 0) return "";
  return `judge faults per agent (issue 21: held to the plan's judge_fault_policy, else its censoring thresholds: headline under ${
    formatPercentExact(policy.headline_max)
  }, both labelled up to ${
    formatPercentExact(policy.labelled_max)
  }; a fault is left out of every score, so a high rate limits the agent's claim):\n` +
    fitTable(
      context,
      [
        RANK_COLUMN,
        AGENT_COLUMN,
        { header: "judged rows", align: "right", priority: 2 },
        { header: "judge_fault", align: "right", priority: 2 },
        { header: "rate", align: "right", priority: 0 },
        { header: "claim", priority: 0 },
        { header: "resolved, faults as failures", align: "right" },
      ],
      sortAgents(rows, order).map((row) => [
        order.rank(row.agent_id),
        row.agent_id,
        String(row.judged),
        String(row.judge_faults),
        percent(row.judge_fault_rate),
        CLAIM_SHORT_WORDS[row.claim!],
        `${percent(row.resolved_rate_faults_as_failures)} (${row.resolved}/${
          row.scored + row.judge_faults
        })`,
      ]),
    );
}

function notes(agents: SummarizedAgent[]): string {
  let text = "";
  // One line, not one per agent, when no row of any agent recorded tokens or times (issue 25).
  const noneRecorded = agents.length > 1 &&
    agents.every((a) => a.rows_without_tokens === a.episodes && a.rows_without_wall === a.episodes);
  if (noneRecorded) {
    text += `note: no agent's rows recorded tokens or wall time (${
      plural(agents.reduce((sum, a) => sum + a.episodes, 0), "row")
    }): no TPR, SPR or cost is computed, never a zero\n`;
  }
  for (const a of agents) {
    if (!noneRecorded && (a.rows_without_tokens > 0 || a.rows_without_wall > 0)) {
      const what = [
        a.rows_without_tokens > 0 ? `tokens on ${a.rows_without_tokens}` : "",
        a.rows_without_wall > 0 ? `wall time on ${a.rows_without_wall}` : "",
      ].filter((part) => part !== "").join(" and ");
      text += `note: agent "${displayId(a.agent_id)}": ${what} of ${a.episodes} rows not ` +
        "recorded: no TPR, SPR or cost is computed from them, never a zero\n";
    }
    if (a.scored > 0 && a.resolved === 0) {
      text += `note: agent "${displayId(a.agent_id)}" resolved nothing: it has no TPR and no SPR ` +
        `(seed 001: report the failure, no ranking)\n`;
    }
    if (a.scored === 0) {
      text += `note: agent "${
        displayId(a.agent_id)
      }" has no scored episode (all ${a.invalid} invalid)\n`;
    }
    if (a.censored > 0) {
      const reasons = Object.entries(a.censored_stop_reasons)
        .map(([reason, count]) => `${reason} ${count}`).join(", ");
      text +=
        `note: agent "${
          displayId(a.agent_id)
        }": ${a.censored} of ${a.scored} scored episodes are ` +
        `censored (${reasons}): the resolved rate counts them as scored; "censoring" gives the ` +
        `${SCORE_WORDS.completed} and the claim allowed (seed 003)\n`;
    }
    if (a.wilson !== null) {
      text +=
        `note: agent "${displayId(a.agent_id)}": the bootstrap interval collapsed to a point ` +
        `(rate ${percent(a.resolved_rate)}); Wilson 95% interval ` +
        `${percentInterval([a.wilson.lower, a.wilson.upper])}\n`;
    }
    if (a.prompt_bound_excess.rows > 0) {
      text +=
        `warning: agent "${displayId(a.agent_id)}": on ${
          plural(a.prompt_bound_excess.rows, "row")
        } the provider billed ${a.prompt_bound_excess.tokens} prompt tokens beyond the relay's ` +
        "bound of them, by which their tokens may pass the token cap (validate --plan: " +
        "prompt_bound_exceeded)\n";
    }
    if (a.coverage_warning !== null) {
      const w = a.coverage_warning.wilson;
      text += `warning: agent "${displayId(a.agent_id)}" (${a.resolved}/${a.scored}): ` +
        `${a.coverage_warning.reason}; Wilson 95% interval ${
          percentInterval([w.lower, w.upper])
        }\n`;
    }
    const lanes = a.lane_score;
    if (lanes !== null && lanes.score === null) {
      const parts = [];
      if (lanes.missing_lanes.length > 0) {
        parts.push(`no scored episode in lane ${lanes.missing_lanes.map(quote).join(", ")}`);
      }
      if (lanes.unweighted_lanes.length > 0) {
        parts.push(`no weight for lane ${lanes.unweighted_lanes.map(quote).join(", ")}`);
      }
      text += `note: agent "${displayId(a.agent_id)}" has no lane score: ${parts.join("; ")}\n`;
    }
  }
  return text === "" ? "" : "\n" + text;
}

/**
 * Per agent, the rows with a prompt bound excess and its sum
 * (`evidence.prompt_bound_excess`, the relay's bound's error; seed 003: a
 * cap that was passed is said, not hidden). O(rows).
 */
function promptBoundExcess(
  rows: Iterable<Episode>,
): Map<string, { rows: number; tokens: number }> {
  const out = new Map<string, { rows: number; tokens: number }>();
  for (const row of rows) {
    const tokens = row.evidence?.prompt_bound_excess ?? 0;
    if (tokens === 0) continue;
    const sum = out.get(row.agent_id) ?? { rows: 0, tokens: 0 };
    out.set(row.agent_id, { rows: sum.rows + 1, tokens: sum.tokens + tokens });
  }
  return out;
}

function quote(text: string): string {
  return `"${text}"`;
}
