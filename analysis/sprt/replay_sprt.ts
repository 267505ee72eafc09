/**
 * Replay of seed 002's SPRT over the rows of a ledger.
 *
 * @module
 */
import type { Episode, SprtParams } from "../schema/records.ts";
import { CONTINUE, DECISION_NAMES, decisionCode, llrOf, sprtConstants } from "./_decide.ts";
import { parseSprtParams, type SprtParamsInput } from "./sprt_params.ts";
import { type SprtBoundaries, sprtBoundaries } from "./sprt_boundaries.ts";
import type { SprtDecision } from "./sprt_decision.ts";

/** The ledger fields the replay reads; `Episode` rows fit. */
export type SprtRow = Pick<
  Episode,
  "agent_id" | "task_id" | "episode_id" | "attempt" | "status" | "resolved"
>;

/** A valid pass, a valid fail, or an invalid attempt (counted, never scored). */
export type SprtOutcome = "pass" | "fail" | "invalid";

/** The state after one walked row. */
export interface SprtStep {
  /** Valid results so far (invalid attempts do not advance n). */
  n: number;
  /** Task of the row. */
  task_id: string;
  /** Episode of the row. */
  episode_id: string;
  /** Pass, fail or invalid. */
  outcome: SprtOutcome;
  /** Valid passes so far. */
  passes: number;
  /** Valid fails so far. */
  fails: number;
  /** LLR of the counts so far. */
  llr: number;
  /** Decision after this row. */
  verdict: SprtDecision;
}

/** A row the replay did not use, listed rather than dropped. */
export interface SprtUnusedRow {
  /** Task of the row. */
  task_id: string;
  /** Episode of the row. */
  episode_id: string;
  /** Attempt number of the row. */
  attempt: number;
  /** Pass, fail or invalid. */
  outcome: SprtOutcome;
}

/** Result of {@linkcode replaySprt}. */
export interface SprtReplay {
  /** The agent replayed. */
  agent_id: string;
  /** The complete parameters used. */
  params: SprtParams;
  /** Boundaries and LLR steps of the parameters. */
  boundaries: SprtBoundaries;
  /** `"planned"` when a task order was given, `"file"` otherwise. */
  order: "planned" | "file";
  /** The final decision, or `"continue"` when the ledger ends first. */
  verdict: SprtDecision;
  /** Whether a final decision was reached. */
  decided: boolean;
  /** Valid results used. */
  n: number;
  /** Valid passes used. */
  passes: number;
  /** Valid fails used. */
  fails: number;
  /** LLR of the counts used. */
  llr: number;
  /** Rows walked up to and including the deciding one (valid and invalid). */
  attempts: number;
  /** Invalid attempts among the walked rows. */
  invalid_count: number;
  /** invalid_count / attempts, null when no row was walked. */
  invalid_rate: number | null;
  /** One record per walked row, in walking order. */
  steps: SprtStep[];
  /** Rows of the agent after the decision: unused, listed. */
  after_decision: SprtUnusedRow[];
  /** Rows of the agent whose task is not in the planned order: unused, listed. */
  unplanned: SprtUnusedRow[];
  /** Planned tasks before the last walked row that have no valid result. */
  skipped_tasks: string[];
  /** Tasks with more than one valid result among the walked rows. */
  repeated_tasks: string[];
  /** Human-readable remarks on the replay (sentence case, no final period). */
  notes: string[];
}

/** Options of {@linkcode replaySprt}. */
export interface ReplaySprtOptions {
  /** The agent whose rows are replayed. */
  agentId: string;
  /** SPRT parameters; absent fields (or no `params`) take seed 002's defaults. */
  params?: SprtParamsInput;
  /** The plan's task order (task ids); without it the file order is used. */
  order?: readonly string[];
}

const outcomeOf = (row: SprtRow): SprtOutcome =>
  row.status === "invalid" ? "invalid" : row.resolved ? "pass" : "fail";

/** "1 row", "2 rows". */
const count = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;

const unused = (row: SprtRow): SprtUnusedRow => ({
  task_id: row.task_id,
  episode_id: row.episode_id,
  attempt: row.attempt,
  outcome: outcomeOf(row),
});

/**
 * Replays seed 002's pre-registered sequential rule over one agent's ledger
 * rows and reports every step, the decision and every row it did not use.
 *
 * Rule (seed 002): walk the agent's rows in the pre-registered order (the
 * plan's task order, rows sorted by task position then attempt, ties in file
 * order; without an order, file order). An invalid attempt (status
 * `invalid`: rate limit, disconnect, unappliable patch...) counts neither as
 * pass nor fail; it is counted and reported as the invalid rate. After each
 * valid result apply `decide` (LLR = passes·ln(p_adopt/p_drop) +
 * fails·ln((1 − p_adopt)/(1 − p_drop)) against ln((1 − β)/α) and
 * ln(β/(1 − α)), then the cap) and stop at the first decision other than
 * `continue`. Rows after the decision are listed in `after_decision`; rows
 * of tasks absent from the order in `unplanned`; planned tasks skipped before
 * the last walked row in `skipped_tasks`; tasks with several valid results
 * in `repeated_tasks` (each counted, and flagged in `notes`). A ledger that
 * ends undecided gives the verdict `continue` with a note.
 *
 * Cost: O(r log r) for r rows of the agent.
 *
 * @param rows ledger rows (errata already applied); other agents' rows are ignored
 * @param options `agentId` (required), the SPRT `params` (absent fields take seed 002's
 *   defaults) and the planned `order`
 * @returns the replay, keys in a fixed order, JSON-serialisable
 * @throws {RangeError} on invalid parameters or a task listed twice in `order`
 * @example
 * ```ts
 * import { Episode } from "../schema/records.ts";
 * import { replaySprt } from "./replay_sprt.ts";
 * const rows = [1, 2, 3, 4, 5, 6].map((i) =>
 *   Episode.parse({
 *     run_id: "r", agent_id: "a", task_id: `t${i}`, seed: 1, resolved: true,
 *     prompt_tokens: 0, completion_tokens: 0, tool_calls: 0, wall_ms: 0, price_table_id: "p",
 *   })
 * );
 * const replay = replaySprt(rows, { agentId: "a" });
 * if (replay.verdict !== "adopt" || replay.n !== 6) throw new Error("6 passes adopt");
 * ```
 */
