/**
 * Honest denominators (issue 11): per agent, the planned tasks, the rows,
 * the tasks without any row (missing), and the score over every planned
 * task, in which a missing or invalid task counts as not resolved (seed
 * 003: "score across all planned tasks", a lower bound), beside the score
 * over scored rows. The missing rate then enters the claim policy the way
 * the censoring rate does (`agent_standing.ts`).
 *
 * @module
 */
import { type CensoringClaim, censoringClaim } from "./censoring.ts";
import type { CensoringPolicy, Episode, Plan, TaskList } from "./schema/records.ts";
import type { ValidationReport } from "./validate_ledger.ts";

/** How many missing task ids a coverage row names (the count is always complete). */
export const MISSING_TASKS_SHOWN = 5;

/** The tasks every agent was to attempt: a plan's, or a task list's (issue 11). */
export interface Denominator {
  /** Where the tasks come from, for the output. */
  source: "plan" | "task list";
  /** The planned task ids, in planned order, unique. */
  task_ids: readonly string[];
  /** Attempts each task was to get (Inspect's epochs); 1 for a plan. */
  attempts_per_task: number;
  /** The agents that were planned (a plan's); empty: the agents that have rows. */
  agents: readonly string[];
  /**
   * Per agent, how many leading tasks it was to attempt at least (under SPRT
   * stopping, the tasks up to its decision: `AgentValidation.planned_tasks`;
   * an agent whose rows go on past it planned every task up to its last
   * row); an agent not named here was to attempt them all.
   */
  tasks_in_scope?: ReadonlyMap<string, number>;
}

/**
 * A plan's denominator: its tasks (one attempt each, reruns filling the same
 * slot) and its agents; with the validation, each agent's tasks in scope
 * (under SPRT stopping, those up to its decision). O(tasks + agents).
 *
 * @param plan the frozen plan
 * @param validation the rows' validation against it (for the SPRT scope); null: every task
 * @returns the denominator
 */
export function planDenominator(plan: Plan, validation: ValidationReport | null): Denominator {
  const scope = validation === null || plan.stopping.kind !== "sprt" ? undefined : new Map(
    validation.agents.filter((a) => a.planned).map((a) => [a.agent_id, a.planned_tasks]),
  );
  return {
    source: "plan",
    task_ids: plan.tasks.map((task) => task.task_id),
    attempts_per_task: 1,
    agents: plan.agents.map((agent) => agent.agent_id),
    ...(scope === undefined ? {} : { tasks_in_scope: scope }),
  };
}

/**
 * A task list's denominator: its tasks and attempts per task; the agents are
 * those with rows (a task list names none). O(tasks).
 *
 * @param list the task list
 * @returns the denominator
 */
export function taskListDenominator(list: TaskList): Denominator {
  return {
    source: "task list",
    task_ids: list.tasks.map((task) => task.task_id),
    attempts_per_task: list.attempts_per_task,
    agents: [],
  };
}

/**
 * The denominator without some tasks: the judged tasks left out of formal
 * scores while their judge is uncalibrated (issue 14; seed 000: the tasks
 * that depend on the judge are not scored for now) are then neither planned
 * nor missing, and their rows, left out too, are not unplanned. Under SPRT
 * stopping, each agent's leading tasks in scope lose the left-out tasks
 * among them. The tasks stay in planned order. O(tasks + agents).
 *
 * @param denominator the plan's or the task list's denominator
 * @param taskIds the task ids to leave out (ids outside the denominator are ignored)
 * @returns the denominator without them; `denominator` itself when none of them is in it
 * @example
 * ```ts
 * import { leaveOutTasks } from "./task_coverage.ts";
 * const d = leaveOutTasks({
 *   source: "plan", task_ids: ["t1", "essay", "t2"], attempts_per_task: 1, agents: ["a"],
 *   tasks_in_scope: new Map([["a", 2]]),
 * }, ["essay"]);
 * // "essay" was the second of a's two leading tasks: one task left in its scope
 * if (d.task_ids.join() !== "t1,t2" || d.tasks_in_scope?.get("a") !== 1) throw new Error();
 * ```
 */
