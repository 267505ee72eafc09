/**
 * How a Slurm slot that did not bring its row back ends (issue 24): the
 * harness fault naming Slurm's state, and the wait after cancelling tasks
 * until none of them runs, so that a stopped run leaves no job behind.
 *
 * @module
 */
import { ACTIVE_STATES, type ArrayTaskState, type SlurmClient } from "./slurm_client.ts";

/** How long `close` waits for cancelled tasks to end (Slurm's default KillWait is 30 s). */
const CANCEL_WAIT_MS = 60_000;

/**
 * Waits until none of the `tasks` cancelled is still active (a cancelled
 * task ends once its worker has removed its containers on SIGTERM), so that
 * a stopped run leaves no job behind; gives up after
 * {@link CANCEL_WAIT_MS}, saying so.
 *
 * @param tasks the tasks cancelled
 * @param options the client, the poll interval, where to report
 */
export async function waitUntilEnded(
  tasks: readonly { jobId: string; index: number }[],
  options: { client: SlurmClient; pollMs?: number; note?: (message: string) => void },
): Promise<void> {
  const deadline = Date.now() + CANCEL_WAIT_MS;
  for (const jobId of new Set(tasks.map((task) => task.jobId))) {
    const indices = tasks.filter((task) => task.jobId === jobId).map((task) => task.index);
    for (;;) {
      let states: Map<number, ArrayTaskState>;
      try {
        states = await options.client.taskStates(jobId);
      } catch {
        break;
      }
      const active = indices.filter((index) => ACTIVE_STATES.has(states.get(index)?.state ?? ""));
      if (active.length === 0) break;
      if (Date.now() > deadline) {
        options.note?.(
          `warning: Slurm tasks ${active.map((index) => `${jobId}_${index}`).join(", ")} ` +
            `still run after they were cancelled`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollMs ?? 1000, 500)));
    }
  }
}

/**
 * The message of a slot whose task ended without a row: a harness fault
 * (never the agent's) naming Slurm's state, its reason, the node and the
 * task's log; `TIMEOUT` names the time limit, which cut the slot before the
 * episode's own wall cap could (`slotTimeLimit` makes the limit longer).
 *
 * @param slot the task (job id and index) and its log
 * @param task its last state, or undefined when Slurm no longer lists it
 * @param timeLimitMinutes the slots' time limit
 * @returns the message
 */
export function endedWithoutRow(
  slot: { jobId: string; index: number; log: string },
  task: ArrayTaskState | undefined,
  timeLimitMinutes: number,
): string {
  const id = `Slurm task ${slot.jobId}_${slot.index}`;
  const log = `(its output: "${slot.log}")`;
  if (task === undefined) {
    return `${id} vanished: Slurm no longer lists it (cancelled while queued, or purged) and no ` +
      `row came back ${log}`;
  }
  const node = task.node === null ? "" : ` on node "${task.node}"`;
  const reason = task.reason === null || task.reason === "None" ? "" : ` (${task.reason})`;
  if (task.state === "TIMEOUT") {
    return `${id} reached its Slurm time limit of ${timeLimitMinutes} min${node} before ` +
      `the episode's row came back: the limit cut the slot, not the episode's own wall cap ${log}`;
  }
  return `${id} ended ${task.state}${reason}${node} before the episode's row came back ${log}`;
}
