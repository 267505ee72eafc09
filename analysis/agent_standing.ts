/**
 * The one claim function (issue 11): what each agent's capability numbers
 * may say, from every way a row can fail to count: the validation against
 * the plan, the invalid rate (issue 23), the censoring rate, the
 * judge-fault rate (issue 21) and the rate of missing tasks; and what the
 * whole run pooled may say, never more than its weakest agent (issue 23).
 * `summarize`, `censoring`, `compare`, the report and the notebooks all call
 * {@link assessClaims}, so they never disagree.
 *
 * @module
 */
import type { LedgerWithLines } from "./schema/ledger_file.ts";
import type { EpisodeRows } from "./episode_table.ts";
import {
  type CensoringClaim,
  type CensoringSummary,
  censoringSummary,
  stricterClaim,
} from "./censoring.ts";
import { CensoringPolicy, type Episode, type Plan, type TaskList } from "./schema/records.ts";
import type { LedgerView } from "./ledger_view.ts";
import type { LeftOutTask } from "./judge/judge_rows.ts";
import { type AgentJudgeFaults, agentJudgeFaults } from "./judge/judge_faults.ts";
import { type InvalidSummary, invalidSummary } from "./invalid_attempts.ts";
import { type FlaggedSummary, flaggedSummary } from "./flagged_rows.ts";
import {
  type AgentCoverage,
  type Denominator,
  leaveOutTasks,
  planDenominator,
  taskCoverage,
  taskListDenominator,
} from "./task_coverage.ts";
import {
  FINDING_SEVERITY,
  type FindingCode,
  validateRows,
  type ValidationReport,
} from "./validate_ledger.ts";

/** Why an agent's capability numbers may not be stated, in the order they are checked. */
const CAUSE_ORDER = [
  "validation",
  "nothing_scored",
  "invalid",
  "flagged",
  "censoring",
  "judge_faults",
  "missing",
] as const;
export type WithheldCause = typeof CAUSE_ORDER[number];

/** What one agent may claim. */
export interface AgentStanding {
  agent_id: string;
  /** The invalid rate's claim (issue 23, `invalidSummary`); null without rows. */
  invalid_claim: CensoringClaim | null;
  /** The censoring rate's claim; null when nothing was scored. */
  censoring_claim: CensoringClaim | null;
  /** The missing rate's claim; null without a plan or task list. */
  missing_claim: CensoringClaim | null;
  /**
   * The judge-fault rate's claim (issue 21, `agentJudgeFaults`); present
   * only for an agent with judged rows (other outputs keep their bytes).
   */
  judge_fault_claim?: CensoringClaim;
  /**
   * The flagged rate's claim (`flaggedSummary`: resolved rows with a hijack
   * flag over scored rows); present only for an agent with rows verified in
   * Harbor's shared mode or flagged (other outputs keep their bytes).
   */
  flagged_claim?: CensoringClaim;
  /** The strictest of the rates' claims (a headline only when all allow one); null when nothing was scored. */
  claim: CensoringClaim | null;
  /** The first cause that withholds the agent's numbers, or null when they may be stated. */
  withheld: WithheldCause | null;
  /** The validation's error codes that concern this agent, sorted; empty when none. */
  blocking_codes: FindingCode[];
}

/**
 * Validation codes about missing rows: the missing rate's claim decides for
 * them, per agent, instead of withholding every agent (issue 11: one agent
 * lacking rows withheld the claims of agents with complete rows).
 */
const COVERAGE_CODES: ReadonlySet<FindingCode> = new Set<FindingCode>([
  "missing_task",
  "no_scored_attempt",
  "row_count",
]);

