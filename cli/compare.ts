/**
 * `ledgerbench compare`: seed 001's conservative comparison rule for two
 * agents, or as a pairwise matrix for more, and optionally the paired
 * comparison over the tasks both agents attempted.
 *
 * @module
 */
import { compareAgents, type Comparison, comparisonMatrix } from "../analysis/compare_agents.ts";
import { formatPercentExact } from "../analysis/format_number.ts";
import {
  type PairedComparison,
  pairedComparisons,
  type TaskRule,
} from "../analysis/paired_comparison.ts";
import { type PairwisePValues, pairwisePValues } from "../analysis/pairwise_p_values.ts";
import { type AgentSummary, summarizeAgents } from "../analysis/summarize_agents.ts";
import { DEFAULT_BOOTSTRAP, DEFAULT_TIE_BAND } from "../analysis/defaults.ts";
import {
  choiceOption,
  nameListOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  seedOption,
  stringOption,
} from "./_args.ts";
import { type Io, UsageError } from "./_command.ts";
import {
  type AgentStanding,
  denominatorRecord,
  type WithheldPairGroup,
  withheldPairGroups,
} from "../analysis/agent_standing.ts";
import {
  claimLabel,
  denominatorLine,
  notRecordedFor,
  withheldPairWords,
} from "../report/standing_words.ts";
import {
  assessLoaded,
  type LoadedAssessment,
  taskListOption,
  TASKS_HELP,
  TASKS_OPTION,
} from "./_standing.ts";
import { configRef, loadLedger, loadPlan, pick } from "./_load.ts";
import { describeInputs, describeProblems, emit, finish } from "./_output.ts";
import { fixed, NOT_RECORDED, percent, percentInterval, pValue } from "../report/format.ts";
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
import {
  BOOTSTRAP_ROUNDS_RANGE,
  INTERVAL_METHOD_HELP,
  INTERVAL_METHOD_OPTION,
  intervalMethodOption,
  TIE_BAND_RANGE,
} from "./_option_ranges.ts";
import { describeIntervalMethod } from "../analysis/rate_interval.ts";
import { displayId } from "../analysis/untrusted_text.ts";

/** Explaining every stated pair is the default up to this many pairs (four agents). */
const PAIR_LINES_MAX = 6;

/** `--band`: the plan's `tie_band` range. */
const BAND = { name: "band", range: TIE_BAND_RANGE };
/** `--rounds`: the plan's `bootstrap.rounds` range. */
const ROUNDS = { name: "rounds", range: BOOTSTRAP_ROUNDS_RANGE };

