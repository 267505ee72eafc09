/**
 * The `slurm` executor (issue 24): episode slots go out as Slurm job arrays,
 * each array task running one episode on its node with the node's own
 * container engine, relay and sandbox, exactly as `run` does locally
 * (`ledgerbench slot`, run_slot.ts), and writing the row back under the
 * run's shared directory, which this process reads and hands to the batch,
 * the ledger's one writer.
 *
 * Slots go out in waves: the slots the batch starts together (up to
 * `--parallel`) are one job array, and each slot the batch starts later, as
 * rows come back, is an array of its own; so the batch's scheduling (SPRT,
 * reruns, halts) is the local one, and `--parallel` is the number of slots
 * queued or running at once. Every array is submitted with `--no-requeue`:
 * Slurm never runs a slot twice behind the ledger's back.
 *
 * Layout of the shared directory, per run and per runner process:
 * `<dir>/<run id>/<host>-<pid>-<start>/jobs` (the job ids submitted) and
 * `wave-<n>/slot-<i>.json` (the request), `slot-<i>.result.json` (the row),
 * `slot-<i>.log` (the array task's output).
 *
 * How a slot ends:
 *
 * | what happened | row |
 * |---|---|
 * | the result came back | the node's row, noting job and node |
 * | the node could not run the episode (its images or suite differ) | invalid `harness_error`, the node's reason |
 * | the task ended `NODE_FAIL`, `PREEMPTED`, `BOOT_FAIL`, `CANCELLED`, `FAILED`, `OUT_OF_MEMORY`, `DEADLINE`, or `COMPLETED` without a result | invalid `harness_error` naming the state |
 * | the task ended `TIMEOUT` without a result (the episode's own wall cap would have given a row first) | invalid `harness_error` naming the time limit |
 * | Slurm no longer knows the job and no result came | invalid `harness_error` (the slot vanished) |
 * | the operator stopped the batch while the task was still queued | cancelled, not recorded (resume runs it) |
 * | the operator killed the running episodes | cancelled, not recorded |
 *
 * | the result does not carry the run's authentication code (`slot_result_file.ts`) | invalid `harness_error` naming the task |
 *
 * None of them is ever the agent's failure. A result that arrives after its
 * slot was settled is never read.
 *
 * @module
 */
import type { PlannedEpisode } from "../batch_state.ts";
import type { EpisodeDraft } from "../ledger_writer.ts";
import { type EpisodeContext, type EpisodeExecutor, EpisodeWithdrawnError } from "../run_batch.ts";
import type { SlotRequest, SlotResult } from "../../analysis/schema/executor_slot.ts";
import {
  newSlotKey,
  readSlotResult,
  SLOT_KEY_VARIABLE,
  slotResultPath,
} from "./slot_result_file.ts";
import { currentRunner, runnerLabel } from "../runner_identity.ts";
import { writeFileAtomically } from "./write_file_atomically.ts";
import { ACTIVE_STATES, type SlurmClient, type SlurmSubmitOptions } from "./slurm_client.ts";
import { slotJobScript, slurmJobName } from "./slurm_job_script.ts";
import { cancelUnrecorded, removeDeadSessions } from "./slurm_sessions.ts";
import { endedWithoutRow, waitUntilEnded } from "./slurm_task_end.ts";

/** Options of {@link createSlurmExecutor}. */
export interface SlurmExecutorOptions {
  runId: string;
  /** The run's shared directory (seen at the same path by every node). */
  dir: string;
  /** The parts of each slot's request the run fixes (all but episode and notes). */
  request: Omit<SlotRequest, "episode" | "notes">;
  submit: SlurmSubmitOptions;
  client: SlurmClient;
  /** The command an array task runs, before the request's path (`deno run -A cli/main.ts slot`). */
  workerCommand: readonly string[];
  /** How often results and states are read; default 1000 ms. */
  pollMs?: number;
  /** Where the executor reports what it did besides rows (cancelled orphans). */
  note?: (message: string) => void;
}

/** A running Slurm executor: the batch's executor, and `close` to cancel what is left. */
export interface SlurmExecutor {
  execute: EpisodeExecutor;
  /** Cancels every job with a slot still out and stops polling (idempotent). */
  close(): Promise<void>;
}

