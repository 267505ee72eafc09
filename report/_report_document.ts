/**
 * The report's document, assembled from a computed summary: every sentence
 * and table cell comes from `ReportSummary` (its numbers and its claims), so
 * the Markdown and HTML state nothing the summary does not hold.
 *
 * Private to `report/`.
 *
 * @module
 */
import { censoringClaim as claimOfRate } from "../analysis/censoring.ts";
import { StopReason } from "../analysis/schema/records.ts";
import type { Block, FigureBlock } from "./_document.ts";
import { code } from "./_document.ts";
import { formatPercentExact } from "../analysis/format_number.ts";
import {
  AGENT_REPORTED,
  decimal,
  integer,
  money,
  NOT_RECORDED,
  percent,
  plural,
  pValue,
} from "./format.ts";
import { describeIntervalMethod } from "../analysis/rate_interval.ts";
import { policyText } from "./_claims.ts";
import { shellQuote } from "./_shell_quote.ts";
import { intervalCell } from "./_interval_cell.ts";
import {
  leaderboardBlocks,
  NOT_STATED,
  perResolvedCell,
  verdictMatrixBlocks,
} from "./_leaderboard_section.ts";
import { CLAIM_SHORT_WORDS, claimLabel } from "./standing_words.ts";
import { displayId, distinctShortIds } from "../analysis/untrusted_text.ts";
import { SCORE_WORDS } from "../analysis/score_words.ts";
import type { ReportClaim, ReportSummary } from "./report_model.ts";
import type {
  FrontierNullReason,
  RatioEstimate,
  RatioNullReason,
} from "../analysis/per_resolved_uncertainty.ts";

function claimsOf(summary: ReportSummary, topic: ReportClaim["topic"]): ReportClaim[] {
  return summary.claims.filter((c) => c.topic === topic);
}

/**
 * Per-agent items in leaderboard order (issue 25: every per-agent table and
 * list in one order); items of no agent on the board (the whole run's) keep
 * their place first, in the order given.
 */
function inBoardOrder<T>(
  summary: ReportSummary,
  items: readonly T[],
  agentOf: (item: T) => string,
): T[] {
  const position = new Map(summary.leaderboard.map((p, i) => [p.agent_id, i]));
  return items.map((item, i) => ({ item, i, at: position.get(agentOf(item)) ?? -1 }))
    .sort((x, y) => x.at - y.at || x.i - y.i).map((entry) => entry.item);
}

/** A per-agent claim's agent: the id after the topic's prefix (`coverage:<agent>`). */
function claimAgent(c: ReportClaim): string {
  return c.id.slice(c.id.indexOf(":") + 1);
}

function claimById(summary: ReportSummary, id: string): ReportClaim | undefined {
  return summary.claims.find((c) => c.id === id);
}

function figureOf(figures: readonly FigureBlock[], name: string): Block[] {
  const figure = figures.find((f) => f.name === name);
  return figure === undefined ? [] : [{
    kind: "figure",
    name: figure.name,
    number: figure.number,
    title: figure.title,
    caption: figure.caption,
  }];
}

function sourceText(source: string): string {
  return source === "plan" ? "from the plan" : "default";
}

/** Claim ids the leaderboard and the verdict matrix state (in their cells and cause lines). */
function inTheTables(c: ReportClaim): boolean {
  return c.id.startsWith("agent:") || c.id.startsWith("pair:") ||
    c.id.startsWith("pairs-withheld:");
}

/**
 * The top of the report (issue 25 item 2): the validation verdict, the
 * leaderboard (`leaderboardBlocks`), the run's censoring claim, the SPRT
 * decisions, the pairwise verdicts as a matrix (`verdictMatrixBlocks`),
 * and any other withheld claim with its rule. Each agent's claim sentence
 * is in Per-agent results, each pair's rule in Comparisons; all are in
 * summary.json.
 */
function summarySection(summary: ReportSummary): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Summary" }];
  const validation = claimById(summary, "validation")!;
  blocks.push(
    summary.citable ? { kind: "paragraph", text: validation.text + "." } : {
      kind: "note",
      text: validation.text + ".",
    },
  );
  const afterErrata = claimById(summary, "validation:errata");
  if (afterErrata !== undefined) blocks.push({ kind: "paragraph", text: afterErrata.text + "." });
  const run = claimById(summary, "censoring:*");
  if (run !== undefined) blocks.push({ kind: "paragraph", text: `${run.text}.` });
  if (summary.agents.length > 0) {
    blocks.push({ kind: "heading", level: 3, text: "Leaderboard" });
    blocks.push(...leaderboardBlocks(summary));
  }
  const sprt = summary.claims.filter((c) =>
    c.stated && c.topic === "sprt" && c.id.startsWith("sprt:")
  );
  if (sprt.length > 0) {
    blocks.push({ kind: "paragraph", text: "Sequential decisions (seed 002):" });
    blocks.push({ kind: "list", items: sprt.map((c) => `${c.text}.`) });
  }
  const matrix = verdictMatrixBlocks(summary);
  if (matrix.length > 0) {
    blocks.push({ kind: "heading", level: 3, text: "Pairwise verdicts (seed 001)" });
    blocks.push(...matrix);
  }
  const withheld = summary.claims.filter((c) => !c.stated && !inTheTables(c));
  if (withheld.length > 0) {
    blocks.push({
      kind: "paragraph",
      text: "Also withheld (computed, recorded in summary.json, but not stated, and the rule " +
        "that withholds each):",
    });
    blocks.push({ kind: "list", items: withheld.map((c) => `${c.text} (${c.rule}).`) });
  }
  return blocks;
}

