/**
 * Runs a frozen plan's batch: schedules episodes (see `BatchState`), runs up
 * to `parallel` at once through an {@link EpisodeExecutor}, appends each row
 * to the ledger in completion order (fsynced, hash-chained), and stops as the
 * plan says: at the end, at an SPRT decision per agent, or at a halt
 * (invalid episode under `halt`, attempt cap under `rerun-task`, an image
 * digest that changed since the plan was frozen).
 *
 * The operator stops a batch in two steps: `signal` stops starting episodes
 * (running ones finish and are recorded), `hardSignal` aborts the running
 * ones, whose rows are then never written: an aborted episode says nothing
 * about the agent, so it stays unrun and a resume runs it (issue 9, item 2).
 *
 * Resuming (`resume: true`) replays the existing ledger strictly into the
 * same state, so no episode is lost or duplicated; a batch that already
 * halted is refused, since the plan requires a new run.
 *
 * @module
 */
import type { Episode, Plan } from "../analysis/schema/records.ts";
import type { SprtDecision } from "../analysis/sprt/sprt_decision.ts";
import { BatchState, type HaltReason, type PlannedEpisode } from "./batch_state.ts";
import { type EpisodeDraft, LedgerWriter, type TornTail } from "./ledger_writer.ts";
import { rowBase } from "./episode_row.ts";
import type { ProgressSink, ProgressSnapshot } from "./progress.ts";

/** What the executor receives besides the episode. */
export interface EpisodeContext {
  /** Notes the runner wants in the row (rerun, torn-line re-run); the executor appends its own. */
  notes: string[];
  /** Aborted when the operator insists on stopping now; the episode's row is then discarded. */
  signal: AbortSignal;
  /**
   * Aborted when the operator asks to stop starting episodes: an executor
   * whose episode has not started yet (a cluster job still queued) may then
   * withdraw it by throwing {@link EpisodeWithdrawnError}. Absent: never.
   */
  stop?: AbortSignal;
}

/**
 * Thrown by an executor for an episode it withdrew before it started (the
 * operator stopped the batch while its cluster job was still queued): like
 * an aborted episode, it is not recorded and a resume runs it, since nothing
 * of it ran.
 */
export class EpisodeWithdrawnError extends Error {
  /** @param message why and where it was withdrawn */
  constructor(message: string) {
    super(message);
    this.name = "EpisodeWithdrawnError";
  }
}

/**
 * Runs one episode and returns its row. It should not throw for anything
 * that happens to the episode (a harness fault is an invalid `harness_error`
 * row); if it throws anyway, the runner records exactly that.
 */
export type EpisodeExecutor = (
  episode: PlannedEpisode,
  context: EpisodeContext,
) => Promise<EpisodeDraft>;

/**
 * Checked right before each episode starts (seed 002: "镜像摘要中途变化，就停止当前
 * 计划"): returns null when the environment still matches the plan, else the
 * reason to stop.
 */
export type EnvironmentCheck = (episode: PlannedEpisode) => Promise<string | null>;

/** Options of {@link runBatch}. */
export interface RunBatchOptions {
  /** Run id; the first part of every episode id. */
  runId: string;
  /** The ledger file. */
  ledger: string;
  /** Continue an existing ledger of the same run. */
  resume?: boolean;
  /** Episodes at once; default 1. */
  parallel?: number;
  execute: EpisodeExecutor;
  beforeEpisode?: EnvironmentCheck;
  progress?: ProgressSink;
  /** Stops starting new episodes; running ones finish and are recorded. */
  signal?: AbortSignal;
  /**
   * Stops starting new episodes and aborts the running ones (passed to the
   * executor): an episode still running when it is aborted is not recorded,
   * whatever its executor returns, and stays to run on resume.
   */
  hardSignal?: AbortSignal;
}

