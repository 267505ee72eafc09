/**
 * Cancels a job array, or some of its tasks, with `scancel`.
 *
 * @module
 */
import { runSlurmCommand } from "./_run_slurm_command.ts";
import { MAX_ARRAY_TASK_ID } from "./parse_array_task_ids.ts";

/** Options of {@linkcode cancelJob}. */
export interface CancelJobOptions {
  /** Kill `scancel` after this many milliseconds (see `SLURM_COMMAND_DEADLINE_MS`). */
  deadlineMs?: number;
}

/**
 * Cancels job `jobId` (`scancel <jobId>`) or the given tasks of it
 * (`scancel <jobId>_[0-2,5]`). Slurm sends running tasks SIGTERM, then
 * SIGKILL after `KillWait` seconds; they end `CANCELLED`. A task cancelled
 * while pending never runs and leaves the array's records; see
 * `arrayTaskStates`. Cancelling a job that has finished or that Slurm does
 * not know is no error (scancel exits 0 and says nothing unless verbose),
 * so a cancel can be repeated. An empty `indices` cancels nothing.
 *
 * @example
 * ```ts ignore
 * await cancelJob(jobId, [3]);
 * await cancelJob(jobId);
 * ```
 *
 * @param jobId the array's job id, as `submitJobArray` returned it
 * @param indices only these task ids; the whole array (every task, pending
 *   or running) when absent
 * @param options the deadline
 * @throws {Error} when `jobId` is not a job id or an index is not a task id
 * @throws {SlurmCommandError} when scancel cannot run, misses its deadline or fails
 */
export async function cancelJob(
  jobId: string,
  indices?: readonly number[],
  options: CancelJobOptions = {},
): Promise<void> {
  if (!/^\d{1,10}$/.test(jobId)) {
    throw new Error(`Cannot cancel job ${JSON.stringify(jobId)}: not a job id`);
  }
  for (const index of indices ?? []) {
    if (!Number.isInteger(index) || index < 0 || index > MAX_ARRAY_TASK_ID) {
      throw new Error(`Cannot cancel task ${JSON.stringify(index)} of job ${jobId}: not a task id`);
    }
  }
  if (indices?.length === 0) return;
  const target = indices === undefined ? jobId : `${jobId}_[${idRanges(indices)}]`;
  await runSlurmCommand("scancel", [target], { deadlineMs: options.deadlineMs });
}

/** Task ids as Slurm's list of ranges: `[5, 0, 1, 2]` is `"0-2,5"`. */
function idRanges(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const first = sorted[i];
    while (sorted[i + 1] === sorted[i] + 1) i++;
    ranges.push(first === sorted[i] ? `${first}` : `${first}-${sorted[i]}`);
  }
  return ranges.join(",");
}