export function leaveOutTasks(denominator: Denominator, taskIds: Iterable<string>): Denominator {
  const leave = new Set(taskIds);
  // leftBefore[i]: left-out tasks among the first i planned tasks
  const leftBefore = [0];
  for (const id of denominator.task_ids) {
    leftBefore.push(leftBefore.at(-1)! + (leave.has(id) ? 1 : 0));
  }
  if (leftBefore.at(-1) === 0) return denominator;
  const scope = denominator.tasks_in_scope;
  const last = denominator.task_ids.length;
  return {
    ...denominator,
    task_ids: denominator.task_ids.filter((id) => !leave.has(id)),
    ...(scope === undefined ? {} : {
      tasks_in_scope: new Map(
        [...scope].map(([agent, n]) => [agent, n - leftBefore[Math.max(0, Math.min(n, last))]]),
      ),
    }),
  };
}

/** One agent's coverage of the denominator. */
export interface AgentCoverage {
  agent_id: string;
  /** Planned attempts: tasks in scope × attempts per task. */
  planned: number;
  /** Rows of the agent, scored or invalid, planned or not. */
  rows: number;
  /** Planned attempts with no row at all. */
  missing: number;
  /** missing / planned; 1 for an agent with nothing planned but rows (nothing to cover). */
  missing_rate: number;
  /** The first {@link MISSING_TASKS_SHOWN} missing task ids, in planned order. */
  missing_tasks: string[];
  /** Rows for a task (or an attempt number) outside the denominator. */
  unplanned_rows: number;
  /** Planned attempts whose first scored row is resolved. */
  resolved: number;
  /**
   * resolved / planned: the score over all planned tasks, a lower bound on
   * the score (a missing or invalid attempt counts as not resolved); null
   * when nothing is planned.
   */
  score_planned: number | null;
  /** The claim the missing rate allows under the policy (seed 003's bands). */
  claim: CensoringClaim;
}

/**
 * Per-agent coverage of a denominator, sorted by `agent_id` (UTF-16 code
 * units), one pass over the rows.
 *
 * Rules (issue 11, "Honest denominators"; seed 003's score across all
 * planned tasks):
 * - a planned attempt is a task of the denominator when it has one attempt
 *   per task (any attempt number: reruns of an invalid attempt under
 *   `rerun-task` fill the same slot), and a (task, attempt) pair when it has
 *   several (Inspect's epochs: attempt `k` fills slot `k`);
 * - missing = planned attempts without any row; an invalid row is not
 *   missing (it is counted as invalid);
 * - the score over planned tasks is the number of slots whose first scored
 *   row (ledger order) is resolved, over the planned attempts: never the best
 *   of several rows;
 * - the claim is {@link censoringClaim} of the missing rate under the
 *   policy: under `headline_max` a headline, up to `labelled_max` both
 *   scores labelled, above it no capability number;
 * - agents: the denominator's planned agents and every agent with rows.
 *
 * Cost: O(rows + agents × planned attempts) time and memory.
 *
 * @param rows ledger rows (errata applied)
 * @param denominator the planned tasks and agents
 * @param policy the thresholds (the plan's `missing_policy`, else its censoring policy)
 * @returns one {@link AgentCoverage} per agent, sorted by id
 * @example
 * ```ts
 * import { taskCoverage } from "./task_coverage.ts";
 * import { CensoringPolicy, Episode } from "./schema/records.ts";
 * const row = (task_id: string, resolved: boolean) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id, seed: null, resolved, prompt_tokens: null,
 *   completion_tokens: null, tool_calls: null, wall_ms: null, price_table_id: "none",
 * });
 * const [a] = taskCoverage([row("t1", true), row("t2", false)], {
 *   source: "task list", task_ids: ["t1", "t2", "t3", "t4"], attempts_per_task: 1, agents: [],
 * }, CensoringPolicy.parse({}));
 * // 1 resolved of 4 planned; 2 of 4 missing: above 10%, no capability claim
 * if (a.score_planned !== 0.25 || a.missing !== 2 || a.claim !== "budget_adequacy_only") throw new Error();
 * ```
 */