function inputsSection(summary: ReportSummary): Block[] {
  const { inputs, parameters: p } = summary;
  const row = (name: string, file: { path: string; sha256: string } | null, detail: string) =>
    file === null
      ? [name, "not given", "-", detail]
      : [name, code(file.path), code(file.sha256), detail];
  const ledger = inputs.ledger;
  const weights = p.lane_weights === null
    ? "none (no lane score)"
    : Object.entries(p.lane_weights).map(([lane, w]) => `${lane} ${w}`).join(", ") +
      " (from the plan)";
  const sprt = p.sprt === null
    ? (inputs.plan === null ? "no plan" : "the plan's stopping rule is fixed: no SPRT")
    : `p_adopt ${p.sprt.p_adopt}, p_drop ${p.sprt.p_drop}, α ${p.sprt.alpha}, β ${p.sprt.beta}, ` +
      `cap ${p.sprt.n_cap} valid results (from the plan)`;
  const policy = p.censoring_policy;
  return [
    { kind: "heading", level: 2, text: "Inputs and parameters" },
    {
      kind: "table",
      header: ["input", "path (as given)", "SHA-256", "detail"],
      align: ["left", "left", "left", "left"],
      rows: [
        row(
          "ledger",
          ledger,
          `${plural(ledger.rows, "row")} on ${plural(ledger.lines, "line")}, ${
            ledger.chained ? "hash-chained" : "not hash-chained"
          }`,
        ),
        row(
          "errata",
          inputs.errata,
          inputs.errata === null
            ? "no corrections"
            : plural(inputs.errata.entries, "erratum", "errata"),
        ),
        row("plan", inputs.plan, inputs.plan === null ? "-" : `plan "${inputs.plan.plan_id}"`),
        row(
          "price table",
          inputs.price_table,
          inputs.price_table === null
            ? "no money columns"
            : `"${inputs.price_table.price_table_id}", ${inputs.price_table.currency}`,
        ),
        // Issue 25 item 4: the denominator's file, and how it was chosen.
        row("task list", inputs.task_list, taskListDetail(inputs)),
      ],
    },
    {
      kind: "list",
      items: [
        `Bootstrap: ${integer(p.bootstrap.rounds)} rounds, seed ${
          code(String(p.bootstrap.seed))
        } (${
          sourceText(p.bootstrap.source)
        }); percentile interval at indices floor(0.025 R) and floor(0.975 R) (seed 001).`,
        `Tie band for tokens and seconds per resolved: ${formatPercentExact(p.tie_band.value)} (${
          sourceText(p.tie_band.source)
        }).`,
        `Censoring policy: ${policyText(policy)} (${sourceText(policy.source)}; seed 003).`,
        `Lane weights: ${weights}.`,
        `Sequential stopping: ${sprt}.`,
        `Validation findings listed: at most ${p.max_findings_per_code} per code (counts are complete).`,
        `Figures: SVG rendered by vega, PNG by resvg at ${p.figures.png_scale}× the SVG size, ` +
        `font ${p.figures.font_family}.`,
      ],
    },
  ];
}

/** The validation claims that are no note on the ledger: its validation and the errata's. */
const NOT_LEDGER_NOTES = new Set(["validation", "validation:errata"]);

/**
 * Notes on the ledger, after its validation: every other stated claim of
 * topic `validation` (spend evidence, issue 8; several price tables, seed
 * 001; rows verified in Harbor's shared mode, issue 22), one item each.
 */
function ledgerNotes(summary: ReportSummary): Block[] {
  const notes = claimsOf(summary, "validation").filter((c) =>
    c.stated && !NOT_LEDGER_NOTES.has(c.id)
  );
  return notes.length === 0 ? [] : [
    { kind: "paragraph", text: "Notes on the ledger:" },
    { kind: "list", items: notes.map((c) => `${c.text}.`) },
  ];
}

function validationSection(summary: ReportSummary): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Validation against the plan" }];
  const v = summary.validation;
  blocks.push({ kind: "paragraph", text: claimById(summary, "validation")!.text + "." });
  if (v === null) return [...blocks, ...ledgerNotes(summary)];
  const afterErrata = claimById(summary, "validation:errata");
  if (afterErrata !== undefined) blocks.push({ kind: "paragraph", text: afterErrata.text + "." });
  const counts = Object.entries(v.finding_counts).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  if (counts.length > 0) {
    blocks.push({
      kind: "table",
      header: ["finding", "severity", "count", "listed"],
      align: ["left", "left", "right", "right"],
      rows: counts.map(([findingCode, n]) => {
        const listed = v.findings.filter((f) => f.code === findingCode);
        return [
          code(findingCode),
          listed[0]?.severity ?? "-",
          integer(n),
          integer(listed.length),
        ];
      }),
    });
  }
  const shown = v.findings.filter((f) => f.severity !== "info").slice(0, 10);
  if (shown.length > 0) {
    blocks.push({
      kind: "paragraph",
      text: `First ${plural(shown.length, "finding")} other than information (every listed ` +
        "finding is in summary.json):",
    });
    blocks.push({
      kind: "list",
      items: shown.map((f) =>
        `${f.line === null ? "whole ledger" : `line ${f.line}`}${
          f.field === "" ? "" : `, field ${code(f.field)}`
        }: ${f.message} (${code(f.code)})`
      ),
    });
  }
  return [...blocks, ...ledgerNotes(summary)];
}

/**
 * The denominator (issue 11): where the planned tasks come from, and per
 * agent its planned tasks, rows, missing tasks and the score over every
 * planned task (a lower bound) beside the score over scored rows.
 */
function coverageSection(summary: ReportSummary): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Planned tasks and missing rows" }];
  const d = summary.denominator;
  if (d === null) {
    blocks.push({
      kind: "paragraph",
      text: "No plan or task list given: every rate is over the rows present, and a task " +
        "that has no row is not counted (pass --plan or --tasks to count it as missing).",
    });
    return blocks;
  }
  const source = d.source === "plan"
    ? `the plan's ${plural(d.tasks, "task")}`
    : `the task list's ${plural(d.tasks, "task")}`;
  blocks.push({
    kind: "paragraph",
    text:
      `The denominator is ${source}${
        d.attempts_per_task === 1 ? "" : `, ${d.attempts_per_task} attempts each`
      }: a planned task without a row counts as not resolved in the score over planned tasks ` +
      "(a lower bound, seed 003), and the share of missing tasks is held to the policy the " +
      "way censoring is.",
  });
  blocks.push({
    kind: "list",
    items: inBoardOrder(summary, claimsOf(summary, "coverage"), claimAgent).map((c) =>
      `${c.text}.`
    ),
  });
  const leftOut = summary.judge?.left_out ?? [];
  if (leftOut.length > 0) {
    blocks.push({
      kind: "paragraph",
      text: `Not in the denominator: ${plural(leftOut.length, "judged task")} left out of ` +
        "formal scores (see LLM judge), neither planned nor missing.",
    });
  }
  return blocks;
}

/**
 * The LLM judge (issue 14), only when the summary records one: the plan's
 * judge and its calibration, the judge-invalid rate, the mean total and the
 * judge's own spend, per judged task its rows, faults, passes and fails and
 * whether formal scores count it, and the claim the gates allow.
 */
