/**
 * The report's data model: what a report is computed from ({@link ReportInputs}),
 * what `summary.json` holds ({@link ReportSummary}) and the computed report
 * ({@link Report}) that `renderReport` turns into files. Types only, plus the
 * format tag, so the modules that compute the report's parts import them from
 * here and not from `build_report.ts`, which imports those modules.
 *
 * @module
 */
import type { AgentJudgeFaults } from "../analysis/judge/judge_faults.ts";
import type { TopLevelSpec } from "vega-lite";
import type { RateInterval } from "../analysis/bootstrap_rate.ts";
import type { CoverageProfile } from "../analysis/interval_coverage.ts";
import type { CoverageWarning, IntervalMethod } from "../analysis/rate_interval.ts";
import type {
  AgentStanding,
  DenominatorRecord,
  PooledStanding,
} from "../analysis/agent_standing.ts";
import type { CensoringSummary } from "../analysis/censoring.ts";
import type { AgentCoverage } from "../analysis/task_coverage.ts";
import type { LeaderboardPlace } from "../analysis/leaderboard.ts";
import type { Comparison } from "../analysis/compare_agents.ts";
import type { PairwisePValues } from "../analysis/pairwise_p_values.ts";
import type { AppliedErratum, ErrataFile } from "../analysis/errata.ts";
import type { JudgeFigures, LeftOutTask } from "../analysis/judge/judge_rows.ts";
import type { VerificationModes } from "../analysis/verification_modes.ts";
import type { AgentNetworkUse } from "../analysis/agent_network_use.ts";
import type { InvalidSummary } from "../analysis/invalid_attempts.ts";
import type { Loaded } from "../inputs/json_file.ts";
import type { TaskListSource } from "../inputs/task_list.ts";
import type { LedgerWithLines } from "../analysis/schema/ledger_file.ts";
import type { EpisodeRows } from "../analysis/episode_table.ts";
import type {
  CensoringPolicy,
  JudgeConfig,
  Plan,
  PriceTable,
  SprtParams,
  TaskList,
} from "../analysis/schema/records.ts";
import type { SprtCalibration } from "../analysis/sprt/calibrate_sprt.ts";
import type { SprtBoundaries } from "../analysis/sprt/sprt_boundaries.ts";
import type { SprtReplay } from "../analysis/sprt/replay_sprt.ts";
import type { AgentSummary } from "../analysis/summarize_agents.ts";
import type { PerResolvedUncertainty } from "../analysis/per_resolved_uncertainty.ts";
import type { ValidationReport } from "../analysis/validate_ledger.ts";
import type { Block, FigureBlock } from "./_document.ts";
import type { EpisodeToInspect } from "./episodes_to_inspect.ts";

/**
 * The format tag written into every `summary.json`; bumped when its layout
 * changes. Format 5 (issue 25): `leaderboard`, `inputs.task_list_source`,
 * and `imported` on the episodes to inspect that were imported.
 */
export const REPORT_FORMAT = "ledgerbench-report/5";

/** The ledger as the inputs layer loads it: its scan, readable rows in file order (before errata) and each row's 1-based line. */
export type ReportLedger = LedgerWithLines<EpisodeRows>;

/** A configuration file as the inputs layer loads it: path as given, SHA-256, value. */
export type ReportConfig<T> = Loaded<T>;

/** Everything a report is computed from (see `loadReportInputs` for reading it). */
export interface ReportInputs {
  /** The ledger; its `file` is recorded as given (never made absolute). */
  ledger: ReportLedger;
  /** The errata file, applied on top of the rows; null or absent: none. */
  errata?: ErrataFile | null;
  /** The frozen plan: validation, bootstrap, tie band, censoring policy, lane weights, SPRT. */
  plan?: ReportConfig<Plan> | null;
  /** The frozen price table: money columns. */
  priceTable?: ReportConfig<PriceTable> | null;
  /** The task list of imported results: the denominator when there is no plan (issue 11). */
  taskList?: ReportConfig<TaskList> | null;
  /**
   * How the task list was chosen (`chooseTaskList`, cli/_load.ts; issue 25
   * item 4); absent: `flag` with a task list, else `none`.
   */
  taskListSource?: TaskListSource;
}

/** Where a parameter came from. */
export type ParameterSource = "plan" | "default";

/** One statement of the report, and the rule that allowed or withheld it. */
export interface ReportClaim {
  /** Stable id: `validation`, `errata:<id>`, `censoring:*`, `censoring:<agent>`, `agent:<agent>`,
   * `invalid:<agent>`, `pair:<a>:<b>`, `sprt:<agent>`, `sprt-reachability:<n>`, `judge`. */
  id: string;
  /** What the claim is about. */
  topic:
    | "validation"
    | "errata"
    | "censoring"
    | "coverage"
    | "agent"
    | "invalid"
    | "comparison"
    | "sprt"
    | "judge";
  /** The rule that decided it, e.g. `seed-001 rule "tpr"`, `seed-003 policy "both_labelled"`. */
  rule: string;
  /** False when a rule withholds the claim; `text` then says which rule and why. */
  stated: boolean;
  /** The sentence the report prints (no final period). */
  text: string;
}

