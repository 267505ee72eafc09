/**
 * The replayable report, computed once: every number, every claim and every
 * figure spec of `ledgerbench report`, as a pure function of the ledger rows,
 * the errata, the frozen plan and the frozen price table.
 *
 * @module
 */
import { coverageProfiles } from "../analysis/interval_coverage.ts";
import { type IntervalMethod, rateInterval } from "../analysis/rate_interval.ts";
import type { RateInterval } from "../analysis/bootstrap_rate.ts";
import { leaderboardOfAgents } from "../analysis/leaderboard.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { comparisonMatrix } from "../analysis/compare_agents.ts";
import { pairedComparisons } from "../analysis/paired_comparison.ts";
import { pairwisePValues } from "../analysis/pairwise_p_values.ts";
import { ledgerView } from "../analysis/ledger_view.ts";
import { LedgerError } from "../analysis/ledger_error.ts";
import { CensoringPolicy, type Episode, type PriceTable } from "../analysis/schema/records.ts";
import { calibrateSprt, SEED_002_RATES } from "../analysis/sprt/calibrate_sprt.ts";
import { sprtBoundaries } from "../analysis/sprt/sprt_boundaries.ts";
import { replaySprt, type SprtReplay } from "../analysis/sprt/replay_sprt.ts";
import { type AgentSummary, summarizeAgents } from "../analysis/summarize_agents.ts";
import { perResolvedUncertainty } from "../analysis/per_resolved_uncertainty.ts";
import { validateRows } from "../analysis/validate_ledger.ts";
import {
  agentClaim,
  censoringClaim,
  comparisonClaim,
  coverageClaim,
  errataClaims,
  errataValidationClaim,
  invalidClaim,
  priceTableClaim,
  spendEvidenceClaim,
  sprtClaim,
  validationClaim,
  verificationModeClaim,
} from "./_claims.ts";
import { verificationModes } from "../analysis/verification_modes.ts";
import { agentNetworkUse } from "../analysis/agent_network_use.ts";
import { withheldPairWords, withheldWords } from "./standing_words.ts";
import { assessView, denominatorRecord, withheldPairGroups } from "../analysis/agent_standing.ts";
import { judgeFigures } from "../analysis/judge/judge_rows.ts";
import { judgeClaim, judgeFaultClaim, reportJudge } from "./_judge.ts";
import { toMarkdown } from "./_document.ts";
import { CALIBRATION_GRID_STEPS, figureSpecs } from "./_figures.ts";
import { reportDocument } from "./_report_document.ts";
import { episodesToInspect } from "./episodes_to_inspect.ts";
import {
  type AgentInterval,
  type ParameterSource,
  type Report,
  REPORT_DEFAULTS,
  REPORT_FORMAT,
  type ReportClaim,
  type ReportConfig,
  type ReportFigure,
  type ReportInputs,
  type ReportSummary,
  type SprtAgentResult,
  type SprtSection,
} from "./report_model.ts";
import {
  DEFAULT_BOOTSTRAP,
  DEFAULT_CALIBRATION,
  DEFAULT_INTERVAL_METHOD,
  DEFAULT_TIE_BAND,
} from "../analysis/defaults.ts";

/** Options for {@link buildReport}; each is recorded in `summary.parameters`. */
export interface BuildReportOptions {
  /** Validation findings listed per code (counts stay complete); default 20. */
  maxFindingsPerCode?: number;
  /** Zoom from SVG to PNG pixels for the rendered figures; default 2. */
  pngScale?: number;
  /** Monte Carlo runs per true rate of the SPRT calibration; default 20,000. */
  calibrationTrials?: number;
  /** Seed of the SPRT calibration's Monte Carlo; default 7. */
  calibrationSeed?: number | string;
}

/** The font family the figures ask for and resvg falls back to. */
const FONT_FAMILY = "DejaVu Sans";