/** How a batch ended. */
export interface BatchOutcome {
  /** Rows already in the ledger before this session. */
  replayed: number;
  /** Rows appended by this session, in ledger order. */
  appended: Episode[];
  halted: HaltReason | null;
  /** Per agent: the SPRT decision (`continue` when undecided), or null under a fixed rule. */
  decisions: Record<string, SprtDecision | null>;
  /** True when nothing is left to run (not halted, not interrupted). */
  complete: boolean;
  /** True when `signal` or `hardSignal` stopped the batch early. */
  interrupted: boolean;
  /** Episodes `hardSignal` aborted: not recorded, run again on resume. */
  aborted: string[];
  /** Episodes the executor withdrew before they started (`EpisodeWithdrawnError`): run on resume. */
  withdrawn: string[];
  /** The torn final line moved aside on resume, if any. */
  torn: TornTail | null;
}

/** A resume refused because the batch had already halted. */
export class BatchHaltedError extends Error {
  /** Why the batch halted. */
  readonly reason: HaltReason;

  /** @param reason the halt */
  constructor(reason: HaltReason) {
    super(`Cannot resume: ${describeHalt(reason)}`);
    this.name = "BatchHaltedError";
    this.reason = reason;
  }
}

/**
 * One sentence explaining a halt and what the plan requires next.
 *
 * @param reason the halt
 * @returns the explanation
 */
export function describeHalt(reason: HaltReason): string {
  switch (reason.kind) {
    case "invalid_episode":
      return `the batch halted at invalid episode "${reason.episode_id}" (${reason.invalid_reason}); ` +
        `the plan's invalid policy is "halt" (seed 000): the whole run must be redone for every agent, ` +
        `with a new run id and a new ledger`;
    case "attempt_cap":
      return `the batch halted: episode "${reason.episode_id}" was the task's attempt ${reason.attempts}, ` +
        `the plan's "max_attempts", and it was invalid too; fix the cause and start a new run`;
    case "environment_changed":
      return `the batch halted before episode "${reason.episode_id}": ${reason.message}; ` +
        `the plan no longer describes the environment: freeze a new plan`;
  }
}

/**
 * Runs (or resumes) the batch of `plan` into `options.ledger`.
 *
 * Cost: the executor's time per episode, divided by `parallel`; O(agents ×
 * tasks) scheduling work per episode.
 *
 * @param plan the frozen plan
 * @param options ledger, run id, executor, parallelism, checks, progress
 * @returns how the batch ended
 * @throws {BatchHaltedError} when resuming a batch that had halted
 * @throws {LedgerError} when the existing ledger fails the strict read
 * @throws {Error} when the ledger holds rows of another run or plan, or a row
 *   cannot be written
 */
