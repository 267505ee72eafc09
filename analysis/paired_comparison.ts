/**
 * A paired comparison of two agents over the tasks both attempted: the
 * difference in resolved rate with a seeded paired (task-cluster) bootstrap
 * interval, McNemar's discordant counts and the exact McNemar p-value. Less
 * conservative than seed 001's overlap rule, and reported beside it.
 *
 * @module
 */
import type { Episode } from "./schema/records.ts";
import { randomIndex, seededRandom } from "./seeded_random.ts";
import { wilsonInterval } from "./wilson_interval.ts";
import { binomialTestTwoSided } from "./binomial_test.ts";
import { DEFAULT_BOOTSTRAP } from "./defaults.ts";

/** How several attempts at one task become one resolved/unresolved verdict for McNemar. */
export type TaskRule = "majority" | "any";

/** Options for {@link pairedComparison}. */
export interface PairedComparisonOptions {
  /** Bootstrap rounds; default 2000 (seed 001). */
  rounds?: number;
  /** Bootstrap seed; default 7 (seed 001). */
  seed?: number | string;
  /**
   * Task verdict for McNemar when a task has several attempts: `"majority"`
   * (default: more than half the attempts resolved) or `"any"` (at least one;
   * a best-of-k reading that seed 000 forbids for headline scores).
   */
  taskRule?: TaskRule;
  /**
   * False: the counts and the exact McNemar test only, no bootstrap (every
   * interval and the difference are null), for a matrix of
   * p-values over many pairs; default true.
   */
  bootstrap?: boolean;
}

/** One agent in a paired comparison; plain JSON data, keys in this order. */
export interface PairedSide {
  /** The agent. */
  agent_id: string;
  /** Scored attempts on the paired tasks. */
  attempts: number;
  /** Resolved attempts among `attempts`. */
  resolved_attempts: number;
  /** Paired tasks resolved under the task rule. */
  resolved_tasks: number;
  /** Mean over paired tasks of (resolved attempts / attempts); null without paired tasks. */
  rate: number | null;
  /** Percentile interval of `rate` from the paired task resample; null without paired tasks. */
  interval: { lower: number; upper: number; collapsed: boolean } | null;
  /** Wilson 95% interval (n = paired tasks), reported only beside a collapsed interval. */
  wilson: { lower: number; upper: number } | null;
}

/** A task left out of the pairing, with the agents that have scored rows on it. */
export interface ExcludedTask {
  /** The task. */
  task_id: string;
  /** Agents (of the two) with scored rows on it; empty when neither. */
  scored_by: string[];
}

/** The paired comparison; plain JSON data, keys in this order. */
export interface PairedComparison {
  /** Agent A (the first of the pair). */
  a: PairedSide;
  /** Agent B (the second of the pair). */
  b: PairedSide;
  /** Number of paired tasks (both agents have scored rows). */
  tasks: number;
  /** rate a − rate b with its percentile interval; null without paired tasks. */
  difference: { estimate: number; lower: number; upper: number; collapsed: boolean } | null;
  /** McNemar counts over paired tasks, under `task_rule`. */
  mcnemar: { only_a: number; only_b: number; both: number; neither: number };
  /**
   * Exact McNemar test of the discordant tasks: `binomialTestTwoSided(only_a,
   * only_a + only_b, 0.5)`; 1 when no task is discordant.
   */
  mcnemar_p_value: number;
  /** Tasks seen in either agent's rows but without scored rows from both, sorted. */
  excluded_tasks: ExcludedTask[];
  /** The task verdict used for the McNemar counts. */
  task_rule: TaskRule;
  /** Bootstrap rounds R. */
  rounds: number;
  /** Seed of `seededRandom` for the task resample. */
  seed: number | string;
}

interface Cell {
  attempts: number;
  resolved: number;
}