/**
 * Each agent's standing, in the order given.
 *
 * Rules, checked in order (the first that applies withholds):
 * 1. validation (seed 003: validate before anyone reads a mean): an error
 *    finding about the agent, or about the whole ledger (no agent named),
 *    withholds its numbers, read from the validation's counts per agent
 *    (complete however few findings `maxFindingsPerCode` lists); codes
 *    about missing rows are left to rule 4;
 * 2. nothing scored (seeds 000 and 001: only scored rows count);
 * 3. invalid rate above the invalid policy's `labelled_max` (issue 23,
 *    `invalidSummary`: an invalid attempt is left out of every score, so a
 *    score over few scored attempts of many says little);
 * 4. flagged rate above `labelled_max` (`flaggedSummary`: a resolved row
 *    whose test run the candidate may have changed is no capability
 *    evidence, seed 000);
 * 5. censoring rate above `labelled_max` (seed 003: budget adequacy only);
 * 6. judge-fault rate above the judge-fault policy's `labelled_max`
 *    (issue 21, `agentJudgeFaults`: judge faults are invalid rows, left out
 *    of every score, so an answer that breaks the judge would otherwise
 *    turn a failure into an attempt that does not count);
 * 7. missing rate above the missing policy's `labelled_max` (seed 003's
 *    bands: missing tasks enter the policy the way censoring does).
 * The claim is the strictest of the invalid, flagged, censoring,
 * judge-fault and missing claims: a headline needs every rate under its `headline_max`.
 * O(agents + findings).
 *
 * @param agents the agents to judge, in output order
 * @param censoring the censoring summary of the rows
 * @param coverage per-agent coverage of the plan or task list; null without one
 * @param validation the validation of the ledger against its plan; null without a plan
 * @param judgeFaults each agent's judge faults (`agentJudgeFaults`); default none
 * @param invalid each agent's invalid attempts (`invalidSummary`); null: not held
 * @param flagged each agent's shared-mode and flagged rows (`flaggedSummary`); null: not held
 * @returns one standing per agent, in the order of `agents`
 * @example
 * ```ts
 * import { agentStandings } from "./agent_standing.ts";
 * import { censoringSummary } from "./censoring.ts";
 * const [s] = agentStandings(["a"], censoringSummary([]), null, null);
 * if (s.withheld !== "nothing_scored") throw new Error();
 * ```
 */
export function agentStandings(
  agents: readonly string[],
  censoring: CensoringSummary,
  coverage: readonly AgentCoverage[] | null,
  validation: ValidationReport | null,
  judgeFaults: readonly AgentJudgeFaults[] = [],
  invalid: InvalidSummary | null = null,
  flagged: FlaggedSummary | null = null,
): AgentStanding[] {
  const flaggedRows = new Map(
    flagged?.agents.filter((row) => row.shared > 0 || row.flagged_resolved > 0)
      .map((row) => [row.agent_id, row]) ?? [],
  );
  const censoringRows = new Map(censoring.agents.map((row) => [row.agent_id, row]));
  const invalidRows = new Map(invalid?.agents.map((row) => [row.agent_id, row]) ?? []);
  const judgeRows = new Map(judgeFaults.map((row) => [row.agent_id, row]));
  const coverageRows = new Map(coverage?.map((row) => [row.agent_id, row]) ?? []);
  const blocking = blockingCodes(validation);
  return agents.map((agent) => {
    const censoringClaim = censoringRows.get(agent)?.claim ?? null;
    const invalidClaim = invalidRows.get(agent)?.claim ?? null;
    const missingClaim = coverage === null ? null : coverageRows.get(agent)?.claim ?? null;
    const judgeClaim = judgeRows.get(agent)?.claim ?? null;
    const flaggedClaim = flaggedRows.get(agent)?.claim ?? null;
    const claim = censoringClaim === null
      ? null
      : [invalidClaim, flaggedClaim, missingClaim, judgeClaim]
        .reduce<CensoringClaim>((a, b) => stricterClaim(a, b), censoringClaim);
    const codes = [...new Set([...blocking.all, ...(blocking.byAgent.get(agent) ?? [])])].sort();
    const withheld: WithheldCause | null = codes.length > 0
      ? "validation"
      : censoringClaim === null
      ? "nothing_scored"
      : invalidClaim === "budget_adequacy_only"
      ? "invalid"
      : flaggedClaim === "budget_adequacy_only"
      ? "flagged"
      : censoringClaim === "budget_adequacy_only"
      ? "censoring"
      : judgeClaim === "budget_adequacy_only"
      ? "judge_faults"
      : missingClaim === "budget_adequacy_only"
      ? "missing"
      : null;
    return {
      agent_id: agent,
      invalid_claim: invalidClaim,
      censoring_claim: censoringClaim,
      missing_claim: missingClaim,
      ...(judgeClaim === null ? {} : { judge_fault_claim: judgeClaim }),
      ...(flaggedClaim === null ? {} : { flagged_claim: flaggedClaim }),
      claim,
      withheld,
      blocking_codes: codes,
    };
  });
}