/** Help text, an example first. */
export const help = `Compare agents by seed 001's rule: an agent that resolved nothing has no TPR
and is not ranked; separated 95% bootstrap intervals of the resolved rate give
a rate winner; overlapping intervals give no rate winner, then fewer tokens per
resolved wins unless the two are within the band, then fewer seconds per
resolved with the same band, else a tie. The output says which rule fired.
More than two agents give the pairwise matrix: one cell per pair, the
winner's mark, a tie or "not stated". Agents come in leaderboard order (rank
= 1 + the stated agents that beat it; withheld agents last, unranked), and
the pairs that may not be stated are named, by cause, before any verdict.
Each stated pair's rule is explained when at most ${PAIR_LINES_MAX} pairs are compared, else
with --pairs; a pair with a withheld side is never given a winner in the
text (--json keeps every verdict). --paired adds the paired
comparison over the tasks both agents scored (difference in resolved rate
with a task-cluster bootstrap interval, McNemar counts and the exact McNemar
p-value; with more than two agents also Holm-adjusted over every pair).

Compare the two agents of the seed-001 sample (b wins on TPR):
  deno task ledgerbench compare ledgers/examples/sample_ledger.jsonl

Two agents of a larger ledger, with the paired comparison, as JSON:
  deno task ledgerbench compare ledgers/examples/synthetic_ledger.jsonl \\
    --agents agent-alpha,agent-beta --paired --json

USAGE:
  deno task ledgerbench compare LEDGER [OPTIONS]

OPTIONS:
  --agents A,B,...    Agents to compare (default: every agent in the ledger)
  --band X            Relative tie band for TPR and SPR, ${rangeText(BAND.range)} (default:
                      the plan's "tie_band", else ${DEFAULT_TIE_BAND})
  --rounds N          Bootstrap rounds, ${rangeText(ROUNDS.range)} (default: the
                      plan's, else ${DEFAULT_BOOTSTRAP.rounds})
  --seed S            Bootstrap seed: an integer (007 is 7) or any other text
                      (default: the plan's, else ${DEFAULT_BOOTSTRAP.seed})
${INTERVAL_METHOD_HELP}
  --pairs             Explain the rule of every stated pair (the default when
                      at most ${PAIR_LINES_MAX} pairs are compared)
  --paired            Add the paired comparison of each pair
  --task-rule RULE    Paired McNemar verdict of a task with several attempts:
                      "majority" (default) or "any"
  --errata FILE       Apply the corrections of an errata file first
  --plan FILE         Frozen plan: tie band and bootstrap defaults, and the
                      tasks and policies that decide which rankings may be
                      stated
${TASKS_HELP}
  --lenient           Report every bad line instead of stopping at the first;
                      the rows not used are listed and the exit status is 2
${WIDTH_HELP}
  --json              Canonical JSON instead of tables
  -h, --help          This help
`;

const OPTIONS = {
  ...TASKS_OPTION,
  ...WIDTH_OPTION,
  pairs: { type: "boolean" },
  ...INTERVAL_METHOD_OPTION,
  agents: { type: "string" },
  band: { type: "string" },
  rounds: { type: "string" },
  seed: { type: "string" },
  paired: { type: "boolean" },
  "task-rule": { type: "string" },
  errata: { type: "string" },
  plan: { type: "string" },
  lenient: { type: "boolean" },
} as const;