/**
 * Paired comparison of agents A and B over the tasks both have scored rows on.
 *
 * Definitions (the pairing and clustering follow the extension of
 * seed 001; invalid rows are never scored, seed 000):
 * - paired tasks: task ids with at least one scored row from each agent; tasks
 *   where only one agent (or neither) has scored rows are listed in
 *   `excluded_tasks` and left out.
 * - per task t: m_X(t) = resolved attempts / scored attempts of agent X (a task
 *   with several attempts is one cluster); rate_X = mean over paired tasks of
 *   m_X(t); difference = rate_A − rate_B = mean of d(t) = m_A(t) − m_B(t).
 * - paired bootstrap: R rounds; each draws T paired tasks with replacement
 *   (`randomIndex(seededRandom(seed), T)`, T draws per round, the same resample
 *   for both agents) and records the mean of m_A, of m_B and of d; each of the
 *   three is sorted and its bounds are the entries at floor(0.025 R) and
 *   floor(0.975 R) (seed 001's percentile convention).
 * - McNemar counts over paired tasks: a task is resolved by X when more than
 *   half of X's attempts resolved (`majority`, default) or at least one did
 *   (`any`); with one attempt per task both rules agree.
 * - exact McNemar p-value (McNemar 1947, in its exact conditional form; Agresti,
 *   "Categorical Data Analysis", 3rd ed., §11.1.4): under "no difference" each
 *   of the n = only_a + only_b discordant tasks favours A with probability 1/2,
 *   so p = two-sided binomial test of only_a in n trials at 1/2
 *   (`binomialTestTwoSided`, scipy's `binomtest`); concordant tasks carry no
 *   information and n = 0 gives p = 1. Over several pairs, see
 *   `pairwisePValues` (Holm's adjustment).
 * - a rate of 0% or 100% (every resample equal) collapses its interval to a
 *   point: `collapsed` is then true and a Wilson 95% interval with
 *   successes = rate × T and n = T (tasks, i.e. clusters) is reported beside it.
 *
 * Cost: O(rows + T log T + R × T) time, O(T + R) memory.
 *
 * @param rows ledger rows (other agents' rows are ignored)
 * @param agents the two agent ids [A, B]; the difference is A − B
 * @param options `rounds` (default 2000), `seed` (default 7), `taskRule` (default "majority")
 * @returns the paired comparison (nulls when no task is paired)
 * @throws {RangeError} when the two ids are equal, an agent has no rows, or
 *   `rounds` is not a positive integer
 * @example
 * ```ts
 * import { pairedComparison } from "./paired_comparison.ts";
 * import { Episode } from "./schema/records.ts";
 * const row = (agent_id: string, task_id: string, resolved: boolean) => Episode.parse({
 *   run_id: "r", agent_id, task_id, seed: 7, resolved, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p",
 * });
 * const rows = [row("a", "t1", true), row("b", "t1", false), row("a", "t2", true)];
 * const result = pairedComparison(rows, ["a", "b"]);
 * // t2 is excluded: only "a" has a scored row there
 * if (result.tasks !== 1 || result.mcnemar.only_a !== 1) throw new Error(JSON.stringify(result));
 * // one discordant task: p = 1 (scipy.stats.binomtest(1, 1, 0.5).pvalue -> 1.0)
 * if (result.mcnemar_p_value !== 1) throw new Error(JSON.stringify(result));
 * ```
 */
export function pairedComparison(
  rows: Iterable<Episode>,
  agents: readonly [string, string],
  options: PairedComparisonOptions = {},
): PairedComparison {
  return pairedComparisons(rows, [agents], options)[0];
}

/** One agent's rows as a paired comparison reads them. */
interface AgentCells {
  /** Its rows, of every status. */
  rows: number;
  /** The task ids of its rows, of every status, each once, sorted by code unit. */
  tasks: string[];
  /** Its scored attempts and resolved attempts per task. */
  cells: Map<string, Cell>;
}