function checkPriceTable(rows: Iterable<Episode>, table: ReportConfig<PriceTable>): void {
  const other = Iterator.from(rows).find((row) =>
    row.price_table_id !== table.value.price_table_id
  );
  if (other !== undefined) {
    throw new LedgerError([{
      code: "schema_violation",
      file: table.path,
      line: 0,
      field: "price_table_id",
      message: `price table "${table.value.price_table_id}" is not the table the ledger's rows ` +
        `name: episode "${other.episode_id}" names "${other.price_table_id}"`,
    }]);
  }
}

function agentInterval(
  agent: AgentSummary,
  options: { method: IntervalMethod; rounds: number; seed: number | string },
): AgentInterval {
  const interval = rateInterval(agent.resolved, agent.scored, options);
  const w = interval.wilson;
  return {
    agent_id: agent.agent_id,
    // Seed 001's interval under the default method, as format 3 recorded it.
    bootstrap: options.method === "percentile-bootstrap"
      ? interval.interval as RateInterval | null
      : null,
    wilson: w === null ? null : { lower: w.lower, upper: w.upper },
    method: interval.method,
    rule: interval.rule === null
      ? null
      : { lower: interval.rule.lower, upper: interval.rule.upper },
    coverage_warning: interval.coverage_warning,
  };
}

function sprtAgent(replay: SprtReplay): SprtAgentResult {
  return {
    agent_id: replay.agent_id,
    verdict: replay.verdict,
    decided: replay.decided,
    n: replay.n,
    passes: replay.passes,
    fails: replay.fails,
    llr: replay.llr,
    attempts: replay.attempts,
    invalid_count: replay.invalid_count,
    invalid_rate: replay.invalid_rate,
    after_decision: replay.after_decision.length,
    unplanned: replay.unplanned.length,
    skipped_tasks: replay.skipped_tasks,
    repeated_tasks: replay.repeated_tasks,
    notes: replay.notes,
  };
}

/**
 * Computes the whole report from its inputs: the numbers (per-agent summary,
 * intervals, comparisons, censoring, invalid rates, SPRT replay, validation),
 * the claims the rules allow, the figure specs and the Markdown document.
 *
 * Rules applied (each claim records the one that decided it):
 * - seed 003 validation: with a plan, the (corrected) rows are validated
 *   against it; any error finding makes the report not `citable` and every
 *   capability claim (rates, rankings, SPRT decisions) is withheld;
 * - seed 003 censoring policy (the plan's thresholds, else 2% / 10%): per
 *   agent, under `headline_max` a headline rate; up to `labelled_max` both the
 *   resolved rate over scored episodes (a lower bound) and the score over completed tasks
 *   only; above, no capability number, only budget adequacy (stop reasons);
 * - seed 001 comparison rule for every pair (bootstrap rounds, seed and tie
 *   band from the plan, else 2000, 7, 10%): no rate winner when the 95%
 *   intervals overlap, then tokens per resolved, seconds per resolved, tie;
 *   a pair is stated only when both agents' numbers may be stated, and the
 *   comparison figures (forest, efficiency, cost frontier) appear only when
 *   every pair may be;
 * - seeds 000 and 002: invalid attempts are counted per agent and reason and
 *   never scored; errata are applied on top of the ledger (never rewriting it)
 *   and each correction and voided summary is stated;
 * - issue 8: every failed and invalid episode (after errata) is listed with
 *   the `ledgerbench show` command that opens its row and stored log;
 * - issue 22: the rows' verifier modes are counted (`verificationModes`,
 *   recorded in `summary.verification_modes` when a row records one), and
 *   rows verified in Harbor's shared mode, where the verifier ran in the
 *   candidate's own container, are stated among the notes on the ledger
 *   (the `verification-mode` claim: their verdicts are not sealed);
 * - seed 002 SPRT, when the plan's stopping rule is `sprt`: each agent's rows
 *   replayed in the plan's task order, with the exact operating
 *   characteristic at p_drop, the midpoint and p_adopt, and the unreachable
 *   branches;
 * - issue 14 (seed 000: the judge is unavailable until calibrated, the
 *   tasks that depend on it are not scored for now): after errata, the rows
 *   whose LLM judge was not calibrated (`judgeLeftOut`) are left out of
 *   every number, claim and figure above and their tasks out of the
 *   denominator; the judge's own figures (over every judged row), the tasks
 *   left out and the claim the judge's calibration allows are recorded in
 *   `summary.judge` and the `judge` claim, only when the ledger has judged
 *   rows or the plan a judge;
 * - issue 21 (judge faults never pay): each agent's judge-fault rate over
 *   the counted rows (`agentJudgeFaults`) is held to the censoring
 *   thresholds in its standing, recorded in `summary.judge.judge_faults`
 *   and stated in a `judge-faults:<agent>` claim.
 *
 * Pure: no I/O, no clock, randomness only through the seeded bootstrap.
 * Cost: O(rows) for the summaries and validation, plus one bootstrap per agent
 * (O(n + R log n)), O(agents²) pairs and O(n_cap²) per SPRT operating point.
 *
 * @param inputs the ledger (rows with their lines), errata, plan and price table
 * @param options findings listed per code (default 20), PNG zoom (default 2)
 * @returns the summary, the Markdown text, the figure specs and the document blocks
 * @throws {LedgerError} when an erratum cannot apply, or the price table is not
 *   the one the rows name
 * @example
 * ```ts
 * import { buildReport } from "./build_report.ts";
 * import { Episode } from "../analysis/schema/records.ts";
 * const rows = [true, false].map((resolved, i) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: `t${i}`, seed: 7, resolved, prompt_tokens: 100,
 *   completion_tokens: 50, tool_calls: 1, wall_ms: 3000, price_table_id: "p",
 * }));
 * const report = buildReport({
 *   ledger: { file: "l.jsonl", sha256: "0".repeat(64), lines: 2, valid_rows: 2, chained: false,
 *     problems: [], rows, row_lines: [1, 2] },
 * });
 * if (report.summary.agents[0].resolved_rate !== 0.5) throw new Error("rate");
 * ```
 */