/** Runs `compare`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const wanted = nameListOption(values, "agents");
  const band = numberOption(values, BAND);
  const rounds = numberOption(values, ROUNDS);
  const seed = seedOption(values);
  const taskRule = choiceOption<TaskRule>(values, {
    name: "task-rule",
    choices: ["majority", "any"],
    fallback: "majority",
  });
  const lenient = values.lenient === true;
  const width = outputWidth(values);
  const planPath = stringOption(values, "plan");
  const plan = planPath === undefined ? null : await loadPlan(planPath);
  const taskList = await taskListOption(values, plan, positionals[0]);
  const loaded = await loadLedger(positionals[0], {
    errata: stringOption(values, "errata"),
    lenient,
  });
  const assessment = assessLoaded(loaded, plan, taskList);
  const bandParam = pick({ flag: band, plan: plan?.value.tie_band }, DEFAULT_TIE_BAND);
  const roundsParam = pick(
    { flag: rounds, plan: plan?.value.bootstrap.rounds },
    DEFAULT_BOOTSTRAP.rounds,
  );
  const seedParam = pick({ flag: seed, plan: plan?.value.bootstrap.seed }, DEFAULT_BOOTSTRAP.seed);
  const methodParam = intervalMethodOption(values, plan?.value ?? null);
  const settings = {
    band: bandParam.value,
    rounds: roundsParam.value,
    seed: seedParam.value,
    method: methodParam.value,
  };

  const all = summarizeAgents(loaded.rows);
  const agents = selectAgents(all, wanted);
  const comparisons: Comparison[] = agents.length === 2
    ? [compareAgents(agents[0], agents[1], settings)]
    : comparisonMatrix(agents, settings);
  const paired: PairedComparison[] | null = values.paired === true
    ? pairedComparisons(loaded.rows, comparisons.map((c) => [c.a.agent_id, c.b.agent_id]), {
      rounds: settings.rounds,
      seed: settings.seed,
      taskRule,
    })
    : null;
  const pValues: PairwisePValues | null = paired === null ? null : pairwisePValues(paired);
  const withheldPairs = withheldPairGroups(
    comparisons.map((c) => [c.a.agent_id, c.b.agent_id] as const),
    assessment.standings,
  );

  const payload = {
    command: "compare",
    ledger: loaded.ledger,
    errata: loaded.errata,
    plan: configRef(plan, (p) => ({ plan_id: p.plan_id })),
    task_list: configRef(taskList, (t) => ({ tasks: t.tasks.length })),
    parameters: {
      agents: agents.map((agent) => agent.agent_id),
      band: bandParam.value,
      band_source: bandParam.source,
      rounds: roundsParam.value,
      rounds_source: roundsParam.source,
      seed: seedParam.value,
      seed_source: seedParam.source,
      interval_method: methodParam.value,
      interval_method_source: methodParam.source,
      paired: values.paired === true,
      task_rule: values.paired === true ? taskRule : null,
      lenient,
    },
    problems: loaded.problems,
    comparisons,
    paired,
    paired_p_values: pValues,
    denominator: denominatorRecord(assessment),
    standings: assessment.standings.filter((s) =>
      agents.some((agent) => agent.agent_id === s.agent_id)
    ),
    withheld_pairs: withheldPairs,
  };
  emit(io, {
    json: values.json === true,
    payload,
    render: () => {
      const names = agents.length > 3
        ? `${agents.length} agents`
        : agents.map((agent) => displayId(agent.agent_id)).join(", ");
      let text = `Seed-001 comparison of ${names}\n\n`;
      text += describeInputs(loaded, [["plan", plan], ["task list", taskList]]);
      text +=
        `band ${
          formatPercentExact(bandParam.value, { minDigits: 1 })
        } (${bandParam.source}); bootstrap ` +
        `${roundsParam.value} rounds (${roundsParam.source}), seed ${seedParam.value} ` +
        `(${seedParam.source})\n` +
        `interval: ${describeIntervalMethod(methodParam.value)} (${methodParam.source})\n\n`;
      const standings = new Map(assessment.standings.map((s) => [s.agent_id, s]));
      // Leaderboard order and ranks (issue 25) from these very verdicts.
      const order = agentOrder(agents, assessment, { comparisons });
      const context = new TableContext(width);
      const marks = agentMarks(order.ids);
      const matrix = agents.length > 2;
      text += sideTable(context, comparisons, standings, order, matrix ? marks : null);
      text += coverageWarnings(comparisons);
      // What may not be stated comes before any verdict (issue 25).
      text += "\n" + statedPairs(comparisons.length, withheldPairs, assessment);
      if (matrix) text += "\n" + matrixTable(context, comparisons, standings, order, marks);
      const explained = values.pairs === true || comparisons.length <= PAIR_LINES_MAX;
      const shownPairs = comparisons.map((c, i) => ({ c, i })).filter(({ c }) =>
        explained && pairStanding(c, standings) === "stated"
      );
      for (const { c } of shownPairs) text += "\n" + explain(c);
      const withheldShown = comparisons.filter((c) => pairStanding(c, standings) !== "stated");
      if (explained && withheldShown.length > 0) {
        text += "\n" + withheldPairLines(withheldShown, standings);
      }
      if (!explained) {
        text += `\nEach stated pair's rule: --pairs (${
          shownCount(comparisons, standings)
        } pairs); every verdict: --json\n`;
      }
      if (paired !== null && pValues !== null) {
        for (const { i } of shownPairs) text += "\n" + explainPaired(paired[i], pValues, i);
        if (pValues.comparisons > 1) {
          text += "\n" + pValueTable(context, pValues, comparisons, standings);
        }
      }
      text += describeProblems(loaded.problems);
      return fitLines(text, width);
    },
  });
  return finish(io, loaded);
}

/**
 * One warning line per agent whose percentile interval covers poorly at its
 * n (analysis/rate_interval.ts, `coverage_warning`), with the Wilson
 * interval beside it, as `summarize` words it; "" when none.
 */
