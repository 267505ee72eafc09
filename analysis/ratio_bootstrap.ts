/**
 * Percentile bootstrap intervals of a ratio over an agent's scored episodes:
 * tokens per resolved, seconds per resolved and cost per resolved (issue 13:
 * the efficiency columns had point estimates only), resampled by task
 * (issue 23: attempts at one task are correlated, so a task and all its
 * attempts are drawn together).
 *
 * @module
 */
import {
  type AgentSums,
  agentTaskSums,
  type SummedMeasure,
  type TaskSums,
} from "./agent_task_sums.ts";
import type { Episode, PriceTable } from "./schema/records.ts";
import { seededIndices } from "./seeded_random.ts";
import { DEFAULT_BOOTSTRAP } from "./defaults.ts";

/** Options for {@link ratioBootstrap}; the defaults are seed 001's. */
export interface RatioBootstrapOptions {
  /** Bootstrap rounds R; default 2000. */
  rounds?: number;
  /** Seed of `seededRandom`; default 7. */
  seed?: number | string;
  /**
   * Each episode's task id, the same length as the values: each draw then
   * takes one task with all its episodes (a task-cluster bootstrap). Default:
   * none, each draw takes one episode.
   */
  tasks?: readonly string[];
}

/** What one bootstrap draw takes: a task with all its scored episodes, or one episode. */
export type ResampleUnit = "task" | "episode";

/** A percentile bootstrap interval of Σ value / Σ resolved; plain JSON data, keys in this order. */
export interface RatioInterval {
  /** Always "percentile_bootstrap_ratio". */
  method: "percentile_bootstrap_ratio";
  /** What one draw takes: `"task"` (with `tasks`) or `"episode"`. */
  unit: ResampleUnit;
  /** Bootstrap rounds R. */
  rounds: number;
  /** Seed of `seededRandom`. */
  seed: number | string;
  /** The agent's scored episodes n. */
  episodes: number;
  /** Distinct tasks among them, the units resampled; null when episodes are resampled. */
  tasks: number | null;
  /** Resolved episodes among them. */
  resolved: number;
  /** Σ value over the episodes (tokens, seconds or money). */
  total: number;
  /** total / resolved; null when nothing resolved. */
  estimate: number | null;
  /** Sorted statistic at floor(0.025 R); null when that round resolved nothing (no ratio). */
  lower: number | null;
  /** Sorted statistic at floor(0.975 R); null when that round resolved nothing: unbounded above. */
  upper: number | null;
  /** Rounds whose resample held no resolved episode, hence no ratio (never dropped). */
  rounds_without_resolved: number;
}

/**
 * Percentile bootstrap 95% interval of the ratio Σ value / Σ resolved over
 * episodes (tokens per resolved, seconds per resolved, cost per resolved),
 * resampling tasks when `tasks` names each episode's task.
 *
 * Rule: the units are the distinct tasks (sorted by code unit), each with
 * the sums of its episodes' values and resolved outcomes, or without
 * `tasks` the episodes themselves in the order given. R rounds; each draws
 * C of the C units with replacement (C draws of `randomIndex(random, C)`
 * from one `seededRandom(seed)`, a fresh generator per call as for the rate
 * bootstrap of seed 001, so the tokens and seconds of one agent are
 * resampled with the same draws) and records Σ value / Σ resolved over the
 * drawn units' episodes. Drawing a task takes all its attempts: attempts at
 * one task share its difficulty, so resampling them one by one treats
 * correlated attempts as independent and narrows the interval (the cluster
 * bootstrap: Davison & Hinkley, "Bootstrap Methods and their Application",
 * 1997, §3.8; Efron & Tibshirani, "An Introduction to the Bootstrap", 1993,
 * ch. 13, for the percentile interval). With one attempt per task the two
 * units have the same distribution. This is the unit of the paired rate
 * comparison (`pairedComparison`); seed 001's rate bootstrap resamples
 * episodes, which are tasks when each task has one attempt. A resample
 * with no resolved episode has no ratio: it is counted in
 * `rounds_without_resolved` and sorted above every ratio (a positive total
 * over zero resolved is unbounded), never dropped, so the bounds stay the
 * entries at floor(0.025 R) and floor(0.975 R) of all R rounds (seed 001's
 * percentile convention); a bound that falls on such a round is null (the
 * interval is unbounded above). Cost: O(n log n + R C) time, O(R + C)
 * memory.
 *
 * @param values per-episode numerators (tokens, seconds, money), finite and ≥ 0
 * @param resolved per-episode outcomes, the same length
 * @param options `rounds` (default 2000), `seed` (default 7), `tasks` (resample by task)
 * @returns the point ratio, its interval and the rounds without a ratio
 * @throws {RangeError} when the arrays are empty or of different lengths, a
 *   value is negative or not finite, or `rounds` is not a positive integer
 * @example
 * ```ts
 * import { ratioBootstrap } from "./ratio_bootstrap.ts";
 * // three episodes of 100 tokens, two resolved: 300 / 2 = 150 tokens per resolved
 * const tpr = ratioBootstrap([100, 100, 100], [true, true, false], { rounds: 200 });
 * if (tpr.estimate !== 150) throw new Error(JSON.stringify(tpr));
 * // by task: t1's two attempts are drawn together
 * const byTask = ratioBootstrap([100, 100, 100], [true, true, false], {
 *   rounds: 200, tasks: ["t1", "t1", "t2"],
 * });
 * if (byTask.unit !== "task" || byTask.tasks !== 2) throw new Error(JSON.stringify(byTask));
 * ```
 */
