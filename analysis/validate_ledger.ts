/**
 * Seed 003's validation pass, run before anyone looks at a mean: does the
 * ledger hold exactly the rows the frozen plan calls for, with known stop
 * reasons and spend within the caps, and is it intact (no duplicates, hash
 * chain unbroken)?
 *
 * @module
 */
import { type CapExcess, episodeSteps, episodeTokens, overCap } from "./classify_episode.ts";
import type { LedgerProblem, ProblemCode } from "./ledger_error.ts";
import type { LedgerScan } from "./schema/ledger_file.ts";
import type { RowLineNumbers } from "./row_lines.ts";
import {
  type Caps,
  type Episode,
  type Plan,
  type SprtParams,
  StopReason,
} from "./schema/records.ts";
import { spendEvidenceFlags } from "./spend_evidence.ts";
import { replaySprt, type SprtRow } from "./sprt/replay_sprt.ts";

/** What a validation finding is about. */
export type FindingCode =
  | Exclude<
    ProblemCode,
    | "unknown_episode"
    | "duplicate_erratum_id"
    | "erratum_conflict"
    | "duplicate_label"
    | "label_conflict"
    | "empty_file"
    | "hash_mismatch"
    | "bad_archive"
  >
  | "unexpected_agent"
  | "unexpected_task"
  | "lane_mismatch"
  | "price_table_mismatch"
  | "caps_mismatch"
  | "over_cap"
  | "resolved_without_spend"
  | "unmetered_requests"
  | "spend_unknown"
  | "provider_features"
  | "prompt_bound_exceeded"
  | "invalid_attempt"
  | "shared_mode_verdict"
  | "flagged_verdict"
  | "duplicate_scored_attempt"
  | "attempts_exceeded"
  | "missing_task"
  | "no_scored_attempt"
  | "not_reached"
  | "row_count";

/** `error` findings make the ledger fail validation; the others are listed only. */
export type Severity = "error" | "warning" | "info";

/** One finding, naming where it is. */
export interface Finding {
  code: FindingCode;
  severity: Severity;
  /** 1-based ledger line; null for findings about the whole ledger or a missing row. */
  line: number | null;
  /** Dotted field path when one field is at fault, else `""`. */
  field: string;
  episode_id: string | null;
  agent_id: string | null;
  task_id: string | null;
  message: string;
}

/** Per-agent counts. */
export interface AgentValidation {
  agent_id: string;
  /** Whether the plan lists this agent (always true when the plan lists none). */
  planned: boolean;
  rows: number;
  scored: number;
  invalid: number;
  /**
   * Planned tasks the agent was to attempt: every task of the plan, or under
   * SPRT stopping those up to the task where its walk decided (the rest are
   * not reached, by design); 0 for an agent the plan does not list.
   */
  planned_tasks: number;
  /** Planned tasks with at least one scored row. */
  tasks_scored: number;
  /** Planned tasks with no scored row (missing, only invalid, or not reached). */
  tasks_without_score: number;
  /**
   * Findings that name this agent, per code, including any left out of
   * `findings` by the limit: which agent a finding concerns stays known
   * however few are listed.
   */
  finding_counts: Partial<Record<FindingCode, number>>;
}

/** The validation report. */
export interface ValidationReport {
  /** True when no finding has severity `error`. */
  ok: boolean;
  file: string;
  /** SHA-256 of the ledger's bytes. */
  sha256: string;
  plan_id: string;
  stopping: Plan["stopping"]["kind"];
  /** Lines in the file. */
  lines: number;
  chained: boolean;
  /** Readable rows (every line the reader accepted). */
  rows: number;
  scored: number;
  invalid: number;
  /** Scored rows the plan calls for: tasks × agents. */
  planned_scored: number;
  /** Readable rows per stop reason (scored and invalid), every reason present. */
  stop_reasons: Record<StopReason, number>;
  /** One entry per agent: the plan's agents in plan order, then unplanned ones sorted. */
  agents: AgentValidation[];
  /** Total findings per code, including any left out of `findings` by the limit. */
  finding_counts: Partial<Record<FindingCode, number>>;
  /** Findings in ledger line order, then whole-ledger findings (plan agent and task order). */
  findings: Finding[];
}