function coverageWarnings(comparisons: readonly Comparison[]): string {
  const seen = new Set<string>();
  let text = "";
  for (const side of comparisons.flatMap((c) => [c.a, c.b])) {
    if (side.coverage_warning === null || seen.has(side.agent_id)) continue;
    seen.add(side.agent_id);
    const w = side.coverage_warning.wilson;
    text += `warning: agent "${displayId(side.agent_id)}" (${side.resolved}/${side.scored}): ` +
      `${side.coverage_warning.reason}; Wilson 95% interval ${
        percentInterval([w.lower, w.upper])
      }\n`;
  }
  return text;
}

/**
 * The agents to compare, in the order asked (default: sorted by id).
 *
 * @throws {UsageError} when an agent is unknown, repeated, or fewer than two remain
 */
function selectAgents(all: AgentSummary[], wanted: string[] | undefined): AgentSummary[] {
  const known = all.map((agent) => agent.agent_id);
  const list = known.map((id) => `"${id}"`).join(", ");
  if (wanted === undefined) {
    if (all.length < 2) {
      throw new UsageError(
        `Cannot compare: the ledger holds ${all.length} agent${all.length === 1 ? "" : "s"} ` +
          `(${list || "none"}); at least two are needed`,
      );
    }
    return all;
  }
  const chosen: AgentSummary[] = [];
  for (const id of wanted) {
    const agent = all.find((candidate) => candidate.agent_id === id);
    if (agent === undefined) {
      throw new UsageError(`Agent "${id}" is not in the ledger: its agents are ${list}`);
    }
    if (chosen.includes(agent)) throw new UsageError(`Agent "${id}" is listed twice in "--agents"`);
    chosen.push(agent);
  }
  if (chosen.length < 2) throw new UsageError(`Option "--agents" must name at least two agents`);
  return chosen;
}

/**
 * Whether a pair's verdict may be stated (issue 23: a withheld agent's
 * figures are marked wherever they are printed): `stated`, or `withheld
 * (<cause>)` naming the first cause of its agents, in cause order
 * (`withheldPairGroups`).
 */
function pairStanding(c: Comparison, standings: ReadonlyMap<string, AgentStanding>): string {
  const [group] = withheldPairGroups([[c.a.agent_id, c.b.agent_id]], [
    standings.get(c.a.agent_id)!,
    standings.get(c.b.agent_id)!,
  ]);
  return group === undefined ? "stated" : `withheld (${group.cause})`;
}

/** The stated pairs among `comparisons`. */
function shownCount(
  comparisons: readonly Comparison[],
  standings: ReadonlyMap<string, AgentStanding>,
): number {
  return comparisons.filter((c) => pairStanding(c, standings) === "stated").length;
}

/**
 * Each agent's mark in the matrix, in leaderboard order: `A` to `Z`, then
 * `AA`, `AB`, ... (issue 25: a cell names its winner by mark, so 14 agents
 * fit in 80 columns).
 */
function agentMarks(ids: readonly string[]): Map<string, string> {
  const mark = (i: number): string =>
    i < 26 ? String.fromCharCode(65 + i) : mark(Math.floor(i / 26) - 1) + mark(i % 26);
  return new Map(ids.map((id, i) => [id, mark(i)]));
}

/**
 * The agents' figures, one row per agent in leaderboard order with its
 * rank (and its mark when the matrix follows), the claim last, so a
 * withheld agent is marked where its rate is printed.
 */