export async function runBatch(plan: Plan, options: RunBatchOptions): Promise<BatchOutcome> {
  const parallel = options.parallel ?? 1;
  if (!Number.isInteger(parallel) || parallel < 1) {
    throw new Error(`Cannot run the batch: "parallel" must be a positive integer, got ${parallel}`);
  }
  const state = new BatchState(plan, options.runId);
  const opened = await LedgerWriter.open(options.ledger, {
    resume: options.resume,
    warn: options.progress ? (m) => options.progress!.note(m) : undefined,
    replay: (row, line) => state.replay(row, line),
  });
  const { writer, torn } = opened;
  try {
    if (state.halted !== null) throw new BatchHaltedError(state.halted);
    const hard = options.hardSignal ?? new AbortController().signal;
    const appended: Episode[] = [];
    const aborted: string[] = [];
    const withdrawn: string[] = [];
    const stop = options.signal ?? new AbortController().signal;
    const active = new Set<Promise<void>>();
    let fatal: unknown = null;
    const snapshot = (): ProgressSnapshot => ({
      tally: state.tally,
      remaining: state.remaining,
      inFlight: state.inFlight,
      parallel,
    });

    const runOne = async (episode: PlannedEpisode): Promise<void> => {
      const problem = options.beforeEpisode ? await options.beforeEpisode(episode) : null;
      if (problem !== null) {
        state.cancel(episode);
        state.halt({
          kind: "environment_changed",
          episode_id: episode.episode_id,
          message: problem,
        });
        return;
      }
      if (hard.aborted) { // killed while its environment was checked: it never ran
        state.cancel(episode);
        return;
      }
      const notes: string[] = [];
      if (episode.attempt > 1) {
        notes.push(
          `attempt ${episode.attempt}: rerun of invalid attempt ${episode.attempt - 1} ` +
            `under invalid policy "rerun-task" (seed 002)`,
        );
      }
      if (torn !== null && torn.episode_id === episode.episode_id) {
        notes.push(`re-run after its torn ledger line was moved to "${torn.sidecar}"`);
      }
      let draft: EpisodeDraft;
      try {
        draft = await options.execute(episode, { notes, signal: hard, stop });
        checkIdentity(draft, episode, options.runId);
      } catch (error) {
        if (error instanceof EpisodeWithdrawnError && !hard.aborted) {
          state.cancel(episode);
          withdrawn.push(episode.episode_id);
          return;
        }
        draft = harnessErrorRow(plan, episode, error, notes);
      }
      if (hard.aborted) {
        state.cancel(episode);
        aborted.push(episode.episode_id);
        return;
      }
      const row = await writer.append(draft);
      appended.push(row);
      state.record(row);
      options.progress?.episode(row, snapshot());
    };

    const launch = (episode: PlannedEpisode) => {
      const task: Promise<void> = runOne(episode).catch((error) => {
        fatal ??= error;
      }).finally(() => active.delete(task));
      active.add(task);
    };

    for (;;) {
      while (
        fatal === null && !options.signal?.aborted && !hard.aborted && active.size < parallel
      ) {
        const episode = state.next();
        if (episode === null) break;
        launch(episode);
      }
      if (active.size === 0) break;
      await Promise.race(active);
    }
    if (fatal !== null) throw fatal;
    const interrupted = (options.signal?.aborted === true || hard.aborted) &&
      state.halted === null && state.remaining > 0;
    if (state.halted !== null) options.progress?.note(`halted: ${describeHalt(state.halted)}`);
    options.progress?.finish(snapshot());
    return {
      replayed: opened.existing,
      appended,
      halted: state.halted,
      decisions: state.decisions(),
      complete: state.halted === null && !interrupted,
      interrupted,
      aborted,
      withdrawn,
      torn,
    };
  } finally {
    await writer.close();
  }
}

function checkIdentity(draft: EpisodeDraft, episode: PlannedEpisode, runId: string): void {
  const expected = {
    run_id: runId,
    agent_id: episode.agent_id,
    task_id: episode.task_id,
    attempt: episode.attempt,
    episode_id: episode.episode_id,
  };
  for (const [field, value] of Object.entries(expected)) {
    const actual = (draft as Record<string, unknown>)[field];
    if (actual !== value) {
      throw new Error(
        `The executor returned a row for the wrong episode: field "${field}" is ${
          JSON.stringify(actual)
        }, expected ${JSON.stringify(value)}`,
      );
    }
  }
}

/**
 * The row recorded when the executor itself failed: invalid, `harness_error`,
 * stop reason `error`, no tokens or calls known (the relay's records, if
 * any, did not reach the runner), and the error in `notes`.
 */
function harnessErrorRow(
  plan: Plan,
  episode: PlannedEpisode,
  error: unknown,
  notes: string[],
): EpisodeDraft {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ...rowBase(episode, { plan, caps: plan.caps, environment: null }),
    status: "invalid",
    resolved: null,
    invalid_reason: "harness_error",
    stop_reason: "error",
    prompt_tokens: 0,
    completion_tokens: 0,
    tool_calls: 0,
    model_calls: null,
    wall_ms: 0,
    notes: [...notes, `harness error: ${message}`].join("; "),
  };
}