/** Options for `validateLedgerFile` (inputs/validate_ledger_file.ts) and {@link ledgerValidator}. */
export interface ValidateOptions {
  /**
   * At most this many findings of one code are listed (the count in
   * `finding_counts` stays complete); default: no limit.
   */
  maxFindingsPerCode?: number;
}

/** The severity of each finding code (`error` codes fail validation). */
export const FINDING_SEVERITY: Readonly<Record<FindingCode, Severity>> = {
  malformed_json: "error",
  bad_encoding: "error",
  duplicate_key: "error",
  number_out_of_range: "error",
  blank_line: "error",
  schema_violation: "error",
  duplicate_episode_id: "error",
  broken_hash_chain: "error",
  io_error: "error",
  unexpected_agent: "error",
  unexpected_task: "error",
  lane_mismatch: "error",
  price_table_mismatch: "error",
  caps_mismatch: "error",
  over_cap: "error",
  resolved_without_spend: "error",
  unmetered_requests: "warning",
  spend_unknown: "warning",
  provider_features: "info",
  prompt_bound_exceeded: "warning",
  invalid_attempt: "info",
  shared_mode_verdict: "info",
  flagged_verdict: "warning",
  duplicate_scored_attempt: "error",
  attempts_exceeded: "error",
  missing_task: "error",
  no_scored_attempt: "error",
  not_reached: "info",
  row_count: "error",
};

const CAP_KEYS = ["token_cap", "step_cap", "wall_ms_cap"] as const;

const CAP_SPEND: Record<keyof Caps, string> = {
  token_cap: "tokens",
  step_cap: "steps",
  wall_ms_cap: "wall_ms",
};

interface AgentState {
  planned: boolean;
  rows: number;
  scored: number;
  invalid: number;
  /** Scored rows per planned task index. */
  scoredAt: Uint32Array;
  /** Invalid rows per planned task index. */
  invalidAt: Uint32Array;
  unexpectedTasks: Set<string>;
  firstLine: number;
  /** Under SPRT stopping, the agent's rows of planned tasks, for the walk; else empty. */
  sprtRows: SprtRow[];
  /** Findings naming the agent, per code. */
  counts: Partial<Record<FindingCode, number>>;
}

/** Where an agent's SPRT walk decided, in the plan's task order. */
interface SprtReach {
  /** Plan index of the task whose row decided; Infinity while undecided (or not SPRT). */
  index: number;
  /** Why tasks without a row are missing or not reached, for the messages. */
  because: string;
}

const NO_SPRT: SprtReach = { index: Infinity, because: "" };

/** A one-pass validator: feed rows in ledger order, then finish with the scan. */
export interface LedgerValidator {
  /** Checks one readable row (O(1) amortised). */
  add(row: Episode, line: number): void;
  /** Adds the reader's problems and the whole-ledger checks; returns the report. */
  finish(scan: LedgerScan): ValidationReport;
}

/**
 * The caps a row is checked against: for each cap, the plan's value when the
 * plan sets one, else the cap the row recorded.
 */
function effectiveCaps(plan: Caps, row: Caps): Caps {
  return {
    token_cap: plan.token_cap ?? row.token_cap,
    step_cap: plan.step_cap ?? row.step_cap,
    wall_ms_cap: plan.wall_ms_cap ?? row.wall_ms_cap,
  };
}

