/**
 * The scheduling state of one batch, rebuilt from ledger rows alone, so that
 * a fresh run and a resumed one follow the same rules:
 *
 * - **Order.** Each agent takes the plan's tasks in their frozen order (seed
 *   002: "只打乱一次顺序"); across agents the scheduler is task-major (the
 *   lowest pending position first, ties in plan agent order), so agents see
 *   the same drift of time and load.
 * - **Episode ids** are deterministic: `<run_id>/<agent_id>/<task_id>/<attempt>`
 *   (the schema's default), whatever order episodes complete in.
 * - **Invalid policy.** `halt` (seed 000): the first invalid row halts the
 *   batch; no new episode starts, and the whole run must be redone for every
 *   agent. `rerun-task` (seed 002): the same task is attempted again before
 *   that agent's later tasks, as attempt k + 1; a task whose `max_attempts`-th
 *   attempt is invalid too halts the batch. No other retry exists (seed 000:
 *   "没有 best-of、子集或自动重试").
 * - **SPRT** (seed 002): invalid rows count neither as pass nor fail; after
 *   each scored row the agent's counts in plan order go through
 *   `sprtDecision`, and an agent stops at its first final decision. An agent
 *   under SPRT has at most one episode in flight, so the decision point is
 *   exactly the sequential rule's (no episode runs past it).
 *
 * @module
 */
import { episodeTokens } from "../analysis/classify_episode.ts";
import type { Episode, InvalidReason, Plan } from "../analysis/schema/records.ts";
import { type SprtDecision, sprtDecision } from "../analysis/sprt/sprt_decision.ts";

/** One episode the scheduler wants run. */
export interface PlannedEpisode {
  run_id: string;
  agent_id: string;
  task_id: string;
  lane: string;
  /** 0-based position of the task in the plan's frozen order. */
  position: number;
  /** 1-based attempt number of this task for this agent. */
  attempt: number;
  episode_id: string;
}

/** Why a batch stopped before its plan was done. */
export type HaltReason =
  | { kind: "invalid_episode"; episode_id: string; invalid_reason: InvalidReason }
  | { kind: "attempt_cap"; episode_id: string; attempts: number }
  | { kind: "environment_changed"; episode_id: string; message: string };

/** Running tallies of the rows recorded so far. */
export interface BatchTally {
  rows: number;
  passes: number;
  fails: number;
  invalid: number;
  tokens: number;
}

/** What names an episode: see {@link episodeId}. */
export interface EpisodeKey {
  /** The run. */
  runId: string;
  /** The agent. */
  agentId: string;
  /** The task. */
  taskId: string;
  /** The attempt, from 1. */
  attempt: number;
}

/**
 * The deterministic episode id.
 *
 * @param key the `runId`, `agentId`, `taskId` and `attempt` (from 1)
 * @returns `<run_id>/<agent_id>/<task_id>/<attempt>`
 */
export function episodeId(key: EpisodeKey): string {
  return `${key.runId}/${key.agentId}/${key.taskId}/${key.attempt}`;
}

interface AgentTrack {
  agent_id: string;
  /** Attempts started per position (recorded or in flight). */
  attempts: number[];
  /** Status of the last recorded attempt per position. */
  last: ("scored" | "invalid" | null)[];
  /** Scored verdict per position. */
  resolved: (boolean | null)[];
  inFlight: Set<number>;
  /** Positions before this one are all scored. */
  firstOpen: number;
  decision: SprtDecision | null;
}

/** The state of one batch. */
export class BatchState {
  readonly plan: Plan;
  readonly runId: string;
  #tracks: AgentTrack[];
  #byAgent = new Map<string, AgentTrack>();
  #positions = new Map<string, number>();
  #halted: HaltReason | null = null;
  #tally: BatchTally = { rows: 0, passes: 0, fails: 0, invalid: 0, tokens: 0 };

