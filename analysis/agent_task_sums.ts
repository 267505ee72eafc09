/**
 * Each agent's scored attempts summed per task, in one pass over the rows:
 * what the task-cluster bootstrap of the per-resolved figures and the
 * task-paired frontier draw from. A draw takes a task with all the agent's
 * attempts at it (Davison & Hinkley 1997, §3.8), so a round needs each
 * task's sums, never the attempts one by one: the sums hold O(agents ×
 * tasks) numbers, and no per-attempt list of a million rows is built.
 *
 * @module
 */
import { episodeTokens, isScored } from "./classify_episode.ts";
import { episodeCost } from "./episode_cost.ts";
import type { Episode, PriceTable } from "./schema/records.ts";

/** A quantity summed per task: the numerators of TPR, SPR and cost per resolved. */
export type SummedMeasure = "tokens" | "seconds" | "cost";

/** What is summed at each task, in this order. */
export type TaskField = "attempts" | "resolved" | SummedMeasure;

const FIELD_AT: Record<TaskField, number> = {
  attempts: 0,
  resolved: 1,
  tokens: 2,
  seconds: 3,
  cost: 4,
};
const FIELDS = 5;
/** Tasks per block of an agent's sums: an agent that never ran a block's tasks holds none of it. */
const BLOCK = 4096;

/** One agent's scored attempts: counts, totals and the sums at each task. */
export interface AgentSums {
  /** The agent. */
  readonly agent_id: string;
  /** Scored attempts. */
  readonly episodes: number;
  /** Resolved scored attempts. */
  readonly resolved: number;
  /**
   * Indices into {@link TaskSums.tasks} of the tasks it has a scored attempt
   * at, ascending (so sorted by task id): its resampling units.
   */
  readonly units: Int32Array;
  /**
   * Each measure summed over its scored attempts in ledger order; null when
   * a scored attempt did not record it ("not recorded", never 0), and cost
   * null without a price table.
   */
  readonly totals: Readonly<Record<SummedMeasure, number | null>>;
  /**
   * A field summed over its scored attempts at task `u` of
   * {@link TaskSums.tasks}, added in ledger order; 0 at a task it did not run.
   */
  at(u: number, field: TaskField): number;
}

/** Every agent's {@link AgentSums} over one sorted list of tasks. */
export interface TaskSums {
  /** The distinct tasks of all scored attempts, sorted by code unit. */
  readonly tasks: readonly string[];
  /** One entry per agent with a scored attempt, sorted by agent id. */
  readonly agents: readonly AgentSums[];
}

/**
 * Sums each agent's scored attempts (invalid rows are never scored, seed
 * 000) per task: attempts, resolved, tokens (prompt + completion), seconds
 * (wall_ms / 1000) and money through the frozen price table, as
 * `summarizeAgents` takes the numerators of TPR, SPR and cost per resolved.
 * Each sum adds its attempts in ledger order, so it is the double a
 * per-attempt loop in that order gives. A measure any scored attempt of an
 * agent did not record is null in its totals ("not recorded", never 0).
 * Every scored row is priced, also once its agent's cost is null: a row the
 * table cannot price throws. Cost: O(rows + tasks log tasks) time, O(agents ×
 * tasks) memory, in blocks of 4,096 tasks an agent ran.
 *
 * @param rows ledger rows, errata applied
 * @param priceTable the frozen price table (enables cost)
 * @returns the sorted tasks and one entry per agent with scored rows
 * @throws {RangeError} when a value is negative or not finite (a price table's rate)
 * @example
 * ```ts
 * import { agentTaskSums } from "./agent_task_sums.ts";
 * import { Episode } from "./schema/records.ts";
 * const rows = [["t2", true], ["t1", false], ["t2", false]].map(([task, resolved]) =>
 *   Episode.parse({ run_id: "r", agent_id: "a", task_id: task, seed: 1, resolved,
 *     prompt_tokens: 90, completion_tokens: 10, tool_calls: 1, wall_ms: 1500,
 *     price_table_id: "p" })
 * );
 * const { tasks, agents: [a] } = agentTaskSums(rows);
 * if (tasks.join() !== "t1,t2" || a.at(1, "attempts") !== 2 || a.at(1, "tokens") !== 200) {
 *   throw new Error("sums");
 * }
 * if (a.totals.seconds !== 4.5 || a.totals.cost !== null) throw new Error("totals");
 * ```
 */