function judgeSection(summary: ReportSummary): Block[] {
  const judge = summary.judge;
  if (judge === undefined) return [];
  const f = judge.figures;
  const config = judge.plan;
  const calibration = config === null
    ? "no plan given: the judge's configuration and calibration are not known"
    : `model ${code(config.model)}, at most ${
      plural(config.max_attempts, "call")
    } per judgment; calibration ${code(config.calibration.state)}` + (
      config.calibration.state === "passed"
        ? ` (agreement with human labels ${percent(config.calibration.human_agreement)}, ` +
          `swap consistency ${percent(config.calibration.swap_consistency)})`
        : ""
    ) +
      `; gates: agreement at least ${
        formatPercentExact(config.gates.human_agreement)
      }, swap consistency at least ${formatPercentExact(config.gates.swap_consistency)}`;
  const left = new Set(judge.left_out.map((task) => task.task_id));
  const blocks: Block[] = [
    { kind: "heading", level: 2, text: "LLM judge" },
    {
      kind: "paragraph",
      text: "Judge-verified tasks are scored by an LLM judge per rubric dimension; code " +
        "computes the total and the verdict against the rubric's threshold, and a reply that " +
        `gives no usable judgment makes the row invalid (${code("judge_fault")}), never a 0 ` +
        "(seed 000 §06). Until the plan's judge passes its calibration gates, the judged " +
        "tasks are recorded but left out of every score, rate, denominator and figure of this " +
        "report (seed 000).",
    },
    {
      kind: "list",
      items: [
        `The plan's judge: ${calibration}.`,
        `Judge-verified rows: ${integer(f.rows)}, ${integer(f.calibrated_rows)} of them by a ` +
        "calibrated judge.",
        `Judge-invalid rate: ${percent(f.judge_invalid_rate)} (${
          plural(f.judge_faults, "judge_fault row")
        } of ${integer(f.rows)}).`,
        `Mean total: ${f.mean_total === null ? "none" : `${decimal(f.mean_total)} of 100`}.`,
        `The judge's own spend, never counted in an agent's tokens or cost: ${
          plural(f.judge_model_calls, "model call")
        }, ${integer(f.judge_prompt_tokens)} prompt and ${
          integer(f.judge_completion_tokens)
        } completion tokens.`,
      ],
    },
  ];
  if (f.by_task.length > 0) {
    const taskIds = distinctShortIds(f.by_task.map((t) => t.task_id));
    blocks.push({
      kind: "table",
      header: ["task", "judged rows", code("judge_fault"), "passed", "failed", "formal scores"],
      align: ["left", "right", "right", "right", "right", "left"],
      rows: f.by_task.map((t, k) => [
        taskIds[k],
        integer(t.rows),
        integer(t.judge_faults),
        integer(t.passed),
        integer(t.failed),
        left.has(t.task_id) ? "left out" : "counted",
      ]),
    });
  }
  const faults = judge.judge_faults;
  if (faults.length > 0) {
    blocks.push({
      kind: "paragraph",
      text: "Judge faults per agent (issue 21): a judge fault is left out of every score, so " +
        "each agent's rate over its counted judged rows is held to the judge-fault thresholds (the plan's, else the censoring ones) " +
        "and limits its claim; the last column counts every fault as a failure (a lower bound).",
    });
    blocks.push({
      kind: "table",
      header: [
        "agent",
        "judged rows",
        code("judge_fault"),
        "rate",
        "claim",
        "resolved, faults as failures",
      ],
      align: ["left", "right", "right", "right", "left", "right"],
      rows: faults.map((row) => [
        displayId(row.agent_id),
        integer(row.judged),
        integer(row.judge_faults),
        percent(row.judge_fault_rate),
        CLAIM_SHORT_WORDS[row.claim ?? "headline"],
        `${percent(row.resolved_rate_faults_as_failures)} (${integer(row.resolved)} of ${
          integer(row.scored + row.judge_faults)
        })`,
      ]),
    });
  }
  if (judge.left_out.length > 0) {
    blocks.push({ kind: "paragraph", text: "Left out of formal scores:" });
    blocks.push({
      kind: "list",
      items: distinctShortIds(judge.left_out.map((t) => t.task_id)).map((shown, k) =>
        `${shown}: ${plural(judge.left_out[k].rows, "row")}, ${judge.left_out[k].reason}.`
      ),
    });
  }
  blocks.push({ kind: "list", items: claimsOf(summary, "judge").map((c) => `${c.text}.`) });
  return blocks;
}

function errataSection(summary: ReportSummary): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Errata" }];
  if (summary.errata === null || summary.inputs.errata === null) {
    blocks.push({
      kind: "paragraph",
      text: "No errata file given: the ledger's rows are analysed as recorded.",
    });
    return blocks;
  }
  blocks.push({
    kind: "paragraph",
    text:
      `Corrections from ${code(summary.inputs.errata.path)} are applied on top of the ledger, ` +
      "which is never rewritten (seed 000); every number in this report is after them.",
  });
  blocks.push({ kind: "list", items: claimsOf(summary, "errata").map((c) => `${c.text}.`) });
  return blocks;
}