/** The cells of each agent of `ids`, from one pass over the rows. O(rows + T log T per agent). */
function agentCells(rows: Iterable<Episode>, ids: ReadonlySet<string>): Map<string, AgentCells> {
  const seen = new Map<string, Set<string>>();
  const byAgent = new Map<string, AgentCells>();
  for (const id of ids) {
    seen.set(id, new Set());
    byAgent.set(id, { rows: 0, tasks: [], cells: new Map() });
  }
  for (const row of rows) {
    const agent = byAgent.get(row.agent_id);
    if (agent === undefined) continue;
    agent.rows++;
    seen.get(row.agent_id)!.add(row.task_id);
    if (row.status !== "scored") continue;
    let cell = agent.cells.get(row.task_id);
    if (cell === undefined) {
      cell = { attempts: 0, resolved: 0 };
      agent.cells.set(row.task_id, cell);
    }
    cell.attempts++;
    if (row.resolved === true) cell.resolved++;
  }
  for (const [id, agent] of byAgent) agent.tasks = [...seen.get(id)!].sort(byCodeUnit);
  return byAgent;
}

/** The union of two lists sorted by code unit without repeats, sorted the same way. O(x + y). */
function mergeSorted(x: readonly string[], y: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const order = byCodeUnit(x[i], y[j]);
    out.push(order <= 0 ? x[i] : y[j]);
    if (order <= 0) i++;
    if (order >= 0) j++;
  }
  while (i < x.length) out.push(x[i++]);
  while (j < y.length) out.push(y[j++]);
  return out;
}