function sideTable(
  context: TableContext,
  comparisons: Comparison[],
  standings: ReadonlyMap<string, AgentStanding>,
  order: AgentOrder,
  marks: ReadonlyMap<string, string> | null,
): string {
  const sides = new Map<string, Comparison["a"]>();
  for (const c of comparisons) {
    if (!sides.has(c.a.agent_id)) sides.set(c.a.agent_id, c.a);
    if (!sides.has(c.b.agent_id)) sides.set(c.b.agent_id, c.b);
  }
  const columns: FitColumn[] = [
    RANK_COLUMN,
    ...(marks === null ? [] : [{ header: "mark", key: true }]),
    AGENT_COLUMN,
    { header: "resolved", align: "right", priority: 2 },
    { header: "rate", align: "right", priority: 0 },
    { header: "95% interval", align: "right", priority: 0 },
    { header: "TPR", align: "right", priority: 3 },
    { header: "SPR (s)", align: "right", priority: 3 },
    { header: "claim", priority: 0 },
  ];
  return fitTable(
    context,
    columns,
    order.sort([...sides.keys()]).map((id) => sides.get(id)!).map((s) => [
      order.rank(s.agent_id),
      ...(marks === null ? [] : [marks.get(s.agent_id)!]),
      s.agent_id,
      `${s.resolved}/${s.scored}`,
      percent(s.rate),
      s.interval === null ? "-" : percentInterval([s.interval.lower, s.interval.upper]) +
        (s.wilson === null ? "" : ` (Wilson ${percentInterval([s.wilson.lower, s.wilson.upper])})`),
      s.tpr === null && s.resolved > 0 ? NOT_RECORDED : fixed(s.tpr),
      s.spr === null && s.resolved > 0 ? NOT_RECORDED : fixed(s.spr),
      claimLabel(standings.get(s.agent_id)!),
    ]),
  ) + RANK_NOTE;
}

/**
 * The pairs with a withheld side, one line each, never with a winner
 * (issue 25: "wins" was printed for withheld agents): the cause of each,
 * whose reasons the section above gives.
 */
function withheldPairLines(
  comparisons: readonly Comparison[],
  standings: ReadonlyMap<string, AgentStanding>,
): string {
  return "Pairs that may not be stated (no verdict is given; see above):\n" +
    comparisons.map((c) =>
      `  ${displayId(c.a.agent_id)} vs ${displayId(c.b.agent_id)}: ${pairStanding(c, standings)}\n`
    ).join("");
}

/** Explains which rule fired for one stated pair, step by step. */
function explain(c: Comparison): string {
  const a = c.a, b = c.b;
  let text = `${displayId(a.agent_id)} vs ${displayId(b.agent_id)}:\n`;
  if (c.rule === "no_resolved") {
    const failed = c.failed.map((id) => `"${displayId(id)}"`).join(" and ");
    return text + `  ${failed} resolved nothing: no TPR, failure reported, no ranking\n` +
      `  verdict: no ranking (rule "no_resolved")\n`;
  }
  if (c.rule === "rate_interval") {
    return text +
      `  95% intervals are separated: ${displayId(c.winner!)} has the higher resolved rate\n` +
      `  verdict: ${displayId(c.winner!)} wins on resolved rate (rule "rate_interval")\n`;
  }
  text += `  95% intervals overlap: no rate winner\n`;
  if (c.tie_breaks_not_recorded.includes("tpr")) {
    text += `  TPR: ${notRecordedFor(c, "tpr")}: this tie-break cannot be used\n`;
  } else {
    text +=
      `  TPR: ${displayId(a.agent_id)} ${fixed(a.tpr)} vs ${displayId(b.agent_id)} ${
        fixed(b.tpr)
      }, relative ` +
      `difference ${relative(c.tpr_relative_difference)} ${c.rule === "tpr" ? ">" : "<="} band ${
        formatPercentExact(c.band, { minDigits: 1 })
      }\n`;
  }
  if (c.rule === "tpr") {
    return text + `  verdict: ${displayId(c.winner!)} wins on tokens per resolved (rule "tpr")\n`;
  }
  if (c.tie_breaks_not_recorded.includes("spr")) {
    return text + `  SPR: ${notRecordedFor(c, "spr")}: this tie-break cannot be used\n` +
      `  verdict: no winner: no tie-break could be used (rule "tie")\n`;
  }
  text +=
    `  SPR: ${displayId(a.agent_id)} ${fixed(a.spr)} s vs ${displayId(b.agent_id)} ${
      fixed(b.spr)
    } s, relative ` +
    `difference ${relative(c.spr_relative_difference)} ${c.rule === "spr" ? ">" : "<="} band ${
      formatPercentExact(c.band, { minDigits: 1 })
    }\n`;
  if (c.rule === "spr") {
    return text + `  verdict: ${displayId(c.winner!)} wins on seconds per resolved (rule "spr")\n`;
  }
  return text + `  verdict: tie (rule "tie")\n`;
}