function agentsSection(summary: ReportSummary): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Per-agent results" }];
  if (summary.agents.length === 0) {
    blocks.push({ kind: "paragraph", text: "The ledger holds no rows." });
    return blocks;
  }
  const censoring = new Map(summary.censoring.agents.map((r) => [r.agent_id, r]));
  const standings = new Map(summary.standings.map((s) => [s.agent_id, s]));
  const intervals = new Map(summary.intervals.map((i) => [i.agent_id, i]));
  const priced = summary.inputs.price_table !== null;
  const lanes = summary.parameters.lane_weights !== null;
  const header = [
    "agent",
    "attempts",
    "invalid",
    "scored",
    "resolved",
    "claim",
    `${SCORE_WORDS.scored} [95% interval]`,
    SCORE_WORDS.completed,
    "tokens per resolved",
    "seconds per resolved",
  ];
  if (priced) header.push(`cost per resolved (${summary.inputs.price_table!.currency})`);
  if (lanes) header.push("lane score");
  const order = new Map(summary.leaderboard.map((p, i) => [p.agent_id, i]));
  const ordered = [...summary.agents].sort((x, y) =>
    (order.get(x.agent_id) ?? 0) - (order.get(y.agent_id) ?? 0)
  );
  const rows = ordered.map((a) => {
    const c = censoring.get(a.agent_id)!;
    const stated = claimById(summary, `agent:${a.agent_id}`)?.stated === true;
    const interval = intervals.get(a.agent_id)!;
    const ci = intervalCell(interval);
    const cells = [
      displayId(a.agent_id),
      integer(a.episodes),
      integer(a.invalid),
      integer(a.scored),
      integer(a.resolved),
      claimLabel(standings.get(a.agent_id)!),
    ];
    if (!stated) {
      cells.push(NOT_STATED, NOT_STATED, NOT_STATED, NOT_STATED);
      if (priced) cells.push(NOT_STATED);
      if (lanes) cells.push(NOT_STATED);
      return cells;
    }
    cells.push(
      `${percent(a.resolved_rate)} ${ci}`,
      c.score_completed_only === null ? "-" : percent(c.score_completed_only),
      perResolvedCell(
        a.tpr,
        a.resolved,
        (x) => integer(x) + (a.agent_reported_token_rows > 0 ? AGENT_REPORTED : ""),
      ),
      perResolvedCell(a.spr, a.resolved, (x) => decimal(x, 1)),
    );
    if (priced) cells.push(perResolvedCell(a.cost?.cost_per_resolved ?? null, a.resolved, money));
    if (lanes) {
      const ls = a.lane_score;
      cells.push(
        ls === null
          ? "-"
          : ls.score === null
          ? `none: ${[...ls.missing_lanes, ...ls.unweighted_lanes].join(", ")} missing`
          : `${decimal(ls.score, 1)} of ${decimal(ls.max_score, 0)}`,
      );
    }
    return cells;
  });
  blocks.push({
    kind: "table",
    header,
    align: header.map((_, i) => i === 0 || i === 5 ? "left" : "right"),
    rows,
  });
  blocks.push({
    kind: "paragraph",
    text: "Scores are resolved / scored episodes; invalid attempts are never scored. Tokens " +
      "and seconds per resolved count every scored attempt, failed ones included, over the " +
      `resolved ones (seed 001). "${NOT_STATED}": the rule named in the summary withholds it.`,
  });
  blocks.push({ kind: "paragraph", text: "What each agent may claim, in leaderboard order:" });
  blocks.push({
    kind: "list",
    items: ordered.map((a) => claimById(summary, `agent:${a.agent_id}`)).filter((c) =>
      c !== undefined
    ).map((c) => `${c!.text}${c!.stated ? "" : ` (${c!.rule})`}.`),
  });
  blocks.push(...perResolvedBlocks(summary));
  return blocks;
}

/** Why a per-resolved figure is absent, in the table's words. */
const RATIO_NULL: Record<RatioNullReason, string> = {
  no_scored_attempts: "none: no scored attempt",
  not_recorded: "not recorded",
  nothing_resolved: "none: nothing resolved",
  no_price_table: "none: no price table",
};

/** Why an agent has no frontier share, in the table's words. */
const FRONTIER_NULL: Record<FrontierNullReason, string> = {
  ...RATIO_NULL,
  not_recorded: "none: cost not recorded",
  not_in_frontier_set: NOT_STATED,
};

/** A per-resolved figure with its interval: `7,767 [3,250, 32,300]`, or why there is none. */
function ratioCell(r: RatioEstimate, show: (x: number) => string): string {
  if (r.null_reason !== null || r.estimate === null) return RATIO_NULL[r.null_reason!];
  const lo = r.lo === null ? "unbounded" : show(r.lo);
  return `${show(r.estimate)} [${lo}, ${r.hi === null ? "unbounded" : show(r.hi)}]`;
}

/**
 * The per-resolved figures with their task-cluster intervals and each agent's
 * share of task-paired resamples on the cost frontier (`summary.per_resolved`,
 * issue 23), one row per agent; withheld agents' cells are "not stated".
 */
function perResolvedBlocks(summary: ReportSummary): Block[] {
  const u = summary.per_resolved;
  const priced = summary.inputs.price_table !== null;
  const header = [
    "agent",
    "tasks resampled",
    "tokens per resolved [95% interval]",
    "seconds per resolved [95% interval]",
  ];
  if (priced) {
    header.push(`cost per resolved (${summary.inputs.price_table!.currency}) [95% interval]`);
  }
  header.push("on the cost frontier (share of task resamples)");
  const rows = inBoardOrder(summary, u.agents, (a) => a.agent_id).map((a) => {
    const stated = claimById(summary, `agent:${a.agent_id}`)?.stated === true;
    const cells = [displayId(a.agent_id), integer(a.tasks)];
    if (!stated) return [...cells, ...header.slice(2).map(() => NOT_STATED)];
    cells.push(
      ratioCell(a.tokens_per_resolved, integer),
      ratioCell(a.seconds_per_resolved, (x) => decimal(x, 1)),
    );
    if (priced) cells.push(ratioCell(a.cost_per_resolved, money));
    cells.push(
      a.frontier_probability === null
        ? FRONTIER_NULL[a.frontier_null_reason!]
        : `${percent(a.frontier_probability)} (${integer(a.frontier_rounds)} of ${
          integer(u.rounds)
        } rounds)`,
    );
    return cells;
  });
  const measure = u.frontier.measure === "money" ? "cost per resolved" : "tokens per resolved";
  return [
    {
      kind: "table",
      header,
      align: header.map((_, i) => i === 0 ? "left" : "right"),
      rows,
    },
    {
      kind: "paragraph",
      text: "Intervals: 95% percentile bootstrap of each ratio, each of " +
        `${integer(u.rounds)} rounds (seed ${u.seed}) redrawing the agent's tasks with ` +
        "replacement, each with all its scored attempts: attempts at one task are correlated, " +
        'and resampling them one by one would narrow the interval. "unbounded": more than ' +
        "2.5% of the rounds resolved nothing, so no upper end. A figure a scored attempt did " +
        'not record is "not recorded", never 0. The frontier share: in each round one draw ' +
        "of the tasks serves every stated agent (they ran the same tasks) and the frontier of " +
        `${measure} against resolved rate is recomputed; the share of rounds an agent is on ` +
        "it says how stable its place there is, not how likely it is to be the best agent.",
    },
  ];
}

