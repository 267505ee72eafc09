/**
 * Percentile bootstrap intervals of a ratio over an agent's scored episodes:
 * tokens per resolved, seconds per resolved and cost per resolved (issue 13:
 * the efficiency columns had point estimates only), resampled by task
 * (issue 23: attempts at one task are correlated, so a task and all its
 * attempts are drawn together).
 *
 * @module
 */
import { episodeTokens, isScored } from "./classify_episode.ts";
import { episodeCost } from "./episode_cost.ts";
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
  return bootstrapRatios([values], resolved, options)[0];
}

/** One sample's numerators summed per resampling unit, ready for {@link resampleTables}. */
interface RatioTable {
  /** The numerators, each per episode. */
  numerators: readonly (readonly number[])[];
  /** Episodes n. */
  episodes: number;
  /** Resolved episodes. */
  resolved: number;
  /** Units C (distinct tasks, or episodes). */
  units: number;
  /** Whether the units are tasks. */
  byTask: boolean;
  /**
   * Per unit u, at [u * (k + 1)]: the sums of its episodes' k numerators, in
   * episode order, then its resolved count, side by side so that a draw
   * reads one unit's figures together.
   */
  table: Float64Array;
}

/**
 * {@link ratioBootstrap} of several numerators over the same episodes: each
 * round's indices serve every numerator, so the result for each equals its
 * own `ratioBootstrap` with the same seed.
 */
function bootstrapRatios(
  numerators: readonly (readonly number[])[],
  resolved: readonly boolean[],
  options: RatioBootstrapOptions,
): RatioInterval[] {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  const table = ratioTable(numerators, resolved, rounds, options.tasks);
  return ratioIntervals(table, resampleTables([table], rounds, seed)[0], rounds, seed);
}

/**
 * The checks of {@link ratioBootstrap} and the per-unit sums of one
 * sample's numerators and outcomes. O(n log n).
 */