/** Polls a task may be missing from a job Slurm still knows before it counts as vanished. */
const MISSING_POLLS = 3;

interface Slot {
  index: number;
  episode: PlannedEpisode;
  request: string;
  result: string;
  log: string;
  /** Notes the runner wants in the row. */
  notes: string[];
  settled: boolean;
  stopRequested: boolean;
  missing: number;
  resolve(draft: EpisodeDraft): void;
  reject(error: Error): void;
}

interface Wave {
  jobId: string | null;
  slots: Slot[];
}

/**
 * Starts the executor: first cancels the jobs and removes the slot
 * directories that runners of this run which are gone left behind (only
 * theirs; the caller holds the ledger's lock), then waits for slots.
 *
 * @param options run, shared directory, request, sbatch options, client
 * @returns the executor and its `close`
 * @throws {Error} when the shared directory cannot be made
 */
export async function createSlurmExecutor(options: SlurmExecutorOptions): Promise<SlurmExecutor> {
  const runDir = `${options.dir}/${encodeURIComponent(options.runId)}`;
  await Deno.mkdir(runDir, { recursive: true, mode: 0o700 });
  await removeDeadSessions(runDir, options);
  const self = currentRunner();
  const session = `${runDir}/${self.host}-${self.pid}-${self.start}`;
  await Deno.mkdir(session, { recursive: true, mode: 0o700 });
  const waves: Wave[] = [];
  /** The tasks this executor cancelled: `close` waits until none of them is active. */
  const cancelled: { jobId: string; index: number }[] = [];
  let queued: Slot[] = [];
  let flushing: ReturnType<typeof setTimeout> | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let polling = false;
  let closed = false;
  // This run's key for its slots' results (slot_result_file.ts): in the jobs' environment only.
  const key = newSlotKey();

  const outstanding = (wave: Wave) => wave.slots.filter((slot) => !slot.settled);
  const settle = (slot: Slot, outcome: { draft: EpisodeDraft } | { error: Error }) => {
    if (slot.settled) return;
    slot.settled = true;
    if ("draft" in outcome) slot.resolve(outcome.draft);
    else slot.reject(outcome.error);
    if (waves.every((wave) => outstanding(wave).length === 0) && queued.length === 0) stopPolling();
  };
  const stopPolling = () => {
    if (timer !== null) clearInterval(timer);
    timer = null;
  };

  const flush = async () => {
    flushing = null;
    const slots = queued;
    queued = [];
    if (slots.length === 0) return;
    const number = waves.length;
    const wave: Wave = { jobId: null, slots };
    waves.push(wave);
    const dir = `${session}/wave-${number}`;
    try {
      await Deno.mkdir(dir, { mode: 0o700 });
      slots.forEach((slot, index) => {
        slot.index = index;
        slot.request = `${dir}/slot-${index}.json`;
        slot.result = slotResultPath(slot.request);
        slot.log = `${dir}/slot-${index}.log`;
      });
      for (const slot of slots) {
        const request: SlotRequest = {
          ...options.request,
          episode: { ...slot.episode },
          notes: slot.notes,
        };
        await writeFileAtomically(slot.request, JSON.stringify(request, null, 2) + "\n");
      }
      const script = slotJobScript(options.workerCommand, `${dir}/slot-`, options.runId, number);
      wave.jobId = await options.client.submitArray(script, {
        size: slots.length,
        jobName: slurmJobName(options.runId),
        comment: runnerLabel(self),
        output: `${dir}/slot-%a.log`,
        cwd: options.request.cwd,
        submit: options.submit,
        env: { [SLOT_KEY_VARIABLE]: key },
      });
      await Deno.writeTextFile(`${session}/jobs`, `${wave.jobId}\n`, { append: true });
    } catch (error) {
      // An sbatch killed at its deadline may have submitted the array all the same.
      await cancelUnrecorded(options, session, runnerLabel(self));
      for (const slot of slots) {
        settle(slot, {
          error: new Error(`Cannot submit the slot to Slurm: ${(error as Error).message}`),
        });
      }
      return;
    }
    for (const slot of slots) {
      if (slot.stopRequested) void withdraw(wave, slot, "the batch was stopped");
    }
  };

  const withdraw = async (wave: Wave, slot: Slot, why: string) => {
    if (slot.settled || wave.jobId === null) return;
    cancelled.push({ jobId: wave.jobId, index: slot.index });
    await options.client.cancel(wave.jobId, [slot.index]).catch(() => {});
    settle(slot, {
      error: new EpisodeWithdrawnError(
        `Slurm task ${wave.jobId}_${slot.index} cancelled: ${why}`,
      ),
    });
  };

  const readResult = async (wave: Wave, slot: Slot): Promise<boolean> => {
    try {
      await Deno.stat(slot.result);
    } catch {
      return false;
    }
    let result: SlotResult;
    try {
      result = await readSlotResult(slot.request, key);
    } catch (error) {
      settle(slot, {
        error: new Error(
          `the result of Slurm task ${wave.jobId}_${slot.index} is refused: ${
            (error as Error).message
          }`,
        ),
      });
      return true;
    }
    const where = `Slurm job ${wave.jobId}_${slot.index} on node "${result.node}"`;
    if (!result.ok) {
      settle(slot, { error: new Error(`${where} could not run the episode: ${result.error}`) });
      return true;
    }
    const draft = result.draft as EpisodeDraft;
    const notes = [draft.notes ?? "", `ran as ${where}`].filter((part) => part !== "");
    settle(slot, { draft: { ...draft, notes: notes.join("; ") } });
    return true;
  };

  const pollWave = async (wave: Wave) => {
    if (wave.jobId === null) return;
    for (const slot of outstanding(wave)) await readResult(wave, slot);
    if (outstanding(wave).length === 0) return;
    const states = await options.client.taskStates(wave.jobId);
    for (const slot of outstanding(wave)) {
      const task = states.get(slot.index);
      if (task !== undefined && ACTIVE_STATES.has(task.state)) {
        slot.missing = 0;
        if (slot.stopRequested && task.state === "PENDING") {
          await withdraw(wave, slot, "the batch was stopped while it was still queued");
        }
        continue;
      }
      if (task === undefined && states.size > 0 && ++slot.missing < MISSING_POLLS) continue;
      // Ended (or unknown): the result may have landed since it was last looked for.
      if (await readResult(wave, slot)) continue;
      settle(slot, {
        error: new Error(
          endedWithoutRow({ ...slot, jobId: wave.jobId }, task, options.submit.timeLimitMinutes),
        ),
      });
    }
  };

  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      for (const wave of waves) {
        if (outstanding(wave).length > 0) await pollWave(wave);
      }
    } catch (error) {
      options.note?.(
        `warning: cannot read the state of the Slurm jobs: ${(error as Error).message}`,
      );
    } finally {
      polling = false;
    }
  };

  const execute: EpisodeExecutor = (episode, context: EpisodeContext) => {
    if (closed) return Promise.reject(new Error("The Slurm executor is closed"));
    return new Promise<EpisodeDraft>((resolve, reject) => {
      const slot: Slot = {
        index: -1,
        episode,
        request: "",
        result: "",
        log: "",
        settled: false,
        stopRequested: false,
        missing: 0,
        notes: context.notes,
        resolve,
        reject,
      };
      queued.push(slot);
      flushing ??= setTimeout(() => void flush(), 0);
      timer ??= setInterval(() => void poll(), options.pollMs ?? 1000);
      const waveOf = () => waves.find((wave) => wave.slots.includes(slot));
      context.stop?.addEventListener("abort", () => {
        slot.stopRequested = true;
      }, { once: true });
      context.signal.addEventListener("abort", () => {
        const wave = waveOf();
        if (wave !== undefined) {
          void withdraw(wave, slot, "the operator killed the running episodes");
        }
      }, { once: true });
    });
  };

  return {
    execute,
    close: async () => {
      if (closed) return;
      closed = true;
      if (flushing !== null) clearTimeout(flushing);
      stopPolling();
      for (const wave of waves) {
        const left = outstanding(wave);
        if (wave.jobId === null || left.length === 0) continue;
        for (const slot of left) cancelled.push({ jobId: wave.jobId, index: slot.index });
        await options.client.cancel(wave.jobId, left.map((slot) => slot.index)).catch(() => {});
        for (const slot of left) {
          settle(slot, {
            error: new EpisodeWithdrawnError(`Slurm task ${wave.jobId}_${slot.index} cancelled`),
          });
        }
      }
      await waitUntilEnded(cancelled, options);
    },
  };
}