/** Below this lowest coverage a printed 95% interval gets a warning (analysis/interval_coverage.ts). */
const POOR_COVERAGE = 0.9;

function intervalCoverageSection(summary: ReportSummary): Block[] {
  if (summary.interval_coverage.length === 0) return [];
  const blocks: Block[] = [
    { kind: "heading", level: 2, text: "How far the intervals can be trusted" },
    {
      kind: "paragraph",
      text: "The share of runs in which the 95% interval of the resolved rate contains the true " +
        "rate, at each agent's number of scored episodes: exact, summed over the binomial " +
        "distribution of the resolved count with the plan's bootstrap rounds and seed " +
        `(${code("ledgerbench coverage")} prints it for any ledger). "Used" is the interval ` +
        `above, by the plan's method (${
          describeIntervalMethod(summary.parameters.interval_method.value)
        }` +
        "; the percentile bootstrap with Wilson in its place when it collapses); the lowest is " +
        "over true rates from 1% to 99%.",
    },
  ];
  // Clopper-Pearson past CLOPPER_PEARSON_MAX_N is not computed: it is >= 95% by construction.
  const cell = (p: { coverage: number; rate: number } | null) =>
    p === null ? "at least 95% (by construction)" : `${percent(p.coverage)} at ${percent(p.rate)}`;
  blocks.push({
    kind: "table",
    header: [
      "agent",
      "scored",
      "used, at the observed rate",
      "used, lowest",
      "Wilson, at the observed rate",
      "Wilson, lowest",
    ],
    align: ["left", "right", "right", "right", "right", "right"],
    rows: inBoardOrder(summary, summary.interval_coverage, (c) => c.agent_id).map((c) => [
      displayId(c.agent_id),
      integer(c.scored),
      percent(c.used.at_observed),
      cell(c.used.lowest),
      percent(c.wilson.at_observed),
      cell(c.wilson.lowest),
    ]),
  });
  const poor = summary.interval_coverage.filter((c) =>
    c.used.lowest !== null && c.used.lowest.coverage < POOR_COVERAGE
  );
  if (poor.length > 0) {
    blocks.push({
      kind: "list",
      items: poor.map((c) =>
        `${displayId(c.agent_id)}: at ${integer(c.scored)} scored episodes the interval used ` +
        `covers only ${cell(c.used.lowest)}, not 95%; it is narrower than the evidence.`
      ),
    });
  }
  return blocks;
}

/** The exact McNemar test of each pair and its Holm adjustment (a stated pair's numbers only). */
function pairedTestBlocks(summary: ReportSummary): Block[] {
  const tests = summary.paired_tests;
  if (tests === null) return [];
  const m = tests.comparisons;
  return [
    {
      kind: "paragraph",
      text: "Paired on the tasks both agents attempted: the exact McNemar test (two-sided " +
        "binomial on the tasks only one of them resolved) and, for the matrix, Holm's " +
        `adjustment over the ${plural(m, "comparison")} made, which holds the chance of any ` +
        "false difference at the nominal level. A p-value is evidence, not a verdict: the " +
        "verdict above follows seed 001's rule.",
    },
    {
      kind: "table",
      header: ["pair", "only the first resolved", "only the second resolved", "p", "Holm p"],
      align: ["left", "right", "right", "right", "right"],
      rows: tests.pairs.map((t) => {
        const pair = `${displayId(t.a)} vs ${displayId(t.b)}`;
        const claim = claimById(summary, `pair:${t.a}:${t.b}`);
        if (claim === undefined || !claim.stated) {
          return [pair, NOT_STATED, NOT_STATED, NOT_STATED, NOT_STATED];
        }
        return [
          pair,
          integer(t.only_a),
          integer(t.only_b),
          pValue(t.p_value),
          pValue(t.holm_p_value),
        ];
      }),
    },
  ];
}

function comparisonsSection(summary: ReportSummary, figures: readonly FigureBlock[]): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Comparisons (seed 001)" }];
  if (summary.comparisons.length === 0) {
    blocks.push({
      kind: "paragraph",
      text: summary.agents.length < 2
        ? "Fewer than two agents: nothing to compare."
        : "No comparison.",
    });
    return blocks;
  }
  const band = formatPercentExact(summary.parameters.tie_band.value);
  const method = describeIntervalMethod(summary.parameters.interval_method.value);
  blocks.push({
    kind: "paragraph",
    text: "Rule, in order: an agent that resolved nothing has no tokens per resolved and is " +
      `not ranked; separated 95% intervals of the resolved rate (${method}; Wilson in place ` +
      "of a bootstrap interval that collapsed to a point) give a rate winner; " +
      "overlapping intervals give no rate winner, and then fewer tokens per resolved wins " +
      `unless the two are within ${band}, then fewer seconds per resolved with the same band, ` +
      "else a tie.",
  });
  blocks.push({
    kind: "table",
    header: ["pair", "intervals", "rule that fired", "verdict"],
    align: ["left", "left", "left", "left"],
    rows: summary.comparisons.map((c) => {
      // a withheld pair has no claim of its own (stated grouped by cause, issue 11)
      const claim = claimById(summary, `pair:${c.a.agent_id}:${c.b.agent_id}`);
      if (claim === undefined || !claim.stated) {
        return [
          `${displayId(c.a.agent_id)} vs ${displayId(c.b.agent_id)}`,
          NOT_STATED,
          NOT_STATED,
          NOT_STATED,
        ];
      }
      return [
        `${displayId(c.a.agent_id)} vs ${displayId(c.b.agent_id)}`,
        c.intervals_overlap === null ? "-" : c.intervals_overlap ? "overlap" : "separated",
        code(c.rule),
        c.winner === null
          ? (c.rule === "tie" ? "tie" : "no ranking")
          : `${displayId(c.winner)} wins${c.rule === "rate_interval" ? " on rate" : ""}`,
      ];
    }),
  });
  blocks.push({ kind: "list", items: claimsOf(summary, "comparison").map((c) => `${c.text}.`) });
  blocks.push(...pairedTestBlocks(summary));
  blocks.push(...figureOf(figures, "forest"), ...figureOf(figures, "efficiency"));
  if (figureOf(figures, "efficiency").length === 0 && statedResolvedAgents(summary) > 0) {
    // Issue 25 item 3: a sentence, not a figure of empty panels.
    blocks.push({
      kind: "paragraph",
      text: "No figure of tokens and seconds per resolved: no agent whose numbers may be " +
        "stated recorded tokens or wall times (imported rows often carry neither), so the " +
        `tie-breaks of seed 001 could not be used and the tables say "${NOT_RECORDED}".`,
    });
  }
  return blocks;
}