export function replaySprt(rows: Iterable<SprtRow>, options: ReplaySprtOptions): SprtReplay {
  const p = parseSprtParams(options.params);
  const c = sprtConstants(p);
  const agentId = options.agentId;
  const position = new Map<string, number>();
  if (options.order !== undefined) {
    options.order.forEach((task, i) => {
      if (position.has(task)) {
        throw new RangeError(`Cannot replay the SPRT: task "${task}" appears twice in the order`);
      }
      position.set(task, i);
    });
  }
  const planned = options.order !== undefined;
  const mine = Iterator.from(rows).filter((row) => row.agent_id === agentId).toArray();
  const unplanned: SprtUnusedRow[] = [];
  let ordered: SprtRow[];
  if (planned) {
    const keyed: { row: SprtRow; pos: number; index: number }[] = [];
    mine.forEach((row, index) => {
      const pos = position.get(row.task_id);
      if (pos === undefined) unplanned.push(unused(row));
      else keyed.push({ row, pos, index });
    });
    keyed.sort((a, b) => a.pos - b.pos || a.row.attempt - b.row.attempt || a.index - b.index);
    ordered = keyed.map((k) => k.row);
  } else {
    ordered = mine;
  }

  const steps: SprtStep[] = [];
  const validPerTask = new Map<string, number>();
  let passes = 0, fails = 0, invalid = 0, code = CONTINUE, walked = 0;
  for (const row of ordered) {
    if (code !== CONTINUE) break;
    walked++;
    const outcome = outcomeOf(row);
    if (outcome === "invalid") invalid++;
    else {
      if (outcome === "pass") passes++;
      else fails++;
      validPerTask.set(row.task_id, (validPerTask.get(row.task_id) ?? 0) + 1);
      code = decisionCode(c, { passes, fails });
    }
    steps.push({
      n: passes + fails,
      task_id: row.task_id,
      episode_id: row.episode_id,
      outcome,
      passes,
      fails,
      llr: llrOf(c, { passes, fails }),
      verdict: DECISION_NAMES[code],
    });
  }
  const after = ordered.slice(walked).map(unused);
  const n = passes + fails;
  const verdict = DECISION_NAMES[code];

  const skipped: string[] = [];
  if (planned && walked > 0) {
    const lastPos = position.get(ordered[walked - 1].task_id) as number;
    for (const task of (options.order as readonly string[]).slice(0, lastPos)) {
      if (!validPerTask.has(task)) skipped.push(task);
    }
  }
  const repeated = [...validPerTask].filter(([, k]) => k > 1).map(([task]) => task);

  const notes: string[] = [];
  if (mine.length === 0) notes.push(`No rows for agent "${agentId}"`);
  if (code === CONTINUE && mine.length > 0) {
    const results = count(n, "valid result", "valid results");
    const invalids = count(invalid, "invalid attempt", "invalid attempts");
    notes.push(
      `The ledger ends after ${results} (${invalids}) without a decision: ` +
        `the verdict stays "continue" (n_cap ${p.n_cap})`,
    );
  }
  if (after.length > 0) {
    const what = count(after.length, "row", "rows");
    notes.push(`${what} after the decision at n = ${n} listed under "after_decision" and not used`);
  }
  if (unplanned.length > 0) {
    const what = count(unplanned.length, "row names a task", "rows name tasks");
    notes.push(
      `${what} absent from the planned order: listed under "unplanned" and not used`,
    );
  }
  if (skipped.length > 0) {
    const what = count(skipped.length, "planned task", "planned tasks");
    notes.push(
      `${what} before the last walked row without a valid result (listed under ` +
        `"skipped_tasks"): the pre-registered order was not followed`,
    );
  }
  for (const task of repeated) {
    notes.push(
      `Task "${task}" has ${validPerTask.get(task)} valid results: each counted as a separate ` +
        `result, while a pre-registered pool gives one valid result per task`,
    );
  }

  return {
    agent_id: agentId,
    params: p,
    boundaries: sprtBoundaries(p),
    order: planned ? "planned" : "file",
    verdict,
    decided: code !== CONTINUE,
    n,
    passes,
    fails,
    llr: llrOf(c, { passes, fails }),
    attempts: walked,
    invalid_count: invalid,
    invalid_rate: walked === 0 ? null : invalid / walked,
    steps,
    after_decision: after,
    unplanned,
    skipped_tasks: skipped,
    repeated_tasks: repeated,
    notes,
  };
}