/** One agent's rate interval as the report states it. */
export interface AgentInterval {
  agent_id: string;
  /** Seed 001's percentile bootstrap interval; null when nothing was scored. */
  bootstrap: RateInterval | null;
  /** Wilson 95% interval, given only when the bootstrap collapsed to a point. */
  wilson: { lower: number; upper: number } | null;
  /** The plan's interval method (format 4). */
  method: IntervalMethod;
  /** The interval the verdicts use and the report prints; null when nothing was scored. */
  rule: { lower: number; upper: number } | null;
  /** Under the default method at small n or few successes or failures: why, and Wilson beside. */
  coverage_warning: CoverageWarning | null;
}

/**
 * How often one agent's 95% rate interval covers the true rate at its n
 * (issue 13, the tool's own error; analysis/interval_coverage.ts): the
 * interval the report prints (the bootstrap, Wilson when it collapses) and
 * the Wilson interval, at the observed rate and across rates.
 */
export interface AgentIntervalCoverage {
  agent_id: string;
  scored: number;
  resolved: number;
  /** The coverage of the interval of the plan's method, which the verdicts use. */
  used: CoverageProfile;
  wilson: CoverageProfile;
}

/**
 * The LLM judge of judge-verified tasks as the report states it (issue 14;
 * seed 000 §06): the plan's judge, its figures over every judged row after
 * errata, and the tasks left out of formal scores because their judge was
 * not calibrated. Present only when the ledger has judged rows or the plan
 * has a judge, so reports without either keep their bytes.
 */
export interface ReportJudge {
  /**
   * The plan's judge as frozen: its model, sampling parameters, attempts
   * per judgment, release gates and the calibration `freeze` found
   * (`passed` with the measured agreement and swap consistency, `failed`
   * with its reasons, or `not_run`); null without a plan or when the plan
   * has no judge.
   */
  plan: JudgeConfig | null;
  /** `judgeFigures` of every row after errata, left-out rows included. */
  figures: JudgeFigures;
  /** `judgeLeftOut`'s tasks: their rows are in no score, rate, denominator or figure. */
  left_out: LeftOutTask[];
  /**
   * Each agent's judge-fault rate over the counted rows and the claim it
   * allows (issue 21, `agentJudgeFaults`); empty when no counted row was judged.
   */
  judge_faults: AgentJudgeFaults[];
}

/** One agent's SPRT replay without its step list (the path figure carries the steps). */
export interface SprtAgentResult extends
  Pick<
    SprtReplay,
    | "agent_id"
    | "verdict"
    | "decided"
    | "n"
    | "passes"
    | "fails"
    | "llr"
    | "attempts"
    | "invalid_count"
    | "invalid_rate"
    | "skipped_tasks"
    | "repeated_tasks"
    | "notes"
  > {
  /** Rows after the decision (not used). */
  after_decision: number;
  /** Rows of tasks absent from the plan's order (not used). */
  unplanned: number;
}

/** Seed 002's sequential rule as the plan pre-registered it, replayed per agent. */
export interface SprtSection {
  params: SprtParams;
  boundaries: SprtBoundaries;
  /** Always `"planned"`: the plan's task order. */
  order: "planned";
  agents: SprtAgentResult[];
  /**
   * Exact operating characteristic at seed 002's true rates 0.3 to 0.7 beside a seeded
   * Monte Carlo of the same walk, and the decision branches that can never occur.
   */
  calibration: SprtCalibration;
}

/** A figure as recorded in the summary. */
export interface ReportFigureRecord {
  name: string;
  number: number;
  title: string;
  /** Relative path of the SVG. */
  svg: string;
  /** Relative path of the PNG. */
  png: string;
  /** SHA-256 of the vega-lite spec as canonical JSON (the data the figure draws). */
  spec_sha256: string;
}