/** The agents whose numbers may be stated and that resolved something. */
function statedResolvedAgents(summary: ReportSummary): number {
  const stated = new Set(
    summary.standings.filter((s) => s.withheld === null).map((s) => s.agent_id),
  );
  return summary.agents.filter((a) => stated.has(a.agent_id) && a.resolved > 0).length;
}

function censoringSection(summary: ReportSummary, figures: readonly FigureBlock[]): Block[] {
  const standings = new Map(summary.standings.map((s) => [s.agent_id, s]));
  const blocks: Block[] = [
    { kind: "heading", level: 2, text: "Censoring and stop reasons (seed 003)" },
  ];
  const { censoring } = summary;
  if (censoring.agents.length === 0) {
    blocks.push({ kind: "paragraph", text: "Nothing scored." });
    return blocks;
  }
  const reasons = StopReason.options.filter((r) =>
    r !== "completed" && censoring.agents.some((a) => a.stop_reasons[r] > 0)
  );
  const header = [
    "agent",
    "scored",
    "completed",
    ...reasons,
    "censored",
    "censoring rate",
    "censoring allows",
    "claim",
  ];
  const rows = [...censoring.agents, censoring.overall].map((r) => [
    r.agent_id === "*" ? "whole run" : displayId(r.agent_id),
    integer(r.scored),
    integer(r.completed),
    ...reasons.map((reason) => integer(r.stop_reasons[reason])),
    integer(r.censored),
    percent(r.censoring_rate),
    r.censoring_rate === null
      ? "-"
      : CLAIM_SHORT_WORDS[claimOfRate(r.censoring_rate, summary.censoring.policy)],
    claimLabel(r.agent_id === "*" ? summary.pooled : standings.get(r.agent_id)!),
  ]);
  blocks.push({
    kind: "table",
    header: header.map((h) => reasons.includes(h as StopReason) ? code(h) : h),
    align: header.map((_, i) => i === 0 || i === header.length - 1 ? "left" : "right"),
    rows,
  });
  blocks.push({
    kind: "list",
    items: inBoardOrder(summary, claimsOf(summary, "censoring"), claimAgent).map((c) =>
      `${c.text}.`
    ),
  });
  blocks.push(...figureOf(figures, "stop_reasons"));
  return blocks;
}

function invalidSection(summary: ReportSummary): Block[] {
  const blocks: Block[] = [
    { kind: "heading", level: 2, text: "Invalid attempts (seeds 000 and 002)" },
  ];
  const { invalid } = summary;
  if (invalid.agents.length === 0) return blocks;
  const reasons = (Object.keys(invalid.overall.reasons) as (keyof typeof invalid.overall.reasons)[])
    .filter((r) => invalid.overall.reasons[r] > 0);
  const header = ["agent", "attempts", "invalid", "invalid rate", ...reasons];
  blocks.push({
    kind: "table",
    header: header.map((h, i) => i >= 4 ? code(h) : h),
    align: header.map((_, i) => i === 0 ? "left" : "right"),
    rows: [...invalid.agents, invalid.overall].map((r) => [
      r.agent_id === "*" ? "whole run" : displayId(r.agent_id),
      integer(r.attempts),
      integer(r.invalid),
      percent(r.invalid_rate),
      ...reasons.map((reason) => integer(r.reasons[reason])),
    ]),
  });
  blocks.push({
    kind: "list",
    items: inBoardOrder(summary, claimsOf(summary, "invalid"), claimAgent).map((c) => `${c.text}.`),
  });
  blocks.push({
    kind: "paragraph",
    text: "An invalid attempt is a failure of the harness or of the measurement, never of the " +
      "agent: it is counted here and left out of every score, rate and per-resolved figure.",
  });
  return blocks;
}

/**
 * Where the agents' requests went (a task that gives its agent a network):
 * per agent and host, the requests its proxy allowed and denied; absent
 * when no agent had a network. The requests themselves are in each
 * episode's log (`ledgerbench show`).
 */
function agentNetworkSection(summary: ReportSummary): Block[] {
  const agents = summary.agent_network;
  if (agents === undefined) return [];
  const rows = agents.flatMap((agent) => [
    ...agent.hosts.map((host) => [
      displayId(agent.agent_id),
      host.host,
      integer(host.allowed),
      integer(host.denied),
    ]),
    ...(agent.hosts_omitted === 0
      ? []
      : [[displayId(agent.agent_id), `${integer(agent.hosts_omitted)} more hosts`, "", ""]]),
  ]);
  return [
    { kind: "heading", level: 2, text: "Agent network" },
    {
      kind: "paragraph",
      text: "Tasks that ask for the internet give the agent the hosts the plan allows, through " +
        "a proxy of the runner's that records every request; the model APIs are never " +
        "reachable but through the relay. Requests per agent and host:",
    },
    {
      kind: "table",
      header: ["agent", "host", "allowed", "denied"],
      align: ["left", "left", "right", "right"],
      rows,
    },
  ];
}

/**
 * Every failed and invalid episode with the exact `ledgerbench show` command
 * that prints its row, its model calls and its output tails (issue 8); the
 * episode id (in both columns) and the ledger path are shell-quoted, so the
 * command can be pasted whatever they hold and no control or bidirectional
 * character reaches the page.
 */
/** Failed and invalid episodes listed per agent in the report; every one is in summary.json. */
export const EPISODES_LISTED_PER_AGENT = 5;

/**
 * The failed and invalid episodes (issue 8), capped (issue 25 item 2: at 14
 * agents × 730 tasks the list was 7,089 rows, most of the report's 2 MB):
 * per agent, in leaderboard order, its failed and invalid counts, then its
 * first {@link EPISODES_LISTED_PER_AGENT} in ledger order and how many more;
 * every one stays in summary.json (`episodes_to_inspect`). An episode the
 * runner wrote gets its `ledgerbench show` command; an imported one, which
 * `show` could only print as its row, names the source and the position
 * its row was read from.
 */