export function ratioBootstrap(
  values: readonly number[],
  resolved: readonly boolean[],
  options: RatioBootstrapOptions = {},
): RatioInterval {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  const table = arrayRatioTable(values, resolved, rounds, options.tasks);
  return ratioIntervals(table, resampleTables([table], rounds, seed)[0], rounds, seed)[0];
}

/** One sample's k numerators summed per resampling unit, ready for {@link resampleTables}. */
interface RatioTable {
  /** Σ of each numerator over the episodes, added in episode order. */
  totals: readonly number[];
  /** Episodes n. */
  episodes: number;
  /** Resolved episodes. */
  resolved: number;
  /** Units C (distinct tasks, or episodes). */
  units: number;
  /** Whether the units are tasks. */
  byTask: boolean;
  /**
   * Writes unit u's figures at `out[at]`: the sums of its episodes' k
   * numerators, each added in episode order, then its resolved count.
   */
  write(u: number, out: Float64Array, at: number): void;
}

function checkRounds(rounds: number): void {
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Cannot bootstrap a ratio: "rounds" must be a positive integer, got ${rounds}`,
    );
  }
}

/**
 * The checks of {@link ratioBootstrap} and the per-unit sums of one
 * numerator and its outcomes. O(n log n).
 */
function arrayRatioTable(
  values: readonly number[],
  resolved: readonly boolean[],
  rounds: number,
  tasks: readonly string[] | undefined,
): RatioTable {
  const n = resolved.length;
  if (n === 0 || values.length !== n) {
    throw new RangeError(
      `Cannot bootstrap a ratio: need as many outcomes as values (at least one), got ` +
        `${values.length} values and ${n} outcomes`,
    );
  }
  const bad = values.findIndex((v) => !(Number.isFinite(v) && v >= 0));
  if (bad >= 0) {
    throw new RangeError(
      `Cannot bootstrap a ratio: value ${bad} must be a finite number >= 0, got ${values[bad]}`,
    );
  }
  checkRounds(rounds);
  if (tasks !== undefined && tasks.length !== n) {
    throw new RangeError(
      `Cannot bootstrap a ratio: need a task id per outcome, got ${tasks.length} task ids and ` +
        `${n} outcomes`,
    );
  }
  const units = resampleUnits(tasks, n);
  // Unit u at [2u]: the sum of its values, then its resolved count.
  const table = new Float64Array(units.count * 2);
  let hits = 0;
  for (let i = 0; i < n; i++) {
    const u = units.of[i] * 2;
    table[u] += values[i];
    if (resolved[i]) {
      table[u + 1]++;
      hits++;
    }
  }
  return {
    totals: [values.reduce((sum, v) => sum + v, 0)],
    episodes: n,
    resolved: hits,
    units: units.count,
    byTask: tasks !== undefined,
    write(u, out, at) {
      out[at] = table[2 * u];
      out[at + 1] = table[2 * u + 1];
    },
  };
}

/** The measures an agent recorded on every scored attempt, in the order TPR, SPR, cost. */
function recordedMeasures(agent: AgentSums): SummedMeasure[] {
  return (["tokens", "seconds", "cost"] as const).filter((m) => agent.totals[m] !== null);
}

/** One agent's recorded measures summed per task it ran (its units, by task id). */
function agentRatioTable(agent: AgentSums, measures: readonly SummedMeasure[]): RatioTable {
  const k = measures.length;
  return {
    totals: measures.map((m) => agent.totals[m]!),
    episodes: agent.episodes,
    resolved: agent.resolved,
    units: agent.units.length,
    byTask: true,
    write(u, out, at) {
      const task = agent.units[u];
      for (let m = 0; m < k; m++) out[at + m] = agent.at(task, measures[m]);
      out[at + k] = agent.at(task, "resolved");
    },
  };
}

/** The R statistics of each numerator of one table, and the rounds without a resolved episode. */
interface Resampled {
  stats: Float64Array[];
  without: number;
}

/**
 * The bootstrap rounds of tables that all have the same unit count C and
 * the same numerators k: each round draws C indices of
 * `randomIndex(random, C)` from one `seededRandom(seed)` (through
 * `seededIndices`, the same stream) and applies them to every table. A
 * table's draws thus equal those of its own generator, since C alone
 * decides them: drawing once for all saves a draw per table. The tables
 * are laid side by side per unit, so that a draw reads one contiguous
 * block for all of them. Each statistic sums the drawn units in draw
 * order, as one table alone would, so the results are those of each table
 * alone to the bit. O(R C tables) time, O(C tables + R k) memory.
 */
function resampleTables(
  tables: readonly RatioTable[],
  rounds: number,
  seed: number | string,
): Resampled[] {
  const c = tables[0].units;
  const k = tables[0].totals.length;
  const g = tables.length;
  const stride = k + 1;
  const block = g * stride;
  // Unit u of table t at [u * block + t * stride]: its k sums, then its resolved count.
  const side = new Float64Array(c * block);
  tables.forEach((t, at) => {
    for (let u = 0; u < c; u++) t.write(u, side, u * block + at * stride);
  });
  const draw = seededIndices(seed);
  const picks = new Int32Array(c);
  const out = tables.map(() => ({
    stats: Array.from({ length: k }, () => new Float64Array(rounds)),
    without: 0,
  }));
  const totals = new Float64Array(g * stride);
  for (let r = 0; r < rounds; r++) {
    draw(picks, c, c);
    totals.fill(0);
    for (let i = 0; i < c; i++) {
      const j = picks[i] * block;
      for (let x = 0; x < block; x++) totals[x] += side[j + x];
    }
    for (let at = 0; at < g; at++) {
      const hits = totals[at * stride + k];
      const result = out[at];
      if (hits === 0) result.without++;
      for (let m = 0; m < k; m++) {
        result.stats[m][r] = hits === 0 ? Infinity : totals[at * stride + m] / hits;
      }
    }
  }
  return out;
}

/** The interval records of one resampled table, one per numerator. */
function ratioIntervals(
  t: RatioTable,
  { stats, without }: Resampled,
  rounds: number,
  seed: number | string,
): RatioInterval[] {
  const bound = (x: number) => (x === Infinity ? null : x);
  const hits = t.resolved;
  return t.totals.map((total, m) => {
    stats[m].sort();
    return {
      method: "percentile_bootstrap_ratio",
      unit: t.byTask ? "task" : "episode",
      rounds,
      seed,
      episodes: t.episodes,
      tasks: t.byTask ? t.units : null,
      resolved: hits,
      total,
      estimate: hits === 0 ? null : total / hits,
      lower: bound(stats[m][Math.floor(0.025 * rounds)]),
      upper: bound(stats[m][Math.floor(0.975 * rounds)]),
      rounds_without_resolved: without,
    };
  });
}

/**
 * The resampling units of n episodes: without task ids each episode is its
 * own unit, in order; with them, unit u is the u-th distinct task id in
 * code-unit order. O(n log n).
 */
function resampleUnits(
  tasks: readonly string[] | undefined,
  n: number,
): { count: number; of: Int32Array } {
  const of = new Int32Array(n);
  if (tasks === undefined) {
    for (let i = 0; i < n; i++) of[i] = i;
    return { count: n, of };
  }
  const ids = [...new Set(tasks)].sort(byCodeUnit);
  const index = new Map(ids.map((id, u) => [id, u]));
  for (let i = 0; i < n; i++) of[i] = index.get(tasks[i])!;
  return { count: ids.length, of };
}

function byCodeUnit(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** One agent's per-resolved intervals; plain JSON data, keys in this order. */
export interface AgentRatioIntervals {
  /** The agent. */
  agent_id: string;
  /** Tokens per resolved; null when a scored row did not record its tokens. */
  tpr: RatioInterval | null;
  /** Seconds per resolved; null when a scored row did not record its wall time. */
  spr: RatioInterval | null;
  /** Cost per resolved; null without a price table or with tokens not recorded. */
  cost_per_resolved: RatioInterval | null;
}

/** Options for {@link agentRatioIntervals}. */
export interface AgentRatioIntervalsOptions {
  /** Bootstrap rounds R; default 2000 (the plan's `bootstrap.rounds`). */
  rounds?: number;
  /** Seed of `seededRandom`; default 7 (the plan's `bootstrap.seed`). */
  seed?: number | string;
  /** The frozen price table: enables cost per resolved. */
  priceTable?: PriceTable;
}

/**
 * The {@link ratioBootstrap} intervals of tokens, seconds and cost per
 * resolved of every agent with scored rows, resampled by task (each draw
 * takes a task with all the agent's scored attempts at it), each with the
 * same rounds and seed, so the three of one agent come from the same
 * resamples (drawn once for the three). A column a scored row did not
 * record has no interval (null, "not recorded"), never one computed from 0.
 * The rows are summed per task in one pass (`agentTaskSums`), so a round
 * costs O(tasks), not O(rows). Cost: O(rows + tasks log tasks + R × tasks)
 * per agent.
 *
 * @param rows ledger rows, errata applied
 * @param options `rounds` and `seed` (the plan's bootstrap; default 2000 and 7), `priceTable`
 * @returns one entry per agent with scored rows, sorted by agent id
 * @example
 * ```ts
 * import { agentRatioIntervals } from "./ratio_bootstrap.ts";
 * import { Episode } from "./schema/records.ts";
 * const rows = [true, false, true].map((resolved, i) => Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: `t${i}`, seed: 7, resolved, prompt_tokens: 90,
 *   completion_tokens: 10, tool_calls: 1, wall_ms: 2000, price_table_id: "p",
 * }));
 * const [a] = agentRatioIntervals(rows, { rounds: 200 });
 * if (a.tpr?.estimate !== 150 || a.tpr.unit !== "task") throw new Error(JSON.stringify(a));
 * ```
 */
export function agentRatioIntervals(
  rows: Iterable<Episode>,
  options: AgentRatioIntervalsOptions = {},
): AgentRatioIntervals[] {
  return taskSumsRatioIntervals(agentTaskSums(rows, options.priceTable), options);
}

/**
 * {@link agentRatioIntervals} of rows already summed per task by
 * `agentTaskSums`, for a caller that reads the sums too (the frontier), so
 * that the rows are summed once. Cost: O(R × tasks) per agent, the agents
 * with as many tasks sharing one draw per round.
 *
 * @param sums `agentTaskSums(rows, priceTable)`
 * @param options `rounds` and `seed` (default 2000 and 7); the price table is the sums'
 * @returns one entry per agent of the sums, in their order
 * @throws {RangeError} when `rounds` is not a positive integer
 */
export function taskSumsRatioIntervals(
  sums: TaskSums,
  options: Omit<AgentRatioIntervalsOptions, "priceTable"> = {},
): AgentRatioIntervals[] {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  checkRounds(rounds);
  const measures = sums.agents.map(recordedMeasures);
  // Agents with as many tasks and measures draw the same indices: one draw per round serves them.
  const byUnits = new Map<string, number[]>();
  sums.agents.forEach((agent, a) => {
    if (measures[a].length === 0) return;
    const key = `${agent.units.length} ${measures[a].length}`;
    const group = byUnits.get(key);
    if (group === undefined) byUnits.set(key, [a]);
    else group.push(a);
  });
  const intervals = new Array<RatioInterval[]>(sums.agents.length).fill([]);
  for (const group of byUnits.values()) {
    const tables = group.map((a) => agentRatioTable(sums.agents[a], measures[a]));
    const resampled = resampleTables(tables, rounds, seed);
    group.forEach((a, g) => {
      intervals[a] = ratioIntervals(tables[g], resampled[g], rounds, seed);
    });
  }
  return sums.agents.map((agent, a) => {
    const interval = (m: SummedMeasure) =>
      agent.totals[m] === null ? null : intervals[a][measures[a].indexOf(m)];
    return {
      agent_id: agent.agent_id,
      tpr: interval("tokens"),
      spr: interval("seconds"),
      cost_per_resolved: interval("cost"),
    };
  });
}