export function agentTaskSums(rows: Iterable<Episode>, priceTable?: PriceTable): TaskSums {
  const seenAt = new Map<string, number>();
  const byAgent = new Map<string, Accumulator>();
  for (const row of rows) {
    if (!isScored(row)) continue;
    let seen = seenAt.get(row.task_id);
    if (seen === undefined) {
      seen = seenAt.size;
      seenAt.set(row.task_id, seen);
    }
    let agent = byAgent.get(row.agent_id);
    if (agent === undefined) {
      agent = new Accumulator(row.agent_id, priceTable !== undefined);
      byAgent.set(row.agent_id, agent);
    }
    const cost = priceTable === undefined ? null : episodeCost(row, priceTable);
    agent.add(seen, row.resolved === true, episodeTokens(row), wallSeconds(row), cost);
  }
  // Strings sort by UTF-16 code units.
  const tasks = [...seenAt.keys()].sort();
  // Task u of the sorted list was the `seenOf[u]`-th task seen.
  const seenOf = Int32Array.from(tasks, (task) => seenAt.get(task)!);
  const agents = [...byAgent.keys()].sort().map((id) => byAgent.get(id)!.sums(seenOf));
  return { tasks, agents };
}

function wallSeconds(row: Episode): number | null {
  return row.wall_ms === null ? null : row.wall_ms / 1000;
}

/** One agent's sums as the pass fills them, by the order tasks were first seen. */
class Accumulator {
  readonly blocks: (Float64Array | undefined)[] = [];
  episodes = 0;
  resolved = 0;
  readonly totals: Record<SummedMeasure, number | null>;

  constructor(readonly agent_id: string, priced: boolean) {
    this.totals = { tokens: 0, seconds: 0, cost: priced ? 0 : null };
  }

  add(
    seen: number,
    resolved: boolean,
    tokens: number | null,
    seconds: number | null,
    cost: number | null,
  ): void {
    const block = Math.floor(seen / BLOCK);
    const cells = this.blocks[block] ??= new Float64Array(BLOCK * FIELDS);
    const at = (seen % BLOCK) * FIELDS;
    this.episodes++;
    cells[at]++;
    if (resolved) {
      this.resolved++;
      cells[at + 1]++;
    }
    this.addMeasure("tokens", cells, at, tokens);
    this.addMeasure("seconds", cells, at, seconds);
    this.addMeasure("cost", cells, at, cost);
  }

  private addMeasure(
    measure: SummedMeasure,
    cells: Float64Array,
    at: number,
    value: number | null,
  ): void {
    if (value === null) {
      this.totals[measure] = null;
      return;
    }
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(
        `Cannot sum the ${measure} of agent "${this.agent_id}": a value must be a finite ` +
          `number >= 0, got ${value}`,
      );
    }
    const total = this.totals[measure];
    if (total === null) return;
    this.totals[measure] = total + value;
    cells[at + FIELD_AT[measure]] += value;
  }

  /** The agent's {@link AgentSums}, its units read through the sorted tasks' `seenOf`. */
  sums(seenOf: Int32Array): AgentSums {
    const { blocks } = this;
    const cell = (seen: number) => blocks[Math.floor(seen / BLOCK)];
    const units: number[] = [];
    seenOf.forEach((seen, u) => {
      const cells = cell(seen);
      if (cells !== undefined && cells[(seen % BLOCK) * FIELDS] > 0) units.push(u);
    });
    return {
      agent_id: this.agent_id,
      episodes: this.episodes,
      resolved: this.resolved,
      units: Int32Array.from(units),
      totals: this.totals,
      at(u: number, field: TaskField): number {
        const seen = seenOf[u];
        return cell(seen)?.[(seen % BLOCK) * FIELDS + FIELD_AT[field]] ?? 0;
      },
    };
  }
}