function byCodeUnit(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** {@link pairedComparison} of one pair from its agents' cells. */
function compareCells(
  byAgent: ReadonlyMap<string, AgentCells>,
  [idA, idB]: readonly [string, string],
  options: PairedComparisonOptions,
): PairedComparison {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  const taskRule = options.taskRule ?? "majority";
  if (idA === idB) throw new RangeError(`Cannot compare agent "${idA}" with itself`);
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Cannot compare agents paired: "rounds" must be a positive integer, got ${rounds}`,
    );
  }
  if (taskRule !== "majority" && taskRule !== "any") {
    throw new RangeError(
      `Cannot compare agents paired: "taskRule" must be "majority" or "any", got "${taskRule}"`,
    );
  }
  const a = byAgent.get(idA)!;
  const b = byAgent.get(idB)!;
  for (const [id, agent] of [[idA, a], [idB, b]] as const) {
    if (agent.rows === 0) {
      throw new RangeError(`Cannot compare agents paired: no rows for agent "${id}"`);
    }
  }
  const cellsA = a.cells;
  const cellsB = b.cells;
  const paired: string[] = [];
  const excluded: ExcludedTask[] = [];
  for (const task of mergeSorted(a.tasks, b.tasks)) {
    const inA = cellsA.has(task);
    const inB = cellsB.has(task);
    if (inA && inB) paired.push(task);
    else excluded.push({ task_id: task, scored_by: inA ? [idA] : inB ? [idB] : [] });
  }

  const tasks = paired.length;
  const meanA = new Float64Array(tasks);
  const meanB = new Float64Array(tasks);
  const mcnemar = { only_a: 0, only_b: 0, both: 0, neither: 0 };
  const totals = {
    a: { attempts: 0, resolved: 0, tasks: 0 },
    b: { attempts: 0, resolved: 0, tasks: 0 },
  };
  const wins = (cell: Cell) =>
    taskRule === "any" ? cell.resolved > 0 : 2 * cell.resolved > cell.attempts;
  paired.forEach((task, i) => {
    const ca = cellsA.get(task)!;
    const cb = cellsB.get(task)!;
    meanA[i] = ca.resolved / ca.attempts;
    meanB[i] = cb.resolved / cb.attempts;
    totals.a.attempts += ca.attempts;
    totals.a.resolved += ca.resolved;
    totals.b.attempts += cb.attempts;
    totals.b.resolved += cb.resolved;
    const wa = wins(ca);
    const wb = wins(cb);
    if (wa) totals.a.tasks++;
    if (wb) totals.b.tasks++;
    if (wa && wb) mcnemar.both++;
    else if (wa) mcnemar.only_a++;
    else if (wb) mcnemar.only_b++;
    else mcnemar.neither++;
  });

  let boot: { a: Bounds; b: Bounds; d: Bounds } | null = null;
  let rateA: number | null = null;
  let rateB: number | null = null;
  if (tasks > 0) {
    rateA = sum(meanA) / tasks;
    rateB = sum(meanB) / tasks;
    if (options.bootstrap !== false) boot = pairedBootstrap(meanA, meanB, rounds, seed);
  }
  const side = (
    id: string,
    t: typeof totals.a,
    rate: number | null,
    b: Bounds | null,
  ): PairedSide => ({
    agent_id: id,
    attempts: t.attempts,
    resolved_attempts: t.resolved,
    resolved_tasks: t.tasks,
    rate,
    interval: b === null
      ? null
      : { lower: b.lower, upper: b.upper, collapsed: b.lower === b.upper },
    wilson: b === null || b.lower !== b.upper || rate === null ? null : wilsonBeside(rate, tasks),
  });
  return {
    a: side(idA, totals.a, rateA, boot?.a ?? null),
    b: side(idB, totals.b, rateB, boot?.b ?? null),
    tasks,
    difference: boot === null || rateA === null || rateB === null ? null : {
      estimate: (sum(meanA) - sum(meanB)) / tasks,
      lower: boot.d.lower,
      upper: boot.d.upper,
      collapsed: boot.d.lower === boot.d.upper,
    },
    mcnemar,
    mcnemar_p_value: binomialTestTwoSided(mcnemar.only_a, mcnemar.only_a + mcnemar.only_b, 0.5),
    excluded_tasks: excluded,
    task_rule: taskRule,
    rounds,
    seed,
  };
}

/**
 * {@link pairedComparison} of each pair, equal to it pair by pair and
 * faster over many pairs: one pass over the rows counts each agent's
 * attempts per task and sorts its tasks once; a pair then merges its two
 * sorted task lists (the sorted union, as {@link pairedComparison} sorts
 * it) and reads its cells. Cost: O(rows + T log T per agent) once, then
 * O(T + R T) per pair (T tasks, R rounds).
 *
 * @param rows ledger rows
 * @param pairs the agent pairs [A, B], each compared as A − B
 * @param options as {@link pairedComparison}'s, the same for every pair
 * @returns one comparison per pair, in the order given
 * @throws {RangeError} as {@link pairedComparison}
 */
export function pairedComparisons(
  rows: Iterable<Episode>,
  pairs: readonly (readonly [string, string])[],
  options: PairedComparisonOptions = {},
): PairedComparison[] {
  const byAgent = agentCells(rows, new Set(pairs.flat()));
  return pairs.map((pair) => compareCells(byAgent, pair, options));
}

interface Bounds {
  lower: number;
  upper: number;
}

function sum(values: Float64Array): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

function wilsonBeside(rate: number, tasks: number): { lower: number; upper: number } {
  const w = wilsonInterval(Math.min(tasks, Math.max(0, rate * tasks)), tasks);
  return { lower: w.lower, upper: w.upper };
}

/** Task-cluster bootstrap: the same T indices per round for both agents. */
function pairedBootstrap(
  meanA: Float64Array,
  meanB: Float64Array,
  rounds: number,
  seed: number | string,
): { a: Bounds; b: Bounds; d: Bounds } {
  const random = seededRandom(seed);
  const tasks = meanA.length;
  const statsA = new Float64Array(rounds);
  const statsB = new Float64Array(rounds);
  const statsD = new Float64Array(rounds);
  for (let r = 0; r < rounds; r++) {
    let sumA = 0;
    let sumB = 0;
    for (let i = 0; i < tasks; i++) {
      const t = randomIndex(random, tasks);
      sumA += meanA[t];
      sumB += meanB[t];
    }
    statsA[r] = sumA / tasks;
    statsB[r] = sumB / tasks;
    statsD[r] = (sumA - sumB) / tasks;
  }
  const bounds = (stats: Float64Array): Bounds => {
    stats.sort();
    return { lower: stats[Math.floor(0.025 * rounds)], upper: stats[Math.floor(0.975 * rounds)] };
  };
  return { a: bounds(statsA), b: bounds(statsB), d: bounds(statsD) };
}