function relative(d: number | null): string {
  return d === null ? "infinite" : percent(d);
}

/**
 * The verdicts as a matrix (issue 25: 91 pairs of prose at 14 agents): one
 * row and one column per agent in leaderboard order, each cell the
 * winner's mark, `=` for a tie, `-` for no ranking (an agent resolved
 * nothing), `x` for a pair that may not be stated (a withheld side: no
 * winner is shown), `.` on the diagonal; a legend under it.
 */
function matrixTable(
  context: TableContext,
  comparisons: Comparison[],
  standings: ReadonlyMap<string, AgentStanding>,
  order: AgentOrder,
  marks: ReadonlyMap<string, string>,
): string {
  const ids = order.sort([...marks.keys()]);
  const pairs = new Map<string, Comparison>();
  for (const c of comparisons) {
    pairs.set(`${c.a.agent_id}\n${c.b.agent_id}`, c);
    pairs.set(`${c.b.agent_id}\n${c.a.agent_id}`, c);
  }
  const cell = (row: string, column: string): string => {
    if (row === column) return ".";
    const c = pairs.get(`${row}\n${column}`);
    if (c === undefined) return "";
    if (pairStanding(c, standings) !== "stated") return "x";
    if (c.winner !== null) return marks.get(c.winner)!;
    return c.rule === "no_resolved" ? "-" : "=";
  };
  return "Pairwise matrix (seed 001's verdict of the row's agent against the column's):\n" +
    fitTable(
      context,
      [
        RANK_COLUMN,
        { header: "mark", key: true },
        AGENT_COLUMN,
        ...ids.map((id) => ({ header: marks.get(id)!, key: true, align: "right" as const })),
      ],
      ids.map((row) => [
        order.rank(row),
        marks.get(row)!,
        row,
        ...ids.map((column) => cell(row, column)),
      ]),
    ) +
    "a mark: the pair's winner (the rule: --pairs or --json); =: tie (overlapping intervals, no " +
    "tie-break decided); -: no ranking (an agent resolved nothing); x: may not be stated (a " +
    "withheld side, see above); .: the agent itself\n";
}

function signedPercent(x: number): string {
  return (x > 0 ? "+" : "") + percent(x);
}

/** The exact McNemar line of pair `index`, with its Holm-adjusted p when the matrix has more. */
function mcnemarLine(p: PairedComparison, pValues: PairwisePValues, index: number): string {
  const m = p.mcnemar;
  const n = m.only_a + m.only_b;
  let text =
    `  exact McNemar p ${pValue(p.mcnemar_p_value)} (two-sided binomial test, ${m.only_a} vs ` +
    `${m.only_b} of ${n} discordant task${n === 1 ? "" : "s"})`;
  if (pValues.comparisons > 1) {
    text += `\n  Holm-adjusted p ${pValue(pValues.pairs[index].holm_p_value)} ` +
      `(over all ${pValues.comparisons} comparisons)`;
  }
  return text + "\n";
}

/**
 * The paired p-values of every pair, as `pValue` prints them (`< 0.001`
 * below 0.001); a pair with a withheld side is marked in a last column
 * (only when there is one), as its verdict is.
 */