/**
 * Creates a streaming validator for one plan: seed 003's validation pass
 * (rows against the plan, stop reasons, spend within the caps), with the
 * findings below (`validateLedgerFile` in inputs/validate_ledger_file.ts
 * feeds it a file).
 *
 * Findings (severity in brackets; `ok` is true when there is no error):
 *
 * - reader problems [error]: malformed JSON, bad encoding, repeated key,
 *   number out of range, blank line, schema violation
 *   (which covers unknown stop reasons: the schema holds the enum),
 *   duplicate `episode_id`, broken hash chain; each with its line and field
 * - `unexpected_agent` [error]: an agent the plan does not list (once, at its
 *   first row; only when the plan lists agents, else the ledger's agents are
 *   taken as planned)
 * - `unexpected_task` [error]: a task not in the plan (once per agent and task)
 * - `lane_mismatch`, `price_table_mismatch`, `caps_mismatch` [error]: a row
 *   that disagrees with the frozen plan (caps only when both are set)
 * - `over_cap` [error]: spend over a cap ({@link overCap}; the plan's cap
 *   where it sets one, else the row's recorded cap), one per cap exceeded
 * - `invalid_attempt` [info]: every invalid row with its reason
 * - `shared_mode_verdict` [info]: every scored row verified in Harbor's
 *   shared mode (the tests ran in the candidate's own container)
 * - `flagged_verdict` [warning]: every scored row with a hijack flag (the
 *   candidate changed what its test run trusts; `flaggedSummary` holds the
 *   resolved ones to the claim policy), with its flags
 * - `duplicate_scored_attempt` [error]: a second scored row for one agent and
 *   task (seed 000: no best-of, no automatic retries of valid results)
 * - `attempts_exceeded` [error]: an `attempt` number above the plan's
 *   `max_attempts`
 * - `no_scored_attempt` [error]: a planned task with only invalid attempts
 * - `missing_task` [error]: a planned task with no row for a planned agent
 *   (under SPRT stopping, see below)
 * - `row_count` [error]: scored rows of planned agents and tasks ≠ tasks ×
 *   agents (seed 003: `len(records) == planned_tasks`); under SPRT only more
 *   than that is an error
 *
 * Which planned tasks may lack a row:
 *
 * - under `fixed` stopping, none: each is `missing_task` [error];
 * - under SPRT stopping (seed 002, "先登记规则，再看结果"), only the tasks after
 *   the one whose row decided the agent's walk ({@link replaySprt} in the
 *   plan's task order: adopt, drop, or the cap fallback) are `not_reached`
 *   [info]; a gap before it, and every task of an agent whose walk is still
 *   undecided (a truncated run), is `missing_task` [error]. With the seed's
 *   defaults (LLR = ln 1.5 per net pass, boundaries ±ln 9) the earliest
 *   decision is the sixth valid result;
 * - a ledger with no readable rows never fits: `row_count` [error], whether
 *   or not the plan lists its agents.
 *
 * Memory: O(agents × planned tasks) counters plus the findings; under SPRT
 * stopping also a reference to every planned row, for the walk.
 *
 * @param plan the frozen plan
 * @param options a cap on listed findings per code
 * @returns an accumulator with `add(row, line)` and `finish(scan)`
 * @throws {RangeError} under SPRT stopping, when the plan lists a task twice
 */