/** The error codes that withhold every agent, and those that withhold one agent. */
function blockingCodes(validation: ValidationReport | null): {
  all: Set<FindingCode>;
  byAgent: Map<string, Set<FindingCode>>;
} {
  const all = new Set<FindingCode>();
  const byAgent = new Map<string, Set<FindingCode>>();
  if (validation === null) return { all, byAgent };
  const blocks = (code: FindingCode) =>
    FINDING_SEVERITY[code] === "error" && !COVERAGE_CODES.has(code);
  // Per code, the findings that name an agent; the rest name none and concern every agent.
  const named = new Map<FindingCode, number>();
  for (const agent of validation.agents) {
    for (const [code, count] of Object.entries(agent.finding_counts) as [FindingCode, number][]) {
      if (!blocks(code)) continue;
      named.set(code, (named.get(code) ?? 0) + count);
      let codes = byAgent.get(agent.agent_id);
      if (codes === undefined) byAgent.set(agent.agent_id, codes = new Set());
      codes.add(code);
    }
  }
  for (
    const [code, count] of Object.entries(validation.finding_counts) as [FindingCode, number][]
  ) {
    if (blocks(code) && count > (named.get(code) ?? 0)) all.add(code);
  }
  return { all, byAgent };
}

/** What {@link assessClaims} reads. */
export interface ClaimInputs {
  /** The ledger as recorded, with each row's line (validated against the plan). */
  recorded: LedgerWithLines<EpisodeRows>;
  /** The rows every figure is computed from: the recorded ones after errata. */
  rows: Iterable<Episode>;
  /** The frozen plan; null without one. */
  plan: Plan | null;
  /** The task list of imported results; null without one (never with a plan). */
  taskList: TaskList | null;
  /**
   * The censoring thresholds in force (flags, else the plan's, else the
   * defaults); also those of the invalid, judge-fault and missing rates
   * where the plan sets none of its own.
   */
  policy: CensoringPolicy;
  /** At most this many findings of one code are listed (default: no limit). */
  maxFindingsPerCode?: number;
  /**
   * Tasks left out of formal scores (issue 14: judged by an uncalibrated
   * LLM judge, `judgeLeftOut`), whose rows are not in `rows`: they are
   * then neither planned nor missing ({@linkcode leaveOutTasks}). Absent:
   * none.
   */
  leftOut?: readonly LeftOutTask[];
}

/** Everything a command needs to state or withhold each agent's numbers. */
export interface ClaimAssessment {
  /** The recorded ledger's validation against the plan; null without a plan. */
  validation: ValidationReport | null;
  censoring: CensoringSummary;
  /** The plan's or the task list's tasks; null without either (rows present only). */
  denominator: Denominator | null;
  /** The thresholds the missing rate is held to: the plan's `missing_policy`, else `policy`. */
  missing_policy: CensoringPolicy;
  /** Each agent's invalid attempts by reason and the claim their rate allows (issue 23). */
  invalid: InvalidSummary;
  /** The thresholds the judge-fault rate is held to: the plan's `judge_fault_policy`, else `policy`. */
  judge_fault_policy: CensoringPolicy;
  /** Per-agent coverage of the denominator; null without one. */
  coverage: AgentCoverage[] | null;
  /** Each agent's judge faults over the counted rows (issue 21); empty without judged rows. */
  judge_faults: AgentJudgeFaults[];
  /** Each agent's rows verified in Harbor's shared mode and its flagged resolved rows. */
  flagged: FlaggedSummary;
  /** One standing per agent with rows or planned, sorted by id. */
  standings: AgentStanding[];
  /** What the whole run pooled may claim: never more than its weakest agent. */
  pooled: PooledStanding;
}

/** What the whole run, every agent pooled, may claim (issue 23). */
export interface PooledStanding {
  /**
   * The strictest of the pooled invalid and censoring claims and of every
   * agent's claim; null when nothing was scored.
   */
  claim: CensoringClaim | null;
  /** The first cause that withholds a pooled number, or null when it may be stated. */
  withheld: WithheldCause | null;
  /** The agents whose own numbers are withheld, sorted; a pooled number then is too. */
  withheld_agents: string[];
}

/**
 * The pooled standing: a pooled figure mixes every agent's rows, so it may
 * say no more than the weakest of them (issue 23: two agents each missing
 * 80% of their tasks, both withheld, gave "all agents pooled: headline
 * score"). Rule: the claim is the strictest of the pooled invalid and
 * censoring claims and of each agent's claim; it is withheld when any
 * agent's numbers are (the first cause, in the agents' cause order), or
 * when the pooled invalid or censoring rate is above its `labelled_max`.
 * O(agents).
 *
 * @param standings every agent's standing
 * @param censoring the censoring summary (its pooled row)
 * @param invalid the invalid summary (its pooled row)
 * @returns the pooled standing
 */