function inspectSection(summary: ReportSummary): Block[] {
  const blocks: Block[] = [{ kind: "heading", level: 2, text: "Failed and invalid episodes" }];
  const episodes = summary.episodes_to_inspect;
  if (episodes.length === 0) {
    blocks.push({ kind: "paragraph", text: "No attempt failed or was invalid." });
    return blocks;
  }
  const byAgent = new Map<string, typeof episodes>();
  for (const e of episodes) {
    if (!byAgent.has(e.agent_id)) byAgent.set(e.agent_id, []);
    byAgent.get(e.agent_id)!.push(e);
  }
  const order = summary.leaderboard.map((p) => p.agent_id).filter((id) => byAgent.has(id));
  for (const id of byAgent.keys()) if (!order.includes(id)) order.push(id);
  const cap = EPISODES_LISTED_PER_AGENT;
  const listed = order.flatMap((id) => byAgent.get(id)!.slice(0, cap));
  const imported = listed.filter((e) => e.imported !== undefined).length;
  const ledger = shellQuote(summary.inputs.ledger.path);
  blocks.push({
    kind: "paragraph",
    text: `${plural(episodes.length, "episode")} failed or were invalid; per agent, the first ` +
      `${cap} in ledger order are listed below, and summary.json lists every one ` +
      `(${code("episodes_to_inspect")}). ${
        code("deno task ledgerbench show EPISODE --ledger " + ledger)
      } ` +
      "prints an episode's row, each model call the relay recorded (model, usage, latency, " +
      "status, refusal or fault) and the candidate's stdout and stderr tails, read from the " +
      "episode log stored beside its workspace artifact and checked against the row's digest " +
      `(add ${code("--artifacts DIR")} when the store is not ${code("artifacts/")} beside the ` +
      'ledger; a row without a stored log is printed with "no stored log"); ' +
      `${code("deno task ledgerbench view " + ledger)} browses and filters them all.` +
      (imported > 0
        ? " An imported episode has no stored log or transcript (its row is all there is), so " +
          "instead of a command it names the file and position its row was read from."
        : ""),
  });
  blocks.push({
    kind: "table",
    header: ["agent", "failed", "invalid", "listed"],
    align: ["left", "right", "right", "right"],
    rows: order.map((id) => {
      const list = byAgent.get(id)!;
      const invalid = list.filter((e) => e.outcome === "invalid").length;
      return [
        displayId(id),
        integer(list.length - invalid),
        integer(invalid),
        list.length > cap
          ? `${cap} (and ${integer(list.length - cap)} more)`
          : integer(list.length),
      ];
    }),
  });
  const episodeIds = distinctShortIds(listed.map((e) => e.episode_id));
  blocks.push({
    kind: "table",
    header: ["episode", "outcome", "stop reason", "log", "open with"],
    align: ["left", "left", "left", "left", "left"],
    rows: listed.map((e, k) => [
      code(episodeIds[k]),
      e.outcome === "invalid" ? `invalid (${code(e.invalid_reason ?? "")})` : "failed",
      code(e.stop_reason),
      e.imported !== undefined ? "imported" : e.episode_log_digest === null ? "none" : "stored",
      e.imported !== undefined
        ? `imported from ${code(e.imported.source)}, ${e.imported.position}`
        : code(`deno task ledgerbench show ${shellQuote(e.episode_id)} --ledger ${ledger}`),
    ]),
  });
  return blocks;
}

function costSection(summary: ReportSummary, figures: readonly FigureBlock[]): Block[] {
  const figure = figureOf(figures, "cost_frontier");
  const table = summary.inputs.price_table;
  if (figure.length === 0) {
    if (statedResolvedAgents(summary) === 0) return [];
    // Issue 25 item 3: never an empty plot under "Frontier: .".
    return [
      { kind: "heading", level: 2, text: "Cost against resolved rate" },
      {
        kind: "paragraph",
        text:
          `No cost figure: no agent whose numbers may be stated recorded ${
            table === null ? "tokens (and no price table was given)" : "a cost"
          }, so there is no cost per resolved to set against the resolved rate and no Pareto ` +
          "frontier.",
      },
    ];
  }
  return [
    { kind: "heading", level: 2, text: "Cost against resolved rate" },
    {
      kind: "paragraph",
      text: table === null
        ? "No price table given: cost is measured in tokens per resolved (seed 001: money only " +
          "through a frozen price table)."
        : `Money only through the frozen price table "${table.price_table_id}" (${table.currency}; ` +
          "seed 001): prompt and completion tokens of every scored attempt, failed ones " +
          "included, times the table's rates per million; the cost of invalid attempts is " +
          "recorded apart in summary.json and never in cost per resolved.",
    },
    ...figure,
  ];
}