export function buildReport(inputs: ReportInputs, options: BuildReportOptions = {}): Report {
  const maxFindings = options.maxFindingsPerCode ?? REPORT_DEFAULTS.maxFindingsPerCode;
  const pngScale = options.pngScale ?? REPORT_DEFAULTS.pngScale;
  const calibrationTrials = options.calibrationTrials ?? DEFAULT_CALIBRATION.trials;
  const calibrationSeed = options.calibrationSeed ?? DEFAULT_CALIBRATION.seed;
  if (!(Number.isInteger(maxFindings) && maxFindings >= 0)) {
    throw new RangeError(
      `Cannot build report: "maxFindingsPerCode" must be an integer ≥ 0, got ${maxFindings}`,
    );
  }
  if (!(Number.isFinite(pngScale) && pngScale > 0)) {
    throw new RangeError(
      `Cannot build report: "pngScale" must be a positive number, got ${pngScale}`,
    );
  }
  const { ledger } = inputs;
  const errata = inputs.errata ?? null;
  const planRef = inputs.plan ?? null;
  const plan = planRef?.value ?? null;
  const tableRef = inputs.priceTable ?? null;
  const taskListRef = inputs.taskList ?? null;

  // The one view of the rows (analysis/ledger_view.ts, the commands' and the notebooks' too):
  // errata on top of the ledger, never rewriting it (seed 000); the rows of an uncalibrated judge
  // recorded but left out of every figure (issue 14, seed 000); the judge's own figures over
  // every corrected row.
  const view = ledgerView(ledger.rows, errata);
  const application = view.errata;
  const corrected = view.corrected;
  if (tableRef !== null) checkPriceTable(corrected, tableRef);
  const rows = view.rows;
  const leftOut = view.left_out;
  const judgeRecordFigures = view.judge ?? judgeFigures([]);

  // Parameters: the plan's pre-registered values, else seed 001/003 defaults.
  const source: ParameterSource = plan === null ? "default" : "plan";
  const rounds = plan?.bootstrap.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = plan?.bootstrap.seed ?? DEFAULT_BOOTSTRAP.seed;
  const band = plan?.tie_band ?? DEFAULT_TIE_BAND;
  const method = plan?.interval_method ?? DEFAULT_INTERVAL_METHOD;
  const policy = plan?.censoring ?? CensoringPolicy.parse({});
  const laneWeights = plan !== null && Object.keys(plan.lane_weights).length > 0
    ? plan.lane_weights
    : null;
  const sprtParams = plan?.stopping.kind === "sprt" ? plan.stopping.params : null;

  // The claim assessment every command makes (issue 11): the ledger as recorded is validated
  // against the plan (seed 003), censoring and the plan's or task list's tasks are covered, and
  // each agent's standing decides what it may claim; tasks left out of formal scores are not in
  // the denominator. The corrected rows, all of them, are validated again to state what the
  // errata changed.
  const assessment = assessView(view, ledger, {
    plan,
    taskList: taskListRef?.value ?? null,
    policy,
    maxFindingsPerCode: maxFindings,
  });
  const validation = assessment.validation;
  const judge = reportJudge(judgeRecordFigures, leftOut, plan, assessment.judge_faults);
  const reValidate = plan !== null && application !== null && application.applied.length > 0;
  const validationAfterErrata = reValidate
    ? validateRows(plan, corrected, ledger.row_lines, ledger, { maxFindingsPerCode: maxFindings })
    : null;
  const citable = validation === null || validation.ok;

  const agents = summarizeAgents(rows, {
    priceTable: tableRef?.value,
    laneWeights: laneWeights ?? undefined,
  });
  const intervals = agents.map((a) => agentInterval(a, { method, rounds, seed }));
  const scoredAgents = agents.filter((a) => a.scored > 0);
  const usedCoverage = coverageProfiles(method, scoredAgents, { rounds, seed });
  const wilsonCoverage = coverageProfiles("wilson", scoredAgents, { rounds, seed });
  const intervalCoverage = scoredAgents.map((a, i) => ({
    agent_id: a.agent_id,
    scored: a.scored,
    resolved: a.resolved,
    used: usedCoverage[i],
    wilson: wilsonCoverage[i],
  }));
  const invalid = assessment.invalid;
  const censoring = assessment.censoring;
  const comparisons = agents.length >= 2
    ? comparisonMatrix(agents, { band, rounds, seed, method })
    : [];
  // The exact McNemar test of every pair on the tasks both attempted, Holm-adjusted over the matrix.
  const pairedTests = comparisons.length === 0 ? null : pairwisePValues(
    pairedComparisons(rows, comparisons.map((c) => [c.a.agent_id, c.b.agent_id]), {
      rounds,
      seed,
      bootstrap: false,
    }),
  );

  let sprt: SprtSection | null = null;
  const replays: SprtReplay[] = [];
  if (sprtParams !== null && plan !== null) {
    // the planned order without the tasks left out of formal scores: never skipped tasks
    const left = new Set(leftOut.map((task) => task.task_id));
    const order = plan.tasks.map((task) => task.task_id).filter((id) => !left.has(id));
    for (const a of agents) {
      replays.push(replaySprt(rows, { agentId: a.agent_id, params: sprtParams, order }));
    }
    sprt = {
      params: sprtParams,
      boundaries: sprtBoundaries(sprtParams),
      order: "planned",
      agents: replays.map(sprtAgent),
      calibration: calibrateSprt(sprtParams, {
        trials: calibrationTrials,
        seed: calibrationSeed,
        rates: SEED_002_RATES,
      }),
    };
  }

  // Claims.
  const censoringRows = new Map(censoring.agents.map((row) => [row.agent_id, row]));
  const planId = plan?.plan_id ?? null;
  const policySource = source === "plan" ? "from the plan" : "the defaults";
  const withheld = new Map(
    assessment.standings.map((s) => [s.agent_id, withheldWords(s, assessment, planId)]),
  );
  const standings = new Map(assessment.standings.map((s) => [s.agent_id, s]));
  const labelled = new Set(
    assessment.standings.filter((s) => s.claim === "both_labelled").map((s) => s.agent_id),
  );
  const claims: ReportClaim[] = [validationClaim(validation, plan)];
  if (validation !== null && validationAfterErrata !== null) {
    claims.push(errataValidationClaim(validation, validationAfterErrata));
  }
  const spend = spendEvidenceClaim(rows);
  if (spend !== null) claims.push(spend);
  const prices = priceTableClaim(corrected);
  if (prices !== null) claims.push(prices);
  // Rows whose verifier ran in the candidate's own container (issue 22): always counted and said.
  const modes = verificationModes(rows);
  const network = agentNetworkUse(rows);
  const shared = verificationModeClaim(modes, assessment.flagged);
  if (shared !== null) claims.push(shared);
  if (errata !== null && application !== null) {
    claims.push(...errataClaims(errata, application.applied));
  }
  if (agents.length === 0) {
    claims.push({
      id: "agent:none",
      topic: "agent",
      rule: "seed-001 ledger",
      stated: true,
      text: "The ledger holds no rows: nothing to report",
    });
  } else {
    claims.push(
      censoringClaim(censoring.overall, { ...policy, source: policySource }, assessment.pooled),
    );
  }
  agents.forEach((agent, i) => {
    const row = censoringRows.get(agent.agent_id)!;
    claims.push(
      censoringClaim(row, { ...policy, source: policySource }, standings.get(agent.agent_id)!),
    );
    claims.push(agentClaim(agent, {
      interval: intervals[i],
      row,
      claim: standings.get(agent.agent_id)!.claim,
      withheld: withheld.get(agent.agent_id) ?? null,
      judgeFaults: assessment.judge_faults.find((r) => r.agent_id === agent.agent_id) ?? null,
      invalid: invalid.agents.find((r) => r.agent_id === agent.agent_id) ?? null,
      coverage: assessment.coverage?.find((r) => r.agent_id === agent.agent_id) ?? null,
    }));
  });
  for (const row of invalid.agents) {
    claims.push(invalidClaim(row, invalid.policy, standings.get(row.agent_id)));
  }
  if (assessment.coverage !== null) {
    for (const row of assessment.coverage) claims.push(coverageClaim(row, assessment));
  }
  if (judge !== null) {
    claims.push(judgeClaim(judge));
    for (const row of judge.judge_faults) {
      claims.push(judgeFaultClaim(row, assessment.judge_fault_policy));
    }
  }
  for (const c of comparisons) {
    const claim = comparisonClaim(c, { withheld, labelled });
    if (claim !== null) claims.push(claim);
  }
  const pairGroups = withheldPairGroups(
    comparisons.map((c) => [c.a.agent_id, c.b.agent_id] as const),
    assessment.standings,
  );
  for (const group of pairGroups) {
    const words = withheldPairWords(group, assessment, planId);
    claims.push({
      id: `pairs-withheld:${group.cause}`,
      topic: "comparison",
      rule: words.rule,
      stated: false,
      text: words.text,
    });
  }
  if (sprt !== null) {
    for (const agent of sprt.agents) {
      claims.push(sprtClaim(agent, {
        boundaries: sprt.boundaries,
        params: sprt.params,
        withheld: withheld.get(agent.agent_id) ?? null,
      }));
    }
    sprt.calibration.reachability.warnings.forEach((warning, i) => {
      claims.push({
        id: `sprt-reachability:${i + 1}`,
        topic: "sprt",
        rule: "seed-002 reachability",
        stated: true,
        text: warning.replace(/\.$/, ""),
      });
    });
  }

  // Tokens, seconds and cost per resolved with task-cluster intervals, and each stated agent's
  // share of task-paired resamples on the cost frontier (issue 23), with the plan's bootstrap.
  const perResolved = perResolvedUncertainty(rows, {
    rounds,
    seed,
    priceTable: tableRef?.value,
    agents: agents.map((a) => a.agent_id),
    frontierAgents: agents.filter((a) => withheld.get(a.agent_id) === null).map((a) => a.agent_id),
  });

  const title = plan === null
    ? `Evaluation report: ${ledger.file}`
    : `Evaluation report: plan "${plan.plan_id}"`;
  const base: Omit<ReportSummary, "figures"> = {
    format: REPORT_FORMAT,
    title,
    inputs: {
      ledger: {
        path: ledger.file,
        sha256: ledger.sha256,
        lines: ledger.lines,
        rows: ledger.valid_rows,
        chained: ledger.chained,
      },
      errata: errata === null
        ? null
        : { path: errata.file, sha256: errata.sha256, entries: errata.entries.length },
      plan: planRef === null
        ? null
        : { path: planRef.path, sha256: planRef.sha256, plan_id: planRef.value.plan_id },
      price_table: tableRef === null ? null : {
        path: tableRef.path,
        sha256: tableRef.sha256,
        price_table_id: tableRef.value.price_table_id,
        currency: tableRef.value.currency,
      },
      task_list: taskListRef === null ? null : {
        path: taskListRef.path,
        sha256: taskListRef.sha256,
        tasks: taskListRef.value.tasks.length,
      },
      task_list_source: inputs.taskListSource ?? (taskListRef === null ? "none" : "flag"),
    },
    parameters: {
      bootstrap: { rounds, seed, source },
      tie_band: { value: band, source },
      interval_method: {
        value: method,
        source: plan?.interval_method === undefined ? "default" : "plan",
      },
      censoring_policy: { ...policy, source },
      lane_weights: laneWeights,
      sprt: sprtParams,
      sprt_calibration: sprtParams === null ? null : {
        rates: [...SEED_002_RATES],
        trials: calibrationTrials,
        seed: calibrationSeed,
        grid_steps: CALIBRATION_GRID_STEPS,
      },
      max_findings_per_code: maxFindings,
      figures: { png_scale: pngScale, font_family: FONT_FAMILY },
    },
    citable,
    validation,
    validation_after_errata: validationAfterErrata,
    errata: application === null
      ? null
      : { applied: application.applied, voided_summaries: application.voided_summaries },
    agents,
    intervals,
    interval_coverage: intervalCoverage,
    per_resolved: perResolved,
    invalid,
    episodes_to_inspect: episodesToInspect(rows),
    censoring,
    denominator: denominatorRecord(assessment),
    coverage: assessment.coverage,
    standings: assessment.standings,
    pooled: assessment.pooled,
    comparisons,
    leaderboard: leaderboardOfAgents(agents, assessment, comparisons),
    paired_tests: pairedTests,
    sprt,
    // Only with judged rows or a plan's judge (issue 14): other reports keep their bytes.
    ...(judge === null ? {} : { judge }),
    // Only when a row records how it was verified (issue 22), for the same reason.
    ...(modes.recorded === 0 ? {} : { verification_modes: modes }),
    // Only when an agent had a network (its rows record agent_egress), for the same reason.
    ...(network.length === 0 ? {} : { agent_network: network }),
    claims,
  };
  const statedAgents = new Set(
    agents.filter((a) => withheld.get(a.agent_id) === null).map((a) => a.agent_id),
  );
  const figures: ReportFigure[] = figureSpecs(base, { replays, statedAgents }).map((f, i) => ({
    kind: "figure",
    name: f.name,
    number: i + 1,
    title: f.title,
    caption: f.caption,
    spec: f.spec,
  }));
  const summary: ReportSummary = {
    ...base,
    figures: figures.map((f) => ({
      name: f.name,
      number: f.number,
      title: f.title,
      svg: `figures/${f.name}.svg`,
      png: `figures/${f.name}.png`,
      spec_sha256: sha256Hex(canonicalJson(f.spec)),
    })),
  };
  const blocks = reportDocument(summary, figures);
  return { summary, markdown: toMarkdown(blocks), figures, blocks };
}