export function pooledStanding(
  standings: readonly AgentStanding[],
  censoring: CensoringSummary,
  invalid: InvalidSummary,
): PooledStanding {
  const base = censoring.overall.claim;
  const claim = base === null ? null : [
    invalid.overall.claim,
    ...standings.map((s) => s.claim),
  ].reduce<CensoringClaim>((a, b) => stricterClaim(a, b), base);
  const withheldAgents = standings.filter((s) => s.withheld !== null).map((s) => s.agent_id)
    .sort();
  const causes = new Set(standings.map((s) => s.withheld));
  const agentCause = CAUSE_ORDER.find((c) => causes.has(c)) ?? null;
  const withheld: WithheldCause | null = agentCause ??
    (base === null
      ? "nothing_scored"
      : invalid.overall.claim === "budget_adequacy_only"
      ? "invalid"
      : base === "budget_adequacy_only"
      ? "censoring"
      : null);
  return { claim, withheld, withheld_agents: withheldAgents };
}

/**
 * The claim assessment every command makes the same way (issue 11: the CLI
 * and the report never disagree): validate the recorded rows against the
 * plan (seed 003), summarize censoring over the corrected rows, cover the
 * plan's or the task list's tasks (without the tasks left out of formal
 * scores, issue 14: seed 000's "the tasks that depend on the judge are not
 * scored for now", so that their absence from `rows` never lowers a score
 * over planned tasks nor a missing claim), hold each agent's judge-fault
 * rate to the plan's `judge_fault_policy`, else `policy` (issue 21,
 * `agentJudgeFaults`), each agent's invalid rate to the plan's
 * `invalid_rate_policy`, else `policy` (seeds 002 and 003, `invalidSummary`), and
 * each agent's flagged rate to `policy` (`flaggedSummary`), then
 * {@link agentStandings} and {@link pooledStanding}. Pure.
 * Cost: O(rows + agents × planned tasks).
 *
 * @param inputs the recorded ledger, the corrected rows, plan or task list, policy
 * @returns validation, censoring, denominator, coverage and standings
 * @throws {RangeError} when both a plan and a task list are given
 */
export function assessClaims(inputs: ClaimInputs): ClaimAssessment {
  const { recorded, rows, plan, taskList, policy } = inputs;
  if (plan !== null && taskList !== null) {
    throw new RangeError("Cannot assess claims: give a plan or a task list, not both");
  }
  const validation = plan === null
    ? null
    : validateRows(plan, recorded.rows, recorded.row_lines, recorded, {
      maxFindingsPerCode: inputs.maxFindingsPerCode,
    });
  const censoring = censoringSummary(rows, { policy });
  const full = plan !== null
    ? planDenominator(plan, validation)
    : taskList !== null
    ? taskListDenominator(taskList)
    : null;
  const leftOut = inputs.leftOut ?? [];
  const denominator = full === null || leftOut.length === 0
    ? full
    : leaveOutTasks(full, leftOut.map((task) => task.task_id));
  const missingPolicy = plan?.missing_policy ?? policy;
  const coverage = denominator === null ? null : taskCoverage(rows, denominator, missingPolicy);
  const judgeFaultPolicy = plan?.judge_fault_policy ?? policy;
  const judgeFaults = agentJudgeFaults(rows, judgeFaultPolicy);
  const invalid = invalidSummary(rows, plan?.invalid_rate_policy ?? policy);
  const flagged = flaggedSummary(rows, policy);
  const agents = [
    ...new Set([
      ...censoring.agents.map((row) => row.agent_id),
      ...(coverage ?? []).map((row) => row.agent_id),
    ]),
  ].sort(); // strings sort by UTF-16 code units
  const standings = agentStandings(
    agents,
    censoring,
    coverage,
    validation,
    judgeFaults,
    invalid,
    flagged,
  );
  return {
    validation,
    censoring,
    denominator,
    missing_policy: missingPolicy,
    invalid,
    judge_fault_policy: judgeFaultPolicy,
    coverage,
    judge_faults: judgeFaults,
    flagged,
    standings,
    pooled: pooledStanding(standings, censoring, invalid),
  };
}