export function ledgerValidator(plan: Plan, options: ValidateOptions = {}): LedgerValidator {
  const limit = options.maxFindingsPerCode ?? Infinity;
  const taskIndex = new Map<string, number>();
  plan.tasks.forEach((task, i) => taskIndex.set(task.task_id, i));
  const taskCount = plan.tasks.length;
  const plannedAgents = plan.agents.map((agent) => agent.agent_id);
  const agentsFixed = plannedAgents.length > 0;
  const agents = new Map<string, AgentState>();
  const newAgent = (planned: boolean, firstLine: number): AgentState => ({
    planned,
    rows: 0,
    scored: 0,
    invalid: 0,
    scoredAt: new Uint32Array(taskCount),
    invalidAt: new Uint32Array(taskCount),
    unexpectedTasks: new Set(),
    firstLine,
    sprtRows: [],
    counts: {},
  });
  for (const id of plannedAgents) agents.set(id, newAgent(true, 0));
  const stopReasons = {} as Record<StopReason, number>;
  for (const reason of StopReason.options) stopReasons[reason] = 0;
  const counts: Partial<Record<FindingCode, number>> = {};
  const rowFindings: Finding[] = [];
  let rows = 0;
  let scored = 0;
  let invalid = 0;
  const planTokenCap = plan.caps.token_cap;
  const planStepCap = plan.caps.step_cap;
  const planWallCap = plan.caps.wall_ms_cap;
  const anyPlannedCap = planTokenCap !== null || planStepCap !== null || planWallCap !== null;
  const maxAttempts = plan.max_attempts;
  const planPriceTable = plan.price_table_id;
  const plannedLanes = plan.tasks.map((task) => task.lane);
  const sprtParams = plan.stopping.kind === "sprt" ? plan.stopping.params : null;
  const taskOrder = plan.tasks.map((task) => task.task_id);

  const push = (list: Finding[], finding: Omit<Finding, "severity">) => {
    const n = (counts[finding.code] ?? 0) + 1;
    counts[finding.code] = n;
    const named = finding.agent_id === null ? undefined : agents.get(finding.agent_id)?.counts;
    if (named !== undefined) named[finding.code] = (named[finding.code] ?? 0) + 1;
    if (n <= limit) list.push({ ...finding, severity: FINDING_SEVERITY[finding.code] });
  };
  const atRow = (row: Episode, line: number, code: FindingCode, field: string, message: string) =>
    push(rowFindings, {
      code,
      line,
      field,
      episode_id: row.episode_id,
      agent_id: row.agent_id,
      task_id: row.task_id,
      message,
    });

  // Issue 8: how an unmetered model API shows in a ledger.
  function checkSpendEvidence(row: Episode, line: number): void {
    for (const flag of spendEvidenceFlags(row)) {
      atRow(row, line, flag.code, flag.field, flag.message);
    }
  }

  function add(row: Episode, line: number): void {
    rows++;
    stopReasons[row.stop_reason]++;
    let agent = agents.get(row.agent_id);
    if (agent === undefined) {
      agent = newAgent(!agentsFixed, line);
      agents.set(row.agent_id, agent);
      if (agentsFixed) {
        atRow(
          row,
          line,
          "unexpected_agent",
          "agent_id",
          `agent "${row.agent_id}" is not in the plan`,
        );
      }
    }
    agent.rows++;
    checkSpendEvidence(row, line);
    if (row.status === "scored") {
      scored++;
      agent.scored++;
      if (row.verification?.mode === "shared") {
        atRow(
          row,
          line,
          "shared_mode_verdict",
          "verification.mode",
          `task "${row.task_id}" was verified in Harbor's shared mode: its tests ran in the ` +
            "candidate's own container",
        );
      }
      const hijacks = row.verification?.hijacks ?? [];
      if (hijacks.length > 0) {
        atRow(
          row,
          line,
          "flagged_verdict",
          "verification.hijacks",
          `task "${row.task_id}" ${row.resolved ? "resolved" : "failed"} with ${
            hijacks.length === 1 ? "a hijack flag" : `${hijacks.length} hijack flags`
          }: ${hijacks.map((h) => `${h.flag} "${h.path}"`).join(", ")}`,
        );
      }
    } else {
      invalid++;
      agent.invalid++;
      atRow(
        row,
        line,
        "invalid_attempt",
        "invalid_reason",
        `invalid attempt ${row.attempt} of task "${row.task_id}": "${row.invalid_reason}"`,
      );
    }
    if (row.attempt > maxAttempts) {
      atRow(
        row,
        line,
        "attempts_exceeded",
        "attempt",
        `attempt ${row.attempt} exceeds the plan's "max_attempts" ${plan.max_attempts}`,
      );
    }
    const index = taskIndex.get(row.task_id);
    if (index === undefined) {
      if (!agent.unexpectedTasks.has(row.task_id)) {
        agent.unexpectedTasks.add(row.task_id);
        atRow(row, line, "unexpected_task", "task_id", `task "${row.task_id}" is not in the plan`);
      }
    } else {
      if (sprtParams !== null) agent.sprtRows.push(row);
      const plannedLane = plannedLanes[index];
      if (row.lane !== plannedLane) {
        atRow(
          row,
          line,
          "lane_mismatch",
          "lane",
          `lane "${row.lane}" differs from the plan's "${plannedLane}"`,
        );
      }
      if (row.status === "scored") {
        agent.scoredAt[index]++;
        if (agent.scoredAt[index] > 1) {
          atRow(
            row,
            line,
            "duplicate_scored_attempt",
            "status",
            `task "${row.task_id}" already has a scored attempt for agent "${row.agent_id}"; no best-of is allowed`,
          );
        }
      } else {
        agent.invalidAt[index]++;
      }
    }
    if (planPriceTable !== null && row.price_table_id !== planPriceTable) {
      atRow(
        row,
        line,
        "price_table_mismatch",
        "price_table_id",
        `price table "${row.price_table_id}" differs from the plan's "${plan.price_table_id}"`,
      );
    }
    const rowCaps = row.caps;
    if (anyPlannedCap) {
      for (const cap of CAP_KEYS) {
        const planned = plan.caps[cap];
        const recorded = rowCaps[cap];
        if (planned !== null && recorded !== null && planned !== recorded) {
          atRow(
            row,
            line,
            "caps_mismatch",
            `caps.${cap}`,
            `recorded ${cap} ${recorded} differs from the plan's ${planned}`,
          );
        }
      }
    }
    // the effective caps (effectiveCaps), checked without allocating; overCap lists the excesses
    // only for a row that has one, so a row within its caps costs three comparisons (a spend
    // that was not recorded, null, is never over a cap: overCap's rule)
    const tokenCap = planTokenCap ?? rowCaps.token_cap;
    const stepCap = planStepCap ?? rowCaps.step_cap;
    const wallCap = planWallCap ?? rowCaps.wall_ms_cap;
    if (
      (tokenCap !== null && (episodeTokens(row) ?? 0) > tokenCap) ||
      (stepCap !== null && (episodeSteps(row) ?? 0) > stepCap) ||
      (wallCap !== null && (row.wall_ms ?? 0) > wallCap)
    ) {
      for (const excess of overCap(row, effectiveCaps(plan.caps, rowCaps))) {
        atRow(row, line, "over_cap", capField(excess), overCapMessage(excess));
      }
    }
  }

  function finish(scan: LedgerScan): ValidationReport {
    const readerFindings: Finding[] = [];
    for (const problem of scan.problems) push(readerFindings, problemFinding(problem));
    const lineFindings = mergeByLine(readerFindings, rowFindings);
    const endFindings: Finding[] = [];
    const sprt = sprtParams !== null;
    const order = [
      ...plannedAgents,
      ...[...agents.keys()].filter((id) => !plannedAgents.includes(id)).sort(),
    ];
    const agentReports: AgentValidation[] = [];
    let plannedScored = 0;
    let plannedAgentCount = 0;
    let scoredInPlan = 0;
    for (const agentId of order) {
      const agent = agents.get(agentId)!;
      let tasksScored = 0;
      let plannedTasks = 0;
      if (agent.planned) {
        const reach = sprtParams === null
          ? NO_SPRT
          : sprtReach(agent.sprtRows, agentId, sprtParams, taskOrder);
        for (let i = 0; i < taskCount; i++) {
          const task = plan.tasks[i];
          scoredInPlan += agent.scoredAt[i];
          if (agent.scoredAt[i] > 0) {
            tasksScored++;
            continue;
          }
          const where = {
            line: null,
            field: "",
            episode_id: null,
            agent_id: agentId,
            task_id: task.task_id,
          };
          if (agent.invalidAt[i] > 0) {
            push(endFindings, {
              ...where,
              code: "no_scored_attempt",
              message:
                `task "${task.task_id}" has ${
                  agent.invalidAt[i]
                } invalid attempt(s) and no scored one ` +
                `for agent "${agentId}"`,
            });
          } else if (i > reach.index) {
            push(endFindings, {
              ...where,
              code: "not_reached",
              message:
                `task "${task.task_id}" was not reached by agent "${agentId}": ${reach.because}`,
            });
          } else {
            push(endFindings, {
              ...where,
              code: "missing_task",
              message: `task "${task.task_id}" has no row for agent "${agentId}"${
                reach.because === "" ? "" : ` (${reach.because})`
              }`,
            });
          }
        }
        plannedScored += taskCount;
        plannedAgentCount++;
        plannedTasks = Math.min(taskCount, reach.index + 1);
      }
      agentReports.push({
        agent_id: agentId,
        planned: agent.planned,
        rows: agent.rows,
        scored: agent.scored,
        invalid: agent.invalid,
        planned_tasks: plannedTasks,
        tasks_scored: tasksScored,
        tasks_without_score: agent.planned ? taskCount - tasksScored : 0,
        finding_counts: agent.counts,
      });
    }
    const countWrong = sprt ? scoredInPlan > plannedScored : scoredInPlan !== plannedScored;
    if (rows === 0 || countWrong) {
      push(endFindings, {
        code: "row_count",
        line: null,
        field: "",
        episode_id: null,
        agent_id: null,
        task_id: null,
        message: rows === 0
          ? `the ledger has no readable rows, the plan calls for ${taskCount} task(s) per agent`
          : `${scoredInPlan} scored rows of planned agents and tasks, the plan calls for ` +
            `${
              sprt ? "at most " : ""
            }${plannedScored} (${taskCount} tasks × ${plannedAgentCount} agents)`,
      });
    }
    const findings = [...lineFindings, ...endFindings];
    return {
      ok: Object.entries(counts).every(([code, n]) =>
        n === 0 || FINDING_SEVERITY[code as FindingCode] !== "error"
      ),
      file: scan.file,
      sha256: scan.sha256,
      plan_id: plan.plan_id,
      stopping: plan.stopping.kind,
      lines: scan.lines,
      chained: scan.chained,
      rows,
      scored,
      invalid,
      planned_scored: plannedScored,
      stop_reasons: stopReasons,
      agents: agentReports,
      finding_counts: counts,
      findings,
    };
  }

  return { add, finish };
}