/** The contents of `summary.json`: inputs, parameters, results and claims. */
export interface ReportSummary {
  format: typeof REPORT_FORMAT;
  title: string;
  inputs: {
    ledger: { path: string; sha256: string; lines: number; rows: number; chained: boolean };
    errata: { path: string; sha256: string; entries: number } | null;
    plan: { path: string; sha256: string; plan_id: string } | null;
    price_table:
      | { path: string; sha256: string; price_table_id: string; currency: string }
      | null;
    /** The task list given with `--tasks` (issue 11); null without one. */
    task_list: { path: string; sha256: string; tasks: number } | null;
    /**
     * Where the task list came from: `flag` (`--tasks FILE`), `beside_ledger`
     * (found beside the ledger, no `--tasks` or `--plan`), `declined`
     * (`--tasks none`), `none` (issue 25 item 4). The reproduce command
     * names the list, or `--tasks none`, so that copying it gives this report.
     */
    task_list_source: TaskListSource;
  };
  parameters: {
    bootstrap: { rounds: number; seed: number | string; source: ParameterSource };
    tie_band: { value: number; source: ParameterSource };
    /** The rate interval of every verdict (format 4). */
    interval_method: { value: IntervalMethod; source: ParameterSource };
    censoring_policy: CensoringPolicy & { source: ParameterSource };
    lane_weights: Record<string, number> | null;
    sprt: SprtParams | null;
    /** The SPRT calibration's settings; null without an SPRT plan. */
    sprt_calibration:
      | { rates: number[]; trials: number; seed: number | string; grid_steps: number }
      | null;
    max_findings_per_code: number;
    figures: { png_scale: number; font_family: string };
  };
  /**
   * False when the ledger fails validation against its plan; the capability
   * claims of the agents the failing findings concern (or of every agent,
   * for a finding about the whole ledger) are withheld (`standings`).
   */
  citable: boolean;
  /** Validation of the ledger as recorded: it decides `citable`. */
  validation: ValidationReport | null;
  /** Validation of the rows after the errata (null without a plan or without episode errata). */
  validation_after_errata: ValidationReport | null;
  errata: { applied: AppliedErratum[]; voided_summaries: string[] } | null;
  agents: AgentSummary[];
  intervals: AgentInterval[];
  /** Per agent with a scored episode, the exact coverage of its intervals (format 4). */
  interval_coverage: AgentIntervalCoverage[];
  /**
   * Per agent, tokens, seconds and cost per resolved with their task-cluster
   * bootstrap 95% intervals (`{estimate, lo, hi}`, or nulls with
   * `null_reason`), and the share of task-paired resamples in which it is on
   * the cost frontier of the stated agents (`frontier_probability`, a
   * stability figure); `perResolvedUncertainty` with the plan's bootstrap
   * (issue 23).
   */
  per_resolved: PerResolvedUncertainty;
  /** Invalid attempts per agent and reason, their rates and claims (`invalidSummary`, issue 23). */
  invalid: InvalidSummary;
  /** Every failed and invalid episode after errata, in ledger order (`ledgerbench show` opens each). */
  episodes_to_inspect: EpisodeToInspect[];
  censoring: CensoringSummary;
  /** The plan's or the task list's tasks and the missing policy; null without either (issue 11). */
  denominator: DenominatorRecord | null;
  /** Per-agent coverage of the denominator; null without one. */
  coverage: AgentCoverage[] | null;
  /** What each agent may claim (`assessClaims`, the same call every command makes). */
  standings: AgentStanding[];
  /** What the whole run pooled may claim: never more than its weakest agent (issue 23). */
  pooled: PooledStanding;
  comparisons: Comparison[];
  /**
   * The agents in leaderboard order with their ranks (`leaderboardOfAgents`,
   * issue 25): rank = 1 + the stated agents that beat it by seed 001's
   * verdicts (`comparisons`), overlapping agents sharing a rank; withheld
   * agents and agents that resolved nothing last, unranked. Every per-agent
   * table and figure of the report comes in this order.
   */
  leaderboard: LeaderboardPlace[];
  /**
   * The exact McNemar test of each pair on the tasks both attempted, and its
   * Holm adjustment over the number of comparisons (format 4); null with
   * fewer than two agents.
   */
  paired_tests: PairwisePValues | null;
  sprt: SprtSection | null;
  /**
   * The LLM judge (issue 14); absent when the ledger has no judged row and
   * the plan no judge (format 4 without it, byte for byte).
   */
  judge?: ReportJudge;
  /**
   * How the rows (after errata) were verified (issue 22): every row, those
   * with a `verification` record, and the count per mode (`shared`: the
   * verifier ran in the candidate's own container, so the verdict is not
   * sealed; the `verification-mode` claim states it). Absent when no row
   * records one (format 4 without it, byte for byte).
   */
  verification_modes?: VerificationModes;
  /**
   * Where each agent's requests went through its recording egress proxy
   * (`agentNetworkUse`): rows, allowed and denied requests, per host.
   * Absent when no row records an agent network (older reports keep their bytes).
   */
  agent_network?: AgentNetworkUse[];
  claims: ReportClaim[];
  figures: ReportFigureRecord[];
}

/** A figure of the report: where it goes and the vega-lite spec to render. */
export interface ReportFigure extends FigureBlock {
  spec: TopLevelSpec;
}

/** The report, computed: what `renderReport` turns into files. */
export interface Report {
  /** The contents of `summary.json` (write it with `canonicalJson`). */
  summary: ReportSummary;
  /** The contents of `report.md`. */
  markdown: string;
  /** The figure specs in reading order. */
  figures: ReportFigure[];
  /** The document both `report.md` and `report.html` are rendered from. */
  blocks: Block[];
}

/**
 * What `buildReport` uses when an option is absent: 20 validation findings
 * listed per code (the counts stay complete) and PNGs at twice the SVG's
 * pixels. `report --help` states the same constants.
 */
export const REPORT_DEFAULTS = Object.freeze({ maxFindingsPerCode: 20, pngScale: 2 });
