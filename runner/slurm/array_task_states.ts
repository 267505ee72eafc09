/**
 * The state of each task of a job array, from `scontrol show job -o`.
 *
 * @module
 */
import { runSlurmCommand } from "./_run_slurm_command.ts";
import { type ArrayTaskState, parseArrayTaskStates } from "./parse_array_task_states.ts";
import { SlurmCommandError } from "./slurm_command_error.ts";

/** Options of {@linkcode arrayTaskStates}. */
export interface ArrayTaskStatesOptions {
  /** Kill `scontrol` after this many milliseconds (see `SLURM_COMMAND_DEADLINE_MS`). */
  deadlineMs?: number;
}

/**
 * Asks the controller for every task of job array `jobId` (`scontrol show
 * job -o <jobId>`, read by `parseArrayTaskStates`). Slurm keeps a finished
 * job for `MinJobAge` seconds (slurm.conf(5); 600 on the test cluster, 300
 * by default), then forgets it: a job id Slurm does not know (never
 * submitted, or purged) gives an empty map, not an error. A task absent
 * from a non-empty map was cancelled while it was pending (Slurm drops such
 * tasks from the array's pending record) or its record was purged.
 *
 * @example
 * ```ts ignore
 * const tasks = await arrayTaskStates(jobId);
 * const done = [...tasks.values()].every((t) => !["PENDING", "RUNNING"].includes(t.state));
 * ```
 *
 * @param jobId the array's job id, as `submitJobArray` returned it
 * @param options the deadline
 * @returns each task's state, reason, nodes, exit code and restarts, by task id
 * @throws {Error} when `jobId` is not a job id, or a record of it cannot be read
 * @throws {SlurmCommandError} when scontrol cannot run, misses its deadline or fails otherwise
 */
export async function arrayTaskStates(
  jobId: string,
  options: ArrayTaskStatesOptions = {},
): Promise<Map<number, ArrayTaskState>> {
  if (!/^\d{1,10}$/.test(jobId)) {
    throw new Error(`Cannot ask Slurm for job ${JSON.stringify(jobId)}: not a job id`);
  }
  try {
    const { stdout } = await runSlurmCommand("scontrol", ["show", "job", "-o", jobId], options);
    return parseArrayTaskStates(stdout, jobId);
  } catch (error) {
    // "slurm_load_jobs error: Invalid job id specified", exit status 1.
    if (
      error instanceof SlurmCommandError && error.code === "failed" &&
      /Invalid job id specified/.test(error.stderr)
    ) {
      return new Map();
    }
    throw error;
  }
}