/**
 * Where one agent's SPRT walk decided (seed 002): {@link replaySprt} over the
 * agent's rows in the plan's task order. Decided (adopt, drop or a cap
 * fallback): the plan index of the deciding row's task, after which tasks are
 * not reached. Undecided: Infinity, so every planned task without a row is
 * missing. O(r log r) for the agent's r rows.
 */
function sprtReach(
  rows: Iterable<SprtRow>,
  agentId: string,
  params: SprtParams,
  order: readonly string[],
): SprtReach {
  const replay = replaySprt(rows, { agentId, params, order });
  const results = `${replay.n} valid result${replay.n === 1 ? "" : "s"}`;
  if (!replay.decided) {
    return { index: Infinity, because: `the SPRT is undecided after ${results}` };
  }
  const decidingTask = replay.steps[replay.steps.length - 1].task_id;
  return {
    index: order.indexOf(decidingTask),
    because: `the SPRT decided "${replay.verdict}" at task "${decidingTask}" after ${results}`,
  };
}

function capField(excess: CapExcess): string {
  return excess.cap === "token_cap"
    ? "prompt_tokens"
    : excess.cap === "step_cap"
    ? "model_calls"
    : "wall_ms";
}

function overCapMessage(excess: CapExcess): string {
  return `${CAP_SPEND[excess.cap]} ${excess.actual} exceed ${excess.cap} ${excess.limit}`;
}