function ratioTable(
  numerators: readonly (readonly number[])[],
  resolved: readonly boolean[],
  rounds: number,
  tasks: readonly string[] | undefined,
): RatioTable {
  const n = resolved.length;
  for (const values of numerators) {
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
  }
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Cannot bootstrap a ratio: "rounds" must be a positive integer, got ${rounds}`,
    );
  }
  if (tasks !== undefined && tasks.length !== n) {
    throw new RangeError(
      `Cannot bootstrap a ratio: need a task id per outcome, got ${tasks.length} task ids and ` +
        `${n} outcomes`,
    );
  }
  const k = numerators.length;
  const units = resampleUnits(tasks, n);
  const stride = k + 1;
  const table = new Float64Array(units.count * stride);
  let hits = 0;
  for (let i = 0; i < n; i++) {
    const u = units.of[i] * stride;
    for (let m = 0; m < k; m++) table[u + m] += numerators[m][i];
    if (resolved[i]) {
      table[u + k]++;
      hits++;
    }
  }
  return {
    numerators,
    episodes: n,
    resolved: hits,
    units: units.count,
    byTask: tasks !== undefined,
    table,
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
  const k = tables[0].numerators.length;
  const g = tables.length;
  const stride = k + 1;
  const block = g * stride;
  // Unit u of table t at [u * block + t * stride]: its k sums, then its resolved count.
  const side = new Float64Array(c * block);
  tables.forEach((t, at) => {
    for (let u = 0; u < c; u++) {
      side.set(t.table.subarray(u * stride, (u + 1) * stride), u * block + at * stride);
    }
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
  return t.numerators.map((values, m) => {
    stats[m].sort();
    const total = values.reduce((sum, v) => sum + v, 0);
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

/** One agent's scored episodes as the per-resolved ratios read them; keys in this order. */
export interface AgentEpisodeSample {
  /** The agent. */
  agent_id: string;
  /** Task of each scored episode, in ledger order. */
  task_ids: string[];
  /** Outcome of each, in the same order. */
  resolved: boolean[];
  /** prompt + completion tokens of each; null when any did not record them. */
  tokens: number[] | null;
  /** wall_ms / 1000 of each; null when any did not record it. */
  seconds: number[] | null;
  /** Money of each through the frozen price table; null without one or when tokens are missing. */
  cost: number[] | null;
}

/**
 * Each agent's scored episodes (invalid rows are never scored, seed 000) as
 * parallel arrays of task, outcome, tokens, seconds and money, the numerators of
 * TPR, SPR and cost per resolved as `summarizeAgents` sums them (a column
 * any scored row did not record is null, "not recorded", never 0). Agents
 * without scored rows are left out. Cost: O(rows).
 *
 * @param rows ledger rows, errata applied
 * @param priceTable the frozen price table (enables `cost`)
 * @returns one sample per agent with scored rows, sorted by agent id
 */
export function agentEpisodeSamples(
  rows: Iterable<Episode>,
  priceTable?: PriceTable,
): AgentEpisodeSample[] {
  // The columns are filled in the one pass, so the rows are never held (a column
  // turns null, "not recorded", at its first row without a value).
  const byAgent = new Map<string, AgentEpisodeSample>();
  const append = (column: number[] | null, value: number | null) => {
    if (column === null || value === null) return null;
    column.push(value);
    return column;
  };
  for (const row of rows) {
    if (!isScored(row)) continue;
    let sample = byAgent.get(row.agent_id);
    if (sample === undefined) {
      sample = {
        agent_id: row.agent_id,
        task_ids: [],
        resolved: [],
        tokens: [],
        seconds: [],
        cost: priceTable === undefined ? null : [],
      };
      byAgent.set(row.agent_id, sample);
    }
    sample.task_ids.push(row.task_id);
    sample.resolved.push(row.resolved === true);
    sample.tokens = append(sample.tokens, episodeTokens(row));
    sample.seconds = append(sample.seconds, row.wall_ms === null ? null : row.wall_ms / 1000);
    // Every row is priced, also once the column is null: a row the table cannot price throws.
    if (priceTable !== undefined) sample.cost = append(sample.cost, episodeCost(row, priceTable));
  }
  return [...byAgent.keys()].sort(byCodeUnit).map((agent_id) => byAgent.get(agent_id)!);
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
 * resolved of every agent with scored rows ({@link agentEpisodeSamples}),
 * resampled by task (each draw takes a task with all the agent's scored
 * attempts at it), each with the same rounds and seed, so the three of one
 * agent come from the same resamples (drawn once for the three). A column
 * a scored row did not record has no interval (null, "not recorded"),
 * never one computed from 0. Cost: O(rows log rows + R × tasks) per agent.
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
  return sampleRatioIntervals(agentEpisodeSamples(rows, options.priceTable), options);
}

/**
 * {@link agentRatioIntervals} of samples already drawn from the rows by
 * {@link agentEpisodeSamples}, for a caller that reads them too, so that
 * the columns are built once. Cost: O(R × tasks) per agent, the agents
 * with as many tasks sharing one draw per round.
 *
 * @param samples `agentEpisodeSamples(rows, priceTable)`
 * @param options `rounds` and `seed` (default 2000 and 7); the price table is the samples'
 * @returns one entry per sample, in their order
 */
export function sampleRatioIntervals(
  samples: readonly AgentEpisodeSample[],
  options: Omit<AgentRatioIntervalsOptions, "priceTable"> = {},
): AgentRatioIntervals[] {
  const rounds = options.rounds ?? DEFAULT_BOOTSTRAP.rounds;
  const seed = options.seed ?? DEFAULT_BOOTSTRAP.seed;
  // Every recorded column of an agent in one table, so one pass over the resamples serves them.
  const tables = samples.map((sample) => {
    const known = [sample.tokens, sample.seconds, sample.cost].filter((c) => c !== null);
    return known.length === 0 ? null : ratioTable(known, sample.resolved, rounds, sample.task_ids);
  });
  // Agents with as many tasks draw the same indices: one draw per round serves them all.
  const byUnits = new Map<string, number[]>();
  tables.forEach((table, a) => {
    if (table === null) return;
    const key = `${table.units} ${table.numerators.length}`;
    const group = byUnits.get(key);
    if (group === undefined) byUnits.set(key, [a]);
    else group.push(a);
  });
  const intervals = new Array<RatioInterval[]>(samples.length).fill([]);
  for (const group of byUnits.values()) {
    const resampled = resampleTables(group.map((a) => tables[a]!), rounds, seed);
    group.forEach((a, g) => {
      intervals[a] = ratioIntervals(tables[a]!, resampled[g], rounds, seed);
    });
  }
  return samples.map((sample, a) => {
    const known = [sample.tokens, sample.seconds, sample.cost].filter((c) => c !== null);
    const interval = (c: number[] | null) => (c === null ? null : intervals[a][known.indexOf(c)]);
    return {
      agent_id: sample.agent_id,
      tpr: interval(sample.tokens),
      spr: interval(sample.seconds),
      cost_per_resolved: interval(sample.cost),
    };
  });
}