/**
 * {@link assessClaims} of a ledger's view (`ledgerView`): its counted rows
 * and the tasks it left out of formal scores, with the censoring thresholds
 * the plan sets (else the defaults) unless `policy` is given. The CLI's
 * commands, the report and the notebooks assess a ledger through this call,
 * so none of them can pass other rows or forget the left-out tasks (issue
 * 23). Pure.
 *
 * @param view the ledger's view (its `rows` and `left_out`)
 * @param recorded the ledger as recorded, with each row's line
 * @param options the plan or task list (at most one), the policy, the findings listed per code
 * @returns the assessment
 * @throws {RangeError} when both a plan and a task list are given
 */
export function assessView(
  view: Pick<LedgerView, "rows" | "left_out">,
  recorded: LedgerWithLines<EpisodeRows>,
  options: {
    plan: Plan | null;
    taskList: TaskList | null;
    policy?: CensoringPolicy;
    maxFindingsPerCode?: number;
  },
): ClaimAssessment {
  return assessClaims({
    recorded,
    rows: view.rows,
    plan: options.plan,
    taskList: options.taskList,
    policy: options.policy ?? options.plan?.censoring ?? CensoringPolicy.parse({}),
    maxFindingsPerCode: options.maxFindingsPerCode,
    leftOut: view.left_out,
  });
}

/** Withheld pairs of one cause (issue 11: one line per cause, not one per pair). */
export interface WithheldPairGroup {
  cause: WithheldCause;
  /** The withheld agents of this cause that the group's pairs involve, sorted. */
  agents: string[];
  /** Pairs withheld for this cause. */
  pairs: number;
}

/**
 * Groups the pairs whose ranking may not be stated by cause: a pair is
 * withheld when either agent is (its cause is the first, in the order
 * validation, nothing scored, invalid, censoring, judge faults, missing, of its agents' causes), so
 * each pair is counted in exactly one group. O(pairs).
 *
 * @param pairs the compared pairs, as agent ids
 * @param standings the agents' standings
 * @returns the groups in cause order, only causes that withhold a pair
 * @example
 * ```ts
 * import { withheldPairGroups } from "./agent_standing.ts";
 * const standing = (agent_id: string, withheld: "missing" | null) => ({
 *   agent_id, withheld, claim: null, invalid_claim: null, censoring_claim: null, missing_claim: null,
 *   blocking_codes: [],
 * });
 * const groups = withheldPairGroups([["a", "b"], ["a", "c"], ["b", "c"]], [
 *   standing("a", null), standing("b", "missing"), standing("c", null),
 * ]);
 * if (groups.length !== 1 || groups[0].pairs !== 2) throw new Error();
 * ```
 */
export function withheldPairGroups(
  pairs: readonly (readonly [string, string])[],
  standings: readonly AgentStanding[],
): WithheldPairGroup[] {
  const cause = new Map(standings.map((s) => [s.agent_id, s.withheld]));
  const groups = new Map<WithheldCause, { agents: Set<string>; pairs: number }>();
  for (const pair of pairs) {
    const causes = pair.map((agent) => cause.get(agent) ?? null);
    const first = CAUSE_ORDER.find((c) => causes.includes(c));
    if (first === undefined) continue;
    let group = groups.get(first);
    if (group === undefined) groups.set(first, group = { agents: new Set(), pairs: 0 });
    group.pairs++;
    pair.forEach((agent, i) => {
      if (causes[i] === first) group.agents.add(agent);
    });
  }
  return CAUSE_ORDER.filter((c) => groups.has(c)).map((c) => ({
    cause: c,
    agents: [...groups.get(c)!.agents].sort(),
    pairs: groups.get(c)!.pairs,
  }));
}

/** The denominator as outputs record it (the task ids are in the plan or task list they name). */
export interface DenominatorRecord {
  source: Denominator["source"];
  tasks: number;
  attempts_per_task: number;
  missing_policy: CensoringPolicy;
}

/**
 * The assessment's denominator as plain JSON data: where the tasks come
 * from, how many, attempts per task and the missing policy; null without
 * one. O(1).
 *
 * @param assessment the claim assessment
 * @returns the record, or null
 */
export function denominatorRecord(assessment: ClaimAssessment): DenominatorRecord | null {
  const d = assessment.denominator;
  if (d === null) return null;
  return {
    source: d.source,
    tasks: d.task_ids.length,
    attempts_per_task: d.attempts_per_task,
    missing_policy: assessment.missing_policy,
  };
}