function sprtSection(summary: ReportSummary, figures: readonly FigureBlock[]): Block[] {
  const s = summary.sprt;
  if (s === null) return [];
  const p = s.params;
  const blocks: Block[] = [
    { kind: "heading", level: 2, text: "Sequential stopping (seed 002)" },
    {
      kind: "paragraph",
      text: `Pre-registered Wald SPRT: p_adopt ${p.p_adopt}, p_drop ${p.p_drop}, α ${p.alpha}, ` +
        `β ${p.beta}, cap ${p.n_cap} valid results. LLR = passes · ln(p_adopt / p_drop) + fails · ` +
        `ln((1 − p_adopt) / (1 − p_drop)); adopt at LLR ≥ ${s.boundaries.upper.toFixed(3)}, ` +
        `drop at LLR ≤ ${s.boundaries.lower.toFixed(3)}; at the cap the point estimate decides. ` +
        "Each agent's rows are replayed in the plan's task order; invalid attempts count " +
        "neither way.",
    },
    {
      kind: "table",
      header: [
        "agent",
        "decision",
        "valid results",
        "passes",
        "fails",
        "LLR",
        "attempts",
        "invalid rate",
        "rows after the decision",
      ],
      align: ["left", "left", "right", "right", "right", "right", "right", "right", "right"],
      rows: s.agents.map((a) => {
        const stated = claimById(summary, `sprt:${a.agent_id}`)?.stated === true;
        return [
          displayId(a.agent_id),
          stated ? code(a.verdict) : NOT_STATED,
          integer(a.n),
          integer(a.passes),
          integer(a.fails),
          a.llr.toFixed(3),
          integer(a.attempts),
          percent(a.invalid_rate),
          integer(a.after_decision),
        ];
      }),
    },
    {
      kind: "list",
      items: claimsOf(summary, "sprt").map((c) => `${c.text}.`),
    },
  ];
  const notes = s.agents.flatMap((a) =>
    a.notes.map((note) => `"${displayId(a.agent_id)}": ${note}.`)
  );
  if (notes.length > 0) {
    blocks.push({ kind: "paragraph", text: "Replay notes:" }, { kind: "list", items: notes });
  }
  const cal = s.calibration;
  blocks.push({
    kind: "paragraph",
    text: "Operating characteristic of these parameters, exact (dynamic programming over the " +
      "walk's states) at seed 002's true rates, with a seeded Monte Carlo of the same walk " +
      `(${integer(cal.trials)} runs per rate, seed ${code(String(cal.seed))}) as a cross-check: ` +
      `largest |z| ${cal.max_abs_z === null ? "undefined" : cal.max_abs_z.toFixed(2)}` +
      (cal.min_exact_p === null ? "" : `; where an expected count is below 10, exact binomial ` +
        `tests, smallest p ${cal.min_exact_p.toPrecision(3)} (level ${
          cal.exact_p_level.toPrecision(3)
        })`) +
      ` (agreement within ${cal.tolerance_z} standard errors: ${cal.agrees ? "yes" : "no"}).`,
  });
  blocks.push({
    kind: "table",
    header: [
      "true pass rate",
      "P(adopt)",
      "P(drop)",
      "P(cap-adopt)",
      "P(cap-drop)",
      "E[valid results]",
      "P(budget exhausted)",
      "Monte Carlo max |z|",
    ],
    align: ["right", "right", "right", "right", "right", "right", "right", "right"],
    rows: cal.rows.map((row) => [
      row.p_true.toFixed(2),
      percent(row.exact.decisions.adopt),
      percent(row.exact.decisions.drop),
      percent(row.exact.decisions["cap-adopt"]),
      percent(row.exact.decisions["cap-drop"]),
      decimal(row.exact.expected_sample_size, 1),
      percent(row.exact.budget_exhausted),
      row.max_abs_z === null ? "-" : row.max_abs_z.toFixed(2),
    ]),
  });
  blocks.push(...figureOf(figures, "sprt_calibration"));
  for (const figure of figures.filter((f) => f.name.startsWith("sprt_path_"))) {
    blocks.push(...figureOf(figures, figure.name));
  }
  return blocks;
}

/** How the task list was chosen, in the inputs table (issue 25 item 4). */
function taskListDetail(inputs: ReportSummary["inputs"]): string {
  const tasks = inputs.task_list === null ? "" : `${plural(inputs.task_list.tasks, "task")}: `;
  switch (inputs.task_list_source) {
    case "beside_ledger":
      return `${tasks}found beside the ledger (no --tasks or --plan given)`;
    case "flag":
      return `${tasks}given with --tasks`;
    case "declined":
      return "declined with --tasks none: missing tasks are not counted";
    case "none":
      return inputs.plan === null
        ? "none beside the ledger: missing tasks are not counted"
        : "the plan's tasks are the denominator";
  }
}

function reproduceSection(summary: ReportSummary): Block[] {
  const { inputs } = summary;
  const args = [
    "deno task ledgerbench report",
    inputs.ledger.path,
    ...(inputs.plan === null ? [] : ["--plan", inputs.plan.path]),
    ...(inputs.errata === null ? [] : ["--errata", inputs.errata.path]),
    ...(inputs.price_table === null ? [] : ["--price-table", inputs.price_table.path]),
    // The denominator of results not run under a plan (issue 25: without it, another report).
    ...(inputs.task_list === null ? [] : ["--tasks", inputs.task_list.path]),
    // Declined: without "--tasks none" the list beside the ledger would be used (issue 25 item 4).
    ...(inputs.task_list_source === "declined" ? ["--tasks", "none"] : []),
    "--out DIR",
  ];
  return [
    { kind: "heading", level: 2, text: "Reproduce and verify" },
    {
      kind: "paragraph",
      text: "Paths are recorded as given, relative to the directory the report was run from. " +
        "The same inputs give byte-identical files; verify-report re-reads the inputs named in " +
        "summary.json, checks their SHA-256, recomputes every number, figure and file, and " +
        "lists every difference (exit status 1).",
    },
    {
      kind: "code",
      text: `${args.map(shellWord).join(" ")}\ndeno task ledgerbench verify-report DIR`,
    },
  ];
}

/** A word of the reproduce command: the fixed words as they are, the paths shell-quoted. */
function shellWord(word: string): string {
  return word.startsWith("deno task") || word === "--out DIR" ? word : shellQuote(word);
}

/**
 * The report's blocks, in reading order: title, summary (stated and withheld
 * claims), inputs and parameters, validation, planned tasks, the LLM judge
 * (only when the summary records one), errata, per-agent results,
 * how far the intervals can be trusted (their exact coverage), comparisons, censoring, invalid attempts, failed and invalid episodes (each
 * with its `ledgerbench show` command), cost, SPRT, and how to reproduce.
 * Every sentence is a claim of the summary or fixed text naming a rule; every
 * number is read from the summary. O(size of the summary).
 *
 * @param summary the computed summary (claims included)
 * @param figures the figures in reading order (numbers already assigned)
 * @returns the blocks for `toMarkdown` and `toHtml`
 */
export function reportDocument(
  summary: ReportSummary,
  figures: readonly FigureBlock[],
): Block[] {
  return [
    { kind: "heading", level: 1, text: summary.title },
    {
      kind: "paragraph",
      text: "Every number below is computed from the ledger alone (with the errata applied on " +
        "top) by ledgerbench's analysis; summary.json holds them at full precision beside the " +
        "inputs' SHA-256, seeds and parameters. A sentence appears only when the rules of the " +
        "seed documents allow it; the rule is named beside it in summary.json.",
    },
    { kind: "heading", level: 2, text: "Contents" },
    { kind: "toc" },
    ...summarySection(summary),
    ...inputsSection(summary),
    ...validationSection(summary),
    ...coverageSection(summary),
    ...judgeSection(summary),
    ...errataSection(summary),
    ...agentsSection(summary),
    ...intervalCoverageSection(summary),
    ...comparisonsSection(summary, figures),
    ...censoringSection(summary, figures),
    ...invalidSection(summary),
    ...agentNetworkSection(summary),
    ...inspectSection(summary),
    ...costSection(summary, figures),
    ...sprtSection(summary, figures),
    ...reproduceSection(summary),
  ];
}