export function taskCoverage(
  rows: Iterable<Episode>,
  denominator: Denominator,
  policy: CensoringPolicy,
): AgentCoverage[] {
  const index = new Map(denominator.task_ids.map((id, i) => [id, i]));
  const attempts = denominator.attempts_per_task;
  const slots = denominator.task_ids.length * attempts;
  const tallies = new Map<string, SlotTally>();
  const tallyOf = (agent: string) => {
    let tally = tallies.get(agent);
    if (tally === undefined) {
      tally = { rows: 0, unplanned: 0, lastTask: -1, seen: new Uint8Array(slots) };
      tallies.set(agent, tally);
    }
    return tally;
  };
  for (const agent of denominator.agents) tallyOf(agent);
  for (const row of rows) {
    const tally = tallyOf(row.agent_id);
    tally.rows++;
    const task = index.get(row.task_id) ?? -1;
    const slot = task < 0 ? -1 : slotOf(task, row.attempt, attempts);
    if (slot < 0) {
      tally.unplanned++;
      continue;
    }
    if (task > tally.lastTask) tally.lastTask = task;
    if (tally.seen[slot] === UNSEEN) tally.seen[slot] = SEEN;
    if (row.status === "scored" && tally.seen[slot] === SEEN) {
      tally.seen[slot] = row.resolved ? FIRST_SCORED_RESOLVED : FIRST_SCORED_FAILED;
    }
  }
  // strings sort by UTF-16 code units
  return [...tallies.keys()].sort().map((agent) =>
    finish(agent, tallies.get(agent)!, denominator, policy)
  );
}

/** A slot's state: no row, a row but no scored one yet, or its first scored row's verdict. */
const UNSEEN = 0;
const SEEN = 1;
const FIRST_SCORED_RESOLVED = 2;
const FIRST_SCORED_FAILED = 3;

interface SlotTally {
  rows: number;
  unplanned: number;
  /** The highest task index with a row; -1 before the first. */
  lastTask: number;
  /** One state per planned slot, task-major. */
  seen: Uint8Array;
}

/** The slot of a row, or -1 when its attempt number is outside the planned epochs. */
function slotOf(task: number, attempt: number, attempts: number): number {
  if (attempts === 1) return task;
  return attempt >= 1 && attempt <= attempts ? task * attempts + attempt - 1 : -1;
}

function finish(
  agent: string,
  tally: SlotTally,
  denominator: Denominator,
  policy: CensoringPolicy,
): AgentCoverage {
  const attempts = denominator.attempts_per_task;
  const scope = Math.min(
    denominator.tasks_in_scope?.get(agent) ?? denominator.task_ids.length,
    denominator.task_ids.length,
  );
  // a run that went on past its SPRT decision planned the tasks it reached
  const planned = Math.max(scope, tally.lastTask + 1) * attempts;
  let missing = 0;
  let resolved = 0;
  const missingTasks: string[] = [];
  for (let slot = 0; slot < planned; slot++) {
    const state = tally.seen[slot];
    if (state === FIRST_SCORED_RESOLVED) resolved++;
    if (state !== UNSEEN) continue;
    missing++;
    const task = denominator.task_ids[Math.floor(slot / attempts)];
    if (missingTasks.length < MISSING_TASKS_SHOWN && missingTasks.at(-1) !== task) {
      missingTasks.push(task);
    }
  }
  const missingRate = planned === 0 ? 1 : missing / planned;
  return {
    agent_id: agent,
    planned,
    rows: tally.rows,
    missing,
    missing_rate: missingRate,
    missing_tasks: missingTasks,
    unplanned_rows: tally.unplanned,
    resolved,
    score_planned: planned === 0 ? null : resolved / planned,
    claim: censoringClaim(missingRate, policy),
  };
}