function problemFinding(problem: LedgerProblem): Omit<Finding, "severity"> {
  return {
    code: problem.code as FindingCode,
    line: problem.line,
    field: problem.field,
    episode_id: null,
    agent_id: null,
    task_id: null,
    message: problem.message,
  };
}

/** Merges two lists already in line order; ties keep reader problems first. */
function mergeByLine(a: Finding[], b: Finding[]): Finding[] {
  const out: Finding[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    out.push((a[i].line ?? 0) <= (b[j].line ?? 0) ? a[i++] : b[j++]);
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

/**
 * Validates rows already in memory ({@link ledgerValidator} fed in order,
 * then finished with the scan they were read in): the report validates the
 * ledger as recorded, and again after its errata with the same lines and
 * scan. O(rows).
 *
 * @param plan the frozen plan
 * @param rows the rows, in ledger order
 * @param rowLines `rowLines.at(i)` is the line `rows[i]` was read from
 * @param scan what the ledger's reader found (its file, hash, lines, problems)
 * @param options findings listed per code
 * @returns the validation report
 */
export function validateRows(
  plan: Plan,
  rows: Iterable<Episode>,
  rowLines: RowLineNumbers,
  scan: LedgerScan,
  options: ValidateOptions = {},
): ValidationReport {
  const validator = ledgerValidator(plan, options);
  let at = 0;
  for (const row of rows) validator.add(row, rowLines.at(at++)!);
  return validator.finish(scan);
}