function pValueTable(
  context: TableContext,
  pValues: PairwisePValues,
  comparisons: readonly Comparison[],
  standings: ReadonlyMap<string, AgentStanding>,
): string {
  const stated = comparisons.map((c) => pairStanding(c, standings));
  const marked = stated.some((s) => s !== "stated");
  return `Paired p-values (exact McNemar; Holm-adjusted over ${pValues.comparisons} comparisons):\n` +
    fitTable(
      context,
      [
        { header: "a", id: true, key: true },
        { header: "b", id: true, key: true },
        { header: "only a", align: "right", priority: 2 },
        { header: "only b", align: "right", priority: 2 },
        { header: "p", align: "right", priority: 0 },
        { header: "Holm p", align: "right", priority: 0 },
        ...(marked ? [{ header: "verdict", priority: 0 }] : []),
      ],
      pValues.pairs.map((pair, i) => [
        pair.a,
        pair.b,
        String(pair.only_a),
        String(pair.only_b),
        pValue(pair.p_value),
        pValue(pair.holm_p_value),
        ...(marked ? [stated[i]] : []),
      ]),
    );
}

function explainPaired(p: PairedComparison, pValues: PairwisePValues, index: number): string {
  let text =
    `Paired comparison ${displayId(p.a.agent_id)} vs ${
      displayId(p.b.agent_id)
    } over ${p.tasks} tasks both ` +
    `scored (task clusters, ${p.rounds} rounds, seed ${p.seed}):\n`;
  if (p.difference === null) {
    return text + "  no task was scored by both agents: nothing to pair\n" + excluded(p);
  }
  for (const side of [p.a, p.b]) {
    text += `  ${displayId(side.agent_id)}: rate ${percent(side.rate)} ` +
      percentInterval(side.interval === null ? null : [side.interval.lower, side.interval.upper]) +
      (side.wilson === null
        ? ""
        : ` (collapsed; Wilson ${percentInterval([side.wilson.lower, side.wilson.upper])})`) +
      "\n";
  }
  const d = p.difference;
  text +=
    `  difference ${displayId(p.a.agent_id)} - ${displayId(p.b.agent_id)}: ${
      signedPercent(d.estimate)
    } ` +
    `[${signedPercent(d.lower)}, ${signedPercent(d.upper)}]` +
    (d.collapsed ? " (collapsed to a point)" : "") + "\n";
  const m = p.mcnemar;
  text +=
    `  McNemar (task rule ${p.task_rule}): only ${displayId(p.a.agent_id)} ${m.only_a}, only ` +
    `${displayId(p.b.agent_id)} ${m.only_b}, both ${m.both}, neither ${m.neither}\n`;
  text += mcnemarLine(p, pValues, index);
  return text + excluded(p);
}

function excluded(p: PairedComparison): string {
  if (p.excluded_tasks.length === 0) return "";
  const shown = p.excluded_tasks.slice(0, 10).map((t) =>
    `"${displayId(t.task_id)}" (${
      t.scored_by.length === 0 ? "scored by neither" : `only ${displayId(t.scored_by[0])}`
    })`
  );
  const more = p.excluded_tasks.length > 10 ? `, and ${p.excluded_tasks.length - 10} more` : "";
  return `  excluded tasks: ${shown.join(", ")}${more}\n`;
}

/**
 * Which verdicts may be stated: the denominator, how many pairs, and one
 * line per cause that withholds pairs (the report's rule, through the same
 * assessment).
 */
function statedPairs(
  total: number,
  groups: WithheldPairGroup[],
  assessment: LoadedAssessment,
): string {
  const withheld = groups.reduce((sum, g) => sum + g.pairs, 0);
  let text =
    "Which rankings may be stated (validation, invalid, censoring, judge faults, missing tasks):\n";
  text += "  " + denominatorLine(assessment, assessment.file);
  text += `  ${total - withheld} of ${total} pair${total === 1 ? "" : "s"} may be stated\n`;
  for (const group of groups) {
    const words = withheldPairWords(group, assessment, assessment.planId);
    text += `  - ${words.text} (${words.rule})\n`;
  }
  return text;
}