  /**
   * @param plan the frozen plan
   * @param runId the run's id (the first part of every episode id)
   * @throws {Error} when the plan lists no agent or repeats a task or agent
   */
  constructor(plan: Plan, runId: string) {
    this.plan = plan;
    this.runId = runId;
    if (plan.agents.length === 0) {
      throw new Error("Cannot schedule a batch: the plan lists no agent");
    }
    plan.tasks.forEach((task, i) => {
      if (this.#positions.has(task.task_id)) {
        throw new Error(
          `Cannot schedule a batch: task "${task.task_id}" appears twice in the plan`,
        );
      }
      this.#positions.set(task.task_id, i);
    });
    const n = plan.tasks.length;
    this.#tracks = plan.agents.map((agent) => ({
      agent_id: agent.agent_id,
      attempts: new Array(n).fill(0),
      last: new Array(n).fill(null),
      resolved: new Array(n).fill(null),
      inFlight: new Set<number>(),
      firstOpen: 0,
      decision: null,
    }));
    for (const track of this.#tracks) {
      if (this.#byAgent.has(track.agent_id)) {
        throw new Error(
          `Cannot schedule a batch: agent "${track.agent_id}" appears twice in the plan`,
        );
      }
      this.#byAgent.set(track.agent_id, track);
    }
  }

  /** Why the batch halted, or null while it may continue. */
  get halted(): HaltReason | null {
    return this.#halted;
  }

  /** Tallies of the recorded rows (replayed ones included). */
  get tally(): Readonly<BatchTally> {
    return this.#tally;
  }

  /** Number of episodes in flight. */
  get inFlight(): number {
    return this.#tracks.reduce((sum, track) => sum + track.inFlight.size, 0);
  }

  /**
   * Episodes still to run if nothing else goes wrong: per agent without a
   * final decision, the positions not yet scored (in-flight ones included).
   * Zero once halted.
   */
  get remaining(): number {
    if (this.#halted !== null) return this.inFlight;
    let count = 0;
    for (const track of this.#tracks) {
      if (this.#final(track)) {
        count += track.inFlight.size;
        continue;
      }
      for (let p = track.firstOpen; p < track.last.length; p++) {
        if (track.last[p] !== "scored") count++;
      }
    }
    return count;
  }

  /** Each agent's SPRT decision (`continue` while undecided); null under a fixed rule. */
  decisions(): Record<string, SprtDecision | null> {
    const out: Record<string, SprtDecision | null> = {};
    for (const track of this.#tracks) {
      out[track.agent_id] = this.plan.stopping.kind === "sprt"
        ? track.decision ?? "continue"
        : null;
    }
    return out;
  }

  /**
   * Picks the next episode to start and marks it in flight, or returns null
   * when nothing may start now (halted, everything done or in flight, or an
   * SPRT agent waiting for its running episode). O(agents × tasks) worst case.
   */
  next(): PlannedEpisode | null {
    if (this.#halted !== null) return null;
    let best: { track: AgentTrack; position: number } | null = null;
    for (const track of this.#tracks) {
      if (this.#final(track)) continue;
      if (this.plan.stopping.kind === "sprt" && track.inFlight.size > 0) continue;
      const position = this.#firstNeeded(track);
      if (position === null) continue;
      if (best === null || position < best.position) best = { track, position };
    }
    if (best === null) return null;
    const { track, position } = best;
    track.attempts[position] += 1;
    track.inFlight.add(position);
    return this.#planned(track, position, track.attempts[position]);
  }

  /**
   * Records the row of an episode started with {@link next}.
   *
   * @param row the row as written to the ledger
   * @throws {Error} when the row does not belong to an episode in flight
   */
  record(row: Episode): void {
    const { track, position } = this.#locate(row);
    if (!track.inFlight.has(position) || track.attempts[position] !== row.attempt) {
      throw new Error(`Cannot record episode "${row.episode_id}": it is not in flight`);
    }
    track.inFlight.delete(position);
    this.#apply(track, position, row);
  }

  /**
   * Gives back an episode started with {@link next} that did not run (its
   * environment check failed before the container started).
   */
  cancel(episode: PlannedEpisode): void {
    const track = this.#byAgent.get(episode.agent_id)!;
    if (track.inFlight.delete(episode.position)) track.attempts[episode.position] -= 1;
  }

  /** Halts the batch (keeps the first reason). */
  halt(reason: HaltReason): void {
    if (this.#halted === null) this.#halted = reason;
  }

  /**
   * Replays a row read from the ledger (resume), checking that it is the row
   * this schedule would have produced: same run, a planned agent and task,
   * the deterministic episode id, attempts in sequence (attempt k + 1 only
   * after an invalid attempt k), nothing after an SPRT decision.
   *
   * @param row a ledger row, in ledger order
   * @param line its 1-based line, for messages
   * @throws {Error} naming the line and field when the row does not fit the plan
   */
  replay(row: Episode, line: number): void {
    const where = `ledger line ${line}`;
    if (row.run_id !== this.runId) {
      throw new Error(
        `Cannot resume: ${where}: field "run_id" is "${row.run_id}", this run is "${this.runId}"`,
      );
    }
    const { track, position } = this.#locate(row, where);
    const expected = track.attempts[position] + 1;
    if (row.attempt !== expected) {
      throw new Error(
        `Cannot resume: ${where}: field "attempt" is ${row.attempt}, expected ${expected}`,
      );
    }
    if (expected > 1 && track.last[position] !== "invalid") {
      throw new Error(`Cannot resume: ${where}: attempt ${row.attempt} follows a scored attempt`);
    }
    if (this.#final(track)) {
      throw new Error(
        `Cannot resume: ${where}: agent "${track.agent_id}" had already reached its SPRT decision`,
      );
    }
    const id = episodeId({
      runId: this.runId,
      agentId: row.agent_id,
      taskId: row.task_id,
      attempt: row.attempt,
    });
    if (row.episode_id !== id) {
      throw new Error(
        `Cannot resume: ${where}: field "episode_id" is "${row.episode_id}", expected "${id}"`,
      );
    }
    if (episodeTokens(row) === null) {
      throw new Error(
        `Cannot resume: ${where}: field "prompt_tokens" or "completion_tokens" is null (not ` +
          "recorded), which the runner never writes: this row was imported, not run",
      );
    }
    track.attempts[position] = expected;
    this.#apply(track, position, row);
  }

  #locate(
    row: Episode,
    where = `episode "${row.episode_id}"`,
  ): { track: AgentTrack; position: number } {
    const track = this.#byAgent.get(row.agent_id);
    if (track === undefined) {
      throw new Error(
        `Cannot resume: ${where}: field "agent_id" names "${row.agent_id}", not in the plan`,
      );
    }
    const position = this.#positions.get(row.task_id);
    if (position === undefined) {
      throw new Error(
        `Cannot resume: ${where}: field "task_id" names "${row.task_id}", not in the plan`,
      );
    }
    return { track, position };
  }

  #apply(track: AgentTrack, position: number, row: Episode): void {
    this.#tally.rows += 1;
    // the runner records every count; a resumed row without one was refused above
    this.#tally.tokens += episodeTokens(row) ?? 0;
    if (row.status === "invalid") {
      this.#tally.invalid += 1;
      track.last[position] = "invalid";
      if (this.plan.invalid_policy === "halt") {
        this.halt({
          kind: "invalid_episode",
          episode_id: row.episode_id,
          invalid_reason: row.invalid_reason!,
        });
      } else if (row.attempt >= this.plan.max_attempts) {
        this.halt({ kind: "attempt_cap", episode_id: row.episode_id, attempts: row.attempt });
      }
      return;
    }
    if (row.resolved) this.#tally.passes += 1;
    else this.#tally.fails += 1;
    track.last[position] = "scored";
    track.resolved[position] = row.resolved;
    while (track.firstOpen < track.last.length && track.last[track.firstOpen] === "scored") {
      track.firstOpen += 1;
    }
    if (this.plan.stopping.kind === "sprt") this.#decide(track);
  }

  #decide(track: AgentTrack): void {
    if (this.plan.stopping.kind !== "sprt") return;
    let passes = 0;
    let fails = 0;
    for (let p = 0; p < track.firstOpen; p++) {
      if (track.resolved[p]) passes++;
      else fails++;
      const decision = sprtDecision(this.plan.stopping.params, { passes, fails });
      if (decision !== "continue") {
        track.decision = decision;
        return;
      }
    }
    track.decision = "continue";
  }

  #final(track: AgentTrack): boolean {
    return track.decision !== null && track.decision !== "continue";
  }

  #firstNeeded(track: AgentTrack): number | null {
    for (let p = track.firstOpen; p < track.last.length; p++) {
      if (track.inFlight.has(p)) continue;
      if (track.attempts[p] === 0 || track.last[p] === "invalid") return p;
    }
    return null;
  }

  #planned(track: AgentTrack, position: number, attempt: number): PlannedEpisode {
    const task = this.plan.tasks[position];
    return {
      run_id: this.runId,
      agent_id: track.agent_id,
      task_id: task.task_id,
      lane: task.lane,
      position,
      attempt,
      episode_id: episodeId({
        runId: this.runId,
        agentId: track.agent_id,
        taskId: task.task_id,
        attempt,
      }),
    };
  }
}
